import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

// A run exits 0 only when every message it was given decrypted.

@Suite(.tags(.cli)) struct CLIExitStatusTests {
    static let hello = "\"06UDjczkvAAYcqWfNwkOiQ==\""
    static func summary(_ failed: Int, _ total: String, _ verb: String = "decrypted") -> String {
        let why = verb == "decrypted" ? CLI.diagnose + "; " : ""
        return "pncrypt: \(failed) of \(total) not \(verb) (see the status lines; \(why)--allow-failures to exit 0)\n"
    }

    @Test("line mode with a failed line writes every line, then a summary and exit 1")
    func linesExitOne() throws {
        let input = Array((Self.hello + "\n\"AAAAAAAAAAAAAAAAAAAAAA==\"\n\n" + Self.hello + "\n").utf8)
        for policy in ["marker", "passthrough"] {
            let run = try CLI.run(["message", "decrypt", "--lines", "--key", "enigma", "--scheme", "legacy",
                                   "--on-error", policy], stdin: input)
            #expect(run.status == 1, "\(policy): \(run.stderr)")
            #expect(run.text.split(separator: "\n", omittingEmptySubsequences: false).count == 5, "\(run.text)")
            #expect(run.stderr.hasSuffix(Self.summary(1, "3 lines")), "\(run.stderr)")
            let allowed = try CLI.run(["message", "decrypt", "--lines", "--key", "enigma", "--scheme", "legacy",
                                       "--on-error", policy, "--allow-failures"], stdin: input)
            #expect(allowed.status == 0 && allowed.stdout == run.stdout)
            #expect(!allowed.stderr.contains("not decrypted ("), "\(allowed.stderr)")
        }
        let clean = try CLI.run(["message", "decrypt", "--lines", "--key", "enigma", "--scheme", "legacy"],
                                stdin: Array((Self.hello + "\n\n").utf8))
        // A run that ends writes its summary, success too (issue 59, item 3).
        #expect(clean.status == 0 && clean.stderr == "pncrypt: decrypted 1, not decrypted 0, of 1 line\n")
        let contradiction = try CLI.run(["message", "decrypt", "--key", "enigma", "--on-error", "fail",
                                         "--allow-failures", Self.hello])
        #expect(contradiction.status == 64)
        // Encrypting: a line that is not JSON fails the run the same way.
        let encrypted = try CLI.run(["message", "encrypt", "--lines", "--key", "enigma"],
                                    stdin: Array("\"a\"\nnot json\n".utf8))
        #expect(encrypted.status == 1 && encrypted.stderr.hasSuffix(Self.summary(1, "2 lines", "encrypted")))
    }

    @Test("rekey has --on-error: passthrough (exit 1 when messages are left), fail (nothing written)")
    func rekeyOnError() throws {
        try withTemporaryDirectory { dir in
            let input = Self.hello + "\n\"AAAAAAAAAAAAAAAAAAAAAA==\"\n"
            try Data(input.utf8).write(to: dir.appendingPathComponent("in"))
            let base = ["message", "rekey", "--key", "enigma", "--legacy-scheme", "legacy", "--to-key", "new",
                        "-i", "in", "-o", "out"]
            let passthrough = try CLI.run(base, directory: dir)
            #expect(passthrough.status == 1, "\(passthrough.stderr)")
            #expect(passthrough.stderr.hasSuffix(Self.summary(1, "2 messages", "rekeyed")), "\(passthrough.stderr)")
            let written = try String(contentsOf: dir.appendingPathComponent("out"), encoding: .utf8)
            #expect(written.hasSuffix("\n\"AAAAAAAAAAAAAAAAAAAAAA==\"\n") && !written.hasPrefix(Self.hello))
            try FileManager.default.removeItem(at: dir.appendingPathComponent("out"))
            let fail = try CLI.run(base + ["--on-error", "fail"], directory: dir)
            #expect(fail.status == 1 && fail.stderr.contains("line 2"), "\(fail.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
            let allowed = try CLI.run(base + ["--allow-failures"], directory: dir)
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(try CLI.run(base + ["--on-error", "marker"], directory: dir).status == 64)
        }
    }
}
