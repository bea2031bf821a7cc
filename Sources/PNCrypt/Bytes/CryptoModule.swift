/// Encrypts and decrypts bytes with one cipherKey in the four schemes (SPEC sections 1 and 2).
///
/// ```swift
/// let module = try CryptoModule(cipherKey: "enigma")            // writes acrh, reads any header or legacy
/// let sealed = try module.encrypt(Array("hello".utf8))          // PNED 01 ACRH 10 <IV> <ciphertext>
/// let opened = try module.decrypt(sealed)                        // reads the header, picks the cryptor
/// let old = try module.encrypt(Array("yay!".utf8), scheme: .legacy)   // fixed IV: q/xJqqN6qbiZMXYmiQC1Fw==
/// ```
///
/// `decrypt(_:)` reads a `PNED` header when there is one and otherwise uses `legacyScheme`: nothing in
/// legacy data says whether it has a random IV, so the reader must be told. `decrypt(_:scheme:)` reads
/// exactly one format. Errors follow SPEC section 2 (`PNCryptError.category`): encryption, decryption, or
/// unknown cryptor. Thread-safe; keyed cipher contexts are reused across calls.
public struct CryptoModule: Sendable {
    /// The key and its derived AES keys.
    public let key: CipherKey
    /// The scheme `encrypt(_:)` writes. Default `acrh`.
    public var encryptionScheme: Scheme
    /// How `decrypt(_:)` reads data that has no `PNED` header: `legacy` (default), `legacyRandomIV` or
    /// `legacy33`. Setting `acrh` here means headerless data is refused.
    public var legacyScheme: Scheme

    /// The fixed IV of `legacy` and `legacy33`: ASCII `0123456789012345`.
    public static let fixedIV: [UInt8] = Array("0123456789012345".utf8)

    /// A module for `cipherKey`.
    /// - Throws: `invalidKey` when the key is empty.
    public init(cipherKey: String, encryptionScheme: Scheme = .acrh, legacyScheme: Scheme = .legacy)
        throws(PNCryptError) {
        self.init(key: try CipherKey(cipherKey), encryptionScheme: encryptionScheme, legacyScheme: legacyScheme)
    }

    /// A module for an already derived key (share one `CipherKey` between modules to share its contexts).
    public init(key: CipherKey, encryptionScheme: Scheme = .acrh, legacyScheme: Scheme = .legacy) {
        self.key = key
        self.encryptionScheme = encryptionScheme
        self.legacyScheme = legacyScheme
    }

    // MARK: Encrypt

    /// Encrypts `plaintext` with `encryptionScheme` and a fresh random IV where the scheme has one.
    public func encrypt(_ plaintext: some Collection<UInt8>) throws(PNCryptError) -> [UInt8] {
        try encrypt(plaintext, scheme: encryptionScheme)
    }

    /// Encrypts `plaintext` in `scheme`.
    ///
    /// - Parameter iv: 16 bytes to use instead of a random IV (for deterministic test vectors). `legacy` and
    ///   `legacy33` accept only their fixed IV. Never reuse an IV for real data.
    /// - Returns: `legacy`/`legacy33`: ciphertext; `legacyRandomIV`: IV ‖ ciphertext; `acrh`: header ‖ ciphertext.
    /// - Throws: `emptyPlaintext` for empty `acrh` input (SPEC section 2 rule 5); `invalidIV`.
    public func encrypt(_ plaintext: some Collection<UInt8>, scheme: Scheme, iv: [UInt8]? = nil)
        throws(PNCryptError) -> [UInt8] {
        try withBytes(plaintext) { (buffer) throws(PNCryptError) in try encryptBytes(buffer, scheme: scheme, iv: iv) }
    }

    /// Encrypts and returns standard padded Base64 (the text a message carries).
    public func encryptToBase64(_ plaintext: some Collection<UInt8>, scheme: Scheme? = nil, iv: [UInt8]? = nil)
        throws(PNCryptError) -> String {
        Base64.encode(try encrypt(plaintext, scheme: scheme ?? encryptionScheme, iv: iv))
    }

