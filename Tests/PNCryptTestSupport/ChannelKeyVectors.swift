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
