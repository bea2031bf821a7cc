import PNCryptJSON
import PNCryptCore

/// What a client receives for a message that cannot be decrypted (docs/formats.md section 4.2).
public enum DecryptionPolicy: String, CaseIterable, Hashable, Sendable {
    /// iOS 3.4: the message becomes the string `DECRYPTION_ERROR`. With a key set, a message that is not a JSON
    /// string is not decryptable and becomes the marker too.
    case marker
    /// iOS 4.x and current SDKs: the original message is kept untouched. It still has a status saying why it was
    /// not decrypted: a message that is not a JSON string passes through as it was, with the status
    /// `notEncrypted` (whoever can publish to a channel can publish a plaintext object; it is never reported as
    /// decrypted).
    case passThrough = "passthrough"

    /// The string iOS 3.4 put in place of a message it could not decrypt.
    public static let markerText = "DECRYPTION_ERROR"

    /// What is decrypted, for choosing the default policy (`default(for:)`).
    public enum Target: Hashable, Sendable {
        /// A whole message, or every message of a response.
        case message
        /// One field of a record (an export's line): the record is the user's data, not a client's view of it.
        case record
    }

    /// The policy when none is asked for, decided here for every shell (the CLI's `--on-error`, the C library's
    /// `PNCRYPT_ON_ERROR_DEFAULT`, Python's and Spark's field calls): a whole message gets the iOS marker, as an
    /// SDK client shows it; a record's field is kept as it was (its status says why), since the marker would
    /// destroy the original value of a record that was never encrypted or whose ciphertext is damaged.
    public static func `default`(for target: Target) -> DecryptionPolicy {
        switch target {
        case .message: .marker
        case .record: .passThrough
        }
    }
}
