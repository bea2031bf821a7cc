
/// A cipherKey encryption scheme (docs/formats.md section 1). The raw values are the names used on the command line,
/// in the C library (`include/pncrypt.h`) and in vector files.
///
/// | scheme | key | cipher | IV | output |
/// |---|---|---|---|---|
/// | `legacy` | first 32 hex chars of SHA-256(key), as ASCII | AES-256-CBC | `0123456789012345` | ciphertext |
/// | `legacy-random-iv` | as `legacy` | AES-256-CBC | random | IV ‖ ciphertext |
/// | `acrh` | raw SHA-256(key) | AES-256-CBC | random | `PNED` header ‖ ciphertext |
/// | `legacy33` | raw MD5(key) | AES-128-CBC | `0123456789012345` | ciphertext |
///
/// Everything the library, the CLI and the C library know about a scheme is its `row` (and the texts below it):
/// this file is the scheme table, and the only one that names the cases.
public enum Scheme: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// Fixed IV `0123456789012345`, hex-derived key. Written by iOS 3.4+ and every SDK's "static IV" mode.
    case legacy
    /// 16 random IV bytes prefixed to the ciphertext, hex-derived key. Default of older current SDKs.
    case legacyRandomIV = "legacy-random-iv"
    /// CryptoModule `PNED`/`ACRH` header, raw SHA-256 key, random IV. The recommended scheme for new data.
    case acrh
    /// iOS 3.3: AES-128-CBC with the raw MD5 of the key and the fixed IV.
    case legacy33

    /// The scheme name, as on the command line, in C and in vector files.
    public var description: String { rawValue }
}

// MARK: - The table

extension Scheme {
    /// The length of every IV, in bytes, and the AES block size.
    package static let ivSize = 16

    /// How a scheme's AES key is made from the cipher key.
    @usableFromInline package enum KeyDerivation: Int, CaseIterable, Hashable, Sendable {
        /// The first 32 hex characters of SHA-256(key), as ASCII: an AES-256 key.
        case hexSHA256
        /// The raw SHA-256 of the key: an AES-256 key.
        case sha256
        /// The raw MD5 of the key: an AES-128 key.
        case md5
    }

    /// Where a scheme's IV is.
    @usableFromInline package enum IVPlacement: Hashable, Sendable {
        /// The fixed IV `0123456789012345`: nothing precedes the ciphertext.
        case fixed
        /// `Scheme.ivSize` random bytes, written just before the ciphertext.
        case prefix
        /// `Scheme.ivSize` random bytes, the metadata of a `PNED` header (`CryptorHeader`) before the ciphertext.
        case header
    }

    /// How a message (docs/formats.md section 4) is encrypted.
    @usableFromInline package enum MessageForm: Hashable, Sendable {
        /// The message's JSON text, encrypted as one, in a JSON string of Base64.
        case whole
        /// Each string leaf on its own, as raw UTF-8; the message keeps its shape (iOS 3.3, section 4.1).
        case stringLeaves
    }

    /// One row of the scheme table: what a scheme is. Where it is the default is stated once, below the rows
    /// (`defaultForWriting`, `headerlessPair`).
    @usableFromInline package struct Row: Hashable, Sendable {
        /// How the AES key is derived.
        @usableFromInline package let keyDerivation: KeyDerivation
        /// Where the IV is, and so what precedes the ciphertext.
        @usableFromInline package let iv: IVPlacement
        /// Whether data in the scheme has a file format (streams, `--binary`); without one, only messages.
        @usableFromInline package let hasFileFormat: Bool
        /// How a message is encrypted.
        @usableFromInline package let message: MessageForm

        @inlinable
        init(keyDerivation: KeyDerivation, iv: IVPlacement, hasFileFormat: Bool, message: MessageForm) {
            self.keyDerivation = keyDerivation
            self.iv = iv
            self.hasFileFormat = hasFileFormat
            self.message = message
        }
    }

    /// This scheme's row. A switch over constants, always inlined: reading a field allocates nothing and compiles
    /// to a switch over that field alone.
    @inlinable
    package var row: Row {
        @inline(__always) get {
            switch self {
            case .legacy: Row(keyDerivation: .hexSHA256, iv: .fixed, hasFileFormat: true, message: .whole)
            case .legacyRandomIV: Row(keyDerivation: .hexSHA256, iv: .prefix, hasFileFormat: true, message: .whole)
            case .acrh: Row(keyDerivation: .sha256, iv: .header, hasFileFormat: true, message: .whole)
            case .legacy33: Row(keyDerivation: .md5, iv: .fixed, hasFileFormat: false, message: .stringLeaves)
            }
        }
    }

