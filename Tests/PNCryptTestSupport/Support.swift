import Foundation
import Testing
@testable import PNCrypt
@testable import PNCryptJSON
@testable import PNCryptCore
@testable import PNCryptCompression
import PNCryptVectors

// What every test file may use: the package's paths, the one temporary-folder helper, the one way to run a
// process (`ChildProcess`, and `runProcess` over it), and the `pncrypt` binary run as a user runs it (`CLI`).

/// Paths of the package, found from this file's location.
enum Package {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let vectors = root.appendingPathComponent("Vectors")

    /// Loads one vector file of `Vectors/`.
    static func vectors(_ name: String) throws -> [TestVector] {
        try TestVectorFile.load(path: vectors.appendingPathComponent(name).path).vectors
    }

    /// The vector of `Vectors/spec.json` with `id` (tests use the file, never a hand-typed copy).
    static func specVector(_ id: String) throws -> TestVector {
        guard let found = try vectors("spec.json").first(where: { $0.id == id }) else {
            throw PNCryptError(.invalidValue, "no vector \(id) in spec.json")
        }
        return found
    }

    /// The Base64 ciphertext of the `spec.json` vector `id`.
    static func specCiphertext(_ id: String) throws -> String {
        guard let ciphertext = try specVector(id).ciphertext else {
            throw PNCryptError(.invalidValue, "vector \(id) has no ciphertext")
        }
        return ciphertext
    }
}

extension Array where Element == UInt8 {
    init(_ text: String) { self = Array(text.utf8) }
}

