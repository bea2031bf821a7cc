// The one streaming shape of every stage (encryption, decryption, compression): chunks in, chunks to a sink.

import PNCryptBase

/// Where a stream stage writes its output: called with each produced chunk, valid only during the call (the
/// package's name for the sink closure of `ByteStreamStage`; public signatures spell the type out).
///
/// A buffer pointer, not an array: a stage hands out pieces of its own buffer without a copy per chunk (the public
/// API's one kind of exception to "no unsafe types": the pointer is borrowed for the call and must not escape it).
package typealias ByteSink = (UnsafeRawBufferPointer) throws(PNCryptError) -> Void

/// One stage of a streamed pipeline (encrypt, decrypt, compress, ...): fed chunks, it writes chunks to a sink.
/// Stages hold constant memory whatever the stream's length. Chunks in and out are borrowed buffer pointers: the
/// sink is called with each produced chunk, valid only during the call (the pointer must not escape it).
public protocol ByteStreamStage: AnyObject {
    /// Processes `input`, writing whatever output is ready to `sink`.
    func update(_ input: UnsafeRawBufferPointer,
                _ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError)
    /// Ends the stream, writing the remaining output to `sink`. The stage cannot be used after: a further
    /// `update` or `finish` throws `invalidValue`.
    func finish(_ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError)
}
