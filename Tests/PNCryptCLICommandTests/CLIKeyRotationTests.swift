import Foundation
import Testing
import PNCryptCore
import PNCryptVectors
import PNCryptTestSupport
import PNCryptCLITestSupport

@Suite(.tags(.cli)) struct CLIKeyRotationTests {
    @Test("decrypt tries several keys in order, for text and for files")
    func severalKeys() throws {
        let text = try CLI.run(["decrypt", "--key", "new", "--key", "enigma", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(text.status == 0)
        #expect(text.text == "yay!")
        let none = try CLI.run(["decrypt", "--key", "a", "--key", "b", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(none.status == 1)
        #expect(none.stderr == "pncrypt: decryption error: \(CryptoModule.decryptionFailed.message) "
                + "(\(CLI.diagnose))\n")

        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sealed = dir.appendingPathComponent("sealed")
        let opened = dir.appendingPathComponent("opened")
        let plain = Array("a file under the old key".utf8)
        // A fixed IV: with a random one, the key "new" would pass the padding check too about once in 256 runs, and
        // two readings are ambiguous (the right outcome then, but not this test's).
        let enc = try CLI.run(["encrypt", "--key", "old", "--binary", "--iv", "0f0e0d0c0b0a09080706050403020100",
                               "-o", sealed.path], stdin: plain)
        #expect(enc.status == 0)
        let dec = try CLI.run(["decrypt", "--key", "new", "--key", "old", "--binary", "-i", sealed.path,
                               "-o", opened.path])
        #expect(dec.status == 0, "\(dec.stderr)")
        #expect(try Data(contentsOf: opened) == Data(plain))
        let toStdout = try CLI.run(["decrypt", "--key", "new", "--key", "old", "--binary", "-i", sealed.path])
        #expect(toStdout.stdout == plain)
        // Standard input is copied (ciphertext only) so that every key can be checked on its final blocks.
        let stdin = try CLI.run(["decrypt", "--key", "new", "--key", "old", "--binary"],
                                stdin: Array(try Data(contentsOf: sealed)))
        #expect(stdin.status == 0, "\(stdin.stderr)")
        #expect(stdin.stdout == plain)
        let encryptTwo = try CLI.run(["encrypt", "--key", "a", "--key", "b", "x"])
        #expect(encryptTwo.status == 64)
    }
}
