import PNCryptBase
import PNCryptJSON
import PNCryptCore

extension MessageRekey {
    /// Moves every encrypted field of a response to the new key and scheme, as `rekey(jsonText:)` moves one
    /// message; nothing else changes. Never throws: a message that cannot be moved is left as it was, with a status.
    public func rekey(envelope: Envelope) -> RekeyedEnvelope {
        var out = envelope
        var result = RekeyedEnvelope(envelope: envelope, rekeyed: 0, alreadyNew: 0, statuses: [])
        out.mapMessages { message, location in rekey(message, at: location, counting: &result) }
        result.envelope = out
        return result
    }

    /// One message of a response moved (`rekey(_:)`), its outcome counted in `result`: the new wire string, or
    /// the message as it was, with a status at `location` when it could not be moved.
    package func rekey(_ message: JSONValue, at location: Envelope.Location, counting result: inout RekeyedEnvelope)
        -> JSONValue {
        switch rekey(message) {
        case .rekeyed(let wire):
            result.rekeyed += 1
            // `"<Base64>"`: Base64 needs no escapes, so the string is what lies between the quotes.
            return .string(String(decoding: wire.dropFirst().dropLast(), as: UTF8.self))
        case .alreadyNew:
            result.alreadyNew += 1
        case .unchanged(let error):
            result.statuses.append(MessageStatus(error: error, original: message).located(location))
        }
        return message
    }
}
