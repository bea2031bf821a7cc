import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// What `-o OUT` promises when the run dies or fails: OUT is either absent or keeps its earlier content. A run
/// killed with SIGKILL cannot clean up; it writes to a file with no name (`O_TMPFILE`), which the kernel frees, so
/// nothing is left. Where the file system has no `O_TMPFILE` (here forced with `PNCRYPT_TEST_NAMED_TEMPORARY`), it
/// may leave its own temporary file (mode 0600, a random name, never OUT), which no later run removes, since
/// cleanup never touches a file the run did not create, but the next run into that folder names it on stderr.
@Suite(.tags(.cli)) struct CLICrashSafetyTests {
    /// Starts `pncrypt encrypt --binary -o OUT` reading a pipe this test holds open, feeds it until the file it
    /// writes holds ciphertext (no clock involved: see `CLI.startEncryptMidway`), kills it with SIGKILL, and returns
    /// the temporary files left behind.
    static func killMidway(output: URL, named: Bool) throws -> [String] {
        let dir = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        let before = try CLI.temporaries(of: name, in: dir)
        let (run, _) = try CLI.startEncryptMidway(output: output, named: named)
        #expect(run.poll() == nil)
        #expect(run.stop(with: SIGKILL) == .signaled(SIGKILL))
        let left = try CLI.temporaries(of: name, in: dir).filter { !before.contains($0) }
        #expect(left.count <= (named ? 1 : 0), "\(left)")
        for entry in left {
            // What a killed run may leave: its own partial ciphertext, readable only by its owner, never OUT.
            #expect(entry != name)
            let info = try #require(CLI.status(dir.appendingPathComponent(entry).path))
            #expect(info.st_mode & S_IFMT == S_IFREG)
            #expect(info.st_mode & 0o7777 == 0o600, "mode \(String(info.st_mode & 0o7777, radix: 8))")
            #expect(info.st_size < 2 * StreamPipeline.defaultChunkSize + 64)
        }
        return left
    }

    @Test("SIGKILL mid-way through encrypt --binary -o OUT leaves no file at all (O_TMPFILE); the next run succeeds")
    func killedRunLeavesNothing() throws {
        try withTemporaryDirectory { dir in
            let out = dir.appendingPathComponent("OUT")
            #expect(try Self.killMidway(output: out, named: false) == [])
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [])
            let next = try CLI.run(["encrypt", "--key", "k", "-o", out.path, "hello"])
            #expect(next.status == 0, "\(next.stderr)")
            #expect(next.stderr.isEmpty, "\(next.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["OUT"])
        }
    }

    @Test("SIGKILL mid-way with a named temporary leaves no OUT; the next run succeeds, names the leftover on stderr")
    func killedRunLeavesNoOutput() throws {
        try withTemporaryDirectory { dir in
            let out = dir.appendingPathComponent("OUT")

            let left = try Self.killMidway(output: out, named: true)
            #expect(left.count == 1)
            #expect(!FileManager.default.fileExists(atPath: out.path))

            // The next run writing OUT (a small one) succeeds and warns; the killed run's file is not its to remove.
            let next = try CLI.run(["encrypt", "--key", "k", "-o", out.path, "hello"])
            #expect(next.status == 0, "\(next.stderr)")
            for name in left {
                #expect(next.stderr.contains("warning: '\(dir.path)/\(name)'"), "\(next.stderr)")
            }
            #expect(try CLI.temporaries(of: "OUT", in: dir) == left)
            let sealed = try String(contentsOf: out, encoding: .utf8)
            #expect(try CryptoModule(cipherKey: "k").decryptBytes(sealed) == [UInt8]("hello"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == (["OUT"] + left).sorted())
        }
    }

    @Test("SIGKILL mid-way keeps an earlier OUT intact; a failing next run removes only its own temporary",
          arguments: [false, true])
    func killedRunKeepsEarlierOutput(named: Bool) throws {
        try withTemporaryDirectory { dir in
            let out = dir.appendingPathComponent("OUT")
            try Data("earlier content".utf8).write(to: out)

            let left = try Self.killMidway(output: out, named: named)
            #expect(try Data(contentsOf: out) == Data("earlier content".utf8))

            // A decrypt that fails (the input is not ciphertext) writes nothing to OUT and removes its own temporary.
            let garbage = dir.appendingPathComponent("garbage")
            try Data((0..<100).map { UInt8($0) }).write(to: garbage)
            let failed = try CLI.run(["decrypt", "--key", "k", "--binary", "-i", garbage.path, "-o", out.path],
                                     environment: named ? ["PNCRYPT_TEST_NAMED_TEMPORARY": "1"] : [:])
            #expect(failed.status == 1)
            #expect(failed.stderr.contains("not a whole number of 16-byte AES blocks"), "\(failed.stderr)")
            #expect(try Data(contentsOf: out) == Data("earlier content".utf8))
            #expect(try CLI.temporaries(of: "OUT", in: dir) == left)
        }
    }

    @Test("a failing decrypt never leaves OUT, in every mode", arguments: [
        ["decrypt", "--key", "wrong", "-o", "OUT", "q/xJqqN6qbiZMXYmiQC1Fw=="],
        ["decrypt", "--key", "k", "-o", "OUT", "not*base64"],
        ["decrypt", "--key", "k", "--binary", "-i", "bad.bin", "-o", "OUT"],
        ["decrypt", "--key", "k", "--key", "k2", "--binary", "-i", "bad.bin", "-o", "OUT"],
        ["decrypt", "--key", "k", "--scheme", "acrh", "--binary", "-i", "bad.bin", "-o", "OUT"],
    ])
    func failingDecrypt(arguments: [String]) throws {
        try withTemporaryDirectory { dir in
            // 64 bytes that decrypt with the key `k` to bad padding (a whole number of blocks, so the cipher runs).
            // The IV is fixed so the bytes are the same every run: with a random IV, each reading under `k2` had
            // valid padding by chance about once in 256 runs, and the run rightly succeeded.
            var bad = try CryptoModule(cipherKey: "k").encryptBinary([UInt8](repeating: 7, count: 40),
                                                                     scheme: .legacyRandomIV, iv: Array(0..<16))
            // IV, then 3 blocks; the last holds 8 padding bytes 0x08. Flipping the byte before it in the previous
            // ciphertext block makes the last plaintext byte 0x00: always bad padding.
            #expect(bad.count == 64)
            bad[47] ^= 0x08
            // Every reading of these bytes, under either key, has bad padding.
            for key in ["k", "k2"] {
                for scheme in [Scheme.legacy, .legacyRandomIV] {
                    #expect(throws: (any Error).self, "\(key) \(scheme)") {
                        try CryptoModule(cipherKey: key).decryptBinary(bad, reading: .only(scheme))
                    }
                }
            }
            try Data(bad).write(to: dir.appendingPathComponent("bad.bin"))
            let result = try CLI.run(arguments, directory: dir)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("OUT").path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.bin"])
        }
    }

    @Test("-o naming the input file (directly, through ./, a symbolic or a hard link) is refused, the input unchanged",
          arguments: ["in", "./in", "sub/../in", "link", "hard"])
    func outputOverInput(spelling: String) throws {
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("in")
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"),
                                                    withIntermediateDirectories: true)
            // A JSON string of Base64 ciphertext: every command below can read it and gets as far as opening -o.
            let sealed = try CryptoModule(cipherKey: "k").encrypt([UInt8]("\"the only copy\""), scheme: .acrh)
            let content = [UInt8]("\"\(sealed)\"")
            try Data(content).write(to: input)
            try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link").path,
                                                       withDestinationPath: "in")
            try FileManager.default.linkItem(at: input, to: dir.appendingPathComponent("hard"))
            for command in [["encrypt", "--key", "k", "--binary"], ["decrypt", "--key", "k", "--binary"],
                            ["encrypt", "--key", "k"], ["decrypt", "--key", "k"],
                            ["message", "encrypt", "--key", "k"], ["message", "decrypt", "--key", "k"]] {
                let result = try CLI.run(command + ["-i", "in", "-o", spelling], directory: dir)
                #expect(result.status == 64, "\(command) \(spelling): \(result.stderr)")
                #expect(result.stderr.contains("refusing to write the output over the input file"), "\(result.stderr)")
                #expect(try Data(contentsOf: input) == Data(content))
                #expect(try CLI.temporaries(of: spelling, in: dir) == [])
            }
        }
    }
}
