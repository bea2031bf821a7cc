import PNCryptBase

/// Encrypts and decrypts bytes with one cipherKey in the four schemes (docs/formats.md sections 1 and 2).
///
/// ```swift
/// let module = try CryptoModule(cipherKey: "enigma")            // writes acrh, reads any header or legacy
/// let sealed = try module.encrypt(Array("hello".utf8))          // Base64 of PNED 01 ACRH 10 <IV> <ciphertext>
/// let opened = try module.decrypt(sealed)                        // "hello": reads the header, picks the cryptor
/// let old = try module.encrypt(Array("yay!".utf8), scheme: .legacy)   // fixed IV: "q/xJqqN6qbiZMXYmiQC1Fw=="
/// let bytes = try module.encryptBinary(Array("hello".utf8))     // the same without Base64 (files, raw bytes)
/// ```
///
/// `decrypt(_:)` (the `PNCrypt` module's) reads text: Base64 in, the plaintext as a `String`, which must be valid
/// UTF-8; `decryptBytes(_:)` is the explicit choice for a binary plaintext. Both read as `reading` says
/// (`ReadPolicy`): by default a `PNED` header when there is one, and headerless data by the headerless rule over both
/// legacy readings (docs/formats.md section 1): as text, the rule tells a client's fixed-IV and random-IV messages
/// apart; as bytes, a fixed-IV reading whose first block is text is taken, and anything else of two blocks or more is
/// `ambiguous` (nothing in bytes tells the two apart: read text, messages with `MessageCrypto`, or set `reading` to
/// `.headerlessAs(.legacy)` or `.headerlessAs(.legacyRandomIV)`). Unless `reading` is `.only`, headerless data is
/// also read as the module's own scheme when it writes a headerless one (`scheme` `legacy`, `legacyRandomIV` or
/// `legacy33`, which then replaces the rule), so a module always reads its own output. The one decision procedure
/// chooses, as for `KeyRing`: the plaintext is returned only when exactly one reading qualifies; none is
/// `decryptionFailed`. With `.only`, exactly one format is read. CBC has no integrity check: with one reading a
/// wrong key passes the padding check about once in 256 tries and gives garbage as bytes (text and `MessageCrypto`
/// check more). `encryptBinary` and `decryptBinary` are the same without Base64. Errors follow docs/formats.md
/// section 2 (`PNCryptError.category`): encryption, decryption, or unknown cryptor. Thread-safe; keyed cipher
/// contexts are reused across calls.
public struct CryptoModule: Sendable {
    /// The key and its derived AES keys.
    package let key: CipherKey
    /// The scheme `encrypt(_:)` writes. Default `acrh`.
    public var scheme: Scheme
    /// How `decrypt(_:)` reads (`ReadPolicy`). Default `.rule`. Unless it is `.only`, data without a `PNED` header
    /// is also read as `scheme` when that is headerless (`.headerlessAs(.acrh)`, which refuses headerless data,
    /// then reads only the module's own scheme; with `.rule`, the module's own scheme replaces the rule).
    public var reading: ReadPolicy

    /// A module for `cipherKey`.
    /// - Throws: `invalidKey` when the key is empty.
    public init(cipherKey: String, scheme: Scheme = .defaultForWriting, reading: ReadPolicy = .rule)
        throws(PNCryptError) {
        self.init(key: try CipherKey(cipherKey), scheme: scheme, reading: reading)
    }

    /// A module for an already derived key (share one `CipherKey` between modules to share its contexts).
    public init(key: CipherKey, scheme: Scheme = .defaultForWriting, reading: ReadPolicy = .rule) {
        self.key = key
        self.scheme = scheme
        self.reading = reading
    }

    // MARK: Encrypt

