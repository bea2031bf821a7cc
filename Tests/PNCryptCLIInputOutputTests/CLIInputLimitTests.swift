import Foundation
import Testing
import PNCryptTestSupport
import PNCryptCLITestSupport

/// Single messages are bounded: the commands that hold their input whole (message encrypt and
/// decrypt, history decrypt and rekey, subscribe decrypt without `--lines`; diagnose) read at most `--max-input`
/// bytes (default 2 MiB) and refuse more with one line naming the limit and the option, exit 64, nothing on
/// standard output.
@Suite(.tags(.cli)) struct CLIInputLimitTests {
    /// The commands that hold their input whole, reading `-i PATH` (key "k").
    static let commands: [[String]] = [["message", "decrypt"], ["message", "encrypt"], ["history", "decrypt"],
                                       ["history", "rekey", "--to-key", "j"], ["subscribe", "decrypt"],
                                       ["diagnose"]]

    static func expectRefused(_ result: CLI.Result, limit: Int, _ comment: String) {
        #expect(result.status == 64, "\(comment): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(comment)")
        #expect(result.stderr.hasPrefix("pncrypt: ") && result.stderr.filter { $0 == "\n" }.count == 1
                && result.stderr.contains("larger than \(limit) bytes") && result.stderr.contains("--max-input"),
                "\(comment): \(result.stderr)")
    }

    @Test("a 300 MB single message is refused under the default limit at once, without being read",
          .tags(.stress), .notInQuickRun)
    func defaultLimitRefusesLargeInput() throws {
        try withTemporaryDirectory { dir in
            // Sparse: 300 MB long, no blocks written (the run refuses it on its length).
            let input = dir.appendingPathComponent("300MB.json")
            try #require(FileManager.default.createFile(atPath: input.path, contents: nil))
            try #require(truncate(input.path, 300_000_000) == 0)
            for command in Self.commands {
                let start = ContinuousClock.now
                let result = try CLI.run(command + ["-k", "k", "-i", input.path])
                Self.expectRefused(result, limit: 2 << 20, "\(command)")
                #expect(ContinuousClock.now - start < .seconds(20), "\(command)")
            }
            // From a pipe: refused once 2 MiB have been read.
            let piped = try CLI.run(["message", "encrypt", "-k", "k"],
                                    stdin: Array(("\"" + String(repeating: "a", count: 3 << 20) + "\"").utf8))
            #expect(piped.stderr.contains("standard input is larger"), "\(piped.stderr)")
            Self.expectRefused(piped, limit: 2 << 20, "standard input")
        }
    }

    @Test("--max-input SIZE: input of exactly SIZE bytes is read, one byte more refused; none lifts the limit")
    func option() throws {
        try withTemporaryDirectory { dir in
            let sealed = try CLI.run(["message", "encrypt", "-k", "k",
                                      "\"" + String(repeating: "b", count: 40_000) + "\""])
            try #require(sealed.status == 0, "\(sealed.stderr)")
            let message = dir.appendingPathComponent("message.json")
            try Data(sealed.stdout.dropLast()).write(to: message)
            let size = sealed.stdout.count - 1
            let history = dir.appendingPathComponent("history.json")
            try Data(("[[" + sealed.text.dropLast() + "],1,2]").utf8).write(to: history)
            for (command, input, count) in [(["message", "decrypt"], message, size),
                                            (["diagnose"], message, size),
                                            (["history", "decrypt"], history, size + 8)] {
                let fits = try CLI.run(command + ["-k", "k", "--max-input", "\(count)", "-i", input.path])
                #expect(fits.status == 0, "\(command): \(fits.stderr)")
                let over = try CLI.run(command + ["-k", "k", "--max-input", "\(count - 1)", "-i", input.path])
                Self.expectRefused(over, limit: count - 1, "\(command)")
                let none = try CLI.run(command + ["-k", "k", "--max-input", "none", "-i", input.path])
                #expect(none.status == 0, "\(command): \(none.stderr)")
            }
            let text = try CLI.run(["message", "encrypt", "-k", "k", "--max-input", "1K",
                                    "\"" + String(repeating: "c", count: 2000) + "\""])
            #expect(text.stderr.contains("the text given is larger"), "\(text.stderr)")
            Self.expectRefused(text, limit: 1024, "TEXT")
            #expect(try CLI.run(["message", "decrypt", "--lines", "-k", "k", "--max-input", "1M"]).status == 64)
        }
    }

    @Test("an input just under the default, of the shape that takes the most memory (small numbers), stays bounded")
    func worstShapeUnderTheDefault() throws {
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("numbers.json")
            let count = (2 << 20) / 2 - 1
            try Data(("[" + Array(repeating: "1", count: count).joined(separator: ",") + "]").utf8).write(to: input)
            let run = try CLI.peakRSS(["message", "encrypt", "-k", "k"], input: input.path)
            #expect(run.status == 0)
            if !runningUnderSanitizer {
                #expect(run.bytes < 128 << 20, "peak RSS \(run.bytes >> 20) MiB")
            }
        }
    }
}
