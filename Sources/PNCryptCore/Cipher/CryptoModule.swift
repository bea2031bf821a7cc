import PNCryptBase
import PNCryptJSON

/// Encrypts and decrypts bytes with one cipherKey in the four schemes (docs/formats.md sections 1 and 2).
///
/// ```swift
/// let module = try CryptoModule(cipherKey: "enigma")            // writes acrh, reads any header or legacy
/// let sealed = try module.encrypt(Array("hello".utf8))          // Base64 of PNED 01 ACRH 10 <IV> <ciphertext>
/// let opened = try module.decrypt(sealed)                        // reads the header, picks the cryptor
/// let old = try module.encrypt(Array("yay!".utf8), scheme: .legacy)   // fixed IV: "q/xJqqN6qbiZMXYmiQC1Fw=="
/// let bytes = try module.encryptBinary(Array("hello".utf8))     // the same without Base64 (files, raw bytes)
/// ```
///
/// `decrypt(_:)` reads a `PNED` header when there is one. Headerless data it reads as `legacyScheme` when that is set,
/// and as the module's own scheme when it writes a headerless one (`encryptionScheme` `legacy`, `legacyRandomIV` or
/// `legacy33`), so a module always reads its own output; otherwise both legacy readings are tried and the headerless
/// rule decides (docs/formats.md section 1): as bytes, a fixed-IV reading whose first block is text is taken, and
/// anything else of two blocks or more is `ambiguous` (nothing in bytes tells the two apart: decrypt text with
/// `KeyRing` and `.text`, messages with `MessageCrypto`, or set `legacyScheme`). The one decision procedure chooses, as
/// for `KeyRing` with `.bytes`: the plaintext is returned only when exactly one reading qualifies; none is
/// `decryptionFailed`. `decrypt(_:scheme:)` reads exactly one format. CBC has no integrity check: with one reading a
/// wrong key passes the padding check about once in 256 tries and gives garbage (use `KeyRing` with `.text`, or
/// `MessageCrypto`, to check more). `encryptBinary` and `decryptBinary` are the same without Base64. Errors follow
/// docs/formats.md section 2 (`PNCryptError.category`): encryption, decryption, or unknown cryptor. Thread-safe; keyed
/// cipher contexts are reused across calls.
public struct CryptoModule: Sendable {
    /// The key and its derived AES keys.
    package let key: CipherKey
    /// The scheme `encrypt(_:)` writes. Default `acrh`.
    public var encryptionScheme: Scheme
    /// How `decrypt(_:)` reads data that has no `PNED` header: `legacy`, `legacyRandomIV` or `legacy33`, besides
    /// `encryptionScheme` when that is headerless; nil (the default): the module's own scheme when it writes a
    /// headerless one, else the headerless rule over both legacy readings. Setting `acrh` here means headerless
    /// data is refused (unless the module itself writes a headerless scheme).
    public var legacyScheme: Scheme?

    /// A module for `cipherKey`.
    /// - Throws: `invalidKey` when the key is empty.
    public init(cipherKey: String, encryptionScheme: Scheme = .defaultForWriting,
                legacyScheme: Scheme? = nil)
        throws(PNCryptError) {
        self.init(key: try CipherKey(cipherKey), encryptionScheme: encryptionScheme, legacyScheme: legacyScheme)
    }

    /// A module for an already derived key (share one `CipherKey` between modules to share its contexts).
    public init(key: CipherKey, encryptionScheme: Scheme = .defaultForWriting,
                legacyScheme: Scheme? = nil) {
        self.key = key
        self.encryptionScheme = encryptionScheme
        self.legacyScheme = legacyScheme
    }

    // MARK: Encrypt

    /// Encrypts `plaintext` and returns standard padded Base64: the text a message carries.
    ///
    /// - Parameters:
    ///   - plaintext: the bytes to encrypt (not empty).
    ///   - scheme: the scheme to write; nil is `encryptionScheme`.
    ///   - iv: 16 bytes to use instead of a random IV (for deterministic test vectors). `legacy` and `legacy33`
    ///     accept only their fixed IV. Never reuse an IV for real data.
    /// - Throws: `emptyPlaintext` for empty input, in every scheme (docs/formats.md section 3); `invalidIV`.
    public func encrypt(_ plaintext: some Collection<UInt8>, scheme: Scheme? = nil, iv: [UInt8]? = nil)
        throws(PNCryptError) -> String {
        let text = try withBytes(plaintext) { (input) throws(PNCryptError) in
            try sealToBase64(input, scheme: scheme ?? encryptionScheme, iv: iv, quoted: false)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Encrypts `plaintext` and returns the bytes (as `encrypt(_:scheme:iv:)`, without the Base64).
    /// - Returns: `legacy`/`legacy33`: ciphertext; `legacyRandomIV`: IV ‖ ciphertext; `acrh`: header ‖ ciphertext.
    public func encryptBinary(_ plaintext: some Collection<UInt8>, scheme: Scheme? = nil, iv: [UInt8]? = nil)
        throws(PNCryptError) -> [UInt8] {
        try withBytes(plaintext) { (input) throws(PNCryptError) in
            try sealToBytes(input, scheme: scheme ?? encryptionScheme, iv: iv)
        }
    }

    // MARK: Decrypt

    /// Decodes Base64 text (lenient as `Base64.decode`) and decrypts it.
    ///
    /// - Parameters:
    ///   - text: the Base64 text (whitespace and line breaks are skipped).
    ///   - scheme: nil reads a `PNED` header when there is one and otherwise reads as `legacyScheme` and, when
    ///     it is headerless, `encryptionScheme` (exactly one of those readings must have valid padding);
    ///     a scheme reads exactly that format (`acrh` requires a header; the others never look for one).
    /// - Throws: `notBase64`; `unknownCryptor` for an unsupported header version or cryptor id; `malformedHeader`
    ///   for a header cut short; `wrongKeyOrCorrupt` when the cipher rejects the data (bad padding, not whole
    ///   blocks, empty); `ambiguous` when two readings have valid padding. Every failure that depends on the key is
    ///   the same error, with the same message (no
    ///   padding oracle).
    public func decrypt(_ text: String, scheme: Scheme? = nil) throws(PNCryptError) -> [UInt8] {
        try decryptBinary(try Base64.decode(text), scheme: scheme)
    }

    /// Decrypts bytes (as `decrypt(_:scheme:)`, without the Base64).
    public func decryptBinary(_ data: some Collection<UInt8>, scheme: Scheme? = nil) throws(PNCryptError)
        -> [UInt8] {
        try withBytes(data) { (input) throws(PNCryptError) in try openToBytes(input, scheme: scheme) }
    }

    /// The scheme `decryptBinary(_:)` would use for `data`, after reading its header if it has one.
    package func detectScheme(_ data: some Collection<UInt8>) throws(PNCryptError) -> Scheme {
        let headerless = headerlessReading ?? Scheme.headerlessPair.fixed
        guard let (header, _) = try CryptorHeader.parse(data) else { return headerless }
        return try header.scheme(reading: nil) ?? headerless
    }

    /// The one error every key-dependent failure gives (bad padding, plaintext that is not UTF-8 or not JSON where
    /// text was required): which check failed is not told, so it cannot serve as a padding oracle.
    /// `Diagnosis`, run with the key, explains in detail.
    public static let decryptionFailed = PNCryptError(
        .wrongKeyOrCorrupt, "cannot decrypt: wrong key, wrong scheme, or corrupt data")
}
