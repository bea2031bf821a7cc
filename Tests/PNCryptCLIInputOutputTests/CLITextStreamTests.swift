import Foundation
import Testing
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

// Text mode of `encrypt` and `decrypt` streams in bounded memory, writes nothing before the verdict, and shows
// control characters escaped on a terminal.

/// A file of `count` bytes of UTF-8 text (a repeated line with non-ASCII characters), written 1 MiB at a time.
private func textFile(_ url: URL, count: Int) throws {
    let line = Array("The quick brown fox jumps over the lazy dog, é€ 0123456789\n".utf8)
    var block: [UInt8] = []
    while block.count < 1 << 20 { block += line }
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let file = try FileHandle(forWritingTo: url)
    var written = 0
    while written < count {
        let n = min(block.count, count - written)
        try file.write(contentsOf: block[0..<n])
        written += n
    }
    try file.close()
}

/// The same text as `textFile` in memory.
private func text(count: Int) -> [UInt8] {
    let line = Array("The quick brown fox jumps over the lazy dog, é€ 0123456789\n".utf8)
    var bytes: [UInt8] = []
    while bytes.count < count { bytes += line }
    return Array(bytes.prefix(count))
}

private let ivHex = "30313233343536373839303132333435"

@Suite(.tags(.cli)) struct CLITextStreamTests {
    @Test("256 MiB of text encrypted and decrypted under 96 MiB peak RSS (skipped under a sanitizer)",
          .tags(.stress), .notInQuickRun, .notUnderSanitizer)
    func boundedMemory() throws {
        try withTemporaryDirectory { dir in
            let plain = dir.appendingPathComponent("big.txt")
            let sealed = dir.appendingPathComponent("big.b64")
            let opened = dir.appendingPathComponent("big.out")
            try textFile(plain, count: 256 << 20)
            let encrypt = try CLI.peakRSS(["encrypt", "--key", "big", "--scheme", "acrh",
                                                     "-o", sealed.path], input: plain.path)
            #expect(encrypt.status == 0)
            #expect(encrypt.samples > 10, "the run was sampled while it ran")
            #expect(encrypt.bytes < 96 << 20, "encrypt: peak RSS \(encrypt.bytes >> 20) MiB")
            // Standard input (a file here) to -o: the whole input is checked before the output is written.
            let decrypt = try CLI.peakRSS(["decrypt", "--key", "big", "--scheme", "acrh",
                                                     "-o", opened.path], input: sealed.path)
            #expect(decrypt.status == 0)
            #expect(decrypt.samples > 10, "the run was sampled while it ran")
            #expect(decrypt.bytes < 96 << 20, "decrypt: peak RSS \(decrypt.bytes >> 20) MiB")
            let same = try runProcess("/usr/bin/cmp", [plain.path, opened.path])
            #expect(same.status == 0, "the round trip gives the input back: \(same.text)")
        }
    }

    @Test("streamed text is byte for byte the one-shot text, every scheme, across chunk boundaries",
          arguments: Scheme.allCases)
    func sameAsOneShot(scheme: Scheme) throws {
        try withTemporaryDirectory { dir in
            let module = try CryptoModule(cipherKey: "k")
            let iv = Array("0123456789012345".utf8)
            for count in [1, 15, 16, 17, 100_000, (1 << 20) + 1, (3 << 20) + 5] {
                let plaintext = text(count: count)
                try Data(plaintext).write(to: dir.appendingPathComponent("plain"))
                let expected = try module.encrypt(plaintext, scheme: scheme, iv: iv) + "\n"
                let encrypted = try CLI.run(["encrypt", "--key", "k", "--scheme", scheme.rawValue, "--iv", ivHex,
                                             "-i", "plain"], directory: dir)
                #expect(encrypted.status == 0, "\(scheme) \(count): \(encrypted.stderr)")
                #expect(encrypted.text == expected, "\(scheme) \(count)")
                // Read back from a file, from standard input, and wrapped at 64 columns in JSON quotes.
                try Data(encrypted.stdout).write(to: dir.appendingPathComponent("sealed"))
                let read = ["decrypt", "--key", "k", "--scheme", scheme.rawValue]
                let fromFile = try CLI.run(read + ["-i", "sealed"], directory: dir)
                #expect(fromFile.status == 0 && fromFile.stdout == plaintext, "\(scheme) \(count): \(fromFile.stderr)")
                guard count <= 100_000 else { continue }
                var wrapped: [UInt8] = [0x22]
                for (index, c) in encrypted.stdout.dropLast().enumerated() {
                    if index > 0 && index % 64 == 0 { wrapped += [0x0D, 0x0A] }
                    wrapped.append(c)
                }
                wrapped += [0x22, 0x0A]
                let fromStdin = try CLI.run(read, stdin: wrapped, directory: dir)
                #expect(fromStdin.status == 0 && fromStdin.stdout == plaintext, "\(scheme) \(count): wrapped")
            }
        }
    }

    @Test("the errors of text decryption are the one-shot errors (Base64, format, key)", arguments: [
        ("q/xJqqN6qbiZMXYmiQC1Fw", "not Base64: 2 characters left over at the end (missing '=' padding?)"),
        ("\"q/xJqqN6qbiZMXYmiQC1Fw==", "not Base64: unexpected character '\"' at offset 0"),
        ("q/xJ qqN6qbiZMXYmiQC1Fw==", "not Base64: unexpected space at offset 4"),
        ("q-xJqqN6qbiZMXYmiQC1Fw==", "not Base64: unexpected character '-' at offset 1 (URL-safe Base64 is not "
            + "accepted)"),
        ("", "empty ciphertext"),
        ("UE5FRAFBQ1JI", "PNED header cut short at offset 9: no metadata length byte"),
        ("q/xJqqN6qbiZMXYmiQC1Fw==", "cannot decrypt: wrong key, wrong scheme, or corrupt data ("
            + CLI.diagnose + ")"),
    ])
    func sameErrors(input: String, message: String) throws {
        let result = try CLI.run(["decrypt", "--key", "wrong", input])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasSuffix(message + "\n"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a corrupt last block, or text that is not UTF-8 at its very end, writes zero bytes to a pipe")
    func nothingBeforeTheVerdict() throws {
        try withTemporaryDirectory { dir in
            let module = try CryptoModule(cipherKey: "k")
            // 3 MiB is whole blocks: the last block is all padding (16 bytes of 0x10). Flipping the low bit of the
            // block before it flips the last plaintext byte to 0x11: the padding certainly fails.
            var bytes = try module.encryptBinary(text(count: 3 << 20), scheme: .acrh)
            bytes[bytes.count - 17] ^= 0x01
            let corrupt = Base64.encode(bytes)
            let notText = try module.encrypt(text(count: 3 << 20) + [0xFF], scheme: .acrh)
            for (name, sealed) in [("corrupt", corrupt), ("not UTF-8", notText)] {
                try Data(sealed.utf8).write(to: dir.appendingPathComponent("sealed"))
                for arguments in [["-i", "sealed"], ["--scheme", "acrh", "-i", "sealed"]] {
                    let result = try CLI.run(["decrypt", "--key", "k"] + arguments, directory: dir)
                    #expect(result.status == 1, "\(name) \(arguments): \(result.stderr)")
                    #expect(result.stdout.isEmpty, "\(name) \(arguments): \(result.stdout.count) bytes written")
                    // Longer than any message: the library's rule names --binary, the same words for both.
                    #expect(result.stderr == "pncrypt: decryption error: cannot decrypt: wrong key, wrong scheme, or "
                            + "corrupt data (\(CLI.diagnose))\npncrypt: hint: 'sealed' holds a ciphertext longer than"
                            + " any message (over 32 KiB), decrypted as text as every input is without --binary: a"
                            + " binary plaintext (a file an SDK's encrypt_file wrote) needs --binary\n")
                }
            }
        }
    }

    /// A plaintext with controls of every kind (ESC sequences, BEL, CR, DEL, C1 in UTF-8, a byte that is not
    /// UTF-8 would not decrypt as text) and text that must pass unchanged (tab, newline, non-ASCII).
    static let hostile = "a\u{1b}]0;owned\u{07}b\tc\nd\r\u{7f}é\u{9b}[2Je\u{0}f€\n"

    @Test("(pty) decrypted text shows control characters escaped on a terminal; --raw-control writes them")
    func terminalEscapes() throws {
        let sealed = try CryptoModule(cipherKey: "k").encrypt(Array(Self.hostile.utf8), scheme: .acrh)
        let escaped = try Terminal.run(["decrypt", "--key", "k", sealed])
        #expect(escaped.status == 0)
        // The terminal turns each newline into CR LF.
        #expect(escaped.transcript == "a\\x1b]0;owned\\x07b\tc\r\nd\\x0d\\x7fé\\xc2\\x9b[2Je\\x00f€\r\n")
        let raw = try Terminal.run(["decrypt", "--key", "k", "--raw-control", sealed])
        #expect(raw.status == 0)
        #expect(raw.transcript == Self.hostile.replacingOccurrences(of: "\n", with: "\r\n"))
    }

    @Test("pipes and files get the exact bytes, with or without --raw-control; not with --binary")
    func exactBytesElsewhere() throws {
        try withTemporaryDirectory { dir in
            let plaintext = Array(Self.hostile.utf8)
            let sealed = try CryptoModule(cipherKey: "k").encrypt(plaintext, scheme: .acrh)
            for extra in [[], ["--raw-control"]] {
                let piped = try CLI.run(["decrypt", "--key", "k", sealed] + extra)
                #expect(piped.status == 0 && piped.stdout == plaintext, "\(extra)")
                let file = dir.appendingPathComponent("out")
                let written = try CLI.run(["decrypt", "--key", "k", "-o", file.path, sealed] + extra)
                #expect(written.status == 0)
                #expect(try Array(Data(contentsOf: file)) == plaintext, "\(extra)")
            }
            let binary = try CLI.run(["decrypt", "--key", "k", "--binary", "--raw-control", "x"])
            #expect(binary.status == 64)
        }
    }

    @Test("text mode shows progress for -i PATH on a terminal, both ways (as --binary does)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
                   "skipped because util-linux script(1) is not installed (it provides the terminal)"))
    func progress() throws {
        try withTemporaryDirectory { dir in
            try Data(text(count: 300_000)).write(to: dir.appendingPathComponent("in.txt"))
            let sealed = try CLI.onTerminal(["encrypt", "--key", "k", "-i", "in.txt", "-o", "out.b64"],
                                                      directory: dir)
            #expect(sealed.contains("(100%)") && !sealed.contains("lines"), "\(sealed)")
            let opened = try CLI.onTerminal(["decrypt", "--key", "k", "-i", "out.b64", "-o", "back"],
                                                      directory: dir)
            #expect(opened.contains("(100%)"), "\(opened)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("back")) == Data(text(count: 300_000)))
        }
    }
}
