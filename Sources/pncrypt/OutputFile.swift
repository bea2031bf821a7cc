import Foundation
import PNCrypt
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Output that appears only when the command succeeds.
///
/// With a path naming a regular file (or nothing yet), bytes go to a temporary file beside it, created exclusively
/// under an unpredictable name (`.<name>.pncrypt-<random>.tmp`, never through a symbolic link) with mode 0600. On
/// `commit()` the temporary file gets the old file's permission bits and owner (or `0666 & ~umask` for a new
/// file) and is renamed over the path; on failure, or on SIGINT, SIGTERM or SIGHUP, it is removed. The rename
/// makes the output all-or-nothing when the process is killed (SIGKILL, crash): the path holds either its old
/// contents or the whole new output, and a SIGKILLed run can leave only its own 0600 temporary file behind (no
/// other run removes it: cleanup never touches a file this run did not create). A path that is a symbolic link
/// is followed: the file it points to is replaced and the link is kept.
///
/// Surviving a power loss also needs the data and the rename on disk: with `durable` (`--sync`), `commit()` fsyncs
/// the file before the rename and the directory after it. That is not the default: like gzip and openssl, pncrypt
/// leaves write-back to the kernel (the fsync of a large file can cost as much as encrypting it).
///
/// Without a path, bytes go to standard output. A path that is not a regular file (a character device such as
/// `/dev/null`, a FIFO, `/dev/stdout`) is opened and written directly, never replaced: such output cannot be taken
/// back, so `needsSpool` is true and callers hold unverified output until it is verified, as for standard output.
final class OutputFile {
    /// The descriptor to write to: the temporary file, a device or FIFO, or standard output.
    let fd: Int32
    /// Bytes written to `fd` cannot be taken back (standard output, a device, a FIFO): output that is not yet
    /// verified must wait in a `Spool`.
    let needsSpool: Bool
    private let path: String?
    /// The file the rename replaces: `path` with its symbolic links followed.
    private let target: String?
    private let temporaryPath: String?
    /// A descriptor this object opened and must close (a temporary file or a device), else -1.
    private var ownedDescriptor: Int32
    /// The permission bits, owner and group the committed file gets.
    private let finalMode: mode_t
    private let finalOwner: (uid: uid_t, gid: gid_t)?
    private let durable: Bool
    private var done = false

