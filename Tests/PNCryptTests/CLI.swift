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

extension CLI {
    /// A `pncrypt` run in progress, reading standard input from a pipe the test holds open: it cannot finish before
    /// the test closes the pipe, however fast the machine is.
    final class Running {
        let process = Process()
        private let input = Pipe()

        init(_ arguments: [String], directory: URL? = nil) throws {
            process.executableURL = CLI.binary
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env.removeValue(forKey: "PNCRYPT_KEY")
            process.environment = env
            if let directory { process.currentDirectoryURL = directory }
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            signal(SIGPIPE, SIG_IGN)
            try process.run()
        }

        /// Writes `count` zero bytes to its standard input; returns once it has read all but a pipe buffer of them.
        func feed(_ count: Int) throws {
            try input.fileHandleForWriting.write(contentsOf: Data(count: count))
        }

        /// Sends `signal` and waits for the process to end.
        func stop(with signal: Int32) {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    /// Polls `condition` until it holds or `timeout` seconds pass (generous: slow machines only wait longer).
    static func waitUntil(timeout: TimeInterval = 120, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(5_000)
        }
        return try condition()
    }

    /// The temporary files of output `name` in `dir`: `.<name>.pncrypt-<anything>.tmp`.
    static func temporaries(of name: String, in dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasPrefix(".\(name).pncrypt-") && $0.hasSuffix(".tmp") }.sorted()
    }

    /// `lstat` of a path (the link itself for a symbolic link), nil when nothing is there.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }
}
