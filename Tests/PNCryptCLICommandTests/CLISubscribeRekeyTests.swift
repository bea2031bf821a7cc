import Foundation
import Testing
import PNCryptJSON
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

@Suite(.tags(.cli)) struct CLISubscribeRekeyTests {
    /// The subscribe vectors: the made-up ones (signals, objects, actions, file messages) and the recorded ones.
    static let vectors = (EnvelopeVector.all + EnvelopeVector.recorded).filter { $0.format == "subscribe" }

    @Test("subscribe rekey --lines: every message moves, presence, signals, objects, actions do not; rerun: no change")
    func lines() throws {
        let input = Array((Self.vectors.map(\.encrypted).joined(separator: "\n") + "\n").utf8)
        let messages = try Self.vectors.map { try Envelope(parsing: Array($0.encrypted.utf8)).locations.count }
        let failures = Self.vectors.flatMap(\.failures)
        let moved = try CLI.run(["subscribe", "rekey", "-k", "enigma", "--to-key", "new key", "--lines"],
                                stdin: input)
        #expect(moved.status == 1)
        #expect(moved.stderr.contains("pncrypt: rekeyed \(messages.reduce(0, +) - failures.count), unchanged "
                                      + "\(failures.count) (not decryptable), already new 0, by reason: {"),
                "\(moved.stderr)")
        #expect(CLIEnvelopeTests.locations(moved.stderr) == failures)
        #expect(moved.text.split(separator: "\n").count == Self.vectors.count)
        // The new key gives every body back: what is not a message (presence, signals, objects) was left as it was.
        let back = try CLI.run(["subscribe", "decrypt", "-k", "new key", "--lines", "--on-error", "passthrough",
                                "--allow-failures"], stdin: moved.stdout)
        #expect(back.status == 0)
        #expect(back.text == Self.vectors.map(\.decrypted).joined(separator: "\n") + "\n")
        let again = try CLI.run(["subscribe", "rekey", "-k", "enigma", "--to-key", "new key", "--lines",
                                 "--allow-failures"], stdin: moved.stdout)
        #expect(again.status == 0 && again.stdout == moved.stdout)
    }

    @Test("subscribe rekey of one response; --on-error fail writes nothing; a history response is refused")
    func one() throws {
        let v = try #require(Self.vectors.first { $0.id.hasPrefix("rec-rb-subscribe-mixed") })
        let fail = try CLI.run(["subscribe", "rekey", "-k", v.key, "--to-key", "new key", "--on-error", "fail"],
                               stdin: Array(v.encrypted.utf8))
        #expect(fail.status == 1 && fail.stdout.isEmpty)
        let allowed = try CLI.run(["subscribe", "rekey", "-k", v.key, "--to-key", "new key", "--allow-failures"],
                                  stdin: Array(v.encrypted.utf8))
        #expect(allowed.status == 0)
        #expect(CLIEnvelopeTests.locations(allowed.stderr) == v.failures)
        let back = try CLI.run(["subscribe", "decrypt", "-k", "new key", "--on-error", "passthrough"],
                               stdin: allowed.stdout)
        #expect(back.text == v.decrypted + "\n")
        let history = try #require(EnvelopeVector.recorded.first { $0.format == "v3" })
        let refused = try CLI.run(["subscribe", "rekey", "-k", "enigma", "--to-key", "new key"],
                                  stdin: Array(history.encrypted.utf8))
        #expect(refused.status == 65 && refused.stdout.isEmpty)
        #expect(refused.stderr == "pncrypt: not a subscribe response: expected {\"t\": {...}, \"m\": [...]} "
                + "(subscribe)\n")
    }
}
