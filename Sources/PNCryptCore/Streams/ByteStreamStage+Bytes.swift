// The one streaming shape, for any bytes: every `ByteStreamStage` (encryptors, decryptors, text and Base64
// stages, gzip, message streams) takes a collection of bytes and hands back arrays the same way. The hot path
// (`StreamPipeline`, `StageChain`) calls the protocol's own `update(_:_:)` with buffer pointers; these only
// lend a collection's storage to it (`withBytes`: no copy for an array or a slice of one).

import PNCryptBase

extension ByteStreamStage {
    /// Processes `chunk` (an array, a slice, `Data`, ...), writing whatever output is ready to `sink`.
    /// - Parameters:
    ///   - chunk: the next bytes of the stream, lent for the call.
    ///   - sink: called with each produced piece, valid only during that call.
    public func update(_ chunk: some Collection<UInt8>,
                       _ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        try withBytes(chunk) { (bytes) throws(PNCryptError) in try update(bytes, sink) }
    }

    /// Processes `chunk` and returns the output that is ready (often empty: a stage may hold bytes back).
    /// - Parameter chunk: the next bytes of the stream.
    public func update(_ chunk: some Collection<UInt8>) throws(PNCryptError) -> [UInt8] {
        var result: [UInt8] = []
        try update(chunk) { (piece) throws(PNCryptError) in result.append(contentsOf: piece) }
        return result
    }

    /// Ends the stream and returns the remaining output (`finish(_:)` into an array). The stage cannot be used
    /// after: a further `update` or `finish` throws `invalidValue`.
    @discardableResult
    public func finish() throws(PNCryptError) -> [UInt8] {
        var result: [UInt8] = []
        try finish { (piece) throws(PNCryptError) in result.append(contentsOf: piece) }
        return result
    }
}
