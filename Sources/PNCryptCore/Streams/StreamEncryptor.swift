// Streamed encryption into the file formats (docs/formats.md section 3); the decryption is StreamDecryptor.swift.

import PNCryptBase

/// Encrypts a stream into a file format of docs/formats.md section 3, in constant memory.
///
/// - `legacy`: the ciphertext alone, under the fixed IV `0123456789012345` (what a CryptoModule whose legacy
///   cryptor has a static IV writes).
/// - `legacyRandomIV`: 16-byte random IV ‖ ciphertext (what SDK file sharing writes).
/// - `acrh`: `PNED` header ‖ one continuous CBC ciphertext.
/// `legacy33` has no file format. Empty streams cannot be encrypted (`emptyPlaintext`, in every format).
public final class StreamEncryptor: ByteStreamStage {
    private let cipher: StreamCipher
    private let prefix: [UInt8]
    private var started = false
    private var finished = false
    /// The file format written.
    public let scheme: Scheme
    private var plaintextCount = 0

    /// A stream encryptor for `scheme` with `key`; `iv` replaces the random IV (for test vectors only).
    /// - Throws: `invalidValue` for `legacy33`; `invalidIV`.
    public convenience init(key: CipherKey, scheme: Scheme, iv: [UInt8]? = nil) throws(PNCryptError) {
        try Self.checkFileFormat(scheme)
        try self.init(key: key, anyScheme: scheme, iv: iv)
    }

    /// A stream encryptor for any scheme, `legacy33` included (for text, which has no file format).
    package init(key: CipherKey, anyScheme scheme: Scheme, iv: [UInt8]?) throws(PNCryptError) {
        let startIV: [UInt8]
        if let given = try Cryptor.checkIV(iv, scheme: scheme) { startIV = given } else {
            startIV = try Backend.randomBytes(Cryptor.blockSize)
        }
        self.scheme = scheme
        prefix = Cryptor.prefix(iv: startIV, scheme: scheme)
        cipher = try StreamCipher(key: key, scheme: scheme, encrypting: true, iv: startIV)
    }

    /// Refuses a scheme without a file format (`legacy33`).
    static func checkFileFormat(_ scheme: Scheme?) throws(PNCryptError) {
        guard let scheme, !scheme.row.hasFileFormat else { return }
        throw PNCryptError(.invalidValue, "\(scheme) has no file format: use \(Scheme.fileFormatNames(or: "or"))")
    }

    /// Encrypts `input`, writing the header or IV first, then whole blocks as they are ready.
    /// - Throws: `invalidValue` after `finish`.
    public func update(_ input: UnsafeRawBufferPointer,
                       _ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream encryptor has already finished") }
        try emitPrefix(sink)
        plaintextCount += input.count
        try cipher.update(input, sink)
    }

    /// Pads and writes the last block. A stream with no data is refused (`emptyPlaintext`).
    /// - Throws: `invalidValue` when called twice.
    public func finish(_ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream encryptor has already finished") }
        finished = true
        try Cryptor.checkNotEmpty(plaintextCount, scheme: scheme, allowEmpty: false)
        try emitPrefix(sink)
        try cipher.finish(sink)
    }

    private func emitPrefix(_ sink: ByteSink) throws(PNCryptError) {
        guard !started else { return }
        started = true
        try withBytes(prefix, sink)
    }
}
