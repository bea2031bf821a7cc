import Foundation
import Testing
import PNCryptJSON

/// Vectors/channel-keys/channel-keys.json (scripts/vectors/gen_channel_key_vectors.py): each channel's key, and for
/// each format (v3, subscribe) the body the real PubNub Python SDK's messages make, its decrypted body
/// (passthrough) and statuses. Read by the library's and the CLI's channel-key tests.
package struct ChannelKeyVectors {
    package var keys: [String: String]
    package var bodies: [String: (encrypted: JSONValue, decrypted: JSONValue, statuses: [JSONValue])]

    package static func load() throws -> ChannelKeyVectors {
        let data = try Data(contentsOf: Package.vectors.appendingPathComponent("channel-keys/channel-keys.json"))
        let root = try #require(try JSONValue(parsing: Array(data)).objectValue)
        var keys: [String: String] = [:]
        for (channel, key) in try #require(root["keys"]?.objectValue) { keys[channel] = key.stringValue }
        var bodies: [String: (JSONValue, JSONValue, [JSONValue])] = [:]
        for format in ["v3", "subscribe"] {
            let body = try #require(root[format]?.objectValue)
            bodies[format] = (try #require(body["encrypted"]), try #require(body["decrypted"]),
                              try #require(body["statuses"]?.arrayValue))
        }
        return ChannelKeyVectors(keys: keys, bodies: bodies)
    }
}

/// Vectors/channel-keys/records.json (scripts/vectors/gen_channel_record_vectors.py): a two-channel record export whose
/// messages the real PubNub Python SDK encrypted, each channel under its own key, one record of ch-a under ch-b's
/// key; the lines decrypted (passthrough) and the one status. Read by the library's and the CLI's record tests.
package struct ChannelRecordVectors {
    package var keys: [String: String]
    /// The export's lines and the messages the SDK was given, in order.
    package var export: [String]
    package var decrypted: [String]
    package var messages: [JSONValue]
    /// Each expected status: its line, channel and reason.
    package var statuses: [JSONValue]

    /// The export as NDJSON (each line with its newline).
    package var exportText: [UInt8] { Array(export.map { $0 + "\n" }.joined().utf8) }
    /// The decrypted lines as NDJSON.
    package var decryptedText: [UInt8] { Array(decrypted.map { $0 + "\n" }.joined().utf8) }

    package static func load() throws -> ChannelRecordVectors {
        let data = try Data(contentsOf: Package.vectors.appendingPathComponent("channel-keys/records.json"))
        let root = try #require(try JSONValue(parsing: Array(data)).objectValue)
        var keys: [String: String] = [:]
        for (channel, key) in try #require(root["keys"]?.objectValue) { keys[channel] = key.stringValue }
        func strings(_ name: String) throws -> [String] {
            try #require(root[name]?.arrayValue).map { try #require($0.stringValue) }
        }
        return ChannelRecordVectors(keys: keys, export: try strings("export"), decrypted: try strings("decrypted"),
                                    messages: try #require(root["messages"]?.arrayValue),
                                    statuses: try #require(root["statuses"]?.arrayValue))
    }
}
