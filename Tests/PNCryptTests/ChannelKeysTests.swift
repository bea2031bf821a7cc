import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
@testable import PNCrypt
import PNCryptTestSupport

/// Per-channel keys (`ChannelKeys`) on Vectors/channel-keys/channel-keys.json: responses whose messages the real
/// PubNub Python SDK encrypted, each channel under its own key, one message of ch-a under ch-b's key.
@Suite struct ChannelKeysTests {
    /// The vector file: the keys, and each format's encrypted body, decrypted body (passthrough) and statuses.
    typealias Vectors = ChannelKeyVectors

    /// The location fields of a status, as the vectors list them.
    static func location(_ status: MessageStatus) -> JSONValue {
        var object: JSONObject = [:]
        if let index = status.index { object["index"] = .number(JSONNumber(index)) }
        if let channel = status.channel { object["channel"] = .string(channel) }
        if let timetoken = status.timetoken { object["timetoken"] = timetoken }
        return .object(object)
    }

    @Test("SDK bodies: each channel decrypts with its key; a message under another channel's key is the failure",
          arguments: ["v3", "subscribe"])
    func sdkBodies(format: String) throws {
        let vectors = try Vectors.load()
        let body = try #require(vectors.bodies[format])
        let keys = try vectors.channelKeys()
        let result = keys.decrypt(envelope: try Envelope(body.encrypted), policy: .passThrough)
        #expect(result.envelope.json == body.decrypted)
        #expect(result.messages == 5)
        #expect(result.statuses.map(Self.location) == body.statuses)
        #expect(result.statuses.map(\.error) == [CryptoModule.decryptionFailed])
        // The same keys as one ring (no channel map) read every message: the map is what makes it fail.
        let ring = try KeyRing(Array(vectors.keys.values))
        let anyKey = MessageCrypto(keys: ring).decrypt(envelope: try Envelope(body.encrypted), policy: .passThrough)
        #expect(anyKey.statuses.isEmpty)
    }

    /// The tree path and the text path (splice, or its fallback) on the same input, in one comparable form.
    static func bothPaths(_ reading: ChannelReading, _ text: [UInt8], _ formats: [EnvelopeFormat],
                          _ policy: DecryptionPolicy) -> (tree: String, text: String) {
        func describe(_ format: EnvelopeFormat, _ text: [UInt8], _ statuses: [MessageStatus], _ count: Int)
            -> String {
            "\(format) \(count) " + String(decoding: text, as: UTF8.self) + "\n"
                + statuses.map { String(decoding: $0.json.serialized(), as: UTF8.self) }.joined(separator: "\n")
        }
        let tree: String
        do throws(PNCryptError) {
            let envelope = try Envelope(parsing: text, formats: formats)
            let result = reading.decrypt(envelope: envelope, policy: policy)
            tree = describe(envelope.format, result.envelope.json.serialized(), result.statuses, result.messages)
        } catch {
            tree = "error \(error.code): \(error.message)"
        }
        let spliced: String
        do throws(PNCryptError) {
            let result = try text.withUnsafeBufferPointer { (buffer) throws(PNCryptError) in
                try reading.decrypt(envelopeText: buffer, formats: formats, policy: policy)
            }
            spliced = describe(result.format, result.text, result.statuses, result.messages)
        } catch {
            spliced = "error \(error.code): \(error.message)"
        }
        return (tree, spliced)
    }

