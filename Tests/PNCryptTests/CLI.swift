import Foundation
import Testing

/// Runs the built `pncrypt` binary as a user would.
enum CLI {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The `pncrypt` executable beside the test bundle (`swift test` builds it with the tests).
    static let binary: URL = {
        let candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for dir in candidates {
            let url = dir.appendingPathComponent("pncrypt")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return Package.root.appendingPathComponent(".build/debug/pncrypt")
    }()

    /// Runs `pncrypt arguments...` with `stdin` as standard input.
    static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:],
                    directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "PNCRYPT_KEY")
        env.merge(environment) { $1 }
        process.environment = env
        if let directory { process.currentDirectoryURL = directory }
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        _ = ignoreSIGPIPE
        try process.run()
        // Feed stdin and read both pipes while the process runs, so large data cannot block it. A process that
        // exits without reading its input makes the write fail: that is fine.
        let out = Collected()
        let err = Collected()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { out.data = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { err.data = error.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) {
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        group.wait()
        return Result(status: process.terminationStatus, stdout: Array(out.data),
                      stderr: String(decoding: err.data, as: UTF8.self))
    }

    /// Bytes collected by one reader thread, read after it is joined.
    private final class Collected: @unchecked Sendable {
        var data = Data()
    }

    /// A child that exits before reading its input must not kill the test process.
    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// A fresh temporary folder, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pncrypt-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}
