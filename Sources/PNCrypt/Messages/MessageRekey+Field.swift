// One field of a record (a line of an export) moved to a new key, every other byte of the record kept: the field's
// byte range is found by `JSONPointer.range(in:)` and the new bytes are spliced in its place.

import PNCryptBase
import PNCryptJSON
import PNCryptCore

extension MessageRekey {
    /// Moves one field of a record to the new key and scheme, as `rekey(jsonText:)` moves a message: the field must
    /// be a JSON string holding the ciphertext; every other byte of the record is kept. The pointer `""` moves the
    /// whole record as one message.
    /// - Parameters:
    ///   - field: where the message is (`/message`).
    ///   - record: one JSON text.
    /// - Returns: `.rekeyed` with the whole record (the field replaced), `.alreadyNew`, or `.unchanged` with why:
    ///   the record does not parse (`invalidJSON`), has no such field (`invalidValue` naming the pointer), the field
    ///   is not a string (`notEncrypted`), or it cannot be decrypted with certainty.
    public func rekey(field: JSONPointer, of record: some Collection<UInt8>) -> Outcome {
        withBytes(record) { bytes in rekey(field: field, of: bytes.assumingMemoryBound(to: UInt8.self)) }
    }

    /// `rekey(field:of:)` over contiguous bytes.
    package func rekey(field: JSONPointer, of record: UnsafeBufferPointer<UInt8>) -> Outcome {
        let range: Range<Int>
        do throws(PNCryptError) {
            range = try field.range(in: record)
        } catch {
            return .unchanged(error)
        }
        let message = UnsafeBufferPointer(rebasing: record[range])
        guard field.isWholeDocument || message.first == UInt8(ascii: "\"") else {
            return .unchanged(field.notAString)
        }
        let outcome = rekey(jsonText: message)
        guard case .rekeyed(let wire) = outcome else { return outcome }
        var output: [UInt8] = []
        output.reserveCapacity(record.count + wire.count)
        field.splice(record, range, into: &output) { $0.append(contentsOf: wire) }
        return .rekeyed(output)
    }
}
