import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// A response that carries messages: a history (v2), fetch messages (v3) or subscribe response, read by its
/// structure (docs/formats.md section 6).
///
/// ```swift
/// let envelope = try Envelope(parsing: Array(body.utf8))              // any of the three
/// let result = crypto.decrypt(envelope: envelope, policy: .passThrough)
/// // result.envelope.json: the same response with each encrypted field decrypted; result.statuses: the failures
/// ```
///
/// Only the fields that clients encrypt are touched (`locations` lists them): every other value is kept as it
/// was, with its key order and exact numbers (timetokens stay the same strings or integers).
public struct Envelope: Hashable, Sendable {
    /// Which shape the response has.
    public var format: EnvelopeFormat
    /// The response.
    public var json: JSONValue

    /// Where one encrypted field sits, as statuses report it.
    public struct Location: Hashable, Sendable {
        /// The item's position: in the v2 message list, in its channel's list (v3), or in `m` (subscribe).
        public var index: Int
        /// The channel (v3: the list's name; subscribe: `c`); nil for v2, whose body does not name it.
        public var channel: String?
        /// The item's timetoken as received (v2: the integer; v3: the string; subscribe: `p.t`), when it has one.
        public var timetoken: JSONValue?

        /// A location.
        package init(index: Int, channel: String? = nil, timetoken: JSONValue? = nil) {
            self.index = index
            self.channel = channel
            self.timetoken = timetoken
        }
    }

    /// Reads a response of one of `formats` (all three by default), telling which it is by its structure.
    /// - Throws: `invalidJSON` when the text does not parse, has none of the shapes, or has a shape not in
    ///   `formats`; `jsonTooDeep` past the JSON depth limit.
    public init(parsing text: some Collection<UInt8>, formats: [EnvelopeFormat] = EnvelopeFormat.allCases)
        throws(PNCryptError) {
        try self.init(try JSONValue(parsing: text), formats: formats)
    }

    /// Reads a parsed response of one of `formats` (all three by default; an empty list is all three too).
    /// - Throws: `invalidJSON` as `init(parsing:formats:)`.
    public init(_ value: JSONValue, formats: [EnvelopeFormat] = EnvelopeFormat.allCases) throws(PNCryptError) {
        let formats = formats.isEmpty ? EnvelopeFormat.allCases : formats
        let format: EnvelopeFormat
        if formats.count == 1 {
            format = formats[0]   // forced: `check` names what is wrong with it
        } else {
            guard let detected = Self.detect(value) else {
                let shapes = formats.map(\.shape)
                let expected = shapes.dropLast().joined(separator: ", ") + " or " + (shapes.last ?? "")
                throw PNCryptError(.invalidJSON, "not \(Self.describe(formats)): expected \(expected)")
            }
            guard formats.contains(detected) else {
                throw PNCryptError(.invalidJSON, "\(detected.name), not \(Self.describe(formats))")
            }
            format = detected
        }
        try Self.check(value, as: format)
        self.format = format
        json = value
    }

    /// "a history response (v2 or v3)", or the formats' names.
    private static func describe(_ formats: [EnvelopeFormat]) -> String {
        formats == EnvelopeFormat.history ? "a history response (v2 or v3)"
            : formats == EnvelopeFormat.allCases ? "a history or subscribe response"
            : formats.map(\.name).joined(separator: " or ")
    }

    /// A v2 history response as an envelope.
    package init(_ history: HistoryResponse) {
        format = .v2
        json = history.json
    }

    /// The shape `value` has at its top, or nil.
    static func detect(_ value: JSONValue) -> EnvelopeFormat? {
        switch value {
        case .array(let parts) where parts.count == 3 && parts[0].arrayValue != nil:
            return .v2
        case .object(let root):
            if root["channels"]?.objectValue != nil { return .v3 }
            if root["t"]?.objectValue != nil && root["m"]?.arrayValue != nil { return .subscribe }
            return nil
        default:
            return nil
        }
    }