    /// Opens the output. Refuses to write over the input file.
    init(path: String?, inputPath: String?, durable: Bool = false) throws {
        self.durable = durable
        guard let path else {
            (self.path, target, temporaryPath, ownedDescriptor) = (nil, nil, nil, -1)
            (finalMode, finalOwner, needsSpool) = (0, nil, true)
            fd = STDOUT_FILENO
            return
        }
        if let inputPath, Self.sameFile(path, inputPath) {
            throw CLIFailure(.usage, "refusing to write the output over the input file '\(inputPath)'")
        }
        self.path = path
        switch try OutputPath.resolve(path) {
        case .descriptor(let number):
            let fd = fcntl(number, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else {
                throw CLIFailure(.cannotCreate, "cannot open output '\(path)': \(POSIXIO.lastError())")
            }
            (target, temporaryPath, ownedDescriptor, finalMode, finalOwner) = (nil, nil, fd, 0, nil)
            needsSpool = true
        case .stream(let resolved):
            let fd = OutputPath.openStream(resolved)
            guard fd >= 0 else {
                throw CLIFailure(.cannotCreate, "cannot open output '\(path)': \(POSIXIO.lastError())")
            }
            (target, temporaryPath, ownedDescriptor, finalMode, finalOwner) = (nil, nil, fd, 0, nil)
            needsSpool = true
        case .file(let resolved, let existing):
            let (fd, temporary) = try OutputPath.createTemporary(beside: resolved, reportedAs: path)
            target = resolved
            temporaryPath = temporary
            ownedDescriptor = fd
            if let existing {
                finalMode = existing.st_mode & 0o7777
                finalOwner = (existing.st_uid, existing.st_gid)
            } else {
                finalMode = 0o666 & ~OutputPath.currentUmask
                finalOwner = nil
            }
            needsSpool = false
            SignalCleanup.register(temporary)
        }
        fd = ownedDescriptor
    }

    deinit { if !done { abandon() } }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws {
        try POSIXIO.writeAll(fd, bytes, "output")
    }

    /// Makes the output final: flushes and renames the temporary file into place (a device or FIFO is closed).
    /// Any failure removes the temporary file and leaves the path as it was.
    func commit() throws {
        done = true
        guard let path else { return }
        guard let target, let temporaryPath else {
            let fd = ownedDescriptor
            ownedDescriptor = -1
            if durable && fsync(fd) != 0 && errno != EINVAL && errno != EROFS {
                let reason = POSIXIO.lastError()
                close(fd)
                throw CLIFailure(.ioError, "cannot write '\(path)': \(reason)")
            }
            guard close(fd) == 0 || errno == EINTR else {
                throw CLIFailure(.ioError, "cannot write '\(path)': \(POSIXIO.lastError())")
            }
            return
        }
        do {
            try finishTemporary(reportedAs: path)
        } catch {
            abandon()
            throw error
        }
        // Signals stay blocked from the rename until the path is forgotten: a signal in between would remove a
        // name that no longer belongs to this run.
        let renamed = SignalCleanup.whileBlocked { () -> Int32 in
            let result = rename(temporaryPath, target)
            let saved = errno
            if result == 0 { SignalCleanup.clear() }
            errno = saved
            return result
        }
        guard renamed == 0 else {
            let reason = POSIXIO.lastError()
            abandon()
            throw CLIFailure(.ioError, "cannot move output into place at '\(path)': \(reason)")
        }
        if durable {
            // The rename is on disk only once the directory is.
            let directory = (target as NSString).deletingLastPathComponent
            let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            guard fsync(fd) == 0 || errno == EINVAL else {
                throw CLIFailure(.ioError, "cannot flush the directory of '\(path)': \(POSIXIO.lastError())")
            }
        }
    }

    /// Gives the temporary file its final owner and mode, flushes it (with `durable`) and closes it.
    private func finishTemporary(reportedAs path: String) throws {
        let fd = ownedDescriptor
        if let (uid, gid) = finalOwner {
            // Keep the owner where allowed (root, or the same owner); else keep at least the group if allowed.
            if fchown(fd, uid, gid) != 0 { _ = fchown(fd, uid_t.max, gid) }
        }
        guard fchmod(fd, finalMode) == 0 else {
            throw CLIFailure(.ioError, "cannot set the permissions of '\(path)': \(POSIXIO.lastError())")
        }
        if durable && fsync(fd) != 0 && errno != EINVAL {
            throw CLIFailure(.ioError, "cannot write '\(path)': \(POSIXIO.lastError())")
        }
        ownedDescriptor = -1
        // Linux closes the descriptor even when close reports an error (EINTR included): never close it twice.
        guard close(fd) == 0 else {
            throw CLIFailure(.ioError, "cannot write '\(path)': \(POSIXIO.lastError())")
        }
    }

    /// Throws the temporary file away; the path is left as it was.
    func abandon() {
        done = true
        if ownedDescriptor >= 0 {
            close(ownedDescriptor)
            ownedDescriptor = -1
        }
        guard let temporaryPath else { return }
        SignalCleanup.whileBlocked {
            unlink(temporaryPath)
            SignalCleanup.clear()
        }
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}

/// The raw POSIX side of `OutputFile`: where `-o PATH` leads, exclusive creation of the temporary file, writes.
enum OutputPath {
    /// What `-o PATH` names, after following symbolic links.
    enum Resolved {
        /// A regular file to replace (with its `stat`), or a name to create (`nil`).
        case file(String, stat?)
        /// Something that is not a regular file (a device, a FIFO): written directly.
        case stream(String)
        /// One of this process's descriptors (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`): written directly.
        case descriptor(Int32)
    }

    /// Follows the symbolic links of the last component of `path` (at most 40, as the kernel does).
    static func resolve(_ path: String) throws -> Resolved {
        var current = path
        for _ in 0..<40 {
            if let number = descriptorNumber(current) { return .descriptor(number) }
            var info = stat()
            guard lstat(current, &info) == 0 else {
                guard errno == ENOENT else {
                    throw CLIFailure(.cannotCreate, "cannot create output file '\(path)': \(POSIXIO.lastError())")
                }
                return .file(current, nil)
            }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let count = readlink(current, &buffer, buffer.count - 1)
                guard count >= 0 else {
                    throw CLIFailure(.cannotCreate, "cannot read the link '\(current)': \(POSIXIO.lastError())")
                }
                let destination = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                current = destination.hasPrefix("/") ? destination
                    : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
            case S_IFREG:
                return .file(current, info)
            case S_IFDIR:
                throw CLIFailure(.cannotCreate, "cannot create output file '\(path)': it is a directory")
            default:
                return .stream(current)
            }
        }
        throw CLIFailure(.cannotCreate, "cannot create output file '\(path)': too many levels of symbolic links")
    }

    /// The descriptor a path names without naming a file: `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
    /// `/proc/self/fd/N` or `/proc/<this pid>/fd/N`.
    static func descriptorNumber(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default: break
        }
        for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/\(getpid())/fd/", "/proc/thread-self/fd/"]
        where path.hasPrefix(prefix) {
            return Int32(path.dropFirst(prefix.count))
        }
        return nil
    }

    /// Opens a device or FIFO for writing (a FIFO waits for its reader).
    static func openStream(_ path: String) -> Int32 {
        while true {
            let fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
            if fd >= 0 || errno != EINTR { return fd }
        }
    }

