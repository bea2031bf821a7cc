import PNCryptJSON
import PNCryptCore

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
