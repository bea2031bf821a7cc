// A field's new bytes spliced into a copy of its record, every other byte kept (the field-wise calls:
// MessageCrypto+Field.swift, MessageRekey+Field.swift).

import PNCryptBase
import PNCryptJSON
import PNCryptCore

extension JSONPointer {
    /// `text` with `range` replaced by what `body` appends, appended to `output`.
    func splice<E: Error>(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into output: inout [UInt8],
                          _ body: (inout [UInt8]) throws(E) -> Void) throws(E) {
        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<range.lowerBound]))
        try body(&output)
        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[range.upperBound...]))
    }

    /// The error for a field that is not a JSON string where ciphertext is expected.
    var notAString: PNCryptError {
        PNCryptError(.notEncrypted, "the field \(Self.quoted(description)) is not a JSON string, so it cannot be "
                     + "ciphertext")
    }

    /// The error for a field whose decrypted message `style` would not write as one JSON value (the `php` style
    /// writes a string message raw between quotes: with a quote, backslash or control character in it, the text is
    /// not JSON and would rewrite the record around the field).
    func notJSON(in style: JSONStyle) -> PNCryptError {
        PNCryptError(.invalidValue, "the field \(Self.quoted(description)) decrypted, but the \(style.rawValue) "
                     + "style would not write its message as one JSON value in the record (\(style.sdkName) writes a "
                     + "string holding a quote, backslash or control character raw): choose another style")
    }
}
