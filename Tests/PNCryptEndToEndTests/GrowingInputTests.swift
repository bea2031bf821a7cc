import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport
import PNCryptBase
import PNCryptFiles

/// A growing input: every streamed input is read as the snapshot it was when the run took its
/// length. Bytes another process appends meanwhile are never read, so standard output (a pipe, which cannot be
/// taken back) gets exactly the snapshot's output and exit 0, or nothing and a failure; never plaintext past it.
@Suite struct GrowingInputTests {
    /// 6 MiB: far more than a pipe holds plus one chunk read, so a run writing to a pipe no one drains is stopped
    /// mid-stream, with most of its input still unread.
    static let size = 6 << 20

    /// A stage that runs `action` once, on its first chunk (when the stream has begun), and passes bytes through.
    final class OnFirstChunk: ByteStreamStage {
        private var action: (() -> Void)?
        init(_ action: @escaping () -> Void) { self.action = action }
        func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
            action?()
            action = nil
            try sink(input)
        }
        func finish(_ sink: ByteSink) throws(PNCryptError) {}
    }

    /// Appends `bytes` to the file at `path`, as another process would.
    static func append(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// The file position of `pid`'s descriptor open on `path` (from /proc), nil while it has none.
    static func position(of pid: pid_t, on path: String) -> Int? {
        let fds = "/proc/\(pid)/fd"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [] {
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\(entry)")) == path,
                  let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(entry)", encoding: .utf8),
                  let line = info.split(separator: "\n").first(where: { $0.hasPrefix("pos:") }) else { continue }
            return Int(line.dropFirst(4).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// Runs `pncrypt arguments` with standard output to a pipe the test does not drain, waits until the run has
    /// begun reading `input` from its start (its position moved: its length and last blocks are taken, and it is
    /// blocked on the full pipe long before its end), appends `appended` to `input`, then drains the output.
    static func runAppendingMidStream(_ arguments: [String], input: URL, appended: [UInt8]) throws -> CLI.Result {
        let run = try ChildProcess(CLI.binary.path, arguments, environment: CLI.environment(), stdin: .null)
        let path = input.resolvingSymlinksInPath().path
        let deadline = ContinuousClock.now + .seconds(120)
        while (position(of: run.pid, on: path) ?? 0) == 0 {
            try #require(run.poll() == nil, "the run ended before it read its input")
            try #require(ContinuousClock.now < deadline, "the run never started reading its input")
            usleep(1000)
        }
        try append(appended, to: input.path)
        let (stdout, stderr) = try run.communicate([])
        return CLI.Result(status: run.wait().status, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A plaintext, its legacy random-IV file (IV, then ciphertext), and a valid continuation: blocks that
    /// carry the CBC chain on from the file's last block, so that the file with them appended is itself a valid
    /// ciphertext (of the plaintext, its old padding block, and 1000 more bytes).
    static func fileWithContinuation() throws -> (plaintext: [UInt8], file: [UInt8], continuation: [UInt8]) {
        let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }
        let module = try CryptoModule(cipherKey: "k")
        let file = try module.encryptBinary(plaintext, scheme: .legacyRandomIV)
        let more = [UInt8](repeating: 0x41, count: 1000)
        let continuation = try module.encryptBinary(more, scheme: .legacyRandomIV, iv: Array(file.suffix(16)))
        return (plaintext, file, Array(continuation.dropFirst(16)))
    }

    // MARK: - The read loop every shell shares

    @Test("StreamPipeline reads a regular file to the end it had when the run began, not to what was appended")
    func pipelineStopsAtTheSnapshot() throws {
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("in")
            let original = [UInt8](repeating: 7, count: 3 * StreamPipeline.defaultChunkSize + 5)
            try Data(original).write(to: input)
            let output = dir.appendingPathComponent("out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil,
                                               attributes: [.posixPermissions: 0o600])
            let (inHandle, outHandle) = (try FileHandle(forReadingFrom: input), try FileHandle(forWritingTo: output))
            defer { try? inHandle.close(); try? outHandle.close() }
            let stage = OnFirstChunk { try? Self.append([1, 2, 3], to: input.path) }
            try StreamPipeline.run(from: inHandle.descriptor, through: [stage], to: outHandle.descriptor)
            #expect(try Data(contentsOf: output) == Data(original))
        }
    }

    @Test("StreamPipeline with a length reads that many bytes; a file that got shorter is an I/O error")
    func pipelineLengthAndShrinking() throws {
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("in")
            try Data([UInt8](repeating: 7, count: 3 * StreamPipeline.defaultChunkSize)).write(to: input)
            let inHandle = try FileHandle(forReadingFrom: input)
            let outHandle = try #require(FileHandle(forWritingAtPath: "/dev/null"))
            defer { try? inHandle.close(); try? outHandle.close() }
            let (inFD, outFD) = (inHandle.descriptor, outHandle.descriptor)
            var total: Int64 = 0
            try StreamPipeline.run(from: inFD, through: [], to: outFD, length: 100) { total = $0 }
            #expect(total == 100)
            #expect(lseek(inFD.rawValue, 0, SEEK_SET) == 0)
            let shrink = OnFirstChunk { _ = truncate(input.path, 10) }
            expectPNError(.io, "read failed: the input got shorter while it was read (it had 3145728 bytes "
                              + "when the run began)") {
                try StreamPipeline.run(from: inFD, through: [shrink], to: outFD)
            }
        }
    }

    // MARK: - The command line, output to a pipe

    @Test("decrypt --binary to a pipe, appended mid-stream (junk, or the CBC chain carried on): the snapshot, exit 0",
          arguments: ["junk", "continuation"])
    func binaryAppendedMidStream(kind: String) throws {
        let (plaintext, file, continuation) = try Self.fileWithContinuation()
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("big.enc")
            try Data(file).write(to: input)
            let appended = kind == "junk" ? [UInt8](repeating: 0x5A, count: 7) : continuation
            let result = try Self.runAppendingMidStream(
                ["decrypt", "--binary", "-f", "--key", "k", "--scheme", "legacy-random-iv", input.path],
                input: input, appended: appended)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.count == plaintext.count)
            #expect(result.stdout == plaintext)
        }
    }

    @Test("decrypt --binary with appends before the run: the file is read as it is then (all of it, or nothing)",
          arguments: ["junk", "continuation"])
    func binaryAppendedBeforeStart(kind: String) throws {
        let (_, file, continuation) = try Self.fileWithContinuation()
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("big.enc")
            let whole = file + (kind == "junk" ? [0x5A] : continuation)
            try Data(whole).write(to: input)
            let result = try CLI.run(["decrypt", "--binary", "--key", "k", "--scheme", "legacy-random-iv",
                                      input.path])
            if kind == "junk" {
                #expect(result.status == 1)
                #expect(result.stdout.isEmpty)
            } else {
                #expect(result.status == 0, "\(result.stderr)")
                let module = try CryptoModule(cipherKey: "k")
                #expect(result.stdout == (try module.decryptBinary(whole, reading: .only(.legacyRandomIV))))
            }
        }
    }

    @Test("encrypt (text mode) to a pipe, with an append mid-stream: the Base64 of exactly the snapshot")
    func textAppendedMidStream() throws {
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("big.txt")
            let text = [UInt8](repeating: 0x61, count: Self.size)
            try Data(text).write(to: input)
            let result = try Self.runAppendingMidStream(["encrypt", "--key", "k", "-i", input.path], input: input,
                                                        appended: Array("appended".utf8))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try CryptoModule(cipherKey: "k").decryptBytes(result.text) == text)
        }
    }

    @Test("message encrypt --lines to a pipe, with lines appended mid-stream: exactly the snapshot's lines",
          .tags(.slow, .cli), .notInQuickRun)
    func linesAppendedMidStream() throws {
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("big.ndjson")
            // 9 MiB: more than the 8 MiB of input line mode holds in flight, so the run is stopped mid-stream.
            let line = Array(("\"" + String(repeating: "x", count: 8190) + "\"\n").utf8)
            let count = (9 << 20) / line.count
            try Data(Array([[UInt8]](repeating: line, count: count).joined())).write(to: input)
            let result = try Self.runAppendingMidStream(
                ["message", "encrypt", "--lines", "--jobs", "1", "--key", "k", "-i", input.path], input: input,
                appended: Array("\"appended\"\n".utf8) + line)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.filter { $0 == 0x0A }.count == count)
        }
    }
}
