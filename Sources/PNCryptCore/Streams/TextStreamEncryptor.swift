import PNCryptBase

/// Encrypts a stream into Base64 text, in constant memory: the same text as `CryptoModule.encrypt(_:scheme:iv:)`
/// of the whole stream (without a line break), in every scheme, `legacy33` included.
///
/// ```swift
/// let stage = try TextStreamEncryptor(key: CipherKey("enigma"), scheme: .acrh)
/// let text = try stage.update(chunk) + stage.finish()
/// ```
package final class TextStreamEncryptor: ByteStreamStage {
    private let encryptor: StreamEncryptor
    private let encoder = Base64StreamEncoder()
    private var finished = false
    /// The scheme written.
    package var scheme: Scheme { encryptor.scheme }

    /// A text encryptor for `scheme` with `key`; `iv` replaces the random IV (for test vectors only).
    /// - Parameters:
    ///   - key: the cipher key.
    ///   - scheme: the scheme to write.
    ///   - iv: 16 bytes instead of a random IV; `legacy` and `legacy33` accept only their fixed IV.
    /// - Throws: `invalidIV`.
    package init(key: CipherKey, scheme: Scheme = .defaultForWriting, iv: [UInt8]? = nil) throws(PNCryptError) {
        encryptor = try StreamEncryptor(key: key, anyScheme: scheme, iv: iv)
    }

    /// Encrypts `input`, writing the Base64 of the header or IV and of whole blocks as they are ready.
    /// - Parameters:
    ///   - input: the next chunk of the stream.
    ///   - sink: receives the output.
    /// - Throws: `invalidValue` after `finish`; otherwise what `sink` throws.
    package func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the text encryptor has already finished") }
        guard input.count > 0 else { return }
        try encryptor.update(input) { (bytes) throws(PNCryptError) in try encoder.update(bytes, sink) }
    }

    /// Pads and writes the last block and the Base64 padding. A stream with no data is refused (`emptyPlaintext`)
    /// before anything is written.
    /// - Parameter sink: receives the last output.
    /// - Throws: `emptyPlaintext`; `invalidValue` when called twice; otherwise what `sink` throws.
    package func finish(_ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the text encryptor has already finished") }
        finished = true
        try encryptor.finish { (bytes) throws(PNCryptError) in try encoder.update(bytes, sink) }
        try encoder.finish(sink)
    }
}