    /// Checks the whole structure of `format`, naming what is wrong and where.
    static func check(_ value: JSONValue, as format: EnvelopeFormat) throws(PNCryptError) {
        switch format {
        case .v2:
            _ = try HistoryResponse(value)
        case .v3:
            guard case .object(let root) = value, case .object(let channels)? = root["channels"] else {
                throw PNCryptError(.invalidJSON, "not \(format.name): expected \(format.shape)")
            }
            for (name, list) in channels {
                guard case .array(let items) = list else {
                    throw PNCryptError(.invalidJSON, "v3 response: channel \(JSONValue.string(name)) is not a list")
                }
                for (index, item) in items.enumerated() where item.objectValue?.contains(key: "message") != true {
                    throw PNCryptError(.invalidJSON, "v3 response: item \(index) of channel \(JSONValue.string(name))"
                                       + " is not an object with a message")
                }
            }
        case .subscribe:
            guard case .object(let root) = value, root["t"]?.objectValue != nil, case .array(let items)? = root["m"]
            else {
                throw PNCryptError(.invalidJSON, "not \(format.name): expected \(format.shape)")
            }
            for (index, item) in items.enumerated() where item.objectValue == nil {
                throw PNCryptError(.invalidJSON, "subscribe response: item \(index) of m is not an object")
            }
        }
    }

    /// Where the encrypted fields are, in document order.
    public var locations: [Location] { fields.map(\.location) }

    /// The encrypted fields' values and where they are, in document order.
    var fields: [(message: JSONValue, location: Location)] {
        var out: [(message: JSONValue, location: Location)] = []
        var copy = self
        copy.mapMessages { message, location in
            out.append((message, location))
            return message
        }
        return out
    }

    /// Replaces every encrypted field, in document order, by what `transform` makes of it; nothing else changes.
    mutating func mapMessages(_ transform: (JSONValue, Location) -> JSONValue) {
        let value = json
        json = .null   // so the parts below are held once and change in place
        json = Self.map(value, format, transform)
    }

    private static func map(_ value: JSONValue, _ format: EnvelopeFormat,
                            _ transform: (JSONValue, Location) -> JSONValue) -> JSONValue {
        switch format {
        case .v2:
            guard case .array(var parts) = value, case .array(var items) = parts[0] else { return value }
            parts[0] = .null
            for index in items.indices {
                let (message, wrapped) = HistoryResponse.message(of: items[index])
                if wrapped, case .object(var item) = items[index] {
                    items[index] = .null
                    item["message"] = transform(message, Location(index: index, timetoken: item["timetoken"]))
                    items[index] = .object(item)
                } else {
                    items[index] = transform(message, Location(index: index))
                }
            }
            parts[0] = .array(items)
            return .array(parts)
        case .v3:
            guard case .object(var root) = value, case .object(let channels)? = root["channels"] else { return value }
            root["channels"] = .null
            root["channels"] = .object(JSONObject(channels.map { (name, list) -> (String, JSONValue) in
                guard case .array(var items) = list else { return (name, list) }
                for index in items.indices {
                    guard case .object(var item) = items[index], let message = item["message"] else { continue }
                    items[index] = .null
                    item["message"] = transform(message, Location(index: index, channel: name,
                                                                  timetoken: item["timetoken"]))
                    items[index] = .object(item)
                }
                return (name, .array(items))
            }))
            return .object(root)
        case .subscribe:
            guard case .object(var root) = value, case .array(var items)? = root["m"] else { return value }
            root["m"] = .null
            for index in items.indices {
                guard case .object(var item) = items[index], let payload = item["d"], isEncrypted(item) else {
                    continue
                }
                items[index] = .null
                let channel = item["c"]?.stringValue
                item["d"] = transform(payload, Location(index: index, channel: channel,
                                                        timetoken: item["p"]?.objectValue?["t"]))
                items[index] = .object(item)
            }
            root["m"] = .array(items)
            return .object(root)
        }
    }

    /// Whether a subscribe item's `d` is encrypted: a message (no `e`, `e` null or 0) or a file message (`e` 4),
    /// not on a presence channel. Signals (1), objects (2) and message actions (3) are never encrypted.
    static func isEncrypted(_ item: JSONObject) -> Bool {
        if let channel = item["c"]?.stringValue, channel.hasSuffix("-pnpres") { return false }
        switch item["e"] {
        case nil, .null?: return true
        case .number(let type)?: return type.int64Value == 0 || type.int64Value == 4
        default: return false
        }
    }
}

/// A file message's payload as SDKs publish it: `{"message": <message>, "file": {"id": ..., "name": ...}}`,
/// encrypted whole as one message (`MessageCrypto.encrypt`); subscribe delivers it as `d` with `e` 4.
package enum FileMessage {
    /// The payload of a file message: the message, then the file's id and name, in that key order.
    package static func payload(_ message: JSONValue, id: String, name: String) -> JSONValue {
        .object(["message": message, "file": .object(["id": .string(id), "name": .string(name)])])
    }
}
