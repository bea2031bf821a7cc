// What a decrypted message's bytes say about its sender: which SDK serializers write them (`JSONStyle`'s rules, in
// PNCryptJSON/Values/SDKStyles.swift) and what the PHP SDK's legacy decrypt strips from them. For `diagnose` and
// `inspect`; messages, not JSON.
import PNCryptBase
import PNCryptCore
import PNCryptJSON

extension JSONStyle {
    /// The styles that write exactly `plaintext` for the value it holds (a JSON text, or PHP's raw string form):
    /// the serializers that could have produced a decrypted message. Empty when none does.
    ///
    /// - Parameter plaintext: a decrypted message's bytes.
    /// - Returns: the styles, in `allCases` order.
    package static func writers(of plaintext: [UInt8]) -> [JSONStyle] {
        let value: JSONValue
        if let parsed = try? JSONValue(parsing: plaintext) {
            value = parsed
        } else {
            let raw = plaintext.withUnsafeBytes { isPHPRawString($0) }
            guard raw, String(validating: plaintext, as: UTF8.self) != nil else { return [] }
            return [.php]
        }
        return allCases.filter { value.serialized(style: $0) == plaintext }
    }

    /// One sentence naming the serializers that write `plaintext` exactly, for `diagnose` and `inspect`; nil when
    /// the plaintext is not a message.
    ///
    /// - Parameter plaintext: a decrypted message's bytes.
    package static func writersFinding(_ plaintext: [UInt8]) -> String? {
        let writers = writers(of: plaintext)
        if writers.count == allCases.count {
            return "every serializer writes these bytes: they do not tell which SDK sent the message"
        }
        if writers.isEmpty {
            guard (try? JSONValue(parsing: plaintext)) != nil else { return nil }
            return "no SDK serializer known to pncrypt writes exactly these bytes (another JSON library, or edited)"
        }
        if writers.count * 2 > allCases.count {
            let others = allCases.filter { !writers.contains($0) }.map(\.sdkName).joined(separator: ", ")
            return "every serializer but \(others) writes these bytes: they hardly tell which SDK sent the message"
        }
        return "written as by " + writers.map { "\($0.sdkName) (\($0.traits))" }.joined(separator: "; ")
    }

    /// What the PHP SDK's legacy decrypt makes of `plaintext` (its `depad` strips any trailing run of one byte
    /// value <= 0x10 after the padding), as a sentence; nil when it keeps every byte.
    ///
    /// - Parameter plaintext: a decrypted message's bytes (padding removed).
    package static func phpDepadFinding(_ plaintext: [UInt8]) -> String? {
        guard let last = plaintext.last, last <= 0x10 else { return nil }
        // PaddingTrait::depad: from the second-last byte back to index 1, stop at the first byte that differs.
        var index = plaintext.count - 2
        while index > 0 && plaintext[index] == last { index -= 1 }
        let kept = Array(plaintext[..<max(index + 1, 0)])
        let stripped = plaintext.count - kept.count
        let wasMessage = plaintext.withUnsafeBytes { isMessageText($0) }
        let isMessage = kept.withUnsafeBytes { isMessageText($0) }
        if isMessage && !wasMessage {
            return "the plaintext ends with \(stripped.counting("byte")) of 0x"
                + String(last, radix: 16) + " after a message: a second padding (the sender padded before"
                + " encrypting); the PHP SDK's legacy decrypt strips them (PaddingTrait::depad) and reads the message,"
                + " other SDKs do not"
        }
        return "PHP SDK receivers strip the last \(stripped.counting("byte")) (0x"
            + String(last, radix: 16) + "): its legacy decrypt removes a trailing run of a byte <= 0x10"
            + " (PaddingTrait::depad)"
    }
}
