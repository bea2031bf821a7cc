import Foundation
import Testing
@testable import PNCrypt

/// What `-o OUT` promises when the run dies or fails: OUT is either absent or keeps its earlier content, and the
/// temporary file a killed run leaves behind is removed by the next run that writes OUT.
@Suite struct CLICrashSafetyTests {
    /// A sparse input large enough that `encrypt --binary` runs for a while (reading zeros is fast, but the
    /// ciphertext must be written).
    static let bigSize: UInt64 = 2 << 30

    static func makeBigFile(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("big.bin")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: bigSize)
        try handle.close()
        return url
    }

    /// Temporary files of OUT left in `dir`.
    static func temporaries(of name: String, in dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasPrefix(".\(name).pncrypt-") && $0.hasSuffix(".tmp") }
    }

    static func size(_ path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? UInt64
    }

    /// Starts `pncrypt encrypt --binary -i BIG -o OUT`, waits until its temporary file exists and is growing,
    /// kills it with SIGKILL, and returns the temporary file's name.
    static func killMidway(input: URL, output: URL) throws -> String {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["encrypt", "--key", "k", "--binary", "-i", input.path, "-o", output.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        let name = ".\(output.lastPathComponent).pncrypt-\(process.processIdentifier).tmp"
        let temporary = output.deletingLastPathComponent().appendingPathComponent(name).path
        // Wait (at most 60 s) until the temporary file holds some ciphertext and then grows.
        let deadline = Date().addingTimeInterval(60)
        var first: UInt64?
        while process.isRunning && Date() < deadline {
            if let size = size(temporary), size > 0 {
                if let first, size > first { break }
                if first == nil { first = size }
            }
            usleep(2_000)
        }
        let grown = size(temporary) ?? 0
        try #require(process.isRunning, "the encryption ended before it could be killed")
        try #require(first != nil && grown > first!, "the temporary file did not grow")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGKILL)
        // The killed run could not clean up: its partial ciphertext is still there, and shorter than the whole.
        let left = try #require(size(temporary), "the killed run's temporary file is missing")
        #expect(left >= grown && left < bigSize)
        return name
    }

    @Test("SIGKILL mid-way through encrypt --binary leaves no OUT; the next run removes the temporary file")
    func killedRunLeavesNoOutput() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let big = try Self.makeBigFile(in: dir)
        let out = dir.appendingPathComponent("OUT")

        let temporary = try Self.killMidway(input: big, output: out)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try Self.temporaries(of: "OUT", in: dir) == [temporary])

        // The next run writing OUT (a small one) succeeds and removes the dead run's temporary file.
        let next = try CLI.run(["encrypt", "--key", "k", "-o", out.path, "hello"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try Self.temporaries(of: "OUT", in: dir) == [])
        let sealed = try String(contentsOf: out, encoding: .utf8)
        #expect(try CryptoModule(cipherKey: "k").decrypt(base64: sealed) == [UInt8]("hello"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["OUT", "big.bin"])
    }

    @Test("SIGKILL mid-way keeps an earlier OUT intact; a failing next run removes the temporary and keeps OUT")
    func killedRunKeepsEarlierOutput() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let big = try Self.makeBigFile(in: dir)
        let out = dir.appendingPathComponent("OUT")
        try Data("earlier content".utf8).write(to: out)

        let temporary = try Self.killMidway(input: big, output: out)
        #expect(try Data(contentsOf: out) == Data("earlier content".utf8))
        #expect(try Self.temporaries(of: "OUT", in: dir) == [temporary])

        // A decrypt that fails (the input is not ciphertext) writes nothing to OUT, and still cleans up.
        let garbage = dir.appendingPathComponent("garbage")
        try Data((0..<100).map { UInt8($0) }).write(to: garbage)
        let failed = try CLI.run(["decrypt", "--key", "k", "--binary", "-i", garbage.path, "-o", out.path])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("not a whole number of 16-byte AES blocks"), "\(failed.stderr)")
        #expect(try Data(contentsOf: out) == Data("earlier content".utf8))
        #expect(try Self.temporaries(of: "OUT", in: dir) == [])
    }

    @Test("a failing decrypt never leaves OUT, in every mode", arguments: [
        ["decrypt", "--key", "wrong", "-o", "OUT", "q/xJqqN6qbiZMXYmiQC1Fw=="],
        ["decrypt", "--key", "k", "-o", "OUT", "not*base64"],
        ["decrypt", "--key", "k", "--binary", "-i", "bad.bin", "-o", "OUT"],
        ["decrypt", "--key", "k", "--key", "k2", "--binary", "-i", "bad.bin", "-o", "OUT"],
        ["decrypt", "--key", "k", "--scheme", "acrh", "--binary", "-i", "bad.bin", "-o", "OUT"],
    ])
    func failingDecrypt(arguments: [String]) throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 64 bytes that decrypt with the key `k` to bad padding (a whole number of blocks, so the cipher runs).
        var bad = try CryptoModule(cipherKey: "k").encrypt([UInt8](repeating: 7, count: 40), scheme: .legacyRandomIV)
        // IV, then 3 blocks; the last holds 8 padding bytes 0x08. Flipping the byte before it in the previous
        // ciphertext block makes the last plaintext byte 0x00: always bad padding.
        #expect(bad.count == 64)
        bad[47] ^= 0x08
        try Data(bad).write(to: dir.appendingPathComponent("bad.bin"))
        let result = try CLI.run(arguments, directory: dir)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("OUT").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.bin"])
    }

    @Test("-o naming the input file (directly, through ./, a symbolic or a hard link) is refused; the input is unchanged",
          arguments: ["in", "./in", "sub/../in", "link", "hard"])
    func outputOverInput(spelling: String) throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        // A JSON string of Base64 ciphertext: every command below can read it and gets as far as opening -o.
        let sealed = try CryptoModule(cipherKey: "k").encryptToBase64([UInt8]("\"the only copy\""), scheme: .acrh)
        let content = [UInt8]("\"\(sealed)\"")
        try Data(content).write(to: input)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link").path, withDestinationPath: "in")
        try FileManager.default.linkItem(at: input, to: dir.appendingPathComponent("hard"))
        for command in [["encrypt", "--key", "k", "--binary"], ["decrypt", "--key", "k", "--binary"],
                        ["encrypt", "--key", "k"], ["decrypt", "--key", "k"],
                        ["message", "encrypt", "--key", "k"], ["message", "decrypt", "--key", "k"]] {
            let result = try CLI.run(command + ["-i", "in", "-o", spelling], directory: dir)
            #expect(result.status == 64, "\(command) \(spelling): \(result.stderr)")
            #expect(result.stderr.contains("refusing to write the output over the input file"), "\(result.stderr)")
            #expect(try Data(contentsOf: input) == Data(content))
            #expect(try Self.temporaries(of: spelling, in: dir) == [])
        }
    }
}
