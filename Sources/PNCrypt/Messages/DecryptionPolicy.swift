import PNCryptJSON
import PNCryptCore
import PNCryptCompression

/// What a client receives for a message that cannot be decrypted (docs/formats.md section 4.2).
public enum DecryptionPolicy: String, CaseIterable, Hashable, Sendable {
    /// iOS 3.4: the message becomes the string `DECRYPTION_ERROR`. With a key set, a message that is not a JSON
    /// string is not decryptable and becomes the marker too.
    case marker
    /// iOS 4.x and current SDKs: the original message is kept untouched. Messages that are not JSON strings pass
    /// through without error.
    case passThrough = "passthrough"

    /// The string iOS 3.4 put in place of a message it could not decrypt.
    public static let markerText = "DECRYPTION_ERROR"
}

/// A received message after decryption.
public struct DecryptedMessage: Hashable, Sendable {
    /// The message to deliver: the decrypted value, or what the policy puts in place of a failure.
    public var message: JSONValue
    /// Set when the message could not be decrypted (one word: nil for a message that decrypted).
    public var status: MessageStatus?
    /// The key (index in the key ring) and scheme that decrypted it, when it was decrypted.
    public var keyIndex: Int?
    /// The scheme that decrypted it.
    public var scheme: Scheme?

    init(message: JSONValue, status: MessageStatus? = nil, keyIndex: Int? = nil, scheme: Scheme? = nil) {
        self.message = message
        self.status = status
        self.keyIndex = keyIndex
        self.scheme = scheme
    }
}
