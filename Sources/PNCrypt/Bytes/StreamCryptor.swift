/// Where a stream stage writes its output: called with each produced chunk, valid only during the call.
public typealias ByteSink = (UnsafeRawBufferPointer) throws(PNCryptError) -> Void

/// One stage of a streamed pipeline (encrypt, decrypt, compress, ...): fed chunks, it writes chunks to a sink.
/// Stages hold constant memory whatever the stream's length.
public protocol ByteStreamStage: AnyObject {
    /// Processes `input`, writing whatever output is ready to `sink`.
    func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError)
    /// Ends the stream, writing the remaining output to `sink`. The stage cannot be used after: a further
    /// `update` or `finish` throws `invalidValue`.
    func finish(_ sink: ByteSink) throws(PNCryptError)
}

/// Encrypts a stream into a file format of SPEC section 3, in constant memory.
///
/// - `legacy`: the ciphertext alone, under the fixed IV `0123456789012345` (what a CryptoModule whose legacy
///   cryptor has a static IV writes).
/// - `legacyRandomIV`: 16-byte random IV ‖ ciphertext (what SDK file sharing writes).
/// - `acrh`: `PNED` header ‖ one continuous CBC ciphertext.
/// `legacy33` has no file format. Empty streams cannot be encrypted (`emptyPlaintext`, in every format).
public final class StreamEncryptor: ByteStreamStage {
    private let context: AESCBCContext
    private let prefix: [UInt8]
    private var started = false
    private var finished = false
    private var buffer: [UInt8] = []
    /// The file format written.
    public let scheme: Scheme
    private var plaintextCount = 0

    /// A stream encryptor for `scheme` with `key`; `iv` replaces the random IV (for test vectors only).
    /// - Throws: `invalidValue` for `legacy33`; `invalidIV`.
    public init(key: CipherKey, scheme: Scheme, iv: [UInt8]? = nil) throws(PNCryptError) {
        guard scheme != .legacy33 else {
            throw PNCryptError(.invalidValue, "legacy33 has no file format: use legacy, legacy-random-iv or acrh")
        }
        let startIV: [UInt8]
        if let given = try Cryptor.checkIV(iv, scheme: scheme) { startIV = given } else {
            startIV = try OpenSSL.randomBytes(Cryptor.blockSize)
        }
        self.scheme = scheme
        prefix = Cryptor.prefix(iv: startIV, scheme: scheme)
        context = key.pool(scheme, encrypting: true).makeContext()
        let ok = startIV.withUnsafeBytes { context.start(iv: $0) }
        guard ok else { throw PNCryptError(.encryptionFailed, "the AES cipher could not be initialised") }
    }

    /// Encrypts `input`, writing the header or IV first, then whole blocks as they are ready.
    /// - Throws: `invalidValue` after `finish`.
    public func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream encryptor has already finished") }
        try emitPrefix(sink)
        plaintextCount += input.count
        try runCipher(context, input, &buffer, sink, PNCryptError(.encryptionFailed, "the AES cipher failed"))
    }

    /// Pads and writes the last block. A stream with no data is refused (`emptyPlaintext`).
    /// - Throws: `invalidValue` when called twice.
    public func finish(_ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream encryptor has already finished") }
        finished = true
        try Cryptor.checkNotEmpty(plaintextCount, scheme: scheme, allowEmpty: false)
        try emitPrefix(sink)
        try finishCipher(context, &buffer, sink, PNCryptError(.encryptionFailed, "the AES cipher failed"))
    }

    private func emitPrefix(_ sink: ByteSink) throws(PNCryptError) {
        guard !started else { return }
        started = true
        try withBytes(prefix, sink)
    }
}

/// Decrypts a stream in a file format of SPEC section 3, in constant memory.
///
/// With `scheme` nil the format is read from the data: a `PNED` header selects `acrh`; headerless data is read as
/// `legacyScheme` (`legacyRandomIV` by default: what SDK file sharing writes; `legacy` for files written with the
/// fixed IV). Nothing in headerless data says which it is: for files of 3 or more blocks both readings have valid
/// padding, so only the caller can decide. Plaintext is written as it is decrypted, except the last block, held
/// back until `finish` checks the padding (in constant time): a caller that must not release unverified plaintext
/// writes to a temporary place and keeps it only when `finish` succeeds. Its buffers are wiped when released.
public final class StreamDecryptor: ByteStreamStage {
    private let key: CipherKey
    private let expected: Scheme?
    private let legacyScheme: Scheme
    private var context: AESCBCContext?
    private var head: [UInt8] = []
    private var buffer: [UInt8] = []
    /// The last decrypted block, held back until `finish` has checked its padding.
    private var last = [UInt8](repeating: 0, count: 16)
    private var lastCount = 0
    private var ciphertextCount = 0
    private var finished = false
    /// The format found (or required): `legacy`, `legacyRandomIV` or `acrh`; nil until enough bytes were read.
    public private(set) var scheme: Scheme?