/// The one expect-error helper: runs `body` and returns the `PNCryptError` it throws, recording an issue when it
/// throws nothing or another error. With `code` and `message`, also checks them (the message exactly).
/// (Generic over the closure's error type: converting a typed-throws closure to `throws` crashes Swift 6.3.1.)
@discardableResult
func expectPNError<T, E: Error>(_ code: PNCryptError.Code? = nil, _ message: String? = nil,
                                sourceLocation: SourceLocation = #_sourceLocation,
                                _ body: () throws(E) -> T) -> PNCryptError? {
    do {
        let value = try body()
        Issue.record("expected \(code.map { "a \($0) error" } ?? "an error"), got \(value)",
                     sourceLocation: sourceLocation)
        return nil
    } catch {
        guard let error = error as? PNCryptError else {
            Issue.record("expected a PNCryptError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
        if let code { #expect(error.code == code, sourceLocation: sourceLocation) }
        if let message { #expect(error.message == message, sourceLocation: sourceLocation) }
        return error
    }
}

// MARK: - Sanitizers

/// This test process (and so the `pncrypt` it runs, built the same way) is built with AddressSanitizer: its
/// runtime is linked in. Memory figures (peak RSS) mean nothing there.
let runningUnderAddressSanitizer = dlsym(nil, "__asan_init") != nil

// MARK: - Temporary folders

/// A fresh, empty temporary folder; the caller removes it (or uses `withTemporaryDirectory`).
func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pncrypt-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// Runs `body` in a fresh temporary folder that is removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    return try body(dir)
}

// MARK: - Processes

/// A child process, started with posix_spawn as a shell starts a command (in a session of its own): no signal
/// blocked, and every signal at its default (Foundation's `Process` passes on the signal
/// mask of the test thread, which blocks them). The one way the tests start a process; `runProcess` runs one to
/// its end.
final class ChildProcess {
    /// What one of the child's standard descriptors is connected to.
    enum Stream {
        /// A pipe to this process (`input`, `output`, `error`).
        case pipe
        /// `/dev/null`.
        case null
        /// A file, created or truncated.
        case file(String)
        /// A descriptor of this process (duplicated onto the child's; this process keeps and closes its own).
        case descriptor(Int32)
    }

    /// How the child ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)

        /// The status a shell reports: the exit status, or 128 + the signal.
        var status: Int32 {
            switch self {
            case .exited(let status): status
            case .signaled(let signal): 128 + signal
            }
        }
    }

    let pid: pid_t
    /// This process's end of each pipe, -1 when there is none (or it was closed).
    private(set) var input: Int32 = -1
    private(set) var output: Int32 = -1
    private(set) var error: Int32 = -1
    private var termination: Termination?

    /// A test process writing to a child that exited must get EPIPE, not die.
    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Starts `executable` (a path) with `arguments`.
    init(_ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil,
         stdin: Stream = .pipe, stdout: Stream = .pipe, stderr: Stream = .pipe) throws {
        _ = Self.ignoreSIGPIPE
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Both ends are close-on-exec, so that no other test's child inherits them; dup2 clears the flag on the
        // child's own descriptor.
        var childEnds: [Int32] = []
        var ours: [Int32] = [-1, -1, -1]
        defer { childEnds.forEach { close($0) } }
        for (number, stream) in [stdin, stdout, stderr].enumerated() {
            let target = Int32(number)
            switch stream {
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard GNU.pipe2(&ends, O_CLOEXEC) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
                let (child, mine) = number == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                childEnds.append(child)
                ours[number] = mine
                posix_spawn_file_actions_adddup2(&actions, child, target)
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", number == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .descriptor(let fd):
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        if let directory { GNU.addchdir(&actions, directory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in 1...Int32(64) where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // A session of its own: no controlling terminal, so nothing the child runs prompts on the terminal of
        // whoever runs the tests (the terminal tests give it one of its own).
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | GNU.POSIX_SPAWN_SETSID
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            ours.filter { $0 >= 0 }.forEach { close($0) }
            throw POSIXError(.init(rawValue: spawned) ?? .EIO)
        }
        self.pid = pid
        (input, output, error) = (ours[0], ours[1], ours[2])
    }

    deinit {
        closeInput()
        for fd in [output, error] where fd >= 0 { close(fd) }
        if poll() == nil {
            kill(pid, SIGKILL)
            _ = wait()
        }
    }

    /// Writes all of `bytes` to its standard input (blocking until it has read all but a pipe buffer of them).
    func feed(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(input, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            offset += n
        }
    }

    /// Closes its standard input: it reads the end.
    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// Feeds `stdin` and reads standard output and error at the same time until all three are done (so large
    /// data cannot block either side); a child that exits without reading its input is fine.
    func communicate(_ stdin: [UInt8]) throws -> (stdout: [UInt8], stderr: [UInt8]) {
        var collected: [Int32: [UInt8]] = [:]
        let (stdoutFD, stderrFD) = (output, error)
        var offset = 0
        if input >= 0 {
            _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
            if stdin.isEmpty { closeInput() }
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while input >= 0 || output >= 0 || error >= 0 {
            var fds = [(input, POLLOUT), (output, POLLIN), (error, POLLIN)].filter { $0.0 >= 0 }
                .map { pollfd(fd: $0.0, events: Int16($0.1), revents: 0) }
            guard Glibc.poll(&fds, nfds_t(fds.count), -1) >= 0 else {
                if errno == EINTR { continue }
                throw POSIXError(.init(rawValue: errno) ?? .EIO)
            }
            for entry in fds where entry.revents != 0 {
                if entry.fd == input {
                    let n = stdin.withUnsafeBytes { write(input, $0.baseAddress! + offset, stdin.count - offset) }
                    if n > 0 { offset += n }
                    if offset == stdin.count || (n < 0 && errno != EAGAIN && errno != EINTR) { closeInput() }
                    continue
                }
                let n = read(entry.fd, &chunk, chunk.count)
                if n > 0 {
                    collected[entry.fd, default: []] += chunk[0..<n]
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    close(entry.fd)
                    if entry.fd == output { output = -1 } else { error = -1 }
                }
            }
        }
        return (collected[stdoutFD] ?? [], collected[stderrFD] ?? [])
    }

    /// How it ended, or nil while it runs.
    func poll() -> Termination? {
        reap(options: WNOHANG)
    }

    /// Waits for it to end.
    @discardableResult
    func wait() -> Termination {
        while true {
            if let termination = reap(options: 0) { return termination }
        }
    }

    /// Sends `signal`, then waits for it to end.
    @discardableResult
    func stop(with signal: Int32) -> Termination {
        kill(pid, signal)
        return wait()
    }

    private func reap(options: Int32) -> Termination? {
        if let termination { return termination }
        var status: Int32 = 0
        guard waitpid(pid, &status, options) == pid else { return nil }
        termination = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
        return termination
    }
}

/// glibc functions Swift's Glibc module does not declare (they need `_GNU_SOURCE`), looked up at run time.
enum GNU {
    /// `posix_spawnattr_setflags` flag: the child calls `setsid` (glibc 2.26).
    static let POSIX_SPAWN_SETSID: Int32 = 0x80

    /// `fcntl` command: the capacity of a pipe (Linux, `F_LINUX_SPECIFIC_BASE + 8`).
    static let F_GETPIPE_SZ: Int32 = 1024 + 8

    private static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("glibc has no \(name)")
        }
        return unsafeBitCast(address, to: type)
    }

    /// `pipe2`: a pipe whose ends get `flags` (O_CLOEXEC) atomically, so no other thread's child inherits them.
    static let pipe2 = symbol("pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)

    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29): the child starts in `directory`.
    static func addchdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ directory: String) {
        _ = directory.withCString { addchdirFunction(actions, $0) }
    }

    private static let addchdirFunction = symbol(
        "posix_spawn_file_actions_addchdir_np",
        as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
}

/// What a finished process wrote and how it ended.
struct ProcessResult {
    /// The exit status (128 + N for a signal N, as a shell says).
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `executable` (a path) to its end with `stdin` as standard input, in `directory`.
func runProcess(_ executable: String, _ arguments: [String], stdin: [UInt8] = [],
                environment: [String: String] = ProcessInfo.processInfo.environment,
                directory: URL? = nil) throws -> ProcessResult {
    let child = try ChildProcess(executable, arguments, environment: environment, directory: directory?.path)
    let (stdout, stderr) = try child.communicate(stdin)
    return ProcessResult(status: child.wait().status, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
}

/// The full path of `tool` in PATH, or nil.
func findTool(_ tool: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(tool)" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}

// MARK: - The pncrypt binary

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
