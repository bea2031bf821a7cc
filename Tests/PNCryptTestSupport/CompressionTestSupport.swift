import Foundation
import Testing

/// Helpers shared by the compression tests: external tools, deterministic data.
package enum CompressionTestSupport {
    package struct ToolMissing: Error, CustomStringConvertible {
        package let tool: String
        package var description: String {
            "\(tool) is required by the compression interop tests but is not in PATH"
        }
    }

    package struct ToolFailed: Error, CustomStringConvertible {
        package let command: [String]
        package let status: Int32
        package let stderr: String
        package var description: String { "\(command.joined(separator: " ")) exited with \(status): \(stderr)" }
    }

    /// The full path of `tool` in PATH, or a recorded failure naming the missing tool.
    package static func requireTool(_ tool: String) throws -> String {
        guard let path = findTool(tool) else {
            Issue.record("\(tool) is required by the compression interop tests but is not in PATH")
            throw ToolMissing(tool: tool)
        }
        return path
    }

    /// Runs `tool arguments...` with `input` on stdin and returns its stdout. Throws `ToolFailed` on a non-zero
    /// exit unless `allowFailure`.
    package static func run(_ tool: String, _ arguments: [String], input: [UInt8] = [],
                    allowFailure: Bool = false) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let result = try runProcess(try requireTool(tool), arguments, stdin: input)
        if result.status != 0 && !allowFailure {
            throw ToolFailed(command: [tool] + arguments, status: result.status, stderr: result.stderr)
        }
        return (result.status, result.stdout, result.stderr)
    }

    /// Runs a Python 3 program that reads stdin and writes stdout as bytes.
    package static func python(_ program: String, input: [UInt8] = []) throws -> [UInt8] {
        try run("python3", ["-c", program], input: input).stdout
    }

    /// Deterministic text-like bytes that compress moderately (a seeded xorshift over a small alphabet).
    package static func sampleText(count: Int, seed: UInt64 = 0x9e37_79b9_7f4a_7c15) -> [UInt8] {
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
    package static func noise(count: Int, seed: UInt64 = 0x2545_f491_4f6c_dd1d) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}
