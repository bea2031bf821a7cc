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
}
