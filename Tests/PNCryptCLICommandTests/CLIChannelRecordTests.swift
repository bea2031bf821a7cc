import Foundation
import Testing
import PNCryptJSON
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `message decrypt|rekey --field POINTER --channel-key-file CHANNEL=PATH [--channel-field POINTER]`: a record
/// export read record by record with the keys of each record's channel, on Vectors/channel-keys/records.json (a
/// two-channel export whose messages the real PubNub Python SDK encrypted, one record of ch-a under ch-b's key).
@Suite(.tags(.cli)) struct CLIChannelRecordTests {
    typealias Vectors = ChannelRecordVectors

    /// The `--channel-key-file` arguments giving each channel its own key (files in `dir`).
    static func keyFiles(_ vectors: Vectors, in dir: URL, _ channels: [String: String]? = nil) throws -> [String] {
        try CLIChannelKeyTests.keyFiles(vectors.keys, channels ?? ["ch-a": "ch-a", "ch-b": "ch-b"], in: dir)
    }

    @Test("--lines: each record decrypts with its channel's key; ch-a's record under ch-b's key fails, line 3, exit 1")
    func lines() throws {
        let vectors = try Vectors.load()
        try withTemporaryDirectory { dir in
            let export = dir.appendingPathComponent("export.ndjson")
            try Data(vectors.exportText).write(to: export)
            let keys = try Self.keyFiles(vectors, in: dir)
            let run = try CLI.run(["message", "decrypt", "--lines", "--field", "/message", "--on-error", "passthrough",
                                   "-i", export.path] + keys)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stdout == vectors.decryptedText, "\(run.text)")
            let statuses = CLIEnvelopeTests.statuses(run.stderr)
            #expect(statuses.map { [$0["line"], $0["channel"], $0["reason"]] }
                    == vectors.statuses.map { [$0["line"], $0["channel"], $0["reason"]] }, "\(run.stderr)")
            #expect(run.stderr.contains("decrypted 4, not decrypted 1, of 5 lines"), "\(run.stderr)")
            // The same keys for every channel ('*' twice: one ring) read the foreign record: the map is what refuses.
            let star = try Self.keyFiles(vectors, in: dir, ["*": "ch-a"]) + ["--channel-key-file", "*=" + dir
                .appendingPathComponent("key-ch-b").path]
            let both = try CLI.run(["message", "decrypt", "--lines", "--field", "/message", "-i", export.path] + star)
            #expect(both.status == 0, "\(both.stderr)")
        }
    }

    @Test("one record: `message decrypt --field /message -i record --channel-key-file` (was: TEXT or -i, not both)")
    func oneRecord() throws {
        let vectors = try Vectors.load()
        try withTemporaryDirectory { dir in
            let keys = try Self.keyFiles(vectors, in: dir)
            for (index, line) in vectors.export.enumerated() {
                let record = dir.appendingPathComponent("record-\(index).json")
                try Data(line.utf8).write(to: record)
                let run = try CLI.run(["message", "decrypt", "--field", "/message", "-i", record.path] + keys
                                      + ["--on-error", "fail"])
                if index == 2 {
                    #expect(run.status == 1 && run.stdout.isEmpty, "\(run.stderr)")
                    #expect(run.stderr.contains("\"channel\":\"ch-a\""), "\(run.stderr)")
                } else {
                    #expect(run.status == 0, "\(run.stderr)")
                    #expect(run.stdout == Array((vectors.decrypted[index] + "\n").utf8), "\(run.text)")
                }
            }
            // Without a channel field: exit 65 naming the pointer and the option.
            let run = try CLI.run(["message", "decrypt", "--field", "/message", "--channel-field", "/room"] + keys
                                  + [vectors.export[0]])
            #expect(run.status == 65 && run.stdout.isEmpty, "\(run.stderr)")
            #expect(run.stderr.contains("\"/room\"") && run.stderr.contains("--channel-field"), "\(run.stderr)")
        }
    }

    @Test("rekey: each record moved from its channel's key; the foreign one unchanged; the new key alone reads them")
    func rekey() throws {
        let vectors = try Vectors.load()
        try withTemporaryDirectory { dir in
            let newKey = dir.appendingPathComponent("new.key")
            try Data("the new key\n".utf8).write(to: newKey)
            let keys = try Self.keyFiles(vectors, in: dir)
            let run = try CLI.run(["message", "rekey", "--field", "/message", "--to-key-file", newKey.path] + keys,
                                  stdin: vectors.exportText)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderr.contains("rekeyed 4, unchanged 1 (not decryptable), already new 0"), "\(run.stderr)")
            #expect(CLIEnvelopeTests.statuses(run.stderr).map { $0["channel"] } == [.string("ch-a")])
            let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
            #expect(lines.count == 5 && lines[2] == vectors.export[2])
            let back = try CLI.run(["message", "decrypt", "--lines", "--field", "/message", "--on-error",
                                    "passthrough", "--channel-key-file", "*=\(newKey.path)"], stdin: run.stdout)
            #expect(back.stdout == vectors.decryptedText, "\(back.stderr)")
        }
    }

    @Test("refusals (exit 64, no output): --channel-field alone, channel keys without --field or with --key")
    func refusals() throws {
        try withTemporaryDirectory { dir in
            let key = dir.appendingPathComponent("k")
            try Data("k".utf8).write(to: key)
            let record = #"{"channel":"a","message":"AAAA"}"#
            let cases: [([String], String)] = [
                (["message", "decrypt", "-k", "k", "--field", "/message", "--channel-field", "/c", record],
                 "--channel-field goes with --channel-key-file"),
                (["message", "rekey", "-k", "k", "--to-key", "n", "--field", "/m", "--channel-field", "/c", record],
                 "--channel-field goes with --channel-key-file"),
                (["message", "decrypt", "--channel-key-file", "a=\(key.path)", record], "add --field POINTER"),
                (["message", "rekey", "--channel-key-file", "a=\(key.path)", "--to-key", "n", record],
                 "add --field POINTER"),
                (["message", "decrypt", "--field", "/message", "--channel-key-file", "a=\(key.path)", "-k", "x",
                  record], "not with --key"),
                (["message", "decrypt", "--field", "/message", "--channel-key-file", "a=\(key.path)",
                  "--channel-field", "x", record], "--channel-field: invalid JSON Pointer"),
                // An option the command does not have, its value read as TEXT: the refusal names the option.
                (["message", "encrypt", "-i", key.path, "--channel-key-file", "a=\(key.path)"],
                 "this command has no option --channel-key-file"),
            ]
            for (arguments, expected) in cases {
                let run = try CLI.run(arguments)
                #expect(run.status == 64 && run.stdout.isEmpty, "\(arguments): \(run.status) \(run.stderr)")
                #expect(run.stderr.contains(expected), "\(arguments): \(run.stderr)")
            }
        }
    }

    @Test("fresh records from the Python SDK, two channels under two keys: each read with its own",
          .enabled(if: InteropSwitch.enabled, "interop skipped because PNCRYPT_SKIP_INTEROP=1"))
    func liveSDK() throws {
        let keys = ["ch-a": "alpha ключ", "ch-b": "beta"]
        var export: [UInt8] = []
        var plain: [UInt8] = []
        for (number, channel, message, base64) in try CLIChannelKeyTests.published(
            [("ch-a", "acrh"), ("ch-b", "legacy"), ("ch-a", "legacy-random-iv"), ("ch-b", "acrh")], keys: keys) {
            let timetoken = JSONValue.number(JSONNumber(17000000000000000 + number))
            let record: JSONValue = ["timetoken": timetoken, "channel": .string(channel), "message": base64]
            export += record.serialized() + [0x0A]
            plain += JSONValue.object(["timetoken": timetoken, "channel": .string(channel), "message": message])
                .serialized() + [0x0A]
        }
        try withTemporaryDirectory { dir in
            let files = try CLIChannelKeyTests.keyFiles(keys, ["ch-a": "ch-a", "ch-b": "ch-b"], in: dir)
            let run = try CLI.run(["message", "decrypt", "--lines", "--field", "/message"] + files, stdin: export)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == plain)
            let swapped = try CLIChannelKeyTests.keyFiles(keys, ["ch-a": "ch-b", "ch-b": "ch-a"], in: dir)
            let wrong = try CLI.run(["message", "decrypt", "--lines", "--field", "/message", "--allow-failures"]
                                    + swapped, stdin: export)
            #expect(wrong.status == 0 && CLIEnvelopeTests.statuses(wrong.stderr).count == 4, "\(wrong.stderr)")
        }
    }
}
