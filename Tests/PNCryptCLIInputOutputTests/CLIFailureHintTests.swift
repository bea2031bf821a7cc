import Foundation
import Testing
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The hints after the one decryption failure come from the library (`FailureHint`, issue 59 item 8), as in C and
/// Python: a key given as text that is also a file's name is named; a Base64 text longer than any message names
/// `--binary`, in the same words whatever the key; a message-sized text with a plain wrong key gets no hint.
@Suite(.tags(.cli)) struct CLIFailureHintTests {
    @Test("a key that is also a file's name; no hint for a plain wrong key on a short text")
    func keyNamesAFile() throws {
        let sealed = try CryptoModule(cipherKey: "enigma").encrypt(Array("hello".utf8))
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("my.key").path
            try Data("enigma".utf8).write(to: URL(fileURLWithPath: path))
            let run = try CLI.run(["decrypt", "--key", path, sealed])
            #expect(run.status == 1)
            #expect(run.stderr.contains("hint: --key: the key is also the name of a file"), "\(run.stderr)")
            let fromFile = try CLI.run(["decrypt", "--key-file", path, sealed])
            #expect(fromFile.status == 0 && fromFile.text.hasPrefix("hello"), "\(fromFile.stderr)")
        }
        let plain = try CLI.run(["decrypt", "--key", "wrong", sealed])
        #expect(plain.status == 1 && !plain.stderr.contains("hint:"), "\(plain.stderr)")
    }

    @Test("Base64 longer than any message: --binary named, the same words for a binary plaintext and a wrong key")
    func longText() throws {
        let binary = (0..<40_000).map { UInt8(0x80 + $0 % 64) }
        let sealed = try CryptoModule(cipherKey: "enigma").encrypt(binary)
        var lines: [String] = []
        for key in ["enigma", "wrong"] {
            let run = try CLI.run(["decrypt", "--key", key], stdin: Array(sealed.utf8))
            #expect(run.status == 1)
            let hint = run.stderr.split(separator: "\n").first { $0.contains("hint:") }.map(String.init)
            #expect(hint?.contains("longer than any message") == true && hint?.contains("--binary") == true,
                    "\(run.stderr)")
            lines.append(run.stderr)
        }
        #expect(lines[0] == lines[1])
    }
}
