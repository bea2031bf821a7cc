import Foundation
import Testing
import PNCryptJSON
import PNCryptCompression
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

@Suite(.tags(.cli)) struct CLIGzipTests {
    /// Runs a shell command line, returning its exit status.
    func sh(_ command: String) throws -> Int32 {
        try runProcess("/bin/sh", ["-c", command]).status
    }

    @Test("gzip output passes gzip -t and gunzip reads gzip's single and multi-member output")
    func interop() throws {
        try withTemporaryDirectory { dir in
            let plain = dir.appendingPathComponent("plain")
            let bytes = (0..<2_000_000).map { UInt8(truncatingIfNeeded: ($0 / 7) &* 31) }
            try Data(bytes).write(to: plain)
            let ours = dir.appendingPathComponent("ours.gz")
            #expect(try CLI.run(["gzip", "-i", plain.path, "-o", ours.path, "--level", "9"]).status == 0)
            #expect(try sh("gzip -t '\(ours.path)' && gzip -dc '\(ours.path)' | cmp -s - '\(plain.path)'") == 0)

            let theirs = dir.appendingPathComponent("theirs.gz")
            #expect(try sh("gzip -c '\(plain.path)' > '\(theirs.path)'; "
                           + "gzip -c '\(plain.path)' >> '\(theirs.path)'") == 0)
            let out = dir.appendingPathComponent("out")
            let result = try CLI.run(["gunzip", "-i", theirs.path, "-o", out.path])
            #expect(result.status == 0, "\(result.stderr)")
            let same = try Data(contentsOf: out) == Data(bytes + bytes)
            #expect(same)
        }
    }

    @Test("corrupt gzip exits 1 and writes nothing", arguments: ["crc", "truncated", "garbage"])
    func corrupt(kind: String) throws {
        var data = try Compressor.compress(Array("hello hello hello".utf8))
        switch kind {
        case "crc": data[data.count - 8] ^= 1
        case "truncated": data.removeLast(3)
        default: data += [1, 2, 3]
        }
        let result = try CLI.run(["gunzip"], stdin: data)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("pncrypt: "))
    }

    @Test("a 10 GiB bomb is refused at --max-size with no output file left", .tags(.stress), .notInQuickRun)
    func bomb() throws {
        try withTemporaryDirectory { dir in
            // 10,240 gzip members of 1 MiB of zeros each: 10 GiB when decompressed, about 10 MB here.
            let member = try Compressor.compress([UInt8](repeating: 0, count: 1 << 20), level: 9)
            let bomb = dir.appendingPathComponent("bomb.gz")
            _ = FileManager.default.createFile(atPath: bomb.path, contents: nil)
            let handle = try FileHandle(forWritingTo: bomb)
            var chunk: [UInt8] = []
            for _ in 0..<64 { chunk += member }
            for _ in 0..<(10_240 / 64) { try handle.write(contentsOf: chunk) }
            try handle.close()
            let out = dir.appendingPathComponent("out")
            let result = try CLI.run(["gunzip", "--max-size", "100000000", "-i", bomb.path, "-o", out.path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("limit of 100000000 bytes"))
            #expect(!FileManager.default.fileExists(atPath: out.path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bomb.gz"])
        }
    }

    @Test("encrypt --binary --gzip then decrypt --binary --gunzip is bit-exact")
    func encryptedGzip() throws {
        try withTemporaryDirectory { dir in
            let plain = dir.appendingPathComponent("plain")
            let bytes = (0..<8_000_000).map { UInt8(truncatingIfNeeded: ($0 >> 5) ^ ($0 >> 13)) }
            try Data(bytes).write(to: plain)
            let sealed = dir.appendingPathComponent("sealed")
            let opened = dir.appendingPathComponent("opened")
            #expect(try CLI.run(["encrypt", "--key", "k", "--binary", "--gzip", "-i", plain.path, "-o", sealed.path])
                .status == 0)
            let size = try FileManager.default.attributesOfItem(atPath: sealed.path)[.size] as? Int ?? 0
            #expect(size < bytes.count / 4)
            let inspect = try CLI.run(["inspect", "--binary", "-i", sealed.path, "--key", "k"])
            #expect(inspect.text.hasSuffix("plaintext: gzip data (decrypt with --binary --gunzip)\n"))
            let dec = try CLI.run(["decrypt", "--key", "k", "--binary", "--gunzip", "-i", sealed.path,
                                   "-o", opened.path])
            #expect(dec.status == 0, "\(dec.stderr)")
            let same = try Data(contentsOf: opened) == Data(bytes)
            #expect(same)
            // Without --gunzip the plaintext is the gzip stream itself.
            let raw = try CLI.run(["decrypt", "--key", "k", "--binary", "-i", sealed.path])
            #expect(CompressionFormat.detect(raw.stdout) == .gzip)
        }
    }

    @Test("inspect says when the input itself is gzip")
    func inspectGzip() throws {
        let result = try CLI.run(["inspect", "--binary"], stdin: try Compressor.compress(Array("x".utf8)))
        #expect(result.status == 1)
        #expect(result.stderr.contains("not ciphertext: gzip data"))
    }

    @Test("message encrypt --gzip writes the compressed publish body and its headers")
    func publishBody() throws {
        try withTemporaryDirectory { dir in
            let body = dir.appendingPathComponent("body")
            let message = "\"" + String(repeating: "long message ", count: 200) + "\""
            let result = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "--gzip",
                                      "--headers", "-o", body.path, message])
            #expect(result.status == 0, "\(result.stderr)")
            let bytes = try Array(Data(contentsOf: body))
            #expect(result.text == "Content-Type: application/json; charset=UTF-8\nContent-Encoding: gzip\n"
                    + "Content-Length: \(bytes.count)\n")
            let wire = try Decompressor.decompress(bytes)
            let crypto = try MessageCrypto(cipherKey: "enigma", reading: .only(.legacy))
            #expect(crypto.decrypt(try JSONValue(parsing: wire), policy: .marker).message
                    == .string(String(message.dropFirst().dropLast())))
            // Small messages are sent uncompressed: they would grow.
            let small = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "--gzip",
                                     "--headers", "-o", body.path, "\"Hello World\""])
            #expect(small.text == "Content-Type: application/json; charset=UTF-8\nContent-Length: 26\n")
            #expect(try Data(contentsOf: body) == Data("\"06UDjczkvAAYcqWfNwkOiQ==\"".utf8))
            #expect(try CLI.run(["message", "encrypt", "--key", "k", "--headers", "x"]).status == 64)
        }
    }

    @Test("message encrypt --gzip says on stderr when it leaves a body uncompressed, and --threshold 0 forces gzip")
    func publishBodyLeftUncompressed() throws {
        try withTemporaryDirectory { dir in
            let hello = ["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "--gzip", "--headers",
                         "-o", "body", "\"Hello World\""]
            let wire = Array("\"06UDjczkvAAYcqWfNwkOiQ==\"".utf8)
            let small = try CLI.run(hello, directory: dir)
            #expect(small.status == 0)
            #expect(small.stderr == "pncrypt: note: the body is not compressed (sent as it is, without "
                    + "Content-Encoding): it is 26 bytes, under --threshold 1024; --threshold 0 compresses every "
                    + "body\n")
            #expect(try Array(Data(contentsOf: dir.appendingPathComponent("body"))) == wire)
            // At or over the threshold, gzip would make these 26 bytes 46: still left as they are, and said why.
            let grows = try CLI.run(hello + ["--threshold", "20"], directory: dir)
            #expect(grows.status == 0 && grows.text.hasSuffix("Content-Length: 26\n"))
            #expect(grows.stderr == "pncrypt: note: the body is not compressed (sent as it is, without "
                    + "Content-Encoding): gzip does not make its 26 bytes smaller; --threshold 0 compresses every "
                    + "body\n")
            // --threshold 0: gzip whatever the size, with its header, and no note.
            let forced = try CLI.run(hello + ["--threshold", "0"], directory: dir)
            #expect(forced.status == 0 && forced.stderr.isEmpty, "\(forced.stderr)")
            let bytes = try Array(Data(contentsOf: dir.appendingPathComponent("body")))
            #expect(forced.text == "Content-Type: application/json; charset=UTF-8\nContent-Encoding: gzip\n"
                    + "Content-Length: \(bytes.count)\n")
            #expect(CompressionFormat.detect(bytes) == .gzip && bytes.count > wire.count)
            #expect(try Decompressor.decompress(bytes) == wire)
        }
    }

    // MARK: --max-size SIZE|none, bounded by default

    /// `mebibytes` gzip members of 1 MiB of zeros each: about 1 KB of input per MiB of output.
    static func bomb(mebibytes: Int) throws -> [UInt8] {
        let member = try Compressor.compress([UInt8](repeating: 0, count: 1 << 20), level: 9)
        return Array((0..<mebibytes).map { _ in member }.joined())
    }

    @Test("gunzip to standard output with no --max-size refuses a 1.1 GiB bomb: exit 1, no output, TMPDIR clean",
          .tags(.stress), .notInQuickRun)
    func bombToStandardOutputByDefault() throws {
        let spool = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: spool) }
        let result = try CLI.run(["gunzip"], stdin: try Self.bomb(mebibytes: 1100),
                                 environment: ["TMPDIR": spool.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "pncrypt: decompressed data is larger than the limit of 1073741824 bytes; raise it "
                + "with --max-size SIZE (or --max-size none for trusted data)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty)
    }

    @Test("decrypt --binary --gunzip with no --max-size refuses an encrypted 1.1 GiB bomb, writing nothing",
          .tags(.stress), .notInQuickRun)
    func encryptedBombByDefault() throws {
        try withTemporaryDirectory { dir in
            let sealed = dir.appendingPathComponent("bomb.enc")
            let encrypt = try CLI.run(["encrypt", "--key", "k", "--binary", "-o", sealed.path],
                                      stdin: try Self.bomb(mebibytes: 1100))
            #expect(encrypt.status == 0, "\(encrypt.stderr)")
            let result = try CLI.run(["decrypt", "--key", "k", "--binary", "--gunzip", "-i", sealed.path],
                                     environment: ["TMPDIR": dir.path])
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("limit of 1073741824 bytes; raise it with --max-size SIZE"),
                    "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bomb.enc"])
            let small = try CLI.run(["decrypt", "--key", "k", "--binary", "--gunzip", "--max-size", "1M", "-i",
                                     sealed.path])
            #expect(small.status == 1 && small.stdout.isEmpty)
            // Every path with a limit names the option that raises it.
            #expect(small.stderr == "pncrypt: decompressed data is larger than the limit of 1048576 bytes; raise it "
                    + "with --max-size SIZE (or --max-size none for trusted data)\n", "\(small.stderr)")
        }
    }

    @Test("--max-size takes bytes, K, M, G (binary) and none, to standard output too")
    func maxSizeValues() throws {
        let kib = try Compressor.compress([UInt8](repeating: 7, count: 1024))
        let overKiB = try Compressor.compress([UInt8](repeating: 7, count: 1025))
        #expect(try CLI.run(["gunzip", "--max-size", "1K"], stdin: kib).stdout.count == 1024)
        #expect(try CLI.run(["gunzip", "--max-size", "1024"], stdin: kib).stdout.count == 1024)
        let over = try CLI.run(["gunzip", "--max-size", "1k"], stdin: overKiB)
        #expect(over.status == 1 && over.stdout.isEmpty)
        #expect(over.stderr == "pncrypt: decompressed data is larger than the limit of 1024 bytes; raise it with "
                + "--max-size SIZE (or --max-size none for trusted data)\n")
        // A bomb just over a reduced limit, to standard output: refused, nothing written.
        let bomb = try Self.bomb(mebibytes: 3)
        let refused = try CLI.run(["gunzip", "--max-size", "2M"], stdin: bomb)
        #expect(refused.status == 1 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains("limit of 2097152 bytes"))
        #expect(try CLI.run(["gunzip", "--max-size", "3M"], stdin: bomb).stdout.count == 3 << 20)
        #expect(try CLI.run(["gunzip", "--max-size", "1G"], stdin: bomb).stdout.count == 3 << 20)
        #expect(try CLI.run(["gunzip", "--max-size", "none"], stdin: bomb).stdout.count == 3 << 20)
        let sealed = try CLI.run(["encrypt", "--key", "k", "--binary", "--gzip"],
                                 stdin: Array(repeating: 1, count: 5000))
        for size in ["none", "5000", "5K"] {
            let opened = try CLI.run(["decrypt", "--key", "k", "--binary", "--gunzip", "--max-size", size],
                                     stdin: sealed.stdout)
            #expect(opened.status == 0 && opened.stdout == Array(repeating: 1, count: 5000), "\(size)")
        }
        let under = try CLI.run(["decrypt", "--key", "k", "--binary", "--gunzip", "--max-size", "4999"],
                                stdin: sealed.stdout)
        #expect(under.status == 1 && under.stdout.isEmpty)
        #expect(try CLI.run(["gunzip", "--max-size="], stdin: bomb).status == 64)
    }

    @Test("an invalid --max-size is a usage error with one clear line",
          arguments: ["10X", "-1", "1.5M", "K", "99999999999G", "0x10", "1 M", "nonee"])
    func maxSizeInvalid(value: String) throws {
        let zipped = try Compressor.compress(Array("hi".utf8))
        for command in [["gunzip"], ["decrypt", "--key", "k", "--binary", "--gunzip"]] {
            let result = try CLI.run(command + ["--max-size=\(value)"], stdin: zipped)
            #expect(result.status == 64, "\(command) \(value)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "pncrypt: The value '\(value)' is invalid for '--max-size <size>': "
                    + "expected a number of bytes with an optional K, M or G suffix (10M = 10485760 bytes), or none\n")
        }
    }

    @Test("--help of gunzip and decrypt names the default limit")
    func maxSizeHelp() throws {
        for command in [["gunzip"], ["decrypt"]] {
            let help = try CLI.run(command + ["--help"]).text.split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            #expect(help.contains("or none for no limit. Default: 1G (1 GiB)."), "\(command)")
        }
    }
}
