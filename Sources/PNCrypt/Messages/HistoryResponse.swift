import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// A history (v2) response: `[[msg, msg, ...], start, end]` (docs/formats.md section 6).
///
/// With timetokens requested each item is `{"message": <msg>, "timetoken": 14...}`. Timetokens are 17-digit
/// integers and stay exact (`JSONNumber` keeps their digits).
package struct HistoryResponse: Hashable, Sendable {
    /// The items as received: messages, or `{"message", "timetoken"}` objects.
    package var items: [JSONValue]
    /// The start timetoken.
    package var start: JSONValue
    /// The end timetoken.
    package var end: JSONValue

    /// Reads a history response.
    /// - Throws: `invalidJSON` when the text does not parse or is not `[[...], start, end]`.
    package init(parsing text: some Collection<UInt8>) throws(PNCryptError) {
        try self.init(try JSONValue(parsing: text))
    }

    /// Reads a parsed history response.
    package init(_ value: JSONValue) throws(PNCryptError) {
        guard case .array(let parts) = value, parts.count == 3, case .array(let items) = parts[0] else {
            throw PNCryptError(.invalidJSON, "not a history response: expected [[messages], start, end]")
        }
        self.items = items
        start = parts[1]
        end = parts[2]
    }

    /// The response with `items` in place of its items.
    package var json: JSONValue { .array([.array(items), start, end]) }

    /// The message of an item, and whether it sits in a `{"message", "timetoken"}` object.
    static func message(of item: JSONValue) -> (message: JSONValue, wrapped: Bool) {
        if case .object(let object) = item, object.contains(key: "message"), object.contains(key: "timetoken") {
            return (object["message"]!, true)
        }
        return (item, false)
    }
}

/// A history response after decryption.
package struct DecryptedHistory: Hashable, Sendable {
    /// The response with every message decrypted (or replaced as the policy says), same shape and timetokens.
    package var response: HistoryResponse
    /// One status per message that could not be decrypted, each with its index; empty when every message
    /// decrypted (iOS then reports no error category on the completion).
    package var statuses: [MessageStatus]
}

/// Message counts: `{"channels": {"ch": 12, ...}}`. Counts stay exact integers.
package struct MessageCounts: Hashable, Sendable {
    /// Channel names and counts, in document order.
    package var channels: [(name: String, count: JSONNumber)]

    /// Reads a message-counts response.
    /// - Throws: `invalidJSON` when it does not parse or has no `channels` object of integers.
    package init(parsing text: some Collection<UInt8>) throws(PNCryptError) {
        guard case .object(let root) = try JSONValue(parsing: text),
              case .object(let channels)? = root["channels"] else {
            throw PNCryptError(.invalidJSON, "not a message-counts response: expected {\"channels\": {...}}")
        }
        var out: [(name: String, count: JSONNumber)] = []
        for (name, value) in channels {
            guard case .number(let count) = value, count.isIntegerLiteral else {
                throw PNCryptError(.invalidJSON,
                                   "message count of channel \(JSONValue.string(name)) is not an integer")
            }
            out.append((name, count))
        }
        self.channels = out
    }

    /// The response as JSON.
    package var json: JSONValue {
        .object(["channels": .object(JSONObject(channels.map { ($0.name, JSONValue.number($0.count)) }))])
    }

    /// Equal when the channels, their order and their counts are equal.
    package static func == (a: MessageCounts, b: MessageCounts) -> Bool {
        a.channels.elementsEqual(b.channels) { $0.name == $1.name && $0.count == $1.count }
    }

    /// Hashes the channels and counts in order.
    package func hash(into hasher: inout Hasher) {
        for (name, count) in channels {
            hasher.combine(name)
            hasher.combine(count)
        }
    }
}

extension MessageCrypto {
    /// Decrypts every message of a history response in one call (as `decrypt(envelope:policy:)` does; each status
    /// has the item's index, and its timetoken when the item has one).
    package func decrypt(history: HistoryResponse, policy: DecryptionPolicy) -> DecryptedHistory {
        let result = decrypt(envelope: Envelope(history), policy: policy)
        var response = history
        if case .array(let parts) = result.envelope.json, case .array(let items) = parts[0] { response.items = items }
        return DecryptedHistory(response: response, statuses: result.statuses)
    }
}
