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
                if case .decrypt(let channels, let channelField) = records {
                    return try channels.appendDecrypted(field: field, of: record, channelField: channelField,
                                                        policy: policy, to: &output)
                }
                return try crypto.appendDecrypted(field: field, of: record, policy: policy, to: &output)
            } catch {
                output.removeSubrange(mark...)
                output.append(contentsOf: line)
                return MessageStatus(error: error)
            }
        case .rekey(let rekey):
            var channel: String?
            let outcome: MessageRekey.Outcome
            if case .rekey(let channels, let channelField) = records {
                (outcome, channel) = channels.rekeyNamingChannel(field: field, of: record, channelField: channelField)
            } else {
                outcome = rekey.rekey(field: field, of: record)
            }
            switch outcome {
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
                return MessageStatus(error: error, channel: channel)
            }
        case .decryptEnvelopes, .rekeyEnvelopes:
            // Refused when the session is made.
            output.append(contentsOf: line)
            return MessageStatus(error: PNCryptError(.invalidValue, "a field goes with encrypt, decrypt and rekey"))
        }
    }
}

/// What reads each record of a run with its channel's keys (`MessageStream.channels`), made once for the run from
/// the operation (its reading, style, new key and scheme) and the channel keys.
enum RecordKeys: Sendable {
    case decrypt(ChannelReading, channelField: JSONPointer)
    case rekey(ChannelRekey, channelField: JSONPointer)

    /// The records' reading for `operation`.
    /// - Throws: `invalidValue` for an operation other than decrypt and rekey; what `MessageRekey.init` throws.
    init(_ channels: RecordChannels, operation: MessageStream.Operation) throws(PNCryptError) {
        switch operation {
        case .decrypt(let crypto, _):
            self = .decrypt(channels.reading(crypto), channelField: channels.channelField)
        case .rekey(let rekey):
            self = .rekey(try channels.rekeying(rekey), channelField: channels.channelField)
        case .encrypt, .decryptEnvelopes, .rekeyEnvelopes:
            throw PNCryptError(.invalidValue, "channel keys by record go with decrypt and rekey of a field")
        }
    }

    /// The same with keys of their own (`LineWork.withOwnKeys`); unchanged if they cannot be made.
    func withOwnKeys(_ own: (KeyRing) -> KeyRing) -> RecordKeys {
        switch self {
        case .decrypt(let reading, let channelField):
            let template = reading.template
            let crypto = MessageCrypto(keys: own(template.keys), scheme: template.scheme, reading: template.reading,
                                       style: template.style)
            return .decrypt(RecordChannels(reading.keys, channelField: channelField).withOwnKeys(own).reading(crypto),
                            channelField: channelField)
        case .rekey(let moving, let channelField):
            guard let own = try? moving.withOwnKeys(own) else { return self }
            return .rekey(own, channelField: channelField)
        }
    }
}
