import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// What a received message's plaintext must be for a reading to qualify (`MessageCrypto.plaintext`; the CLI's
/// `--plaintext`, C's `pncrypt_module_set_plaintext`, Python's and Spark's `plaintext=`), decided by the one
/// decision procedure for every reading alike.
public enum PlaintextRule: String, CaseIterable, Hashable, Sendable {
    /// The default: valid padding, UTF-8 and one JSON text (or the PHP SDK's raw string form). A wrong key passes
    /// all three so rarely that a message is certain (docs/security.md, "Residual risk").
    case json
    /// Valid padding and UTF-8: a plaintext that is not JSON (a client that encrypted a raw string) is delivered as
    /// a JSON string, as the SDKs return it; JSON text is still delivered as its value. A wrong key passes these
    /// checks more often than JSON's (the figures per length are in docs/security.md, "Residual risk").
    case text

    /// The content the decision procedure checks each reading for.
    package var content: KeyRing.Content {
        switch self {
        case .json: .message
        case .text: .text
        }
    }

    /// The message a plaintext qualified under this rule gives: its JSON value (or PHP's raw string form), else,
    /// under `.text`, the text as a JSON string; nil when it is no message under the rule.
    static func message(_ plaintext: UnsafeRawBufferPointer, readable: Int, rule: PlaintextRule) -> JSONValue? {
        if let value = MessageCrypto.parseMessage(plaintext, readable: readable) { return value }
        guard rule == .text, isValidUTF8(plaintext) else { return nil }
        return .string(String(decoding: plaintext, as: UTF8.self))
    }
}
