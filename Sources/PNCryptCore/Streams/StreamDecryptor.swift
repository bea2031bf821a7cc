// Streamed decryption of the file formats (docs/formats.md section 3); the encryption is StreamEncryptor.swift.

import PNCryptBase

/// Decrypts a stream in a file format of docs/formats.md section 3, in constant memory.
///
/// Unless `reading` is `.only`, the format is read from the data: a `PNED` header selects `acrh`; headerless data is
/// read as `.headerlessAs` says, else by the headerless rule for files (docs/formats.md section 1): `legacy` when the
/// fixed-IV reading's first block is text, otherwise `legacy-random-iv`, the format SDK file sharing writes (for files
/// of two blocks or more both readings have valid padding; a binary file written with the fixed IV must be read with
/// `.headerlessAs(.legacy)`). `scheme` says which was read. Plaintext is written as it is decrypted, except the last
/// block, held back until `finish` checks the padding (in constant time): a caller that must not release unverified
/// plaintext writes to a temporary place and keeps it only when `finish` succeeds. Its buffers are wiped when released.
public final class StreamDecryptor: ByteStreamStage {
    private let key: CipherKey
    private let policy: ReadPolicy
    private var cipher: StreamCipher?
    private var head: [UInt8] = []
    private var ciphertextCount = 0
    private var finished = false
    /// The format found (or required): `legacy`, `legacyRandomIV` or `acrh`; nil until enough bytes were read.
    public private(set) var scheme: Scheme?

    /// A stream decryptor with `key` that reads as `reading` says (`ReadPolicy`; `.headerlessAs(.acrh)`:
    /// headerless data refused, as by a module with no legacy cryptor).
    /// - Throws: `invalidValue` for `legacy33` (`.only` or `.headerlessAs`), which has no file format, and for a list
    ///   of readings (`anyOf`): a file is read as one format.
    public init(key: CipherKey, reading: ReadPolicy = .rule) throws(PNCryptError) {
        try Self.checkFormats(reading)
        self.key = key
        policy = reading
    }

    private static func checkFormats(_ policy: ReadPolicy) throws(PNCryptError) {
        if let list = policy.list {
            throw PNCryptError(.invalidValue, "a file (--binary) is read as one format, not the list \(list):"
                               + " name one scheme, or auto")
        }
        try StreamEncryptor.checkFileFormat(policy.scheme)
        guard policy.legacyScheme?.row.hasFileFormat ?? true else {
            throw PNCryptError(.invalidValue, "the legacy scheme of a file is \(Scheme.fileFormatNames(or: "or"))"
                               + " (none)")
        }
    }

    /// The most a file's format needs to be known from its first bytes: the longest `PNED` header and one block.
    package static let headLength = CryptorHeader.maximumFixedLength + Int(UInt16.max) + Cryptor.blockSize

    /// Whether `key` gives valid padding for a file, checked on its final two blocks alone (CBC allows it), so the
    /// key for a file can be chosen before the whole of it is streamed.
    ///
    /// - Parameters:
    ///   - key: the key to check.
    ///   - head: the file's first bytes (`headLength`, or the whole file when shorter): they hold its header or IV.
    ///   - tail: the file's last 32 bytes (or the whole file when shorter).
    ///   - length: the file's length.
    ///   - reading: as in `init(key:reading:)`.
    /// - Returns: the file format and whether the padding is valid.
    /// - Throws: the format errors `finish` would give (a header cut short, an unknown cryptor, no whole blocks).
    package static func checkPadding(key: CipherKey, head: [UInt8], tail: [UInt8], length: Int,
                                     reading policy: ReadPolicy = .rule) throws(PNCryptError)
        -> (scheme: Scheme, valid: Bool) {
        try checkFormats(policy)
        // The format and where the ciphertext starts, from the head alone (and the file's length, for the
        // headerless rule).
        guard let (found, fileIV, start) = try Cryptor.streamStart(
            of: head, final: true, reading: policy,
            headerless: { block, offset in
                StreamCipher.headerlessFileScheme(key: key, firstBlock: block,
                                                  blocks: (length - offset) / Cryptor.blockSize)
            }) else {
            throw PNCryptError(.wrongKeyOrCorrupt, "the file ended before its IV or header")
        }
        let bodyCount = length - start
        try Cryptor.checkBlocks(bodyCount, after: found.row.iv)
        let block = Cryptor.blockSize
        guard tail.count >= min(2 * block, length) else {
            throw PNCryptError(.invalidValue, "checkPadding needs the file's last 32 bytes")
        }
        // The last block decrypts with the block before it as its IV; with one block, with the file's IV.
        let iv = if bodyCount >= 2 * block {
            Array(tail[(tail.count - 2 * block)..<(tail.count - block)])
        } else if let fileIV {
            Array(head[fileIV])
        } else {
            Cryptor.fixedIV
        }
        return (found, StreamCipher.lastBlockIsPadded(key: key, scheme: found, iv: iv, lastBlock: tail.suffix(block)))
    }

    /// Decrypts `input`, reading the IV or header first; the last block waits for `finish`.
    /// - Throws: `invalidValue` after `finish`.
    public func update(_ input: UnsafeRawBufferPointer,
                       _ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream decryptor has already finished") }
        if let cipher {
            ciphertextCount += input.count
            return try cipher.update(input, sink)
        }
        // Until the IV or header is complete, collect bytes (at most one header: 12 + 65535 bytes).
        head.append(contentsOf: input)
        guard let used = try readPrefix(final: false), let cipher else { return }
        let rest = Array(head[used...])
        head = []
        ciphertextCount += rest.count
        try withBytes(rest) { (b) throws(PNCryptError) in try cipher.update(b, sink) }
    }

    /// Checks the padding and writes the last plaintext bytes; throws when the stream is cut short or corrupt.
    /// - Throws: `CryptoModule.decryptionFailed` for a wrong key or corrupt data; `invalidValue` when called twice.
    public func finish(_ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the stream decryptor has already finished") }
        finished = true
        if cipher == nil {
            // Throws: the stream ended inside the IV or header.
            _ = try readPrefix(final: true)
        }
        guard let cipher, let scheme else {
            throw PNCryptError(.wrongKeyOrCorrupt, "the stream ended before its IV or header")
        }
        try Cryptor.checkBlocks(ciphertextCount, after: scheme.row.iv)
        try cipher.finish(sink)
    }

    /// Reads the IV or header from `head` and starts the cipher; returns the number of bytes they occupy, or nil
    /// when more are needed.
    private func readPrefix(final: Bool) throws(PNCryptError) -> Int? {
        let (key, head) = (self.key, self.head)
        guard let (found, ivRange, start) = try Cryptor.streamStart(
            of: head, final: final, reading: policy,
            headerless: { block, offset in
                StreamCipher.headerlessFileScheme(key: key, firstBlock: block,
                                                  blocks: final ? (head.count - offset) / Cryptor.blockSize : 2)
            }) else { return nil }
        scheme = found
        let iv = ivRange.map { Array(head[$0]) } ?? Cryptor.fixedIV
        cipher = try StreamCipher(key: key, scheme: found, encrypting: false, iv: iv)
        return start
    }
}
