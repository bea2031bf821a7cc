import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptCompression
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// Line mode run unattended over real exports (issue 59, items 3 and 6), through the built binary: the closing
/// summary, bounded status lines on stderr, `--statuses FILE`, gzip input, bare Base64 lines, binary data on
/// standard input.
@Suite(.tags(.cli)) struct CLIUnattendedLinesTests {
    /// `count` wire messages under `key` (acrh), one a line: `"<Base64>"`.
    static func wire(_ count: Int, key: String = "k") throws -> [String] {
        let crypto = try MessageCrypto(cipherKey: key, scheme: .acrh)
        return try (0..<count).map { String(decoding: try crypto.publishBody(["n": .number(JSONNumber($0))]),
                                            as: UTF8.self) }
    }

    static func ndjson(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\n") + "\n").utf8) }

    /// The status lines on stderr (JSON objects).
    static func statusLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
    }

    @Test("decrypt --lines: the summary is always written (counts by reason), stderr holds at most 20 statuses")
    func summaryAndBoundedStatuses() throws {
        let input = Self.ndjson(try Self.wire(50, key: "other") + ["not json"])
        for extra in [["--allow-failures"], ["--allow-failures", "--quiet"], []] {
            let run = try CLI.run(["message", "decrypt", "--lines", "-k", "k", "--jobs", "2"] + extra, stdin: input)
            #expect(run.status == (extra.isEmpty ? 1 : 0), "\(extra): \(run.stderr)")
            #expect(Self.statusLines(run.stderr).count == 20, "\(extra)")
            let others = run.stderr.split(separator: "\n").filter { !$0.hasPrefix("{") }
            var expected = [
                "pncrypt: 31 more status lines not shown (--statuses FILE writes every one)",
                #"pncrypt: decrypted 0, not decrypted 51, of 51 lines, by reason: "#
                    + #"{"wrongKeyOrCorrupt":50,"invalidJSON":1}"#,
            ]
            if extra.isEmpty {
                expected.append("pncrypt: 51 of 51 lines not decrypted (see the status lines; pncrypt diagnose, "
                                + "given the same key and the encrypted text, says why; --allow-failures to exit 0)")
            }
            #expect(others.map(String.init) == expected, "\(extra): \(run.stderr)")
        }
        // Success has its summary too, and no status line.
        let good = try CLI.run(["message", "decrypt", "--lines", "-k", "k", "--quiet"],
                               stdin: Self.ndjson(try Self.wire(3) + [""]))
        #expect(good.status == 0)
        #expect(good.stderr == "pncrypt: decrypted 3, not decrypted 0, of 3 lines\n")
        // history decrypt --lines counts messages.
        let history = "[[" + (try Self.wire(2)).joined(separator: ",") + ",\"bad\"],1,2]"
        let envelopes = try CLI.run(["history", "decrypt", "--lines", "-k", "k", "--allow-failures"],
                                    stdin: Self.ndjson([history, history]))
        #expect(envelopes.status == 0, "\(envelopes.stderr)")
        #expect(envelopes.stderr.hasSuffix("pncrypt: decrypted 4, not decrypted 2, of 6 messages, by reason: "
                                           + #"{"notBase64":2}"# + "\n"), "\(envelopes.stderr)")
    }

    @Test("rekey --lines: the summary counts by reason; stderr is bounded")
    func rekeySummary() throws {
        let input = Self.ndjson(try Self.wire(25, key: "other") + (try Self.wire(2)))
        let run = try CLI.run(["message", "rekey", "-k", "k", "--to-key", "new", "--allow-failures"], stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.statusLines(run.stderr).count == 20)
        #expect(run.stderr.hasSuffix("pncrypt: 5 more status lines not shown (--statuses FILE writes every one)\n"
                                     + "pncrypt: rekeyed 2, unchanged 25 (not decryptable), already new 0, by reason: "
                                     + #"{"wrongKeyOrCorrupt":25}"# + "\n"), "\(run.stderr)")
        // Its three counts stay the only words that are numbers (commas stripped), as examples/spark_rekey.py
        // reads them.
        let summary = try #require(run.stderr.split(separator: "\n").last { $0.hasPrefix("pncrypt: rekeyed") })
        let numbers = summary.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: [","])) }
        #expect(numbers == [2, 25, 0], "\(summary)")
    }

    @Test("--statuses FILE keeps every status line (NDJSON with line numbers), all or nothing")
    func statusesFile() throws {
        try withTemporaryDirectory { dir in
            let input = Self.ndjson(try Self.wire(30, key: "other") + (try Self.wire(1)) + ["not json"])
            try Data(input).write(to: dir.appendingPathComponent("in.ndjson"))
            let run = try CLI.run(["message", "decrypt", "--lines", "-k", "k", "--allow-failures", "-i", "in.ndjson",
                                   "--statuses", "statuses.ndjson", "-o", "out.ndjson"], directory: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.statusLines(run.stderr).count == 20)
            #expect(run.stderr.contains("pncrypt: 11 more status lines not shown (every one is in the --statuses "
                                        + "file)\n"), "\(run.stderr)")
            let kept = try String(contentsOf: dir.appendingPathComponent("statuses.ndjson"), encoding: .utf8)
                .split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            let numbers = (Array(1...30) + [32]).map { Optional(JSONValue.number(JSONNumber($0))) }
            #expect(kept.map { $0["line"] } == numbers)
            #expect(kept.prefix(30).allSatisfy { $0["reason"] == "wrongKeyOrCorrupt" })
            #expect(kept.last?["reason"] == "invalidJSON")
            // The statuses on stderr are the file's first lines, byte for byte.
            let file = try String(contentsOf: dir.appendingPathComponent("statuses.ndjson"), encoding: .utf8)
            #expect(file.hasPrefix(Self.statusLines(run.stderr).joined(separator: "\n") + "\n"))
            // A run that stops (--on-error fail) leaves no statuses file; one over the input or -o is refused.
            let stopped = try CLI.run(["message", "decrypt", "--lines", "-k", "k", "--on-error", "fail", "-i",
                                       "in.ndjson", "--statuses", "stopped.ndjson"], directory: dir)
            #expect(stopped.status == 1)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("stopped.ndjson").path))
            let overInput = try CLI.run(["message", "rekey", "-k", "k", "--to-key", "n", "-i", "in.ndjson",
                                         "--statuses", "in.ndjson"], directory: dir)
            #expect(overInput.status == 64, "\(overInput.stderr)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("in.ndjson")) == Data(input))
            let same = try CLI.run(["message", "decrypt", "--lines", "-k", "k", "-i", "in.ndjson", "-o", "x",
                                    "--statuses", "x"], directory: dir)
            #expect(same.status == 64, "\(same.stderr)")
            let noLines = try CLI.run(["message", "decrypt", "-k", "k", "--statuses", "s", "-i", "in.ndjson"],
                                      directory: dir)
            #expect(noLines.status == 64 && noLines.stderr.contains("--statuses goes with --lines"))
        }
    }

    @Test("gzip input (-i and standard input) is read as what it holds, in every line-mode command, bounded")
    func gzipInput() throws {
        try withTemporaryDirectory { dir in
            let plain = Self.ndjson(try Self.wire(200))
            try Data(try Compressor.compress(plain)).write(to: dir.appendingPathComponent("in.ndjson.gz"))
            try Data(plain).write(to: dir.appendingPathComponent("in.ndjson"))
            let gz = Array(try Data(contentsOf: dir.appendingPathComponent("in.ndjson.gz")))
            let commands: [[String]] = [
                ["message", "decrypt", "--lines", "-k", "k"],
                ["message", "rekey", "-k", "k", "--to-key", "k", "--to-scheme", "acrh"],
                ["history", "decrypt", "--lines", "-k", "k", "--allow-failures"],
                ["subscribe", "decrypt", "--lines", "-k", "k", "--allow-failures"],
                ["history", "rekey", "--lines", "-k", "k", "--to-key", "n", "--allow-failures"],
                ["subscribe", "rekey", "--lines", "-k", "k", "--to-key", "n", "--allow-failures"],
            ]
            for command in commands {
                let expected = try CLI.run(command + ["-i", "in.ndjson"], directory: dir)
                #expect(expected.status == 0, "\(command): \(expected.stderr)")
                let fromFile = try CLI.run(command + ["-i", "in.ndjson.gz"], directory: dir)
                #expect(fromFile.status == 0 && fromFile.stdout == expected.stdout, "\(command): \(fromFile.stderr)")
                #expect(fromFile.stderr == expected.stderr, "\(command)")
                let fromStdin = try CLI.run(command, stdin: gz, directory: dir)
                #expect(fromStdin.status == 0 && fromStdin.stdout == expected.stdout, "\(command)")
            }
            // encrypt --lines: what the gzip holds is encrypted (acrh: fresh IVs; decrypted back, the same).
            let messages = Self.ndjson(["\"a\"", "{\"b\":1}"])
            let sealed = try CLI.run(["message", "encrypt", "--lines", "-k", "k"],
                                     stdin: try Compressor.compress(messages))
            #expect(sealed.status == 0, "\(sealed.stderr)")
            #expect(try CLI.run(["message", "decrypt", "--lines", "-k", "k", "--quiet"], stdin: sealed.stdout)
                .stdout == messages)
            // Bounded: --max-size (the decompression limit, 1G by default) refuses more, nothing written.
            let over = try CLI.run(["message", "decrypt", "--lines", "-k", "k", "--max-size", "1K", "-i",
                                    "in.ndjson.gz", "-o", "out.ndjson"], directory: dir)
            #expect(over.status == 1, "\(over.stderr)")
            #expect(over.stderr.contains("--max-size"), "\(over.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.ndjson").path))
            // Corrupt gzip is an error of the run, not a status a line.
            var broken = gz
            broken[broken.count / 2] ^= 0xFF
            let corrupt = try CLI.run(["message", "decrypt", "--lines", "-k", "k", "-o", "out.ndjson"],
                                      stdin: broken, directory: dir)
            #expect(corrupt.status == 1, "\(corrupt.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.ndjson").path))
            #expect(try CLI.run(["message", "decrypt", "-k", "k", "--max-size", "1K", "-i", "in.ndjson"],
                                directory: dir).status == 64)
        }
    }

    @Test("--lines takes bare Base64 lines as the one-message form does; rekey keeps them bare")
    func bareBase64Lines() throws {
        let quoted = try Self.wire(3)
        let bare = quoted.map { String($0.dropFirst().dropLast()) }
        let expected = try CLI.run(["message", "decrypt", "--lines", "-k", "k"], stdin: Self.ndjson(quoted))
        let run = try CLI.run(["message", "decrypt", "--lines", "-k", "k"], stdin: Self.ndjson(bare))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected.stdout && expected.status == 0)
        // The one-message form reads the same line the same way.
        let one = try CLI.run(["message", "decrypt", "-k", "k", bare[1]])
        #expect(one.text == Self.text(run)[1] + "\n")
        // Under another key: a status line, and passthrough copies the line as it came.
        let other = try CLI.run(["message", "decrypt", "--lines", "-k", "other", "--on-error", "passthrough",
                                 "--allow-failures"], stdin: Self.ndjson(bare))
        #expect(other.stdout == Self.ndjson(bare))
        #expect(Self.statusLines(other.stderr).count == 3)
        // rekey: bare in, bare out, under the new key.
        let moved = try CLI.run(["message", "rekey", "-k", "k", "--to-key", "new"], stdin: Self.ndjson(bare))
        #expect(moved.status == 0, "\(moved.stderr)")
        let lines = Self.text(moved)
        #expect(lines.count == 3 && lines.allSatisfy { !$0.hasPrefix("\"") && $0.count > 40 }, "\(lines)")
        let back = try CLI.run(["message", "decrypt", "--lines", "-k", "new"], stdin: moved.stdout)
        #expect(back.stdout == expected.stdout)
    }

    static func text(_ result: CLI.Result) -> [String] {
        result.text.split(separator: "\n").map(String.init)
    }

    @Test("decrypt of binary data on standard input names --binary")
    func binaryOnStandardInput() throws {
        let sealed = try CryptoModule(cipherKey: "k").encrypt(Array("a photo".utf8), scheme: .acrh)
        let raw = Array(try #require(Data(base64Encoded: sealed)))
        let run = try CLI.run(["decrypt", "-k", "k"], stdin: raw)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("pncrypt: decryption error: not Base64: unexpected byte 0x"), "\(run.stderr)")
        #expect(run.stderr.contains("standard input holds binary data, not Base64 text: give --binary to read it "
                                    + "as a binary file"), "\(run.stderr)")
        let binary = try CLI.run(["decrypt", "-k", "k", "--binary", "-f"], stdin: raw)
        #expect(binary.text == "a photo", "\(binary.stderr)")
    }
}
