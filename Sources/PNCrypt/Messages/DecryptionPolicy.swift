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

/// The decryption-error status of one message, as SDKs report it (`PNDecryptionErrorCategory`).
public struct DecryptionStatus: Hashable, Sendable {
    /// The category status JSON names (iOS's `PNDecryptionErrorCategory`), the same for every status.
    static let jsonCategory = "decryptionError"

    /// Why the message could not be decrypted: its `code` is the reason (`notBase64`, `wrongKeyOrCorrupt`,
    /// `unknownCryptor`, `malformedHeader`, `notEncrypted`). Every key-dependent failure is `wrongKeyOrCorrupt`
    /// with one message (`CryptoModule.decryptionFailed`): bad padding and bad UTF-8 look the same.
    public var error: PNCryptError
    /// The message as it was received.
    public var original: JSONValue
    /// The message's position in a history response, when it came from one.
    public var index: Int?

    /// The reason, named as in status JSON.
    public var reason: PNCryptError.Code { error.code }

    /// The reason's category: `decryption`, or `unknownCryptor` for a header this library does not know.
    public var category: PNCryptError.Category { error.category }

    /// The status as one JSON object:
    /// `{"category":"decryptionError","reason":"...","message":"...","index":N,"original":...}`.
    public var json: JSONValue {
        var object: JSONObject = ["category": .string(Self.jsonCategory), "reason": .string(reason.name),
                                  "message": .string(error.message)]
        if let index { object.append(.number(JSONNumber(index)), forKey: "index") }
        object.append(original, forKey: "original")
        return .object(object)
    }
}

/// A received message after decryption.
public struct DecryptedMessage: Hashable, Sendable {
    /// The message to deliver: the decrypted value, or what the policy puts in place of a failure.
    public var message: JSONValue
    /// Set when the message could not be decrypted.
    public var status: DecryptionStatus?
    /// The key (index in the key ring) and scheme that decrypted it, when it was decrypted.
    public var keyIndex: Int?
    /// The scheme that decrypted it.
    public var scheme: Scheme?
}
