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

    /// Runs `pncrypt arguments...` with `stdin` as standard input (or, with `executable`, that program: a shell
    /// that sets something up and then runs `pncrypt`).
    static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:],
                    directory: URL? = nil, executable: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? binary
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
    /// the test closes the pipe, however fast the machine is. It is started with posix_spawn, with no signal
    /// blocked and SIGINT, SIGTERM, SIGHUP and SIGPIPE at their defaults, as a shell starts a command (Foundation's
    /// Process passes on the signal mask of the test thread, which blocks them).
    final class Running {
        /// How the run ended.
        enum Termination: Equatable {
            case exited(Int32)
            case signaled(Int32)
        }

        let pid: pid_t
        private var input: Int32
        private var termination: Termination?

        init(_ arguments: [String]) throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            // Other tests' children must not inherit the write end (the dup2 below clears the flag on fd 0).
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            defer { close(ends[0]) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "PNCRYPT_KEY")
            let argv = ([CLI.binary.path] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid = pid_t()
            let spawned = posix_spawn(&pid, CLI.binary.path, &actions, &attributes, argv, envp)
            guard spawned == 0 else {
                close(ends[1])
                throw POSIXError(.init(rawValue: spawned) ?? .EIO)
            }
            self.pid = pid
            input = ends[1]
            signal(SIGPIPE, SIG_IGN)
        }

        /// Writes `count` zero bytes to its standard input; returns once it has read all but a pipe buffer of them.
        func feed(_ count: Int) throws {
            let zeros = [UInt8](repeating: 0, count: count)
            var offset = 0
            while offset < count {
                let n = zeros.withUnsafeBytes { write(input, $0.baseAddress! + offset, count - offset) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
                offset += n
            }
        }

        /// Whether it has not ended yet.
        var isRunning: Bool { poll() == nil }

        /// Sends `signal` and waits (at most `timeout` seconds, then SIGKILL) for the process to end.
        @discardableResult
        func stop(with signal: Int32, timeout: TimeInterval = 60) -> Termination {
            kill(pid, signal)
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let termination = poll() { return termination }
                usleep(5_000)
            }
            kill(pid, SIGKILL)
            return wait()
        }

        private func poll(options: Int32 = WNOHANG) -> Termination? {
            if let termination { return termination }
            var status: Int32 = 0
            guard waitpid(pid, &status, options) == pid else { return nil }
            termination = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
            return termination
        }

        private func wait() -> Termination {
            while true {
                if let termination = poll(options: 0) { return termination }
            }
        }

        deinit {
            if input >= 0 { close(input) }
            if poll() == nil {
                kill(pid, SIGKILL)
                _ = wait()
            }
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
