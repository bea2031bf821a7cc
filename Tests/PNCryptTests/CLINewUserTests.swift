import Foundation
import Testing
@testable import PNCrypt

// Issue 25, "smaller things a new user hit": each reproduced as a user meets it, through the built binary.

@Suite struct CLINewUserTests {
    @Test("decrypt --binary on a headerless file says which reading it took and how to ask for the fixed IV")
    func binaryReadingNotice() throws {
        try withTemporaryDirectory { dir in
            let plain = Array("a file written with the fixed IV: its first block must not vanish silently".utf8)
            try Data(plain).write(to: dir.appendingPathComponent("plain"))
            let sealed = try CLI.run(["encrypt", "--key", "k", "--scheme", "legacy", "--binary", "plain",
                                      "-o", "fixed.enc"], directory: dir)
            #expect(sealed.status == 0, "\(sealed.stderr)")
            // auto reads a headerless file as random-IV (as the SDKs do): 16 bytes fewer, and a note says so.
            let auto = try CLI.run(["decrypt", "--key", "k", "--binary", "fixed.enc"], directory: dir)
            #expect(auto.status == 0 && auto.stdout == Array(plain.dropFirst(16)))
            #expect(auto.stderr.contains("read as the legacy random-IV file format"), "\(auto.stderr)")
            #expect(auto.stderr.contains("read it with --scheme legacy\n"), "\(auto.stderr)")
            // Asking for the other reading gives the whole file, without a note.
            let fixed = try CLI.run(["decrypt", "--key", "k", "--binary", "--scheme", "legacy", "fixed.enc"],
                                    directory: dir)
            #expect(fixed.status == 0 && fixed.stdout == plain && fixed.stderr.isEmpty)
        }
    }

    @Test("inspect --binary on a plaintext file says it does not look encrypted, not a decryption error")
    func inspectPlaintext() throws {
        try withTemporaryDirectory { dir in
            try Data("hello world, this is a plain text file, not ciphertext\n".utf8)
                .write(to: dir.appendingPathComponent("notes.txt"))
            let odd = try CLI.run(["inspect", "--binary", "notes.txt"], directory: dir)
            #expect(odd.status == 1)
            #expect(odd.stderr == "pncrypt: not ciphertext: the input does not look encrypted (no PNED header, and "
                    + "55 bytes is not a whole number of 16-byte blocks); the bytes look like plain text\n")
            // Whole blocks of text could be ciphertext by length alone: the text is pointed out.
            try Data(String(repeating: "plain text line\n", count: 4).utf8)
                .write(to: dir.appendingPathComponent("blocks.txt"))
            let blocks = try CLI.run(["inspect", "--binary", "blocks.txt"], directory: dir)
            #expect(blocks.status == 0)
            #expect(blocks.text.hasSuffix("the bytes look like plain text (UTF-8, no control characters): "
                                          + "probably not encrypted\n"), "\(blocks.text)")
            // Real ciphertext gets no such line.
            let sealed = try CLI.run(["encrypt", "--key", "k", "--binary", "--scheme", "legacy", "blocks.txt",
                                      "-o", "blocks.enc"], directory: dir)
            #expect(sealed.status == 0)
            let real = try CLI.run(["inspect", "--binary", "blocks.enc"], directory: dir)
            #expect(real.status == 0 && !real.text.contains("plain text"), "\(real.text)")
            let empty = try CLI.run(["inspect", "--binary", "-"])
            #expect(empty.status == 1 && empty.stderr == "pncrypt: not ciphertext: the input is empty\n")
        }
    }

    @Test("a file name given as TEXT is still encrypted as text, with a note that -i or --binary was meant")
    func fileNameAsText() throws {
        try withTemporaryDirectory { dir in
            try Data([0xFF, 0xD8, 0xFF]).write(to: dir.appendingPathComponent("photo.jpg"))
            let run = try CLI.run(["encrypt", "--key", "k", "photo.jpg"], directory: dir)
            #expect(run.status == 0)
            #expect(run.stderr == "pncrypt: note: 'photo.jpg' is also a file: its name was taken as the TEXT; for the "
                    + "file's contents give -i photo.jpg (text) or --binary photo.jpg (a file format)\n")
            let back = try CLI.run(["decrypt", "--key", "k", run.text.trimmingCharacters(in: .newlines)])
            #expect(back.text == "photo.jpg")
            let noFile = try CLI.run(["encrypt", "--key", "k", "photo.png"], directory: dir)
            #expect(noFile.status == 0 && noFile.stderr.isEmpty)
        }
    }

    @Test("one thing is counted in the singular: 1 character, 1 byte")
    func plurals() throws {
        let base64 = try CLI.run(["decrypt", "--key", "k", "QUJDR"])
        #expect(base64.status == 1)
        #expect(base64.stderr.contains("not Base64: 1 character left over"), "\(base64.stderr)")
        let oneByte = try CLI.run(["inspect", "--binary", "-"], stdin: [0x80])
        #expect(oneByte.stderr.contains("1 byte is not"), "\(oneByte.stderr)")
        let sealed = try CLI.run(["encrypt", "--key", "k", "--scheme", "acrh", "a"])
        let diagnosis = try CLI.run(["diagnose", "--key", "k", sealed.text.trimmingCharacters(in: .newlines)])
        #expect(diagnosis.text.contains("the plaintext (1 byte)"), "\(diagnosis.text)")
        for result in [base64.stderr, oneByte.stderr, diagnosis.text] {
            #expect(result.range(of: #"\b1 [a-z]+s\b"#, options: .regularExpression) == nil, "\(result)")
        }
    }

    @Test("diagnose --legacy-scheme legacy-random-iv on an ambiguous message does not contradict itself")
    func diagnoseClientSetting() throws {
        // Fixed key, fixed IV, fixed text: both legacy readings have valid padding and UTF-8, only the fixed-IV
        // one is JSON. A random-IV client shows the message's last 24 bytes, without DECRYPTION_ERROR.
        let sealed = try CLI.run(["encrypt", "--key", "enigma", "--scheme", "legacy",
                                  #"{"a":"hello there my friend, long text"}"#])
        let text = sealed.text.trimmingCharacters(in: .newlines)
        let result = try CLI.run(["diagnose", "--key", "enigma", "--legacy-scheme", "legacy-random-iv", text])
        #expect(result.status == 0)
        #expect(!result.text.contains("legacy-random-iv) shows DECRYPTION_ERROR"), "\(result.text)")
        #expect(result.text.contains("a client set to a random IV (legacy-random-iv) shows other text for it "
                                     + "(24 bytes read with key #1), without DECRYPTION_ERROR"), "\(result.text)")
        #expect(result.text.hasSuffix("a client set to --legacy-scheme legacy-random-iv reads it as "
                                      + "legacy-random-iv with key #1: other text than the most likely reading above, "
                                      + "without DECRYPTION_ERROR\n"), "\(result.text)")
        let fixed = try CLI.run(["diagnose", "--key", "enigma", "--legacy-scheme", "legacy", text])
        #expect(fixed.text.hasSuffix("a client set to --legacy-scheme legacy reads it (with key #1)\n"))
    }
}
