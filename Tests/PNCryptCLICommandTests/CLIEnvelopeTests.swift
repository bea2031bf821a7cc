import Foundation
import Testing
import PNCryptJSON
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

@Suite(.tags(.cli)) struct CLIEnvelopeTests {
    static func command(_ format: String) -> [String] {
        format == "subscribe" ? ["subscribe", "decrypt"] : ["history", "decrypt"]
    }

    /// The status lines of a run's standard error, parsed.
    static func statuses(_ stderr: String) -> [JSONObject] {
        stderr.split(separator: "\n").compactMap { try? JSONValue(parsing: Array($0.utf8)).objectValue }
    }

    /// The location fields of status lines, as the vectors list them.
    static func locations(_ stderr: String) -> [JSONValue] {
        statuses(stderr).map { status in
            .object(JSONObject(status.filter { ["index", "channel", "timetoken"].contains($0.key) }))
        }
    }

    @Test("each vector: the body back, one status line for the foreign message, exit 1",
          .tags(.slow), .notInQuickRun, arguments: EnvelopeVector.all)
    func vector(_ v: EnvelopeVector) throws {
        let base = Self.command(v.format) + ["--key", v.key]
        let run = try CLI.run(base + ["--on-error", "passthrough"], stdin: Array(v.encrypted.utf8))
        #expect(run.status == 1)
        #expect(run.text == v.decrypted + "\n")
        #expect(Self.locations(run.stderr) == v.failures)
        let total = try Envelope(parsing: Array(v.encrypted.utf8)).locations.count
        #expect(run.stderr.hasSuffix(CLIExitStatusTests.summary(1, "\(total) messages")))
        let allowed = try CLI.run(base + ["--on-error", "passthrough", "--allow-failures"],
                                  stdin: Array(v.encrypted.utf8))
        #expect(allowed.status == 0 && allowed.text == v.decrypted + "\n")
        let fail = try CLI.run(base + ["--on-error", "fail"], stdin: Array(v.encrypted.utf8))
        #expect(fail.status == 1 && fail.stdout.isEmpty && Self.statuses(fail.stderr).count == 1)
    }

    @Test("history decrypt tells v2 from v3, --format forces one, a subscribe response is refused")
    func formats() throws {
        let v3 = try #require(EnvelopeVector.all.first { $0.format == "v3" })
        let forced = try CLI.run(["history", "decrypt", "-k", "enigma", "--format", "v2"],
                                 stdin: Array(v3.encrypted.utf8))
        #expect(forced.status == 65 && forced.stdout.isEmpty)
        #expect(forced.stderr == "pncrypt: not a history response: expected [[messages], start, end]\n")
        let subscribe = try #require(EnvelopeVector.all.first { $0.format == "subscribe" })
        let refused = try CLI.run(["history", "decrypt", "-k", "enigma"], stdin: Array(subscribe.encrypted.utf8))
        #expect(refused.status == 65)
        #expect(refused.stderr == "pncrypt: a subscribe response, not a history response (v2 or v3)\n")
        let usage = try CLI.run(["history", "decrypt", "-k", "enigma", "--format", "subscribe"], stdin: [])
        #expect(usage.status == 64)
        let notSubscribe = try CLI.run(["subscribe", "decrypt", "-k", "enigma"], stdin: Array(v3.encrypted.utf8))
        #expect(notSubscribe.status == 65)
    }

    @Test("--lines: NDJSON of responses, one output line each in order, status lines with their line")
    func lines() throws {
        let vectors = EnvelopeVector.all.filter { $0.format != "subscribe" }
        let input = vectors.map(\.encrypted).joined(separator: "\n") + "\n"
        for jobs in ["1", "2"] {
            let run = try CLI.run(["history", "decrypt", "-k", "enigma", "--lines", "--jobs", jobs,
                                   "--on-error", "passthrough"], stdin: Array(input.utf8))
            #expect(run.status == 1)
            #expect(run.text == vectors.map(\.decrypted).joined(separator: "\n") + "\n")
            #expect(Self.statuses(run.stderr).map { $0["line"] }
                    == (1...vectors.count).map { .number(JSONNumber($0)) })
            #expect(Self.locations(run.stderr) == vectors.flatMap(\.failures))
        }
        let subscribe = EnvelopeVector.all.filter { $0.format == "subscribe" }
        let run = try CLI.run(["subscribe", "decrypt", "-k", "enigma", "--lines", "--on-error", "passthrough",
                               "--allow-failures"],
                              stdin: Array(subscribe.map(\.encrypted).joined(separator: "\n").utf8))
        #expect(run.status == 0)
        #expect(run.text == subscribe.map(\.decrypted).joined(separator: "\n") + "\n")
    }

    @Test("history rekey: a v3 archive moves to the new key, everything else unchanged; a rerun changes nothing")
    func rekey() throws {
        let vectors = EnvelopeVector.all.filter { $0.format == "v3" }
        let archive = Array((vectors.map(\.encrypted).joined(separator: "\n") + "\n").utf8)
        let moved = try CLI.run(["history", "rekey", "-k", "enigma", "--to-key", "new key", "--lines"],
                                stdin: archive)
        #expect(moved.status == 1)
        #expect(moved.stderr.contains("pncrypt: rekeyed \(4 * vectors.count), unchanged \(vectors.count) "
                                      + "(not decryptable), already new 0, by reason: {"), "\(moved.stderr)")
        #expect(Self.locations(moved.stderr) == vectors.flatMap(\.failures))
        let back = try CLI.run(["history", "decrypt", "-k", "new key", "--lines", "--on-error", "passthrough",
                                "--allow-failures"], stdin: moved.stdout)
        #expect(back.text == vectors.map(\.decrypted).joined(separator: "\n") + "\n")
        let again = try CLI.run(["history", "rekey", "-k", "enigma", "--to-key", "new key", "--lines",
                                 "--allow-failures"], stdin: moved.stdout)
        #expect(again.status == 0 && again.stdout == moved.stdout)
        #expect(again.stderr.contains("rekeyed 0, unchanged \(vectors.count) (not decryptable), already new "
                                      + "\(4 * vectors.count), by reason: {"), "\(again.stderr)")
        // One response, not line mode; --on-error fail writes nothing.
        let one = try CLI.run(["history", "rekey", "-k", "enigma", "--to-key", "new key", "--on-error", "fail"],
                              stdin: Array(vectors[0].encrypted.utf8))
        #expect(one.status == 1 && one.stdout.isEmpty)
        let single = try CLI.run(["history", "rekey", "-k", "enigma", "--to-key", "new key", "--allow-failures"],
                                 stdin: Array(vectors[0].encrypted.utf8))
        #expect(single.status == 0)
        let decrypted = try CLI.run(["history", "decrypt", "-k", "new key", "--on-error", "passthrough"],
                                    stdin: single.stdout)
        #expect(decrypted.text == vectors[0].decrypted + "\n")
    }

    @Test("message encrypt --file-id/--file-name writes a file message's payload, encrypted whole")
    func fileMessage() throws {
        let wire = try CLI.run(["message", "encrypt", "-k", "enigma", "--file-id", "abc", "--file-name", "cat.jpg",
                                #""Look""#])
        #expect(wire.status == 0)
        let plain = try CLI.run(["message", "decrypt", "-k", "enigma"], stdin: wire.stdout)
        #expect(plain.text == #"{"message":"Look","file":{"id":"abc","name":"cat.jpg"}}"# + "\n")
        let alone = try CLI.run(["message", "encrypt", "-k", "enigma", "--file-id", "abc", #""Look""#])
        #expect(alone.status == 64)
    }
}