    @Test("the splice path and the tree path give the same bytes and statuses under every map and policy")
    func pathsAgree() throws {
        let vectors = try Vectors.load()
        var maps: [(String, ChannelKeys)] = [("both", try vectors.channelKeys())]
        maps.append(("ch-a only", try vectors.channelKeys(without: ["ch-b"])))
        maps.append(("prefix", try vectors.channelKeys(["ch-*": vectors.keys["ch-b"]!], without: ["ch-b"])))
        maps.append(("star", try vectors.channelKeys(["*": vectors.keys["ch-b"]!], without: ["ch-b"])))
        let a = try #require(vectors.keys["ch-a"])
        var texts: [(String, [UInt8], [EnvelopeFormat])] = []
        for format in ["v3", "subscribe"] {
            let body = try #require(vectors.bodies[format]).encrypted
            texts.append((format + " compact", body.serialized(), EnvelopeFormat.allCases))
            texts.append((format + " spaced", body.serialized(style: .python), EnvelopeFormat.allCases))
        }
        // A duplicate member the scan gives up on: the tree decides.
        let v3 = String(decoding: try #require(vectors.bodies["v3"]).encrypted.serialized(), as: UTF8.self)
        texts.append(("v3 duplicate", Array(v3.replacingOccurrences(of: #"{"status":200,"#,
                                                                    with: #"{"status":200,"status":200,"#).utf8),
                      EnvelopeFormat.allCases))
        // A v2 body of ch-a's messages (the first three of the v3 body).
        let v3Items = try #require(vectors.bodies["v3"]?.encrypted.objectValue?["channels"]?.objectValue?["ch-a"])
        let v2 = JSONValue.array([v3Items, .number(1), .number(2)]).serialized()
        for (name, text, formats) in texts + [("v2", v2, [.v2])] {
            for (mapName, keys) in maps {
                for v2Channel in [nil, "ch-a"] as [String?] {
                    for policy in DecryptionPolicy.allCases {
                        let template = MessageCrypto(keys: try KeyRing([a]))
                        let reading = ChannelReading(keys, v2Channel: v2Channel, template: template)
                        let (tree, spliced) = Self.bothPaths(reading, text, formats, policy)
                        #expect(tree == spliced, "\(name), \(mapName), \(v2Channel ?? "-"), \(policy)")
                    }
                }
            }
        }
    }

    @Test("a channel without keys: a status naming it (invalidKey), whatever the policy; the others decrypt")
    func missingChannel() throws {
        let vectors = try Vectors.load()
        let body = try #require(vectors.bodies["subscribe"])
        let keys = try vectors.channelKeys(without: ["ch-b"])
        for policy in DecryptionPolicy.allCases {
            let result = keys.decrypt(envelope: try Envelope(body.encrypted), policy: policy)
            let missing = result.statuses.filter { $0.error.code == .invalidKey }
            #expect(missing.count == 2 && missing.allSatisfy { $0.channel == "ch-b" })
            #expect(missing.allSatisfy { $0.error.message.contains(#"no key for channel "ch-b""#) })
            #expect(result.statuses.count == 3)
            let items = try #require(result.envelope.json.objectValue?["m"]?.arrayValue)
            let expected = try #require(body.decrypted.objectValue?["m"]?.arrayValue)
            #expect(items[0] == expected[0] && items[2] == expected[2])
            let original = try #require(body.encrypted.objectValue?["m"]?.arrayValue)
            #expect(items[3].objectValue?["d"] == (policy == .passThrough ? original[3].objectValue?["d"]
                                                    : .string(DecryptionPolicy.markerText)))
        }
        // A v2 response names no channel: without one every message fails, naming what to do.
        let v2 = try Envelope(.array([.array([.string("AAAA")]), .number(1), .number(2)]))
        let unnamed = keys.decrypt(envelope: v2, policy: .passThrough)
        #expect(unnamed.statuses.map(\.error.code) == [.invalidKey])
        #expect(unnamed.statuses[0].error.message.contains("does not name this message's channel"))
    }

    @Test("patterns: the exact name, then the longest name*, then *; * only at the end; never empty")
    func patterns() throws {
        let ring = { (key: String) throws -> KeyRing in try KeyRing([key]) }
        let keys = try ChannelKeys(["chat.room": ring("1"), "chat.*": ring("2"), "chat.r*": ring("3"),
                                    "*": ring("4")])
        #expect(keys.pattern(forChannel: "chat.room") == "chat.room")
        #expect(keys.pattern(forChannel: "chat.rooms") == "chat.r*")
        #expect(keys.pattern(forChannel: "chat.x") == "chat.*")
        #expect(keys.pattern(forChannel: "chat") == "*")
        #expect(keys.pattern(forChannel: "chat.*") == "chat.r*" || keys.pattern(forChannel: "chat.*") == "chat.*")
        #expect(try ChannelKeys(["a": ring("1")]).pattern(forChannel: "b") == nil)
        for bad in ["", "a*b", "**"] {
            #expect(throws: PNCryptError.self, "\(bad)") { try ChannelKeys([bad: ring("1")]) }
        }
        #expect(throws: PNCryptError.self) { try ChannelKeys([:]) }
        // Two channels may share a key.
        let shared = try ChannelKeys(["a": ring("same"), "b": ring("same")])
        #expect(shared.keys(forChannel: "a")?.keys[0].isSame(as: shared.keys(forChannel: "b")!.keys[0]) == true)
    }

    /// Found by the `channel-keys` fuzz target: patterns were matched as Swift strings (a name Unicode calls
    /// canonically equivalent matched exactly; a `*` with a combining mark after it was one character, not a `*`).
    @Test("patterns and channels are bytes: an equivalent spelling is another channel; * before the last byte refused")
    func patternsAreBytes() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let keys = try ChannelKeys([composed: KeyRing(["key-c"]), "*": KeyRing(["key-rest"])])
        #expect(keys.pattern(forChannel: composed).map { Array($0.utf8) } == Array(composed.utf8))
        #expect(keys.pattern(forChannel: decomposed).map { Array($0.utf8) } == Array("*".utf8))
        // A message of the decomposed channel under the composed channel's key is not read with that key.
        let wire = try MessageCrypto(cipherKey: "key-c", scheme: .legacy).encrypt(.string("hi"))
        let response: JSONValue = ["t": ["t": "17000000000000000", "r": 1],
                                   "m": [["c": .string(decomposed), "d": wire], ["c": .string(composed), "d": wire]]]
        let result = keys.decrypt(envelope: try Envelope(response, formats: [.subscribe]), policy: .passThrough)
        #expect(result.statuses.map(\.index) == [0])
        #expect(result.statuses.first?.channel.map { Array($0.utf8) } == Array(decomposed.utf8))
        for bad in ["a*\u{301}", "*\u{301}", "x*\u{301}*"] {
            #expect(ChannelKeys.problem(bad) != nil, "\(Array(bad.utf8))")
            #expect(throws: PNCryptError.self, "\(Array(bad.utf8))") { try ChannelKeys([bad: KeyRing(["1"])]) }
        }
        #expect(ChannelKeys.problem("caf\u{E9}*") == nil)
        let prefix = try ChannelKeys(["e\u{301}*": KeyRing(["1"])])
        #expect(prefix.pattern(forChannel: "e\u{301}x").map { Array($0.utf8) } == Array("e\u{301}*".utf8))
        #expect(prefix.pattern(forChannel: "\u{E9}x") == nil)
    }