    deinit {
        OpenSSL.cleanse(&buffer)
        OpenSSL.cleanse(&last)
    }

    /// A stream decryptor with `key`; `scheme` nil detects a header and reads headerless data as `legacyScheme`
    /// (`acrh`: refused, as by a module with no legacy cryptor), otherwise only that format is read.
    /// - Throws: `invalidValue` for `legacy33`, which has no file format, or a `legacyScheme` that is not legacy.
    public init(key: CipherKey, scheme: Scheme? = nil, legacyScheme: Scheme = .legacyRandomIV) throws(PNCryptError) {
        self.key = key
        guard scheme != .legacy33 else {
            throw PNCryptError(.invalidValue, "legacy33 has no file format: use legacy, legacy-random-iv or acrh")
        }
        guard legacyScheme != .legacy33 else {
            throw PNCryptError(.invalidValue, "the legacy scheme of a file is legacy, legacy-random-iv or acrh (none)")
        }
        expected = scheme
        self.legacyScheme = legacyScheme
    }

    /// The most a file's format needs to be known from its first bytes: the longest `PNED` header and one block.
    public static let headLength = 12 + 65535 + 16

    /// Whether `key` gives valid padding for a file, checked on its final two blocks alone (CBC allows it), so the
    /// key for a file can be chosen before the whole of it is streamed.
    ///
    /// - Parameters:
    ///   - head: the file's first bytes (`headLength`, or the whole file when shorter): they hold its header or IV.
    ///   - tail: the file's last 32 bytes (or the whole file when shorter).
    ///   - length: the file's length.
    ///   - scheme, legacyScheme: as `init(key:scheme:legacyScheme:)`.
    /// - Returns: the file format and whether the padding is valid.
    /// - Throws: the format errors `finish` would give (a header cut short, an unknown cryptor, no whole blocks).
    public static func checkPadding(key: CipherKey, head: [UInt8], tail: [UInt8], length: Int, scheme: Scheme? = nil,
                                    legacyScheme: Scheme = .legacyRandomIV) throws(PNCryptError)
        -> (scheme: Scheme, valid: Bool) {
        // The format and where the ciphertext starts, from the head alone.
        _ = try StreamDecryptor(key: key, scheme: scheme, legacyScheme: legacyScheme)
        guard let (found, fileIV, start) = try Cryptor.streamStart(of: head, final: true, scheme: scheme,
                                                                   legacyScheme: legacyScheme) else {
            throw PNCryptError(.wrongKeyOrCorrupt, "the file ended before its IV or header")
        }
        let bodyCount = length - start
        try Cryptor.checkBlocks(bodyCount, scheme: found)
        guard tail.count >= min(32, length) else {
            throw PNCryptError(.invalidValue, "checkPadding needs the file's last 32 bytes")
        }
        // The last block decrypts with the block before it as its IV; with one block, with the file's IV.
        let iv = if bodyCount >= 32 {
            Array(tail[(tail.count - 32)..<(tail.count - 16)])
        } else if let fileIV {
            Array(head[fileIV])
        } else {
            Cryptor.fixedIV
        }
        let context = key.pool(found, encrypting: false).makeContext()
        var block = [UInt8](repeating: 0, count: 32)
        defer { OpenSSL.cleanse(&block) }
        let last = Array(tail.suffix(16))
        let written = iv.withUnsafeBytes { ivBytes in
            guard context.start(iv: ivBytes) else { return Int?.none }
            return last.withUnsafeBytes { input in block.withUnsafeMutableBytes { context.update(input, into: $0.baseAddress!) } }
        }
        guard written == 16 else { return (found, false) }
        return (found, block.withUnsafeBytes { PKCS7.unpad(UnsafeRawBufferPointer(rebasing: $0[0..<16])).valid })
    }