    /// What the scheme is, in one line (help, `diagnose`, `inspect`).
    package var summary: String {
        switch self {
        case .legacy: "fixed IV 0123456789012345, key from hex SHA-256 (iOS 3.4+, every SDK's static-IV mode)"
        case .legacyRandomIV: "16-byte random IV before the ciphertext, key from hex SHA-256 (older SDKs' default)"
        case .acrh: "PNED header (cryptor ACRH) holding a random IV, key from raw SHA-256 (recommended)"
        case .legacy33: "iOS 3.3: AES-128 with the raw MD5 of the key and the fixed IV; messages only"
        }
    }

    /// How a client is set to read this scheme, for `diagnose`: "a static IV (legacy)".
    package var clientSetting: String {
        switch self {
        case .legacy: "a static IV (legacy)"
        case .legacyRandomIV: "a random IV (legacy-random-iv)"
        case .acrh: "a CryptoModule (acrh)"
        case .legacy33: "iOS 3.3 (legacy33)"
        }
    }

    /// Which clients read data in this scheme and which show `DECRYPTION_ERROR`, for `diagnose`.
    package var readers: String {
        switch self {
        case .legacy, .legacyRandomIV:
            "a client set to \(partner?.clientSetting ?? "another scheme") shows DECRYPTION_ERROR for it"
        case .acrh:
            "clients with a CryptoModule read it; clients from before the CryptoModule show DECRYPTION_ERROR for it"
        case .legacy33:
            "only iOS 3.3 clients (or 3.4 in CRYPTO_BACKWARD_COMPATIBILITY_MODE) read it; others show DECRYPTION_ERROR"
        }
    }
}

// MARK: - The defaults, and what follows from the rows

extension Scheme {
    /// Whether data in the scheme starts with a `PNED` header.
    @inlinable
    public var hasHeader: Bool { row.iv == .header }

    /// Whether the scheme can be a module's legacy cryptor (`--legacy-scheme`): a file format and no header.
    package var isLegacyCryptor: Bool { row.hasFileFormat && !hasHeader }

    // The defaults: each stated once, here (docs/formats.md section 1, "The headerless rule", links here).
    // Constants (no lazy initialization on the message path); `SchemeTableTests` checks them against the rows.

    /// The scheme written when none is named, for files and messages: `acrh`.
    public static let defaultForWriting: Scheme = .acrh

    /// The two readings of data without a `PNED` header when no legacy scheme is named, the two settings of an
    /// SDK client's legacy cryptor: `legacy` (fixed IV) and `legacy-random-iv`. Every reader (bytes, text,
    /// messages, files, streams, key rings, modules) tries both, and the headerless rule
    /// (`Decision.resolve`, docs/formats.md section 1) tells them apart when both qualify.
    package static let headerlessPair: (fixed: Scheme, random: Scheme) = (.legacy, .legacyRandomIV)

    /// The scheme of data after a `PNED` header with the AES-CBC cryptor id: `acrh`, the one row whose IV is in
    /// a header.
    package static let withHeader: Scheme = .acrh

    /// The schemes that can be read without a header (every one but the header's), for `diagnose`.
    package static let headerless: [Scheme] = allCases.filter { !$0.hasHeader }

    /// Whether the scheme is written when none is named (`defaultForWriting`).
    package var isDefaultForWriting: Bool { self == Self.defaultForWriting }

    /// Whether the scheme is one of the two readings of headerless data (`legacy`, `legacy-random-iv`).
    package var isHeaderlessPair: Bool {
        self == Self.headerlessPair.fixed || self == Self.headerlessPair.random
    }

    /// The other reading of the same headerless data by a client set the other way (same key, the IV fixed or
    /// random): `legacy` ↔ `legacy-random-iv`; nil for the others.
    package var partner: Scheme? {
        let (first, second) = Self.headerlessPair
        return self == first ? second : self == second ? first : nil
    }

    /// How a module that encrypts with this scheme reads headerless files: its own file format when that is
    /// headerless (what it writes), else nil: the headerless rule.
    package var headerlessFileFormat: Scheme? { isLegacyCryptor ? self : nil }

    /// How a module that encrypts with this scheme reads headerless messages: nil (the headerless rule over both
    /// readings) unless the scheme is headerless and not one of them (`legacy33`): then itself.
    package var headerlessMessageReading: Scheme? {
        hasHeader || isHeaderlessPair ? nil : self
    }

    /// The names of the schemes with a file format, as a list in words: "legacy, legacy-random-iv or acrh".
    /// - Parameter conjunction: the word before the last name ("or", "and").
    package static func fileFormatNames(or conjunction: String) -> String {
        let names = allCases.filter(\.row.hasFileFormat).map(\.rawValue)
        return names.count < 2 ? names.joined()
            : names.dropLast().joined(separator: ", ") + " \(conjunction) " + names.last!
    }

}
