import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// How `-i FILE` is told apart, raw file or Base64 text (`InputShape`), on inputs the `input-shape` fuzz target
/// found: detection decides only how the input is encoded, and never takes text the text reader accepts for a
/// binary file.
@Suite(.tags(.cli)) struct CLIInputShapeTests {
    /// Found by the `input-shape` fuzz target: Base64 text whose first four characters are `PNED` (a ciphertext
    /// starting with the bytes 3C D1 03: one random IV in 2^24) was taken for a binary file with a PNED header, and
    /// failed as a malformed header. A real header's version byte (0x01) is never text.
    @Test("Base64 text that starts with PNED is text for decrypt, inspect and diagnose -i")
    func base64StartingWithPNED() throws {
        try withTemporaryDirectory { dir in
            let iv: [UInt8] = [0x3C, 0xD1, 0x03] + [UInt8](repeating: 7, count: 13)
            let text = try CryptoModule(cipherKey: "k").encrypt(Array("hello".utf8), scheme: .legacyRandomIV, iv: iv)
            #expect(text.hasPrefix("PNED"))
            try Data((text + "\n").utf8).write(to: dir.appendingPathComponent("message.txt"))
            let run = try CLI.run(["decrypt", "--key", "k", "-i", "message.txt"], directory: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == Array("hello".utf8))
            #expect(!run.stderr.contains("binary file"), "\(run.stderr)")
            for command in [["inspect"], ["diagnose", "--key", "k"]] {
                let other = try CLI.run(command + ["-i", "message.txt"], directory: dir)
                #expect(!other.stderr.contains("binary file"), "\(command): \(other.stderr)")
                #expect(!other.stderr.contains("malformed"), "\(command): \(other.stderr)")
            }
        }
    }
}
