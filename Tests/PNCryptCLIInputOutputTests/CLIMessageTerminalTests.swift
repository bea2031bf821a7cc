import Foundation
import Testing
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

@Suite(.tags(.cli)) struct CLIMessageTerminalTests {
    @Test("(pty) message decrypt's JSON on a terminal has DEL and C1 controls as \\u00XX; pipes get raw")
    func jsonOnTerminal() throws {
        let sealed = try CLI.run(["message", "encrypt", "--key", "k", "\"a\\u007fb\\u009bc\\u001b\""])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let body = String(decoding: sealed.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try Terminal.run(["message", "decrypt", "--key", "k", body])
        #expect(shown.status == 0)
        // Still JSON, with the same value: ESC is escaped by the writer, DEL and U+009B by the terminal filter.
        #expect(shown.transcript == "\"a\\u007fb\\u009bc\\u001b\"\r\n")
        let raw = try Terminal.run(["message", "decrypt", "--key", "k", "--raw-control", body])
        #expect(raw.transcript == "\"a\u{7f}b\u{9b}c\\u001b\"\r\n")
        let piped = try CLI.run(["message", "decrypt", "--key", "k", body])
        #expect(piped.stdout == Array("\"a\u{7f}b\u{9b}c\\u001b\"\n".utf8))
    }
}

extension CLIMessageTerminalTests {
    @Test("(pty) message decrypt --lines on a terminal has control characters as \\u00XX, CRLF kept; pipes get raw")
    func linesOnTerminal() throws {
        let sealed = try CLI.run(["message", "encrypt", "--key", "k", "\"a\\u007fb\\u009bc\\u001b\""])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let body = String(decoding: sealed.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // A decrypted line (CRLF ended), and one passed through unchanged with raw ESC and C1 controls.
        let input = body + "\r\n" + "x\u{1b}]0;owned\u{07}y\u{9b}\n"
        let arguments = ["message", "decrypt", "--lines", "--key", "k", "--on-error", "passthrough",
                         "--allow-failures", input]
        let shown = try Terminal.run(arguments)
        #expect(shown.status == 0)
        // The terminal turns each newline into CR LF: the line's own CR comes first.
        #expect(shown.transcript.contains("\"a\\u007fb\\u009bc\\u001b\"\r\r\n"), "\(shown.transcript)")
        #expect(shown.transcript.contains("x\\u001b]0;owned\\u0007y\\u009b\r\n"), "\(shown.transcript)")
        #expect(!shown.transcript.contains("\u{1b}") && !shown.transcript.contains("\u{9b}")
                && !shown.transcript.contains("\u{7f}"), "\(shown.transcript)")
        let raw = try Terminal.run(arguments + ["--raw-control"])
        #expect(raw.transcript.contains("\"a\u{7f}b\u{9b}c\\u001b\"\r\r\n"), "\(raw.transcript)")
        #expect(raw.transcript.contains("x\u{1b}]0;owned\u{07}y\u{9b}\r\n"), "\(raw.transcript)")
        // --on-error fail holds the output in a temporary file first: it is escaped all the same.
        let held = try Terminal.run(["message", "decrypt", "--lines", "--key", "k", "--on-error", "fail", body])
        #expect(held.status == 0)
        #expect(held.transcript == "\"a\\u007fb\\u009bc\\u001b\"\r\n"
                + "pncrypt: decrypted 1, not decrypted 0, of 1 line\r\n", "\(held.transcript)")
        for extra in [[], ["--raw-control"]] {
            let piped = try CLI.run(arguments + extra)
            #expect(piped.status == 0)
            #expect(piped.stdout == Array("\"a\u{7f}b\u{9b}c\\u001b\"\r\nx\u{1b}]0;owned\u{07}y\u{9b}\n".utf8),
                    "\(extra)")
        }
    }

    @Test("(pty) message decrypt --lines escapes every batch of lines alike: 20,000 lines, CRLF and LF, --jobs 2")
    func manyLinesOnTerminal() throws {
        try withTemporaryDirectory { dir in
            let crypto = try MessageCrypto(cipherKey: "k", scheme: .acrh)
            var input: [UInt8] = []
            var expected = ""
            for i in 0..<20_000 {
                let pad = String(repeating: "x", count: i % 37)
                input += try crypto.publishBody(.string(pad + "\u{7f}é\u{9b}" + pad))
                input += i % 3 == 0 ? [0x0D, 0x0A] : [0x0A]
                // The terminal turns each newline into CR LF: a CRLF line end shows as CR CR LF.
                expected += "\"" + pad + "\\u007fé\\u009b" + pad + "\"" + (i % 3 == 0 ? "\r\r\n" : "\r\n")
            }
            try Data(input).write(to: dir.appendingPathComponent("in.ndjson"))
            let shown = try Terminal.run(["message", "decrypt", "--lines", "--jobs", "2", "--quiet", "--key",
                                          "k", "-i", "in.ndjson"], directory: dir)
            #expect(shown.status == 0)
            // Then the summary, on the same terminal (standard error).
            #expect(shown.transcript == expected + "pncrypt: decrypted 20000, not decrypted 0, of 20000 lines\r\n")
        }
    }

    @Test("(pty) diagnose --json --show-plaintext on a terminal has DEL and C1 controls as \\u00XX")
    func diagnoseOnTerminal() throws {
        let sealed = try CryptoModule(cipherKey: "k").encrypt(Array("\"a\u{7f}b\u{9b}c\"".utf8), scheme: .acrh)
        let shown = try Terminal.run(["diagnose", "--key", "k", "--json", "--show-plaintext", sealed])
        #expect(shown.status == 0)
        #expect(shown.transcript.contains("a\\u007fb\\u009bc"), "\(shown.transcript)")
        #expect(!shown.transcript.contains("\u{9b}") && !shown.transcript.contains("\u{7f}"))
        let piped = try CLI.run(["diagnose", "--key", "k", "--json", "--show-plaintext", sealed])
        #expect(piped.text.contains("a\u{7f}b\u{9b}c"))
    }
}
