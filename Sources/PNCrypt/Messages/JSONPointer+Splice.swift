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
}
