import Foundation
import Testing
import PNCryptJSON
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `--channel-key-file CHANNEL=PATH` of `history|subscribe decrypt|rekey`, on Vectors/channel-keys/channel-keys.json
/// (messages the real PubNub Python SDK encrypted, each channel under its own key, one of ch-a under ch-b's key)
/// and on fresh messages from the SDK.
@Suite(.tags(.cli)) struct CLIChannelKeyTests {
    /// The vector file's keys and bodies.
    typealias Vectors = ChannelKeyVectors

    /// Writes each channel's key to a file in `dir`; the `--channel-key-file` arguments for `channels`.
    static func keyFiles(_ keys: [String: String], _ channels: [String: String], in dir: URL) throws -> [String] {
        var arguments: [String] = []
        for (pattern, channel) in channels.sorted(by: { $0.key < $1.key }) {
            let file = dir.appendingPathComponent("key-\(channel)")
            try Data((try #require(keys[channel]) + "\n").utf8).write(to: file)
            arguments += ["--channel-key-file", "\(pattern)=\(file.path)"]
        }
        return arguments
    }

    /// What the Python SDK publishes for each (channel, scheme) of `sends`, under the channel's key in `keys`: the
    /// message `{"n": number, "on": channel}` (`number` its place in `sends`) and its Base64 ciphertext.
    static func published(_ sends: [(channel: String, scheme: String)], keys: [String: String]) throws
        -> [(number: Int, channel: String, message: JSONValue, base64: JSONValue)] {
        let peer = try PythonPeer.shared()
        var published: [(number: Int, channel: String, message: JSONValue, base64: JSONValue)] = []
        for (number, (channel, scheme)) in sends.enumerated() {
            let message: JSONValue = ["n": .number(JSONNumber(number)), "on": .string(channel)]
            let reply = try peer.request(["op": "publish_payload", "scheme": .string(scheme),
                                          "key": .string(try #require(keys[channel])), "message": message])
            published.append((number, channel, message, try #require(reply.objectValue?["base64"])))
        }
        return published
    }

    /// The vectors, and their body in `format` (v3 or subscribe).
    static func body(_ format: String) throws
        -> (Vectors, (encrypted: JSONValue, decrypted: JSONValue, statuses: [JSONValue])) {
        let vectors = try Vectors.load()
        return (vectors, try #require(vectors.bodies[format], "no \(format) body"))
    }

    static func command(_ format: String, _ verb: String = "decrypt") -> [String] {
        [format == "subscribe" ? "subscribe" : "history", verb]
    }

    @Test("SDK bodies: each channel decrypts with its key; one under another channel's key: status naming ch-a, exit 1",
          arguments: ["v3", "subscribe"])
    func sdkBodies(format: String) throws {
        let (vectors, body) = try Self.body(format)
        try withTemporaryDirectory { dir in
            let keys = try Self.keyFiles(vectors.keys, ["ch-a": "ch-a", "ch-b": "ch-b"], in: dir)
            let run = try CLI.run(Self.command(format) + keys + ["--on-error", "passthrough"],
                                  stdin: body.encrypted.serialized())
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stdout == body.decrypted.serialized() + [0x0A], "\(run.text)")
            #expect(CLIEnvelopeTests.locations(run.stderr) == body.statuses, "\(run.stderr)")
            #expect(CLIEnvelopeTests.statuses(run.stderr).map { $0["reason"]?.stringValue } == ["wrongKeyOrCorrupt"])
            #expect(run.stderr.contains("1 of 5 messages not decrypted"), "\(run.stderr)")
            // With one key for everything (no map) the same bodies decrypt whole: the map is what refuses.
            let star = try Self.keyFiles(vectors.keys, ["*": "ch-b"], in: dir)
            let starRun = try CLI.run(Self.command(format) + star + ["--on-error", "fail"],
                                      stdin: body.encrypted.serialized())
            #expect(starRun.status == 1 && starRun.stdout.isEmpty, "\(starRun.stderr)")
        }
    }

    @Test("a channel with no key: a status line naming it and the option to add; name*, then * read the rest")
    func patterns() throws {
        let (vectors, body) = try Self.body("subscribe")
        try withTemporaryDirectory { dir in
            let onlyA = try Self.keyFiles(vectors.keys, ["ch-a": "ch-a"], in: dir)
            let run = try CLI.run(["subscribe", "decrypt", "--on-error", "passthrough"] + onlyA,
                                  stdin: body.encrypted.serialized())
            #expect(run.status == 1)
            let missing = CLIEnvelopeTests.statuses(run.stderr).filter { $0["reason"]?.stringValue == "invalidKey" }
            #expect(missing.count == 2 && missing.allSatisfy { $0["channel"]?.stringValue == "ch-b" })
            #expect(missing.first?["message"]?.stringValue?.contains("--channel-key-file 'ch-b=PATH'") == true)
            for pattern in ["ch-*", "*", "ch-b"] {
                let keys = try Self.keyFiles(vectors.keys, ["ch-a": "ch-a", pattern: "ch-b"], in: dir)
                let both = try CLI.run(["subscribe", "decrypt", "--on-error", "passthrough"] + keys,
                                       stdin: body.encrypted.serialized())
                #expect(both.stdout == body.decrypted.serialized() + [0x0A], "\(pattern): \(both.stderr)")
                #expect(CLIEnvelopeTests.locations(both.stderr) == body.statuses, "\(pattern): \(both.stderr)")
            }
        }
    }

    @Test("rekey --only-channel ch-b: ch-b moves to the new key, ch-a's bytes stay identical",
          arguments: ["v3", "subscribe"])
    func rekeyOneChannel(format: String) throws {
        let (vectors, body) = try Self.body(format)
        try withTemporaryDirectory { dir in
            let newKey = dir.appendingPathComponent("new.key")
            try Data("the new key\n".utf8).write(to: newKey)
            let keys = try Self.keyFiles(vectors.keys, ["ch-b": "ch-b"], in: dir)
            let arguments = keys + ["--only-channel", "ch-b", "--to-key-file", newKey.path]
            let run = try CLI.run(Self.command(format, "rekey") + arguments, stdin: body.encrypted.serialized())
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("rekeyed 2, unchanged 0"), "\(run.stderr)")
            let moved = try JSONValue(parsing: run.stdout)
            func channelA(_ value: JSONValue) -> [UInt8] {
                (format == "v3" ? value.objectValue?["channels"]?.objectValue?["ch-a"]
                    : value.objectValue?["m"]?.arrayValue.map { .array(Array($0.prefix(3))) })?.serialized() ?? []
            }
            #expect(!channelA(moved).isEmpty && channelA(moved) == channelA(body.encrypted))
            #expect(moved != body.encrypted)
            // Read back: ch-a with its old key, ch-b with the new one only.
            let aKey = try Self.keyFiles(vectors.keys, ["ch-a": "ch-a"], in: dir)
            let back = try CLI.run(Self.command(format) + aKey + ["--channel-key-file", "ch-b=\(newKey.path)",
                                                                  "--on-error", "passthrough"], stdin: run.stdout)
            #expect(back.stdout == body.decrypted.serialized() + [0x0A], "\(back.stderr)")
            #expect(CLIEnvelopeTests.locations(back.stderr) == body.statuses)
        }
    }

    @Test("refusals (exit 64, no output): with --key or --lines, v2 without --channel, bad patterns, and more")
    func refusals() throws {
        try withTemporaryDirectory { dir in
            let key = dir.appendingPathComponent("k")
            try Data("k".utf8).write(to: key)
            let v3 = #"{"channels":{"a":[]}}"#, v2 = #"[["AAAA"],1,2]"#
            let cases: [([String], String)] = [
                (["history", "decrypt", "--channel-key-file", "a=\(key.path)", "-k", "x", v3], "not with --key"),
                (["history", "decrypt", "--channel-key-file", "a=\(key.path)", "--lines", v3], "not --lines"),
                (["history", "decrypt", "--channel-key-file", "a=\(key.path)", v2], "give --channel NAME"),
                (["history", "decrypt", "--channel-key-file", "a=\(key.path)", "--channel", "a", v3],
                 "leave --channel out"),
                (["history", "rekey", "-k", "k", "--to-key", "n", "--only-channel", "a", v3],
                 "--only-channel goes with --channel-key-file"),
                (["history", "decrypt", "-k", "k", "--channel", "a", v2], "--channel goes with"),
                (["history", "decrypt", "--channel-key-file", "a*b=\(key.path)", v3], "* goes only at the end"),
                (["history", "decrypt", "--channel-key-file", key.path, v3], "expected CHANNEL=PATH"),
            ]
            for (arguments, expected) in cases {
                let run = try CLI.run(arguments)
                #expect(run.status == 64 && run.stdout.isEmpty, "\(arguments): \(run.status) \(run.stderr)")
                #expect(run.stderr.contains(expected), "\(arguments): \(run.stderr)")
            }
        }
    }

    @Test("a v2 response with --channel: its messages read with that channel's key; statuses name it")
    func v2WithChannel() throws {
        let vectors = try Vectors.load()
        let items = try #require(vectors.bodies["v3"]?.encrypted.objectValue?["channels"]?.objectValue?["ch-a"])
        let plain = try #require(vectors.bodies["v3"]?.decrypted.objectValue?["channels"]?.objectValue?["ch-a"])
        try withTemporaryDirectory { dir in
            let keys = try Self.keyFiles(vectors.keys, ["ch-a": "ch-a"], in: dir)
            let run = try CLI.run(["history", "decrypt", "--channel", "ch-a", "--on-error", "passthrough"] + keys,
                                  stdin: JSONValue.array([items, .number(1), .number(2)]).serialized())
            #expect(run.status == 1)
            #expect(run.stdout == JSONValue.array([plain, .number(1), .number(2)]).serialized() + [0x0A])
            #expect(CLIEnvelopeTests.statuses(run.stderr).map { $0["channel"]?.stringValue } == ["ch-a"])
        }
    }

    @Test("fresh messages from the Python SDK, two channels under two keys: the map reads each",
          .enabled(if: InteropSwitch.enabled, "interop skipped because PNCRYPT_SKIP_INTEROP=1"))
    func liveSDK() throws {
        let keys = ["ch-a": "alpha ключ", "ch-b": "beta"]
        let sent = try Self.published([("ch-a", "acrh"), ("ch-b", "legacy"), ("ch-a", "legacy"), ("ch-b", "acrh")],
                                      keys: keys)
        let items: [JSONValue] = sent.map { ["c": .string($0.channel), "d": $0.base64] }
        let plain: [JSONValue] = sent.map { ["c": .string($0.channel), "d": $0.message] }
        let body: JSONValue = ["t": ["t": "1", "r": 1], "m": .array(items)]
        try withTemporaryDirectory { dir in
            let files = try Self.keyFiles(keys, ["ch-a": "ch-a", "ch-b": "ch-b"], in: dir)
            let run = try CLI.run(["subscribe", "decrypt"] + files, stdin: body.serialized())
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == JSONValue.object(["t": ["t": "1", "r": 1], "m": .array(plain)]).serialized()
                        + [0x0A])
            // Keys swapped: every message is under another channel's key.
            let swapped = try Self.keyFiles(keys, ["ch-a": "ch-b", "ch-b": "ch-a"], in: dir)
            let wrong = try CLI.run(["subscribe", "decrypt", "--on-error", "passthrough"] + swapped,
                                    stdin: body.serialized())
            #expect(wrong.status == 1 && CLIEnvelopeTests.statuses(wrong.stderr).count == 4, "\(wrong.stderr)")
        }
    }
}
