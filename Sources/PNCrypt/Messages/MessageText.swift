// What a decrypted plaintext must be to count as a message, when readings compete: the question the core's
// decision procedure asks (`ContentCheck`), answered here, in the messages layer, which supplies it to every decrypt
// that needs it (messages; text, for the headerless rule's first step).
import PNCryptJSON
import PNCryptCore

/// Whether a decrypted plaintext is a message: the one predicate the decision between readings uses for messages
/// (`KeyRing.Content.message`). A message is one JSON text (RFC 8259), or the PHP SDK's raw string form
/// (`isPHPRawString`), which is often not JSON. UTF-8 validity is checked on its own by the caller.
@inline(__always)
package func isMessageText(_ bytes: UnsafeRawBufferPointer) -> Bool {
    // Both checks run: `isJSONText` refuses most text that is not JSON by its two ends, without parsing
    // (`cannotBeJSONText`).
    let json = isJSONText(bytes)
    let raw = isPHPRawString(bytes)
    return json || raw
}

/// `isMessageText` as a `ContentCheck`: the one the messages layer passes to the decision.
package func isMessageText(_ bytes: UnsafeRawBufferPointer, readable: Int) -> Bool {
    isMessageText(bytes)
}

/// Whether `bytes` are the PHP SDK's raw form of a string message: `"`, the string's UTF-8 as it is (quotes,
/// backslashes and control characters unescaped), `"` (pubnub/php `PubNubUtil::writeValueAsString`). Any text
/// between two quotes has this form; the string is what lies between them.
package func isPHPRawString(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.count >= 2 && bytes[0] == UInt8(ascii: "\"") && bytes[bytes.count - 1] == UInt8(ascii: "\"")
}

extension KeyRing {
    /// `decrypt(_:reading:content:json:)` with the messages layer's message check (`isMessageText`): what every
    /// package caller that decrypts text or a message calls (the shells, the vectors, rekeying).
    package func decrypt(_ data: some Collection<UInt8>, reading: ReadPolicy = .rule, content: Content)
        throws(PNCryptError) -> Match {
        try decrypt(data, reading: reading, content: content, check: isMessageText(_:readable:))
    }

    /// `decrypt(_:reading:content:)` over raw bytes, not generic (see `decryptToMatch`).
    package func decrypt(bytes data: UnsafeRawBufferPointer, reading: ReadPolicy = .rule, content: Content)
        throws(PNCryptError) -> Match {
        try decryptToMatch(data, reading: reading, content: content, check: isMessageText(_:readable:))
    }
}

extension TextStreamDecryptor {
    /// A reader with the keys of `ring` that asks the messages layer whether a plaintext is a message
    /// (`isMessageText`, the headerless rule's first step).
    /// - Parameters:
    ///   - ring: the keys to try.
    ///   - reading: how the ciphertext is read; `.rule` reads a `PNED` header when there is one, else both legacy
    ///     readings.
    package init(ring: KeyRing, reading: ReadPolicy = .rule) {
        self.init(ring: ring, reading: reading, isMessage: { isMessageText($0) })
    }
}
