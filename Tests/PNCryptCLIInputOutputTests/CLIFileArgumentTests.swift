import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI as Unix users expect it (each suite runs the built binary): files are paths.
@Suite(.tags(.cli)) struct CLIFileArgumentTests {
    @Test("with --binary the positional argument is an input path (encrypt, decrypt, inspect)")
    func binaryPositionalIsPath() throws {
        try withTemporaryDirectory { dir in
            let photo = try binaryFile(dir.appendingPathComponent("photo.jpg"), count: 100_000)
            let sealed = try CLI.run(["encrypt", "--key", "k", "--binary", "photo.jpg", "-o", "p.enc"],
                                     directory: dir)
            #expect(sealed.status == 0, "\(sealed.stderr)")
            let size = try Data(contentsOf: dir.appendingPathComponent("p.enc")).count
            #expect(size == 26 + photo.count / 16 * 16 + 16, "the file was not what was encrypted")
            let opened = try CLI.run(["decrypt", "--key", "k", "--binary", "p.enc", "-o", "back.jpg"], directory: dir)
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("back.jpg")) == Data(photo))
            let inspected = try CLI.run(["inspect", "--binary", "p.enc"], directory: dir)
            #expect(inspected.status == 0, "\(inspected.stderr)")
            #expect(inspected.text.contains("ciphertext: \(size - 26) bytes"), "\(inspected.text)")
            // A missing file is a missing input, not text to encrypt.
            let missing = try CLI.run(["encrypt", "--key", "k", "--binary", "nope.jpg"], directory: dir)
            #expect(missing.status == 66, "\(missing.stderr)")
            #expect(missing.stderr == "pncrypt: input file 'nope.jpg' does not exist\n")
        }
    }

    @Test("gzip and gunzip take the positional argument as an input path")
    func gzipPositionalIsPath() throws {
        try withTemporaryDirectory { dir in
            let numbers = Array((1...20_000).map(String.init).joined(separator: "\n").utf8)
            try Data(numbers).write(to: dir.appendingPathComponent("nums.txt"))
            let packed = try CLI.run(["gzip", "nums.txt", "-o", "nums.txt.gz"], directory: dir)
            #expect(packed.status == 0, "\(packed.stderr)")
            let gzip = try runProcess(try #require(findTool("gzip")), ["-dc", "nums.txt.gz"], directory: dir)
            #expect(Data(gzip.stdout) == Data(numbers))
            let unpacked = try CLI.run(["gunzip", "nums.txt.gz"], directory: dir)
            #expect(unpacked.status == 0, "\(unpacked.stderr)")
            #expect(Data(unpacked.stdout) == Data(numbers))
            // "-" is standard input, as for gzip.
            let stdin = try CLI.run(["gunzip", "-"], stdin: Array(try Data(contentsOf: dir.appendingPathComponent(
                "nums.txt.gz"))), directory: dir)
            #expect(Data(stdin.stdout) == Data(numbers))
        }
    }

    @Test("text mode keeps TEXT, even when a file has that name")
    func textModeKeepsText() throws {
        try withTemporaryDirectory { dir in
            try Data("not this".utf8).write(to: dir.appendingPathComponent("yay!"))
            let text = try CLI.run(["encrypt", "--key", "enigma", "--scheme", "legacy", "yay!"], directory: dir)
            #expect(text.text == "q/xJqqN6qbiZMXYmiQC1Fw==\n")
        }
    }

    @Test("each command's usage says what the positional argument is")
    func usageSaysPath() throws {
        for command in ["encrypt", "decrypt", "inspect"] {
            let help = try CLI.run([command, "--help"]).text
            #expect(help.contains("with --binary, a file path"), "\(command): \(help)")
        }
        for command in ["gzip", "gunzip"] {
            let help = try CLI.run([command, "--help"]).text
            #expect(help.contains("[<path>]"), "\(command): \(help)")
        }
    }
}
