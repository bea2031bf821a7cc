import PNCryptBase

/// Base64 encoding as a stream stage: the same text as `Base64.encode(_:)` of the whole stream, in constant
/// memory (groups of 3 bytes are carried across chunks; the padding is written by `finish`). The loops are in
/// Base64StreamImpl.swift.
package final class Base64StreamEncoder: ByteStreamStage {
    private let engine = Base64EncodingEngine()

    /// A new encoder.
    package init() {}

    /// Encodes the whole groups of 3 bytes that `input` completes.
    /// - Parameters:
    ///   - input: the next chunk of the stream.
    ///   - sink: receives the output.
    /// - Throws: `invalidValue` after `finish`; otherwise what `sink` throws.
    package func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        try engine.update(input, sink)
    }

    /// Encodes the bytes carried over, with `=` padding.
    /// - Parameter sink: receives the last output.
    /// - Throws: `invalidValue` when called twice; otherwise what `sink` throws.
    package func finish(_ sink: ByteSink) throws(PNCryptError) {
        try engine.finish(sink)
    }
}

/// Base64 decoding as a stream stage: exactly the bytes `Base64.decode(_:)` gives for the whole stream, and exactly
/// its error (the same message and offset, counted from the start of the stream) for text it refuses, in
/// constant memory.
///
/// The lenient forms are those of `Base64`: white space at either end, one pair of JSON quotes around the text,
/// line breaks inside. Whether a quote or white space is allowed is known only once the stream has ended (it may
/// close the text), so some errors are thrown by `finish`. Bytes are written to the sink as they are decoded: the
/// output of a stream that fails is not the decoded text, and the caller throws it away.
package final class Base64StreamDecoder: ByteStreamStage {
    private let engine = Base64DecodingEngine()

    /// A new decoder.
    package init() {}

    /// Decodes `input`, writing the whole bytes decoded so far to `sink`.
    /// - Parameters:
    ///   - input: the next chunk of the stream.
    ///   - sink: receives the output.
    /// - Throws: `notBase64` (as `Base64.decode` would for the stream up to here); `invalidValue` after `finish`.
    package func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        try engine.update(input, sink)
    }

    /// Ends the stream: checks what waited for the end (quotes, white space, padding) and writes the last bytes.
    /// - Parameter sink: receives the last output.
    /// - Throws: `notBase64` as `Base64.decode` would for the whole stream; `invalidValue` when called twice.
    package func finish(_ sink: ByteSink) throws(PNCryptError) {
        try engine.finish(sink)
    }
}