    /// Encrypts `plaintext` and returns standard padded Base64: the text a message carries.
    ///
    /// - Parameters:
    ///   - plaintext: the bytes to encrypt (not empty).
    ///   - scheme: the scheme to write; nil is the module's `scheme`.
    ///   - iv: 16 bytes to use instead of a random IV (for deterministic test vectors). `legacy` and `legacy33`
    ///     accept only their fixed IV. Never reuse an IV for real data.
    /// - Throws: `emptyPlaintext` for empty input, in every scheme (docs/formats.md section 3); `invalidIV`.
    public func encrypt(_ plaintext: some Collection<UInt8>, scheme: Scheme? = nil, iv: [UInt8]? = nil)
        throws(PNCryptError) -> String {
        let text = try withBytes(plaintext) { (input) throws(PNCryptError) in
            try ReadingCipher.sealToBase64(input, with: key, scheme: scheme ?? self.scheme, iv: iv, quoted: false)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Encrypts `plaintext` and returns the bytes (as `encrypt(_:scheme:iv:)`, without the Base64).
    /// - Returns: `legacy`/`legacy33`: ciphertext; `legacyRandomIV`: IV ‖ ciphertext; `acrh`: header ‖ ciphertext.
    public func encryptBinary(_ plaintext: some Collection<UInt8>, scheme: Scheme? = nil, iv: [UInt8]? = nil)
        throws(PNCryptError) -> [UInt8] {
        try withBytes(plaintext) { (input) throws(PNCryptError) in
            try ReadingCipher.sealToBytes(input, with: key, scheme: scheme ?? self.scheme, iv: iv)
        }
    }

    // MARK: Decrypt

    /// Decodes Base64 text (lenient as `Base64.decode`) and decrypts it as bytes: the explicit choice for a binary
    /// plaintext. Text is read with `decrypt(_:reading:)` (the `PNCrypt` module's), whose rule also requires UTF-8
    /// and tells the two legacy readings of headerless text apart; as bytes, headerless data of two blocks or more
    /// whose fixed-IV first block is not text is `ambiguous` (name the scheme with `reading`).
    ///
    /// - Parameters:
    ///   - text: the Base64 text (whitespace and line breaks are skipped).
    ///   - reading: how to read, for this call; nil is the module's `reading` (exactly one of the readings it
    ///     allows must have valid padding).
    /// - Throws: `notBase64`; `unknownCryptor` for an unsupported header version or cryptor id; `malformedHeader`
    ///   for a header cut short; `decryptionFailed` when the cipher rejects the data (bad padding, not whole
    ///   blocks, empty); `ambiguous` when two readings have valid padding. Every failure that depends on the key is
    ///   the same error, with the same message (no padding oracle).
    public func decryptBytes(_ text: String, reading: ReadPolicy? = nil) throws(PNCryptError) -> [UInt8] {
        try decryptBinary(try Base64.decode(text), reading: reading)
    }

    /// Decodes Base64 text and decrypts it as `content` (`decrypt(_:reading:)` of the `PNCrypt` module with
    /// `.text`; `decryptBytes(_:reading:)` with `.bytes`); `check` says whether a plaintext is a message.
    package func decrypt(_ text: String, reading: ReadPolicy?, content: KeyRing.Content, check: ContentCheck)
        throws(PNCryptError) -> [UInt8] {
        let policy = reading ?? self.reading
        return try withBytes(try Base64.decode(text)) { (input) throws(PNCryptError) in
            try openToBytes(input, reading: policy, content: content, check: check)
        }
    }

    /// Decrypts bytes (as `decryptBytes(_:reading:)`, without the Base64).
    public func decryptBinary(_ data: some Collection<UInt8>, reading: ReadPolicy? = nil) throws(PNCryptError)
        -> [UInt8] {
        let policy = reading ?? self.reading
        return try withBytes(data) { (input) throws(PNCryptError) in try openToBytes(input, reading: policy) }
    }

    /// The scheme `decryptBinary(_:)` would use for `data`, after reading its header if it has one.
    package func detectScheme(_ data: some Collection<UInt8>) throws(PNCryptError) -> Scheme {
        let headerless = headerlessReading(reading) ?? Scheme.headerlessPair.fixed
        guard let (header, _) = try CryptorHeader.parse(data) else { return headerless }
        return try header.scheme(reading: nil) ?? headerless
    }

    /// The one error every key-dependent failure gives (bad padding, plaintext that is not UTF-8 or not a message
    /// where text was required): which check failed is not told, so it cannot serve as a padding oracle.
    /// `Diagnosis`, run with the key, explains in detail. (The error type's own constant, named here too.)
    public static let decryptionFailed = PNCryptError.decryptionFailed
}

extension CryptoModule {
    /// Decrypts `input` (as `decryptBinary(_:reading:)`, or as `content` with the content check `check`) into a new
    /// array.
    func openToBytes(_ input: UnsafeRawBufferPointer, reading policy: ReadPolicy, content: KeyRing.Content = .bytes,
                     check: ContentCheck = Decision.noContentCheck) throws(PNCryptError) -> [UInt8] {
        try makeBytes(capacity: input.count + Cryptor.blockSize) { (output) throws(PNCryptError) in
            try decrypt(input, reading: policy, content: content, check: check, into: output)
        }
    }

    /// Decrypts `input` (as `decryptBinary(_:reading:)`, or as `content` with the content check `check`) into
    /// `output`, which has room for `input.count + 16` bytes; returns the plaintext length. The readings are
    /// `readings(of:reading:)`'s, and the one decision procedure (`Decision`) chooses.
    package func decrypt(_ input: UnsafeRawBufferPointer, reading policy: ReadPolicy,
                         content: KeyRing.Content = .bytes, check: ContentCheck = Decision.noContentCheck,
                         into output: UnsafeMutableRawPointer)
        throws(PNCryptError) -> Int {
        let readings = try readings(of: input, reading: policy)
        // Bytes: no reading is asked whether it is a message (the check is never called).
        return try Decision.open(input, keys: [key], first: key, readings: readings, content: content,
                                 into: output, check: check).count
    }

    /// The readings `decrypt` tries under `policy`: with `.only`, that format alone; otherwise the `PNED` header's
    /// cryptor, and for headerless data the policy's headerless scheme (or the rule's two) and the module's own
    /// `scheme` when it is headerless (`legacy`, `legacy-random-iv`, `legacy33`); a list (`anyOf`), its readings.
    package func readings<C: Collection<UInt8>>(of input: C, reading policy: ReadPolicy) throws(PNCryptError)
        -> Cryptor.Readings where C.Index == Int {
        // A list of readings names every reading itself: the module's scheme adds none.
        if policy.list != nil { return try Cryptor.readings(of: input, reading: policy) }
        let policy = ReadPolicy(scheme: policy.scheme, legacyScheme: headerlessReading(policy))
        return try Cryptor.readings(of: input, reading: policy, also: scheme.hasHeader ? nil : scheme)
    }

    /// How headerless data is read under `policy`: its headerless scheme, else the module's own scheme when it is
    /// headerless, else nil (both legacy readings, the headerless rule).
    func headerlessReading(_ policy: ReadPolicy) -> Scheme? {
        policy.legacyScheme ?? (scheme.hasHeader ? nil : scheme)
    }
}
