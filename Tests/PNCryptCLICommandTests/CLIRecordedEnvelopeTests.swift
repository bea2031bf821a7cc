import Foundation
import Testing
import PNCryptJSON
@testable import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The recorded envelope vectors through the built binary (the library's reading of them: `RecordedEnvelopeTests`
/// of the messages layer).
@Suite(.tags(.cli)) struct CLIRecordedEnvelopeTests {
    @Test("CLI: each recorded body back through the binary, one status line for the foreign message, exit 1",
          arguments: EnvelopeVector.recorded)
    func cli(_ v: EnvelopeVector) throws {
        let run = try CLI.run(CLIEnvelopeTests.command(v.format) + ["--key", v.key, "--on-error", "passthrough"],
                              stdin: Array(v.encrypted.utf8))
        #expect(run.status == (v.failures.isEmpty ? 0 : 1))
        #expect(run.text == v.decrypted + "\n")
        #expect(CLIEnvelopeTests.statuses(run.stderr).count == v.failures.count)
        #expect(CLIEnvelopeTests.locations(run.stderr) == v.failures)
    }

    @Test("CLI: rekey over the recorded v3 bodies moves every message and nothing else")
    func rekey() throws {
        let (vectors, archive) = EnvelopeVector.recordedArchive
        let moved = try CLI.run(["history", "rekey", "-k", "enigma", "--to-key", "the new key", "--lines"],
                                stdin: archive)
        #expect(moved.status == 1)
        #expect(CLIEnvelopeTests.locations(moved.stderr) == vectors.flatMap(\.failures))
        let outputs = moved.text.split(separator: "\n").map(String.init)
        try #require(outputs.count == vectors.count)
        for (v, output) in zip(vectors, outputs) {
            // Every message moved: each one differs from before (the foreign one excepted).
            let before = try Envelope(parsing: Array(v.encrypted.utf8))
            let after = try Envelope(parsing: Array(output.utf8))
            let changed = zip(before.fields, after.fields).filter { $0.message != $1.message }.count
            #expect(changed == before.locations.count - v.failures.count, "\(v.id)")
        }
        // The new key gives the recorded bodies back, the rest of each response as it was.
        let back = try CLI.run(["history", "decrypt", "-k", "the new key", "--lines", "--on-error", "passthrough"],
                               stdin: Array(moved.stdout))
        #expect(back.text == vectors.map { $0.decrypted + "\n" }.joined())
        #expect(CLIEnvelopeTests.locations(back.stderr) == vectors.flatMap(\.failures))
    }
}
