// The message a decrypted plaintext gives: JSON, PHP's raw string form, or plain text.
import PNCryptCore
import PNCryptJSON

/// The message a plaintext that passed `isMessageText` (or any UTF-8 text) gives: its JSON value; for the PHP raw
/// string form that is not JSON, the string between the quotes; otherwise the text as a plain string.
package func messageValue(_ plaintext: UnsafeRawBufferPointer) -> JSONValue {
    if let value = try? JSONValue(parsing: plaintext) { return value }
    if isPHPRawString(plaintext) {
        return .string(String(decoding: UnsafeRawBufferPointer(rebasing: plaintext[1..<(plaintext.count - 1)]),
                              as: UTF8.self))
    }
    return .string(String(decoding: plaintext, as: UTF8.self))
}
