import PNCryptBase
import PNCryptJSON
import PNCryptCore

extension LineWork {
    /// One line that is a record whose `field` holds the message (`MessageStream.field`): the field is encrypted,
    /// decrypted or moved and every other byte of the line is copied. Returns the line's failure, if any: a line
    /// without the field is copied as it was (encrypt: an empty line, nothing of a plaintext echoed).
    func handle(record line: UnsafeRawBufferPointer, field: JSONPointer, index: Int, into output: inout [UInt8],
                batch: inout LineBatch) -> MessageStatus? {
        let record = line.assumingMemoryBound(to: UInt8.self)
        switch operation {
        case .encrypt(let crypto, let raw):
            let mark = output.count
            do throws(PNCryptError) {
                if let change = try crypto.appendEncrypted(field: field, of: record, raw: raw, to: &output) {
                    if batch.firstChange == nil { batch.firstChange = (index, change) }
                    batch.changed += 1
                }
                return nil
            } catch {
                output.removeSubrange(mark...)
                return MessageStatus(error: error)
            }
        case .decrypt(let crypto, let policy):
            let mark = output.count
            do throws(PNCryptError) {
                return try crypto.appendDecrypted(field: field, of: record, policy: policy, to: &output)
            } catch {
                output.removeSubrange(mark...)
                output.append(contentsOf: line)
                return MessageStatus(error: error)
            }
        case .rekey(let rekey):
            switch rekey.rekey(field: field, of: record) {
            case .rekeyed(let wire):
                output.append(contentsOf: wire)
                batch.rekeyed += 1
                return nil
            case .alreadyNew:
                output.append(contentsOf: line)
                batch.alreadyNew += 1
                return nil
            case .unchanged(let error):
                output.append(contentsOf: line)
                return MessageStatus(error: error)
            }
        case .decryptEnvelopes, .rekeyEnvelopes:
            // Refused when the session is made.
            output.append(contentsOf: line)
            return MessageStatus(error: PNCryptError(.invalidValue, "a field goes with encrypt, decrypt and rekey"))
        }
    }
}
