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
/// - `legacyRandomIV` (and `legacy`: streams always use a random IV, as every SDK does): 16-byte IV ‖ ciphertext.
/// - `acrh`: `PNED` header ‖ one continuous CBC ciphertext.
/// `legacy33` has no file format.
public final class StreamEncryptor: ByteStreamStage {
    private let context: AESCBCContext
    private let prefix: [UInt8]
    private var started = false
    private var finished = false
    private var buffer: [UInt8] = []
    /// The file format actually written: `legacyRandomIV` or `acrh`.
    public let scheme: Scheme
    private var plaintextCount = 0

    /// A stream encryptor for `scheme` with `key`; `iv` replaces the random IV (for test vectors only).
    /// - Throws: `invalidValue` for `legacy33`; `invalidIV`.
    public init(key: CipherKey, scheme: Scheme, iv: [UInt8]? = nil) throws(PNCryptError) {
        let fileScheme: Scheme
        switch scheme {
        case .legacy, .legacyRandomIV: fileScheme = .legacyRandomIV
        case .acrh: fileScheme = .acrh
        case .legacy33: throw PNCryptError(.invalidValue, "legacy33 has no file format: use legacy-random-iv or acrh")
        }
        let iv = try CryptoModule.resolveIV(iv, scheme: fileScheme)
        self.scheme = fileScheme
        prefix = fileScheme == .acrh ? CryptorHeader(metadata: iv).encoded() : iv
        context = key.pool(fileScheme, encrypting: true).makeContext()
        let ok = iv.withUnsafeBytes { context.start(iv: $0) }
        guard ok else { throw PNCryptError(.encryptionFailed, "the AES cipher could not be initialised") }
    }

    /// Encrypts `input`, writing the header or IV first, then whole blocks as they are ready.
    public func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream encryptor has already finished") }
        try emitPrefix(sink)
        plaintextCount += input.count
        try runCipher(context, input, &buffer, sink, PNCryptError(.encryptionFailed, "the AES cipher failed"))
    }

    /// Pads and writes the last block. `acrh` refuses a stream with no data (`emptyPlaintext`).
    public func finish(_ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream encryptor has already finished") }
        finished = true
        if scheme == .acrh && plaintextCount == 0 {
            throw PNCryptError(.emptyPlaintext, "cannot encrypt empty data with acrh (nothing to encrypt)")
        }
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
/// With `scheme` nil the format is read from the data: a `PNED` header selects `acrh`, anything else is the
/// legacy random-IV format. Plaintext is written as it is decrypted, except the last block, which is held back
/// until `finish` checks the padding: a caller that must not release unverified plaintext writes to a
/// temporary place and keeps it only when `finish` succeeds. Its plaintext buffer is wiped when it is released.
public final class StreamDecryptor: ByteStreamStage {
    private let key: CipherKey
    private let expected: Scheme?
    private var context: AESCBCContext?
    private var head: [UInt8] = []
    private var buffer: [UInt8] = []
    private var ciphertextCount = 0
    private var plaintextCount = 0
    private var finished = false
    /// The format found (or required): `legacyRandomIV` or `acrh`; nil until enough bytes were read.
    public private(set) var scheme: Scheme?

    /// A stream decryptor with `key`; `scheme` nil detects the format, otherwise only that format is read
    /// (`legacy` means the legacy random-IV file format).
    /// - Throws: `invalidValue` for `legacy33`, which has no file format.
    deinit { OpenSSL.cleanse(&buffer) }

    public init(key: CipherKey, scheme: Scheme? = nil) throws(PNCryptError) {
        self.key = key
        switch scheme {
        case nil: expected = nil
        case .legacy, .legacyRandomIV: expected = .legacyRandomIV
        case .acrh: expected = .acrh
        case .legacy33: throw PNCryptError(.invalidValue, "legacy33 has no file format: use legacy-random-iv or acrh")
        }
    }

    /// Decrypts `input`, reading the IV or header first; the last block waits for `finish`.
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
        try CryptoModule.checkBlocks(ciphertextCount, scheme: scheme, afterHeader: scheme == .acrh)
        try finishCipher(context, &buffer, { (b) throws(PNCryptError) in
            plaintextCount += b.count
            try sink(b)
        }, CryptoModule.badPadding(scheme))
        if scheme == .acrh && plaintextCount == 0 {
            throw PNCryptError(.wrongKeyOrCorrupt, "acrh data decrypted to empty plaintext (SPEC section 2 rule 5)")
        }
    }

    private func decryptChunk(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard let context, let scheme else { return }
        try runCipher(context, input, &buffer, { (b) throws(PNCryptError) in
            plaintextCount += b.count
            try sink(b)
        }, CryptoModule.badPadding(scheme))
    }

    /// Reads the IV or header from `head`; returns the number of bytes it occupies, or nil if more are needed.
    private func readPrefix(final: Bool) throws(PNCryptError) -> Int? {
        var iv: [UInt8]
        var used: Int
        let looksLikeHeader = head.count >= 4 && head[0..<4].elementsEqual(CryptorHeader.sentinel)
        if expected == .acrh || (expected == nil && (looksLikeHeader || (head.count < 4 && !final
            && CryptorHeader.sentinel.starts(with: head)))) {
            let parsed: (header: CryptorHeader, length: Int)?
            do {
                parsed = try CryptorHeader.parse(head)
            } catch where error.code == .malformedHeader && !final {
                return nil
            }
            guard let (header, length) = parsed else {
                if head.count < 4 && !final { return nil }
                if expected == .acrh {
                    throw PNCryptError(.malformedHeader, head.isEmpty ? "empty input: no PNED header"
                                       : "no PNED header: this is not acrh data", offset: 0)
                }
                return try legacyPrefix(final: final)
            }
            guard try CryptoModule.cryptor(for: header, explicit: expected) == .acrh else {
                // The legacy cryptor's id: the legacy file format follows the header.
                return try legacyPrefix(final: final, after: length)
            }
            scheme = .acrh
            iv = header.metadata
            used = length
        } else {
            guard let n = try legacyPrefix(final: final) else { return nil }
            return n
        }
        try start(iv: &iv)
        return used
    }

    private func legacyPrefix(final: Bool, after offset: Int = 0) throws(PNCryptError) -> Int? {
        guard head.count >= offset + 16 else {
            if final {
                throw PNCryptError(.wrongKeyOrCorrupt, "\(head.count - offset) bytes is too short for the legacy"
                                   + " file format (16-byte IV, then ciphertext)")
            }
            return nil
        }
        scheme = .legacyRandomIV
        var iv = Array(head[offset..<offset + 16])
        try start(iv: &iv)
        return offset + 16
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
