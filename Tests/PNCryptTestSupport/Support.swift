import Foundation
import Testing
import PNCryptJSON
import PNCryptBase

// What every test file may use: the package's paths, the one temporary-folder helper, the one way to run a
// process (`ChildProcess`, and `runProcess` over it). (The `pncrypt` binary, run as a user runs it, is the shells'
// tests' `CLI`.)

/// Paths of the package, found from this file's location.
package enum Package {
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    package static let vectors = root.appendingPathComponent("Vectors")

    /// Loads one vector file of `Vectors/` (`{"vectors": [...]}`) as `Vector`s, with the JSON layer's decoder (the
    /// one `TestVectorFile.load` uses): PNCryptVectors' `TestVector` in the tests above the library, `SpecVector`
    /// below it.
    package static func vectors<Vector: Decodable>(_ name: String, as type: Vector.Type) throws -> [Vector] {
        let data = try Data(contentsOf: vectors.appendingPathComponent(name))
        let json = try JSONValue(parsing: Array(data))
        return try JSONValueDecoder().decode(VectorFile<Vector>.self, from: json).vectors
    }

    private struct VectorFile<Vector: Decodable>: Decodable {
        var vectors: [Vector]
    }

    /// The vector of `Vectors/spec.json` with `id` (tests use the file, never a hand-typed copy).
    package static func specVector(_ id: String) throws -> SpecVector {
        guard let found = try vectors("spec.json", as: SpecVector.self).first(where: { $0.id == id }) else {
            throw PNCryptError(.invalidValue, "no vector \(id) in spec.json")
        }
        return found
    }

    /// The Base64 ciphertext of the `spec.json` vector `id`.
    package static func specCiphertext(_ id: String) throws -> String {
        guard let ciphertext = try specVector(id).ciphertext else {
            throw PNCryptError(.invalidValue, "vector \(id) has no ciphertext")
        }
        return ciphertext
    }
}

/// The fields of a `Vectors/spec.json` vector that the layers' tests read (all of them: PNCryptVectors'
/// `TestVector`, which lives above the library).
package struct SpecVector: Decodable, Sendable {
    package var id: String
    package var scheme: String
    package var key: String
    package var iv: String?
    package var plaintext: String?
    package var ciphertext: String?
}

extension Array where Element == UInt8 {
    package init(_ text: String) { self = Array(text.utf8) }
}

/// The one expect-error helper: runs `body` and returns the `PNCryptError` it throws, recording an issue when it
/// throws nothing or another error. With `code` and `message`, also checks them (the message exactly).
/// (Generic over the closure's error type: converting a typed-throws closure to `throws` crashes Swift 6.3.1.)
@discardableResult
package func expectPNError<T, E: Error>(_ code: PNCryptError.Code? = nil, _ message: String? = nil,
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

/// This test process (and so the `pncrypt` it runs, built the same way) is built with AddressSanitizer or
/// ThreadSanitizer: its runtime is linked in. Memory figures (peak RSS) mean nothing there (shadow memory,
/// quarantine: a 100 MB line-mode run peaks at 150 MiB under ThreadSanitizer).
package let runningUnderSanitizer = dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil

// MARK: - Temporary folders

/// A fresh, empty temporary folder; the caller removes it (or uses `withTemporaryDirectory`).
package func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pncrypt-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// Runs `body` in a fresh temporary folder that is removed afterwards.
package func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    return try body(dir)
}

/// Runs `body` in two fresh temporary folders (the second apart from what happens in the first), both removed
/// afterwards.
package func withTemporaryDirectories<T>(_ body: (URL, URL) throws -> T) throws -> T {
    try withTemporaryDirectory { first in try withTemporaryDirectory { second in try body(first, second) } }
}

// MARK: - Processes

/// A child process, started with posix_spawn as a shell starts a command (in a session of its own): no signal
/// blocked, and every signal at its default (Foundation's `Process` passes on the signal
/// mask of the test thread, which blocks them). The one way the tests start a process; `runProcess` runs one to
/// its end.
package final class ChildProcess {
    /// What one of the child's standard descriptors is connected to.
    package enum Stream {
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
    package enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)

        /// The status a shell reports: the exit status, or 128 + the signal.
        package var status: Int32 {
            switch self {
            case .exited(let status): status
            case .signaled(let signal): 128 + signal
            }
        }
    }

    package let pid: pid_t
    /// This process's end of each pipe, -1 when there is none (or it was closed).
    package private(set) var input: Int32 = -1
    package private(set) var output: Int32 = -1
    package private(set) var error: Int32 = -1
    private var termination: Termination?

    /// A test process writing to a child that exited must get EPIPE, not die.
    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Starts `executable` (a path) with `arguments`.
    package init(_ executable: String, _ arguments: [String], environment: [String: String],
                 directory: String? = nil, stdin: Stream = .pipe, stdout: Stream = .pipe,
                 stderr: Stream = .pipe) throws {
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
    package func feed(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(input, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            offset += n
        }
    }

    /// Closes its standard input: it reads the end.
    package func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// Feeds `stdin` and reads standard output and error at the same time until all three are done (so large
    /// data cannot block either side); a child that exits without reading its input is fine.
    package func communicate(_ stdin: [UInt8]) throws -> (stdout: [UInt8], stderr: [UInt8]) {
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
    package func poll() -> Termination? {
        reap(options: WNOHANG)
    }

    /// Waits for it to end.
    @discardableResult
    package func wait() -> Termination {
        while true {
            if let termination = reap(options: 0) { return termination }
        }
    }

    /// Sends `signal`, then waits for it to end.
    @discardableResult
    package func stop(with signal: Int32) -> Termination {
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
package enum GNU {
    /// `posix_spawnattr_setflags` flag: the child calls `setsid` (glibc 2.26).
    package static let POSIX_SPAWN_SETSID: Int32 = 0x80

    /// `fcntl` command: the capacity of a pipe (Linux, `F_LINUX_SPECIFIC_BASE + 8`).
    package static let F_GETPIPE_SZ: Int32 = 1024 + 8

    private static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("glibc has no \(name)")
        }
        return unsafeBitCast(address, to: type)
    }

    /// `pipe2`: a pipe whose ends get `flags` (O_CLOEXEC) atomically, so no other thread's child inherits them.
    package static let pipe2 = symbol("pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)

    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29): the child starts in `directory`.
    package static func addchdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ directory: String) {
        _ = directory.withCString { addchdirFunction(actions, $0) }
    }

    private static let addchdirFunction = symbol(
        "posix_spawn_file_actions_addchdir_np",
        as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
}

/// What a finished process wrote and how it ended.
package struct ProcessResult {
    /// The exit status (128 + N for a signal N, as a shell says).
    package var status: Int32
    package var stdout: [UInt8]
    package var stderr: String
    package init(status: Int32, stdout: [UInt8], stderr: String) {
        (self.status, self.stdout, self.stderr) = (status, stdout, stderr)
    }
    package var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `executable` (a path) to its end with `stdin` as standard input, in `directory`.
package func runProcess(_ executable: String, _ arguments: [String], stdin: [UInt8] = [],
                        environment: [String: String] = ProcessInfo.processInfo.environment,
                        directory: URL? = nil) throws -> ProcessResult {
    let child = try ChildProcess(executable, arguments, environment: environment, directory: directory?.path)
    let (stdout, stderr) = try child.communicate(stdin)
    return ProcessResult(status: child.wait().status, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
}

/// The full path of `tool` in PATH, or nil.
package func findTool(_ tool: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(tool)" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}
