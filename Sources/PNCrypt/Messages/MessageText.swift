// What a decrypted plaintext must be to count as a message, when readings compete: the question the core's
// decision procedure asks (`ContentCheck`), answered here, in the messages layer, which supplies it to every decrypt
// that needs it (messages; text, for the headerless rule's first step).
import PNCryptJSON
import PNCryptCore

/// Whether a decrypted plaintext is a message: the one predicate the decision between readings uses for messages
/// (`KeyRing.Content.message`). A message is one JSON text (RFC 8259), or the PHP SDK's raw string form
/// (`isPHPRawString`), which is often not JSON. UTF-8 validity is checked on its own by the caller.
package func isMessageText(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let json = !cannotBeJSONText(bytes) && isJSONText(bytes)
    let raw = isPHPRawString(bytes)
    return json || raw
}

/// True when `bytes` are certainly not one JSON text by what follows their first character, without parsing: a
/// text that starts (after whitespace) with `t`, `f` or `n` is one only as `true`, `false` or `null` alone, and
/// one that starts with a digit or `-` only as a number alone: its characters (digits, `.`, `e`, `E`, `+`, `-`),
/// then whitespace to the end. False says nothing (`isJSONText` decides). Text cut after 16 bytes (the random-IV
/// reading of headerless text, which the headerless rule checks) often starts so, and a parse that fails makes
/// its error message (`isJSONText` gives the same answer, at several times the cost).
package func cannotBeJSONText(_ bytes: UnsafeRawBufferPointer) -> Bool {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
    let count = bytes.count
    var i = 0
    while i < count && isSpace(bytes[i]) { i += 1 }
    guard i < count else { return false }
    switch bytes[i] {
    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
        let literal: StaticString = bytes[i] == UInt8(ascii: "t") ? "true"
            : bytes[i] == UInt8(ascii: "f") ? "false" : "null"
        let length = literal.utf8CodeUnitCount
        guard count - i >= length,
              UnsafeRawBufferPointer(start: literal.utf8Start, count: length).elementsEqual(bytes[i..<(i + length)])
        else { return true }
        i += length
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
        func isNumber(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-")
        }
        while i < count && isNumber(bytes[i]) { i += 1 }
    default:
        return false
    }
    while i < count && isSpace(bytes[i]) { i += 1 }
    return i < count
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