    func encryptBytes(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv explicitIV: [UInt8]?)
        throws(PNCryptError) -> [UInt8] {
        let iv = try Self.resolveIV(explicitIV, scheme: scheme)
        var prefix: [UInt8] = []
        switch scheme {
        case .legacy, .legacy33: break
        case .legacyRandomIV: prefix = iv
        case .acrh:
            guard input.count > 0 else {
                throw PNCryptError(.emptyPlaintext, "cannot encrypt empty data with acrh (nothing to encrypt)")
            }
            prefix = CryptorHeader(metadata: iv).encoded()
        }
        let capacity = prefix.count + input.count + 16
        let pool = key.pool(scheme, encrypting: true)
        var failed = false
        let out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            prefix.withUnsafeBytes { raw.copyMemory(from: $0) }
            let n = iv.withUnsafeBytes { ivBytes in
                pool.withContext { $0.run(iv: ivBytes, input: input, output: raw, prefix: prefix.count) }
            }
            if let n { initialized = n } else { failed = true; initialized = 0 }
        }
        guard !failed else { throw PNCryptError(.encryptionFailed, "the AES cipher failed to encrypt") }
        return out
    }

    static func resolveIV(_ iv: [UInt8]?, scheme: Scheme) throws(PNCryptError) -> [UInt8] {
        switch scheme {
        case .legacy, .legacy33:
            if let iv, iv != fixedIV {
                throw PNCryptError(.invalidIV, "\(scheme) always uses the fixed IV 0123456789012345")
            }
            return fixedIV
        case .legacyRandomIV, .acrh:
            guard let iv else { return try OpenSSL.randomBytes(16) }
            guard iv.count == 16 else {
                throw PNCryptError(.invalidIV, "the IV must be 16 bytes, not \(iv.count)")
            }
            return iv
        }
    }

    // MARK: Decrypt

    /// Decrypts `data`: a `PNED` header picks the cryptor; data without one is read as `legacyScheme`.
    /// - Throws: `unknownCryptor` for an unsupported header version or cryptor id; `malformedHeader` for a header
    ///   cut short; `wrongKeyOrCorrupt` when the cipher rejects the data (bad padding, not whole blocks, empty).
    public func decrypt(_ data: some Collection<UInt8>) throws(PNCryptError) -> [UInt8] {
        try withBytes(data) { (buffer) throws(PNCryptError) in try decryptBytes(buffer, scheme: nil) }
    }

    /// Decrypts `data` as exactly `scheme`: `acrh` requires a header; the others never look for one.
    public func decrypt(_ data: some Collection<UInt8>, scheme: Scheme) throws(PNCryptError) -> [UInt8] {
        try withBytes(data) { (buffer) throws(PNCryptError) in try decryptBytes(buffer, scheme: scheme) }
    }

    /// Decodes Base64 text (lenient as `Base64.decode`) and decrypts it; `scheme` nil reads as `decrypt(_:)`.
    public func decrypt(base64 text: String, scheme: Scheme? = nil) throws(PNCryptError) -> [UInt8] {
        let bytes = try Base64.decode(text)
        return try withBytes(bytes) { (buffer) throws(PNCryptError) in try decryptBytes(buffer, scheme: scheme) }
    }

    /// The scheme `decrypt(_:)` would use for `data`, after reading its header if it has one.
    public func detectScheme(_ data: some Collection<UInt8>) throws(PNCryptError) -> Scheme {
        guard let (header, _) = try CryptorHeader.parse(data) else { return legacyScheme }
        return try Self.cryptor(for: header, explicit: nil) ?? legacyScheme
    }

    func decryptBytes(_ input: UnsafeRawBufferPointer, scheme explicit: Scheme?) throws(PNCryptError) -> [UInt8] {
        var scheme = explicit ?? legacyScheme
        var ivBytes = Self.fixedIV
        var bodyStart = 0
        if explicit == nil || explicit == .acrh {
            if let (header, length) = try CryptorHeader.parse(input) {
                if try Self.cryptor(for: header, explicit: explicit) == .acrh {
                    scheme = .acrh
                    ivBytes = header.metadata
                } else {
                    // The legacy cryptor's id: what follows the header is legacy data.
                    return try decryptBytes(UnsafeRawBufferPointer(rebasing: input[length...]), scheme: legacyScheme)
                }
                bodyStart = length
            } else if scheme == .acrh {
                throw PNCryptError(.malformedHeader, input.isEmpty ? "empty input: no PNED header"
                                   : "no PNED header: this is not acrh data", offset: 0)
            }
        }
        if scheme == .legacyRandomIV {
            guard input.count >= 16 else {
                throw PNCryptError(.wrongKeyOrCorrupt,
                                   "\(input.count) bytes is too short for legacy-random-iv (16-byte IV, then ciphertext)")
            }
            ivBytes = Array(input[0..<16])
            bodyStart = 16
        }
        let body = UnsafeRawBufferPointer(rebasing: input[bodyStart...])
        try Self.checkBlocks(body.count, scheme: scheme, afterHeader: scheme == .acrh)
        let pool = key.pool(scheme, encrypting: false)
        var failed = false
        let out = [UInt8](unsafeUninitializedCapacity: body.count + 16) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            let n = ivBytes.withUnsafeBytes { iv in
                pool.withContext { $0.run(iv: iv, input: body, output: raw, prefix: 0) }
            }
            if let n {
                initialized = n
            } else {
                // All but the last block were decrypted before the padding check failed: wipe them.
                OpenSSL.cleanse(raw.baseAddress!, count: raw.count)
                failed = true
                initialized = 0
            }
        }
        guard !failed else { throw Self.badPadding(scheme) }
        if scheme == .acrh && out.isEmpty {
            throw PNCryptError(.wrongKeyOrCorrupt, "acrh data decrypted to empty plaintext (SPEC section 2 rule 5)")
        }
        return out
    }

    /// The id the legacy cryptor has in the Swift and Go SDKs: four zero bytes. They never write it, but read a
    /// header carrying it as "legacy data follows".
    public static let legacyCryptorID: [UInt8] = [0, 0, 0, 0]

    /// The scheme a header selects: `acrh` for `ACRH`; for the legacy cryptor id (only when reading with
    /// auto-detection, `explicit` nil) the scheme of what follows is the caller's legacy scheme, returned as nil.
    static func cryptor(for header: CryptorHeader, explicit: Scheme?) throws(PNCryptError) -> Scheme? {
        if header.cryptorID == legacyCryptorID && explicit == nil { return nil }
        guard header.cryptorID == CryptorHeader.aesCBCCryptorID else {
            throw PNCryptError(.unknownCryptor, "unknown cryptor id '\(header.cryptorIDDescription)' in PNED header"
                               + " at offset 5 (known: ACRH)", offset: 5)
        }
        guard header.metadata.count == 16 else {
            throw PNCryptError(.malformedHeader, "ACRH header metadata is \(header.metadata.count) bytes;"
                               + " the IV must be 16", offset: 9)
        }
        return .acrh
    }

    static func checkBlocks(_ count: Int, scheme: Scheme, afterHeader: Bool) throws(PNCryptError) {
        guard count > 0 else {
            throw PNCryptError(.wrongKeyOrCorrupt, afterHeader ? "empty ciphertext after the PNED header"
                               : scheme == .legacyRandomIV ? "no ciphertext after the 16-byte IV" : "empty ciphertext")
        }
        guard count % 16 == 0 else {
            throw PNCryptError(.wrongKeyOrCorrupt,
                               "ciphertext is \(count) bytes, not a whole number of 16-byte AES blocks (truncated or corrupt)")
        }
    }

    static func badPadding(_ scheme: Scheme) -> PNCryptError {
        PNCryptError(.wrongKeyOrCorrupt, "bad padding after decrypting as \(scheme): wrong key, wrong scheme, or corrupt data")
    }
}