    /// Creates `.<name>.pncrypt-<random>.tmp` beside `target` with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode 0600,
    /// trying new names while one exists. Returns the descriptor and the path.
    static func createTemporary(beside target: String, reportedAs path: String) throws -> (Int32, String) {
        let directory = (target as NSString).deletingLastPathComponent
        var name = (target as NSString).lastPathComponent
        // Room for the prefix and suffix within NAME_MAX (255 bytes).
        if name.utf8.count > 200 { name = "" }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let random = String((0..<12).map { _ in alphabet.randomElement(using: &generator)! })
            let file = ".\(name).pncrypt-\(random).tmp"
            let temporary = directory.isEmpty ? file : (directory as NSString).appendingPathComponent(file)
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, temporary) }
            if errno == EEXIST || errno == EINTR { continue }
            throw CLIFailure(.cannotCreate, "cannot create output file '\(path)': \(POSIXIO.lastError())")
        }
        throw CLIFailure(.cannotCreate, "cannot create output file '\(path)': no free temporary name")
    }

    /// The process's file-creation mask.
    static let currentUmask: mode_t = {
        let mask = umask(0o077)
        umask(mask)
        return mask
    }()
}

/// Removes the live temporary file when SIGINT, SIGTERM or SIGHUP ends the process, then exits 128 + signal.
///
/// The handler may only make async-signal-safe calls: the path waits in a buffer allocated before any handler is
/// installed, and the handler calls only `unlink` and `_exit`. The buffer is changed only with those signals
/// blocked. A signal the parent set to be ignored (`nohup`) stays ignored.
enum SignalCleanup {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// The temporary file's path as a C string; an empty string when there is none.
    nonisolated(unsafe) static let path: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(PATH_MAX) + 1)
        buffer.initialize(repeating: 0, count: Int(PATH_MAX) + 1)
        return buffer
    }()
    nonisolated(unsafe) private static var installed = false

    /// Makes `temporary` the file removed on a signal, installing the handlers the first time.
    static func register(_ temporary: String) {
        let bytes = Array(temporary.utf8)
        guard bytes.count <= Int(PATH_MAX) else { return }
        let buffer = path
        whileBlocked {
            // The first byte goes last: a handler on another thread sees either no path or the whole one.
            buffer[0] = 0
            for (index, byte) in bytes.enumerated().dropFirst() { buffer[index] = CChar(bitPattern: byte) }
            buffer[bytes.count] = 0
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            buffer[0] = CChar(bitPattern: bytes[0])
        }
        guard !installed else { return }
        installed = true
        POSIXIO.install({ number in
            let buffer = SignalCleanup.path
            if buffer[0] != 0 { unlink(buffer) }
            _exit(128 + number)
        }, for: signals)
    }

    /// Forgets the temporary file (call with the signals blocked).
    static func clear() { path[0] = 0 }

    /// Runs `body` with SIGINT, SIGTERM and SIGHUP blocked.
    @discardableResult
    static func whileBlocked<R>(_ body: () -> R) -> R {
        var set = sigset_t()
        var old = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        return body()
    }
}

/// A scratch file with no name (unlinked at once), for holding output until it is verified.
final class Spool {
    let fd: Int32

    init() throws {
        fd = try POSIXIO.unlinkedTemporary()
    }

    deinit { close(fd) }

    /// Copies everything written so far to `output`.
    func copy(to output: Int32) throws {
        try POSIXIO.rewind(fd, "the held output")
        try POSIXIO.copy(from: fd, to: output, reading: "the held output", writing: "output")
    }
}

extension OutputFile {
    /// The one way a command produces output: opens `-o` (else standard output; never over the input file),
    /// lets `body` write to a descriptor, and commits. With `holdUntilVerified`, output that cannot be taken back
    /// (standard output, a device, a FIFO) waits in a `Spool` until `body` has returned; a file is always renamed
    /// into place only on success. Any failure leaves nothing. Binary output (`binary` given) is refused for a
    /// terminal unless `--force`.
    static func produce(_ output: OutputOptions, input: Input, binary: ForceOption? = nil,
                        holdUntilVerified: Bool = false, _ body: (Int32) throws -> Void) throws {
        let out = try OutputFile(path: output.output, inputPath: input.filePath, durable: output.sync)
        try binary?.check(descriptor: out.fd)
        let spool = holdUntilVerified && out.needsSpool ? try Spool() : nil
        try body(spool?.fd ?? out.fd)
        try spool?.copy(to: out.fd)
        try out.commit()
    }

    /// Writes `bytes` (already verified) as the whole output.
    static func write(_ bytes: [UInt8], to output: OutputOptions, input: Input, binary: ForceOption? = nil) throws {
        try produce(output, input: input, binary: binary) { try POSIXIO.writeAll($0, bytes, "output") }
    }

    /// Streams the input (TEXT, a file or standard input) through `stages` into the output, as `produce`.
    /// `progress` shows how far a file input has got (see `ProgressOptions`).
    static func stream(_ input: Input, through stages: [any ByteStreamStage], to output: OutputOptions,
                       binary: ForceOption? = nil, holdUntilVerified: Bool = false,
                       progress: ProgressOptions? = nil) throws {
        try produce(output, input: input, binary: binary, holdUntilVerified: holdUntilVerified) { out in
            if let text = input.text {
                try POSIXIO.writeAll(out, try StreamPipeline.run(Array(text.utf8), through: stages), "output")
            } else {
                let line = progress?.line(for: input.filePath, showsLines: false)
                try input.withDescriptor { try POSIXIO.stream(from: $0, through: stages, to: out, progress: line) }
            }
        }
    }
}
