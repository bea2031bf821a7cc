// What a decrypted plaintext must be to count as a message, when readings compete (`Decision`): a question about
// PubNub messages, asked by the core because the decision procedure is the core's; the JSON layer only parses.
import PNCryptJSON

/// Whether a decrypted plaintext is a message: the one predicate the decision between readings uses for messages
/// (`KeyRing.Content.json`). A message is one JSON text (RFC 8259), or the PHP SDK's raw string form
/// (`isPHPRawString`), which is often not JSON. UTF-8 validity is checked on its own by the caller.
package func isMessageText(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let json = isJSONText(bytes)
    let raw = isPHPRawString(bytes)
    return json || raw
}

/// The JSON check the decision runs on each reading's plaintext (`KeyRing.Content.json`): given the plaintext and
/// how many bytes from its start may be loaded (the whole decrypted body, which its padding ends). A check may
/// load past the plaintext to read a word at a time; it never uses what it loads there.
package typealias JSONCheck = (_ plaintext: UnsafeRawBufferPointer, _ readable: Int) -> Bool

/// `isMessageText` as a `JSONCheck`: the default one.
package func isMessageText(_ bytes: UnsafeRawBufferPointer, readable: Int) -> Bool {
    isMessageText(bytes)
}

/// Whether `bytes` are the PHP SDK's raw form of a string message: `"`, the string's UTF-8 as it is (quotes,
/// backslashes and control characters unescaped), `"` (pubnub/php `PubNubUtil::writeValueAsString`). Any text
/// between two quotes has this form; the string is what lies between them.
package func isPHPRawString(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.count >= 2 && bytes[0] == UInt8(ascii: "\"") && bytes[bytes.count - 1] == UInt8(ascii: "\"")
}
