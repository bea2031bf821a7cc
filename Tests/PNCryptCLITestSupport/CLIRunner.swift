import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport

// Running the built `pncrypt` as a user runs it (`CLI`, on a pseudo-terminal `Terminal`), for every test target
// that runs it. A plain target (not tests) on the core, for the chunk size the run reads.

/// Runs the built `pncrypt` binary as a user would.
package enum CLI {
    package typealias Result = ProcessResult

    /// The `pncrypt` executable the tests run: the one `PNCRYPT_BIN` names when it is set (CI sets it to the release
    /// tarball's `bin/pncrypt`, the command as shipped, as the Python tests' `PNCRYPT_BIN` does), else `built`.
    package static let binary: URL = {
        if let named = ProcessInfo.processInfo.environment["PNCRYPT_BIN"], !named.isEmpty {
            precondition(FileManager.default.isExecutableFile(atPath: named),
                         "PNCRYPT_BIN=\(named) is not an executable")
            return URL(fileURLWithPath: named)
        }
        return built
    }()

    /// The `pncrypt` executable beside the test bundle (`swift test` builds it with the tests): unstripped, for the
    /// tests of what installing it does to it.
    package static let built: URL = {
        let candidates = [Bundle.main.bundleURL,
                          URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for dir in candidates {
            let url = dir.appendingPathComponent("pncrypt")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return Package.root.appendingPathComponent(".build/debug/pncrypt")
    }()

    /// This process's environment without `PNCRYPT_KEY`, with `extra` added.
    package static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "PNCRYPT_KEY")
        return environment.merging(extra) { $1 }
    }

    /// Runs `pncrypt arguments...` with `stdin` as standard input (or, with `executable`, that program: a shell
    /// that sets something up and then runs `pncrypt`).
    package static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:],
                    directory: URL? = nil, executable: String? = nil) throws -> Result {
        try runProcess(executable ?? binary.path, arguments, stdin: stdin, environment: Self.environment(environment),
                       directory: directory)
    }

    /// Starts `pncrypt arguments...` reading standard input from a pipe the test holds open: it cannot finish
    /// before the test closes the pipe, however fast the machine is. Its output goes to /dev/null.
    package static func start(_ arguments: [String], environment extra: [String: String] = [:],
                      stderr: ChildProcess.Stream = .null) throws -> ChildProcess {
        try ChildProcess(binary.path, arguments, environment: environment(extra), stdout: .null, stderr: stderr)
    }

    /// Starts `pncrypt encrypt --key k --binary -o <output>` and feeds it until the file it writes holds at least
    /// one chunk of ciphertext (1 MiB), with no clock involved: the run reads its input in chunks of 1 MiB and
    /// writes each chunk's ciphertext before it reads the next, so once it has taken 2 MiB from a pipe of at most
    /// 64 KiB, the first chunk's ciphertext is in the file. Returns the run (still running, its input open) and
    /// the file it writes: its named temporary beside `output` (with `named`, through the test knob
    /// `PNCRYPT_TEST_NAMED_TEMPORARY`), else its nameless `O_TMPFILE` as `/proc/<pid>/fd/<n>` (`stat` follows it).
    package static func startEncryptMidway(output: URL, named: Bool = false, stderr: ChildProcess.Stream = .null)
        throws -> (ChildProcess, URL) {
        let dir = output.deletingLastPathComponent()
        let before = try temporaries(of: output.lastPathComponent, in: dir)
        let run = try start(["encrypt", "--key", "k", "--binary", "-o", output.path],
                            environment: named ? ["PNCRYPT_TEST_NAMED_TEMPORARY": "1"] : [:], stderr: stderr)
        let capacity = fcntl(run.input, GNU.F_GETPIPE_SZ)
        try #require(capacity > 0 && capacity < StreamPipeline.defaultChunkSize, "pipe capacity \(capacity)")
        try run.feed([UInt8](repeating: 0, count: 2 * StreamPipeline.defaultChunkSize))
        let new = try temporaries(of: output.lastPathComponent, in: dir).filter { !before.contains($0) }
        let file: URL
        if named {
            try #require(new.count == 1, "temporary files: \(new)")
            file = dir.appendingPathComponent(new[0])
        } else {
            try #require(new.isEmpty, "named temporary files: \(new)")
            file = try #require(namelessFile(of: run.pid, in: dir), "no O_TMPFILE open in \(dir.path)")
        }
        var info = stat()
        try #require(stat(file.path, &info) == 0)
        try #require(info.st_size >= StreamPipeline.defaultChunkSize, "the file holds \(info.st_size) bytes")
        return (run, file)
    }

    /// The file with no name (`O_TMPFILE`) that process `pid` has open in `dir`, as `/proc/<pid>/fd/<n>`.
    package static func namelessFile(of pid: pid_t, in dir: URL) -> URL? {
        let folder = dir.resolvingSymlinksInPath().path
        let fds = "/proc/\(pid)/fd"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [] {
            let path = "\(fds)/\(entry)"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) else { continue }
            if target.hasPrefix(folder + "/#") && target.hasSuffix(" (deleted)") { return URL(fileURLWithPath: path) }
        }
        return nil
    }

    /// The temporary files of output `name` in `dir`: `.<name>.pncrypt-<anything>.tmp`.
    package static func temporaries(of name: String, in dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasPrefix(".\(name).pncrypt-") && $0.hasSuffix(".tmp") }.sorted()
    }

    /// `lstat` of a path (the link itself for a symbolic link), nil when nothing is there.
    package static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }
}

extension CLI {
    /// What a failure to decrypt text or messages points at: the command that says why.
    package static let diagnose = "pncrypt diagnose, given the same key and the encrypted text, says why"

    /// Runs the binary with stdin from `input`, stdout to `/dev/null`, and returns its exit status and peak RSS in
    /// bytes: the largest `VmHWM` of `/proc/PID/status` seen while it runs (polled every 5 ms; the high-water mark
    /// only grows). Not `wait4`'s `ru_maxrss`: a child spawned with `CLONE_VM` (as posix_spawn does) starts its
    /// maximum from the parent's (this test process's) resident size.
    package static func peakRSS(_ arguments: [String], input: String) throws
        -> (status: Int32, bytes: Int, samples: Int) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([CLI.binary.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, CLI.binary.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(.init(rawValue: spawned) ?? .EIO) }
        var peak = 0
        var samples = 0
        var status: Int32 = 0
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kB = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).dropLast(3)) {
                peak = max(peak, kB * 1024)
                samples += 1
            }
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            usleep(5_000)
        }
        return ((status >> 8) & 0xFF, peak, samples)
    }

    /// Runs `pncrypt arguments` under `script`, so its standard error is a terminal; returns what the terminal got.
    package static func onTerminal(_ arguments: [String], directory: URL) throws -> String {
        let command = ([CLI.binary.path] + arguments)
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let result = try CLI.run(["-qec", command, "/dev/null"], environment: ["PNCRYPT_PROGRESS_INTERVAL": "0"],
                                 directory: directory, executable: "/usr/bin/script")
        #expect(result.status == 0, "\(result.text) \(result.stderr)")
        return result.text
    }
}

/// A file of `count` deterministic bytes that are not text.
package func binaryFile(_ url: URL, count: Int) throws -> [UInt8] {
    let bytes = (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
    try Data(bytes).write(to: url)
    return bytes
}
