import Foundation
@testable import PNCrypt
import Testing

/// Helpers shared by the compression tests: external tools, temporary files, deterministic data.
enum CompressionTestSupport {
    struct ToolMissing: Error, CustomStringConvertible {
        let tool: String
        var description: String { "\(tool) is required by the compression interop tests but is not in PATH" }
    }

    struct ToolFailed: Error, CustomStringConvertible {
        let command: [String]
        let status: Int32
        let stderr: String
        var description: String { "\(command.joined(separator: " ")) exited with \(status): \(stderr)" }
    }

    /// The full path of `tool` in PATH, or a recorded failure naming the missing tool.
    static func requireTool(_ tool: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        Issue.record("\(tool) is required by the compression interop tests but is not in PATH")
        throw ToolMissing(tool: tool)
    }

    /// Runs `tool arguments...` with `input` on stdin (through a file, so large data cannot deadlock a pipe) and
    /// returns its stdout. Throws `ToolFailed` on a non-zero exit unless `allowFailure`.
    static func run(_ tool: String, _ arguments: [String], input: [UInt8] = [],
                    allowFailure: Bool = false) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let executable = try requireTool(tool)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inURL = directory.appendingPathComponent("stdin")
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        try Data(input).write(to: inURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = try FileHandle(forReadingFrom: inURL)
        let stdout = try FileHandle(forWritingTo: outURL)
        let stderr = try FileHandle(forWritingTo: errURL)
        defer { try? stdin.close(); try? stdout.close(); try? stderr.close() }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        process.waitUntilExit()
        let output = [UInt8](try Data(contentsOf: outURL))
        let errorText = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        if process.terminationStatus != 0 && !allowFailure {
            throw ToolFailed(command: [tool] + arguments, status: process.terminationStatus, stderr: errorText)
        }
        return (process.terminationStatus, output, errorText)
    }

    /// Runs a Python 3 program that reads stdin and writes stdout as bytes.
    static func python(_ program: String, input: [UInt8] = []) throws -> [UInt8] {
        try run("python3", ["-c", program], input: input).stdout
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("pncrypt-compression-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Deterministic text-like bytes that compress moderately (a seeded xorshift over a small alphabet).
    static func sampleText(count: Int, seed: UInt64 = 0x9e37_79b9_7f4a_7c15) -> [UInt8] {
        let alphabet = Array("abcdefghij klmnop\"{}:,0123456789\n".utf8)
        var state = seed
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return alphabet[Int(state % UInt64(alphabet.count))]
        }
    }

    /// Deterministic bytes that do not compress.
    static func noise(count: Int, seed: UInt64 = 0x2545_f491_4f6c_dd1d) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}