    @Test("rekey one channel: its messages move to the new key, the other channel's bytes stay identical")
    func rekeyOneChannel() throws {
        let vectors = try Vectors.load()
        for format in ["v3", "subscribe"] {
            let body = try #require(vectors.bodies[format])
            let newKey = try CipherKey("new key")
            let result = try vectors.channelKeys().rekey(envelope: try Envelope(body.encrypted), to: newKey,
                                                         onlyChannels: ["ch-b"])
            #expect(result.rekeyed == 2 && result.alreadyNew == 0 && result.statuses.isEmpty)
            // ch-b under the new key, ch-a as it was (its wrong-key message included).
            let after = try ChannelKeys(["ch-b": KeyRing(keys: [newKey]),
                                         "ch-a": try KeyRing([try #require(vectors.keys["ch-a"])])])
            let decrypted = after.decrypt(envelope: result.envelope, policy: .passThrough)
            #expect(decrypted.envelope.json == body.decrypted)
            let pairs = zip(body.encrypted.serialized(), result.envelope.json.serialized())
            #expect(pairs.contains { $0 != $1 })
            let beforeA = format == "v3" ? body.encrypted.objectValue?["channels"]?.objectValue?["ch-a"]
                : body.encrypted.objectValue?["m"]?.arrayValue.map { JSONValue.array(Array($0.prefix(3))) }
            let afterA = format == "v3" ? result.envelope.json.objectValue?["channels"]?.objectValue?["ch-a"]
                : result.envelope.json.objectValue?["m"]?.arrayValue.map { JSONValue.array(Array($0.prefix(3))) }
            #expect(beforeA != nil && beforeA == afterA)
            // Every channel moved: the wrong-key message stays, with its status.
            let all = try vectors.channelKeys().rekey(envelope: try Envelope(body.encrypted), to: newKey)
            #expect(all.rekeyed == 4 && all.statuses.map { $0.channel } == ["ch-a"])
        }
    }
}

extension ChannelKeyVectors {
    /// The map of the file's keys, plus `extra` patterns.
    func channelKeys(_ extra: [String: String] = [:], without: Set<String> = []) throws -> ChannelKeys {
        var rings: [String: KeyRing] = [:]
        for (channel, key) in keys.merging(extra, uniquingKeysWith: { $1 }) where !without.contains(channel) {
            rings[channel] = try KeyRing([key])
        }
        return try ChannelKeys(rings)
    }
}
