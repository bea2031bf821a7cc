/// The one error type PNCrypt throws.
///
/// `code` says what went wrong in terms a caller can act on; `category` groups codes the way PubNub SDKs do
/// (encryption, decryption, unknown cryptor, ...); `message` is one human-readable line naming the cause;
/// `offset` is the byte offset in the input where the problem was found, when there is one.
///
/// ```swift
/// do { _ = try module.decrypt(data) }
/// catch let error as PNCryptError where error.code == .wrongKeyOrCorrupt { ... }
/// ```
public struct PNCryptError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong. New codes may be added in later versions: switch with a `default`.
    public let code: Code
    /// One line naming the cause, suitable to print for a person.
    public let message: String
    /// Byte offset in the input where the problem was found, when it is known.
    public let offset: Int?

    /// The SDK-level category of the error (docs/formats.md section 2: encryption, decryption, unknown cryptor).
    public var category: Category { code.category }

    /// The one-line message.
    public var description: String { message }

    /// Creates an error; `message` should name the cause in one line.
    public init(_ code: Code, _ message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// The broad kind of an error, as PubNub SDKs report it.
    public enum Category: String, Hashable, Sendable {
        /// The data could not be encrypted (for example: it is empty).
        case encryption
        /// The data could not be decrypted (wrong key, corrupt, not Base64, header cut short, ...).
        case decryption
        /// A `PNED` header names a version or cryptor this library does not know.
        case unknownCryptor
        /// The caller passed an argument that cannot be used (a key or IV of the wrong size, ...).
        case invalidArgument
        /// JSON text that does not parse, or a value that cannot be written in the asked form.
        case json
        /// Compressed data that is corrupt, truncated, or larger than the allowed limit.
        case compression
        /// Reading or writing a file or stream failed.
        case io
    }

    /// A specific error condition. Compare with `==` against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// Which code this is, as an enum a shell can switch on exhaustively (the C library's codes): adding a
        /// code breaks the build of every switch that has not placed it. The code's only stored property.
        package let kind: Kind

        /// Stable name, used in status JSON (`"reason":"wrongKeyOrCorrupt"`).
        public var name: String { kind.rawValue }
        /// The category this code belongs to.
        public var category: Category { kind.category }

        /// The code of `kind`.
        package init(_ kind: Kind) {
            self.kind = kind
        }

        /// Every code, one case each; the raw value is the stable `name`.
        package enum Kind: String, CaseIterable, Hashable, Sendable {
            case emptyPlaintext, notEncryptable, encryptionFailed
            case notBase64, wrongKeyOrCorrupt, ambiguous, malformedHeader, notEncrypted
            case unknownCryptor
            case invalidKey, invalidIV, invalidValue
            case invalidJSON, jsonTooDeep
            case corruptCompressedData, outputLimitExceeded
            case io, fileNotFound

            /// The category of the code.
            package var category: Category {
                switch self {
                case .emptyPlaintext, .notEncryptable, .encryptionFailed: return .encryption
                case .notBase64, .wrongKeyOrCorrupt, .ambiguous, .malformedHeader, .notEncrypted: return .decryption
                case .unknownCryptor: return .unknownCryptor
                case .invalidKey, .invalidIV, .invalidValue: return .invalidArgument
                case .invalidJSON, .jsonTooDeep: return .json
                case .corruptCompressedData, .outputLimitExceeded: return .compression
                case .io, .fileNotFound: return .io
                }
            }
        }

        /// The code's stable name.
        public var description: String { name }

        // Encryption.
        /// There was nothing to encrypt (docs/formats.md section 2: empty data cannot be encrypted).
        public static let emptyPlaintext = Code(.emptyPlaintext)
        /// The value cannot be encrypted in the chosen scheme (a non-string leaf in a `legacy33` message).
        public static let notEncryptable = Code(.notEncryptable)
        /// A cipher operation failed while encrypting.
        public static let encryptionFailed = Code(.encryptionFailed)

        // Decryption.
        /// The input is not Base64 text.
        public static let notBase64 = Code(.notBase64)
        /// The data cannot be decrypted: wrong key, wrong scheme, corrupt or truncated ciphertext. Every failure
        /// that depends on the key (bad padding; plaintext that is not UTF-8, or not JSON, where that was required)
        /// is this code with one message, `CryptoModule.decryptionFailed`: which check failed is never told.
        public static let wrongKeyOrCorrupt = Code(.wrongKeyOrCorrupt)
        /// More than one (key, scheme) reading decrypts the data, so none is certainly right (CBC has no integrity
        /// check). The message names the readings; an explicit scheme, legacy scheme or key decides.
        public static let ambiguous = Code(.ambiguous)
        /// A `PNED` header is cut short or announces more metadata than there is.
        public static let malformedHeader = Code(.malformedHeader)
        /// The message is not something that can be decrypted (for example: not a JSON string).
        public static let notEncrypted = Code(.notEncrypted)

        // Unknown cryptor.
        /// A `PNED` header with an unsupported version or an unknown cryptor id.
        public static let unknownCryptor = Code(.unknownCryptor)

        // Invalid arguments.
        /// The cipher key is empty or otherwise unusable.
        public static let invalidKey = Code(.invalidKey)
        /// An explicit IV has the wrong length, or cannot be used with the scheme.
        public static let invalidIV = Code(.invalidIV)
        /// A value or option the operation cannot accept (for example `legacy33` for a file).
        public static let invalidValue = Code(.invalidValue)

        // JSON.
        /// JSON text that does not parse; `offset` says where.
        public static let invalidJSON = Code(.invalidJSON)
        /// JSON nested deeper than the configured limit.
        public static let jsonTooDeep = Code(.jsonTooDeep)

        // Compression.
        /// Compressed data that is corrupt: bad header, bad CRC or length, truncated, trailing garbage.
        public static let corruptCompressedData = Code(.corruptCompressedData)
        /// Decompressed output would exceed the caller's limit (decompression-bomb guard).
        public static let outputLimitExceeded = Code(.outputLimitExceeded)

        // I/O.
        /// A file or stream could not be read or written.
        public static let io = Code(.io)
        /// An input file does not exist.
        public static let fileNotFound = Code(.fileNotFound)
    }
}

extension PNCryptError {
    /// The one error every key-dependent decryption failure gives (bad padding; plaintext that is not UTF-8, or
    /// not a message, where that was required), with one message: which check failed is never told, so it cannot
    /// serve as a padding oracle. The decision procedure throws it; users meet it as `CryptoModule.decryptionFailed`.
    package static let decryptionFailed = PNCryptError(
        .wrongKeyOrCorrupt, "cannot decrypt: wrong key, wrong scheme, or corrupt data")
}
