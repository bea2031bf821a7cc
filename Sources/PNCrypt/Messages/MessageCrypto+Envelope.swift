import PNCryptBase
import PNCryptJSON
import PNCryptCore

// The two envelope paths: the tree's (`decrypt(envelope:...)`, on an `Envelope`'s value) and the text's
// (`decrypt(envelopeText:...)`: the splice path, `EnvelopeSplice`, else the tree's, written back). Both read each
// message by one `EnvelopeReading`, which decides what it becomes.

extension MessageCrypto {
    /// Decrypts every encrypted field of a response in one call (the others are kept as they are). Never throws:
    /// a message that is not decrypted has a status (one that is not encrypted too: `notEncrypted`) and is
    /// delivered as `policy` says.
    public func decrypt(envelope: Envelope, policy: DecryptionPolicy) -> DecryptedEnvelope {
        decrypt(envelope: envelope, policy: policy, channels: nil)
    }

    /// As `decrypt(envelope:policy:)`; with `channels`, each message is read with its channel's keys
    /// (`ChannelReading`; this value's are not used).
    package func decrypt(envelope: Envelope, policy: DecryptionPolicy, channels: ChannelReading?)
        -> DecryptedEnvelope {
        var out = envelope
        var reading = EnvelopeReading(self, channels: channels, policy: policy)
        out.mapMessages { message, location in
            guard case .value(let value)? = reading.read({ message }, at: { location }, write: { _ in false }) else {
                return message
            }
            return value
        }
        return DecryptedEnvelope(envelope: out, statuses: reading.statuses, messages: reading.messages)
    }

    /// Decrypts a response given as text and writes it back: the same bytes as `Envelope(parsing:formats:)`,
    /// `decrypt(envelope:policy:)` and `serialized(style: style)`, without the tree when the
    /// text allows (`EnvelopeSplice`).
    /// With `channels`, each message is read with its channel's keys (`ChannelReading`; this value's are not used).
    /// - Throws: what `Envelope(parsing:formats:)` throws.
    package func decrypt(envelopeText text: UnsafeBufferPointer<UInt8>,
                         formats: [EnvelopeFormat] = EnvelopeFormat.allCases, policy: DecryptionPolicy,
                         channels: ChannelReading? = nil) throws(PNCryptError) -> DecryptedEnvelopeText {
        if style == .compact && !readsLeaves,
           let spliced = splice(text, formats: formats, policy: policy, channels: channels) {
            return spliced
        }
        let envelope = try Envelope(parsing: text, formats: formats)
        let result = decrypt(envelope: envelope, policy: policy, channels: channels)
        return DecryptedEnvelopeText(format: envelope.format, text: result.envelope.json.serialized(style: style),
                                     statuses: result.statuses, messages: result.messages)
    }

    /// The splice path of `decrypt(envelopeText:...)`; nil when the scan gives up. Each field is read as the tree
    /// path reads it (`EnvelopeReading`), from its text.
    private func splice(_ text: UnsafeBufferPointer<UInt8>, formats: [EnvelopeFormat], policy: DecryptionPolicy,
                        channels: ChannelReading?) -> DecryptedEnvelopeText? {
        var scanner = EnvelopeSplice(text)
        let format: EnvelopeFormat, fields: [EnvelopeSplice.Field]
        do throws(EnvelopeSplice.Fallback) {
            (format, fields) = try scanner.scan(formats: formats)
        } catch {
            return nil
        }
        var reading = EnvelopeReading(self, channels: channels, policy: policy)
        var output: [UInt8] = []
        output.reserveCapacity(text.count + text.count / 4)
        var at = 0
        for field in fields {
            scanner.copy(at..<field.range.lowerBound, to: &output)
            at = field.range.upperBound
            let message = UnsafeBufferPointer(rebasing: text[field.range])
            // The field is valid JSON, so its text parses.
            let delivery = reading.read({ try? JSONValue(parsing: message) }, at: { scanner.location(field) }) {
                $0.withDecryptedText(stringLiteral: UnsafeRawBufferPointer(message), style: .compact) {
                    output.append(contentsOf: $0)
                }
            }
            switch delivery {
            case nil: return nil
            case .written?: continue
            case .original?: scanner.copy(field.range, to: &output)
            case .value(let value)?: value.withSerialized(style: .compact) { output.append(contentsOf: $0) }
            }
        }
        scanner.copy(at..<scanner.count, to: &output)
        return DecryptedEnvelopeText(format: format, text: output, statuses: reading.statuses,
                                     messages: fields.count)
    }
}