    /// Decrypts `input`, reading the IV or header first; the last block waits for `finish`.
    /// - Throws: `invalidValue` after `finish`.
    public func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream decryptor has already finished") }
        guard context == nil else {
            ciphertextCount += input.count
            return try decryptChunk(input, sink)
        }
        // Until the IV or header is complete, collect bytes (at most one header: 12 + 65535 bytes).
        head.append(contentsOf: input)
        guard let used = try readPrefix(final: false) else { return }
        let rest = Array(head[used...])
        head = []
        ciphertextCount += rest.count
        try withBytes(rest) { (b) throws(PNCryptError) in try decryptChunk(b, sink) }
    }

    /// Checks the padding and writes the last plaintext bytes; throws when the stream is cut short or corrupt.
    /// - Throws: `CryptoModule.decryptionFailed` for a wrong key or corrupt data; `invalidValue` when called twice.
    public func finish(_ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream decryptor has already finished") }
        finished = true
        if context == nil {
            // Throws: the stream ended inside the IV or header.
            _ = try readPrefix(final: true)
        }
        guard let context, let scheme else {
            throw PNCryptError(.wrongKeyOrCorrupt, "the stream ended before its IV or header")
        }
        try Cryptor.checkBlocks(ciphertextCount, scheme: scheme)
        try finishCipher(context, &buffer, { (b) throws(PNCryptError) in try hold(b, sink) },
                         CryptoModule.decryptionFailed)
        let opened = last.withUnsafeBytes { PKCS7.unpad(UnsafeRawBufferPointer(rebasing: $0[0..<lastCount])) }
        guard opened.valid else {
            OpenSSL.cleanse(&last)
            throw CryptoModule.decryptionFailed
        }
        if opened.count > 0 { try withBytes(last[0..<opened.count], sink) }
        OpenSSL.cleanse(&last)
    }

    private func decryptChunk(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard let context else { return }
        try runCipher(context, input, &buffer, { (b) throws(PNCryptError) in try hold(b, sink) },
                      CryptoModule.decryptionFailed)
    }

    /// Writes all of `output` but its last block, which replaces the block held back so far.
    private func hold(_ output: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard output.count >= 16 else { return }
        if lastCount > 0 { try withBytes(last[0..<lastCount], sink) }
        if output.count > 16 { try sink(UnsafeRawBufferPointer(rebasing: output[0..<(output.count - 16)])) }
        last.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: output[(output.count - 16)...])) }
        lastCount = 16
    }

    /// Reads the IV or header from `head`; returns the number of bytes it occupies, or nil if more are needed.
    private func readPrefix(final: Bool) throws(PNCryptError) -> Int? {
        guard let (found, ivRange, start) = try Cryptor.streamStart(of: head, final: final, scheme: expected,
                                                                    legacyScheme: legacyScheme) else { return nil }
        scheme = found
        var iv = ivRange.map { Array(head[$0]) } ?? Cryptor.fixedIV
        try self.start(iv: &iv)
        return start
    }

    private func start(iv: inout [UInt8]) throws(PNCryptError) {
        guard let scheme else { return }
        let context = key.pool(scheme, encrypting: false).makeContext()
        guard iv.withUnsafeBytes({ context.start(iv: $0) }) else {
            throw PNCryptError(.wrongKeyOrCorrupt, "the AES cipher could not be initialised")
        }
        self.context = context
    }
}

/// Runs `input` through `context`, writing the output to `sink` through the reusable `buffer`.
private func runCipher(_ context: AESCBCContext, _ input: UnsafeRawBufferPointer, _ buffer: inout [UInt8],
                       _ sink: ByteSink, _ failure: @autoclosure () -> PNCryptError) throws(PNCryptError) {
    let piece = 1 << 20
    var offset = 0
    while offset < input.count {
        let n = min(piece, input.count - offset)
        if buffer.count < n + 32 {
            OpenSSL.cleanse(&buffer)
            buffer = [UInt8](repeating: 0, count: max(n, 64 * 1024) + 32)
        }
        let written = buffer.withUnsafeMutableBytes { out in
            context.update(UnsafeRawBufferPointer(rebasing: input[offset..<offset + n]), into: out.baseAddress!)
        }
        guard let written else { throw failure() }
        if written > 0 { try withBytes(buffer[0..<written], sink) }
        offset += n
    }
}

/// Finishes `context`, writing the last block (if any) to `sink`.
private func finishCipher(_ context: AESCBCContext, _ buffer: inout [UInt8], _ sink: ByteSink,
                          _ failure: @autoclosure () -> PNCryptError) throws(PNCryptError) {
    if buffer.count < 32 { buffer = [UInt8](repeating: 0, count: 32) }
    let written = buffer.withUnsafeMutableBytes { context.finish(into: $0.baseAddress!) }
    guard let written else { throw failure() }
    if written > 0 { try withBytes(buffer[0..<written], sink) }
    OpenSSL.cleanse(&buffer)
}
