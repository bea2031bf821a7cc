import PNCryptJSON

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
    public static let ivSize = 16

    /// How a scheme's AES key is made from the cipher key.
    public enum KeyDerivation: Int, CaseIterable, Hashable, Sendable {
        /// The first 32 hex characters of SHA-256(key), as ASCII: an AES-256 key.
        case hexSHA256
        /// The raw SHA-256 of the key: an AES-256 key.
        case sha256
        /// The raw MD5 of the key: an AES-128 key.
        case md5
    }

    /// Where a scheme's IV is.
    public enum IVPlacement: Hashable, Sendable {
        /// The fixed IV `0123456789012345`: nothing precedes the ciphertext.
        case fixed
        /// `Scheme.ivSize` random bytes, written just before the ciphertext.
        case prefix
        /// `Scheme.ivSize` random bytes, the metadata of a `PNED` header (`CryptorHeader`) before the ciphertext.
        case header
    }

    /// How a message (docs/formats.md section 4) is encrypted.
    public enum MessageForm: Hashable, Sendable {
        /// The message's JSON text, encrypted as one, in a JSON string of Base64.
        case whole
        /// Each string leaf on its own, as raw UTF-8; the message keeps its shape (iOS 3.3, section 4.1).
        case stringLeaves
    }

    /// One row of the scheme table: what a scheme is and where it is the default.
    public struct Row: Hashable, Sendable {
        /// How the AES key is derived.
        public let keyDerivation: KeyDerivation
        /// Where the IV is, and so what precedes the ciphertext.
        public let iv: IVPlacement
        /// Whether data in the scheme has a file format (streams, `--binary`); without one, only messages.
        public let hasFileFormat: Bool
        /// How a message is encrypted.
        public let message: MessageForm
        /// Written when no scheme is named, for files and messages (exactly one row).
        public let isDefaultForWriting: Bool
        /// How a headerless file is read when no legacy scheme is named: the SDKs' file format (exactly one row).
        public let isDefaultForHeaderlessFiles: Bool
        /// Tried on a headerless message when no legacy scheme is named: the two settings of an SDK client's
        /// legacy cryptor (exactly two rows; the one decision procedure takes a reading only when one qualifies).
        public let isTriedOnHeaderlessMessages: Bool
        /// `CryptoModule`'s legacy scheme when none is given (exactly one row).
        public let isDefaultForModules: Bool

        @usableFromInline
        init(keyDerivation: KeyDerivation, iv: IVPlacement, hasFileFormat: Bool, message: MessageForm,
             isDefaultForWriting: Bool, isDefaultForHeaderlessFiles: Bool, isTriedOnHeaderlessMessages: Bool,
             isDefaultForModules: Bool) {
            self.keyDerivation = keyDerivation
            self.iv = iv
            self.hasFileFormat = hasFileFormat
            self.message = message
            self.isDefaultForWriting = isDefaultForWriting
            self.isDefaultForHeaderlessFiles = isDefaultForHeaderlessFiles
            self.isTriedOnHeaderlessMessages = isTriedOnHeaderlessMessages
            self.isDefaultForModules = isDefaultForModules
        }
    }

    /// This scheme's row. A switch over constants: reading it allocates nothing and inlines to the field read.
    @inlinable
    public var row: Row {
        switch self {
        case .legacy:
            Row(keyDerivation: .hexSHA256, iv: .fixed, hasFileFormat: true, message: .whole,
                isDefaultForWriting: false, isDefaultForHeaderlessFiles: false, isTriedOnHeaderlessMessages: true,
                isDefaultForModules: true)
        case .legacyRandomIV:
            Row(keyDerivation: .hexSHA256, iv: .prefix, hasFileFormat: true, message: .whole,
                isDefaultForWriting: false, isDefaultForHeaderlessFiles: true, isTriedOnHeaderlessMessages: true,
                isDefaultForModules: false)
        case .acrh:
            Row(keyDerivation: .sha256, iv: .header, hasFileFormat: true, message: .whole,
                isDefaultForWriting: true, isDefaultForHeaderlessFiles: false, isTriedOnHeaderlessMessages: false,
                isDefaultForModules: false)
        case .legacy33:
            Row(keyDerivation: .md5, iv: .fixed, hasFileFormat: false, message: .stringLeaves,
                isDefaultForWriting: false, isDefaultForHeaderlessFiles: false, isTriedOnHeaderlessMessages: false,
                isDefaultForModules: false)
        }
    }

    /// What the scheme is, in one line (help, `diagnose`, `inspect`).
    public var summary: String {
        switch self {
        case .legacy: "fixed IV 0123456789012345, key from hex SHA-256 (iOS 3.4+, every SDK's static-IV mode)"
        case .legacyRandomIV: "16-byte random IV before the ciphertext, key from hex SHA-256 (older SDKs' default)"
        case .acrh: "PNED header (cryptor ACRH) holding a random IV, key from raw SHA-256 (recommended)"
        case .legacy33: "iOS 3.3: AES-128 with the raw MD5 of the key and the fixed IV; messages only"
        }
    }

    /// How a client is set to read this scheme, for `diagnose`: "a static IV (legacy)".
    public var clientSetting: String {
        switch self {
        case .legacy: "a static IV (legacy)"
        case .legacyRandomIV: "a random IV (legacy-random-iv)"
        case .acrh: "a CryptoModule (acrh)"
        case .legacy33: "iOS 3.3 (legacy33)"
        }
    }

    /// Which clients read data in this scheme and which show `DECRYPTION_ERROR`, for `diagnose`.
    public var readers: String {
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

// MARK: - Read from the rows

extension Scheme {
    /// Whether data in the scheme starts with a `PNED` header.
    @inlinable
    public var hasHeader: Bool { row.iv == .header }

    /// Whether the scheme can be a module's legacy cryptor (`--legacy-scheme`): a file format and no header.
    public var isLegacyCryptor: Bool { row.hasFileFormat && !hasHeader }

    /// The scheme written when none is named, for files and messages: `acrh`.
    public static let defaultForWriting: Scheme = only(\.isDefaultForWriting)

    /// How a headerless file is read when no legacy scheme is named: `legacy-random-iv`, the SDKs' file format.
    public static let defaultForHeaderlessFiles: Scheme = only(\.isDefaultForHeaderlessFiles)

    /// `CryptoModule`'s legacy scheme when none is given: `legacy`.
    public static let defaultForModules: Scheme = only(\.isDefaultForModules)

    /// The two readings of a headerless message when no legacy scheme is named: `legacy`, `legacy-random-iv`.
    package static let triedOnHeaderlessMessages: (Scheme, Scheme) = {
        let rows = allCases.filter(\.row.isTriedOnHeaderlessMessages)
        precondition(rows.count == 2, "the scheme table must have two rows tried on headerless messages")
        return (rows[0], rows[1])
    }()

    /// The schemes that can be read without a header (every one but the header's), for `diagnose`.
    package static let headerless: [Scheme] = allCases.filter { !$0.hasHeader }

    /// The scheme of data after a `PNED` header with the AES-CBC cryptor id: `acrh`.
    package static let withHeader: Scheme = only(\.iv, is: .header)

    /// The other reading of the same headerless data by a client set the other way (same key, the IV fixed or
    /// random): `legacy` ↔ `legacy-random-iv`; nil for the others.
    public var partner: Scheme? {
        guard row.isTriedOnHeaderlessMessages else { return nil }
        return Self.allCases.first {
            $0 != self && $0.row.isTriedOnHeaderlessMessages && $0.row.keyDerivation == row.keyDerivation
        }
    }

    /// How a module that encrypts with this scheme reads headerless files: its own file format when that is
    /// headerless (what it writes), else the SDKs' (`defaultForHeaderlessFiles`).
    public var headerlessFileFormat: Scheme { isLegacyCryptor ? self : Self.defaultForHeaderlessFiles }

    /// How a module that encrypts with this scheme reads headerless messages: nil (both readings of
    /// `triedOnHeaderlessMessages`) unless the scheme is headerless and not one of them (`legacy33`): then itself.
    public var headerlessMessageReading: Scheme? {
        hasHeader || row.isTriedOnHeaderlessMessages ? nil : self
    }

    /// The names of the schemes with a file format, as a list in words: "legacy, legacy-random-iv or acrh".
    /// - Parameter conjunction: the word before the last name ("or", "and").
    public static func fileFormatNames(or conjunction: String) -> String {
        let names = allCases.filter(\.row.hasFileFormat).map(\.rawValue)
        return names.count < 2 ? names.joined()
            : names.dropLast().joined(separator: ", ") + " \(conjunction) " + names.last!
    }

    private static func only(_ flag: KeyPath<Row, Bool>) -> Scheme {
        only(flag, is: true)
    }

    private static func only<V: Equatable>(_ field: KeyPath<Row, V>, is value: V) -> Scheme {
        let rows = allCases.filter { $0.row[keyPath: field] == value }
        precondition(rows.count == 1, "the scheme table must have exactly one row with \(field) \(value)")
        return rows[0]
    }
}
