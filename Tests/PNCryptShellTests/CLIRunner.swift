import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport


/// Runs the built `pncrypt` binary as a user would.
enum CLI {
    typealias Result = ProcessResult

    /// The `pncrypt` executable beside the test bundle (`swift test` builds it with the tests).
    static let binary: URL = {
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
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "PNCRYPT_KEY")
        return environment.merging(extra) { $1 }
    }

    /// Runs `pncrypt arguments...` with `stdin` as standard input (or, with `executable`, that program: a shell
    /// that sets something up and then runs `pncrypt`).
    static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:],
                    directory: URL? = nil, executable: String? = nil) throws -> Result {
        try runProcess(executable ?? binary.path, arguments, stdin: stdin, environment: Self.environment(environment),
                       directory: directory)
    }

    /// Starts `pncrypt arguments...` reading standard input from a pipe the test holds open: it cannot finish
    /// before the test closes the pipe, however fast the machine is. Its output goes to /dev/null.
    static func start(_ arguments: [String], environment extra: [String: String] = [:],
                      stderr: ChildProcess.Stream = .null) throws -> ChildProcess {
        try ChildProcess(binary.path, arguments, environment: environment(extra), stdout: .null, stderr: stderr)
    }

    /// Starts `pncrypt encrypt --key k --binary -o <output>` and feeds it until the file it writes holds at least
    /// one chunk of ciphertext (1 MiB), with no clock involved: the run reads its input in chunks of 1 MiB and
    /// writes each chunk's ciphertext before it reads the next, so once it has taken 2 MiB from a pipe of at most
    /// 64 KiB, the first chunk's ciphertext is in the file. Returns the run (still running, its input open) and
    /// the file it writes: its named temporary beside `output` (with `named`, through the test knob
    /// `PNCRYPT_TEST_NAMED_TEMPORARY`), else its nameless `O_TMPFILE` as `/proc/<pid>/fd/<n>` (`stat` follows it).
    static func startEncryptMidway(output: URL, named: Bool = false, stderr: ChildProcess.Stream = .null) throws
        -> (ChildProcess, URL) {
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
    static func namelessFile(of pid: pid_t, in dir: URL) -> URL? {
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

/// A file of `count` deterministic bytes that are not text.
func binaryFile(_ url: URL, count: Int) throws -> [UInt8] {
    let bytes = (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
    try Data(bytes).write(to: url)
    return bytes
}
