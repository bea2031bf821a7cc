import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase
import PNCryptFiles

/// The files layer's streams: `StreamPipeline.run(from:through:to:)` reads a descriptor in chunks through the
/// stages to another, reports progress, refuses a chunk size below 1 and words read and write failures as `io`.
/// (The stages themselves are tested in their layers, fed through `Descriptors`; a growing input, with the CLI, in
/// `GrowingInputTests`.)
@Suite struct FileStreamTests {
    let key = try! CipherKey("enigma")

    @Test("the pipeline streams files and reports progress")
    func pipelineFiles() throws {
        try withTemporaryDirectory { dir in
            let source = dir.appendingPathComponent("in")
            let sealed = dir.appendingPathComponent("sealed")
            let opened = dir.appendingPathComponent("opened")
            let big = (0..<3_000_001).map { UInt8(truncatingIfNeeded: $0 &* 131) }
            try Data(big).write(to: source)
            for url in [sealed, opened] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
            var seen: [Int64] = []
            do {
                let input = try FileHandle(forReadingFrom: source)
                let output = try FileHandle(forWritingTo: sealed)
                try StreamPipeline.run(from: input.descriptor, through: [StreamEncryptor(key: key, scheme: .acrh)],
                                       to: output.descriptor, chunkSize: 1 << 20) { seen.append($0) }
                try input.close()
                try output.close()
            }
            #expect(seen == [1 << 20, 2 << 20, 3_000_001])
            let input = try FileHandle(forReadingFrom: sealed)
            let output = try FileHandle(forWritingTo: opened)
            try StreamPipeline.run(from: input.descriptor, through: [StreamDecryptor(key: key)],
                                   to: output.descriptor)
            try input.close()
            try output.close()
            #expect(try Data(contentsOf: opened) == Data(big))
        }
    }

    @Test("read and write failures are .io errors")
    func fileStreamingIOErrors() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("data")
        try Data(CompressionTestSupport.sampleText(count: 1000)).write(to: url)
        // A descriptor open for reading only cannot be written, and one for writing only cannot be read.
        let reader = try FileHandle(forReadingFrom: url)
        let writer = try FileHandle(forWritingTo: url)
        defer { try? reader.close(); try? writer.close() }
        expectPNError(.io, "write failed: Bad file descriptor") {
            try StreamPipeline.run(from: reader.descriptor, through: [StreamEncryptor(key: key, scheme: .acrh)],
                                   to: reader.descriptor)
        }
        expectPNError(.io, "read failed: Bad file descriptor") {
            try StreamPipeline.run(from: writer.descriptor, through: [StreamDecryptor(key: key)],
                                   to: writer.descriptor)
        }
    }


    @Test("a chunk size of zero or less throws invalidValue instead of spinning or trapping",
          arguments: [0, -1, Int.min])
    func pipelineChunkSize(chunkSize: Int) throws {
        let input = try #require(FileHandle(forReadingAtPath: "/dev/zero"))
        defer { try? input.close() }
        // On a thread of its own, with the time counted from the call: a test's time limit also counts the time
        // the test waits for a thread of the shared pool, which a loaded machine (ASan, CLI suites) can exceed.
        final class Outcome: @unchecked Sendable { var error: PNCryptError?; var returned = false }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let fd = input.descriptor
        let thread = Thread {
            do throws(PNCryptError) {
                try StreamPipeline.run(from: fd, through: [], to: FileHandle.nullDevice.descriptor,
                                       chunkSize: chunkSize)
                outcome.returned = true
            } catch {
                outcome.error = error
            }
            done.signal()
        }
        thread.start()
        guard done.wait(timeout: .now() + 60) == .success else {
            Issue.record("StreamPipeline.run with chunk size \(chunkSize) did not return within 60 s (it spins)")
            return
        }
        #expect(!outcome.returned)
        #expect(outcome.error?.code == .invalidValue)
        #expect(outcome.error?.message == "chunk size must be positive, got \(chunkSize)")
    }
}
