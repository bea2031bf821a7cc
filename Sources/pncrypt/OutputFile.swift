import Foundation
import PNCrypt
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Output that appears only when the command succeeds.
///
/// With a path naming a regular file (or nothing yet), the library's files layer (`OutputTarget`, shared with the
/// C library) resolves the path once, following symbolic links under the protected-symlinks rule, and writes to
/// a file with no name in the target's folder (`O_TMPFILE`, mode 0600; where the file system has none, to
/// `.<name>.pncrypt-<random>.tmp`, created exclusively, 0600). On `commit()` the file gets the replaced file's
/// owner, group, mode and extended attributes (POSIX ACLs) (or `0666 & ~umask` for a new file) and is linked or
/// renamed into place; on failure, or on any signal that ends the process (`SignalCleanup`), nothing is left.
/// A path that is a symbolic link is followed: the file it points to is replaced and the link is kept.
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
    /// The file that appears on commit.
    private let file: AtomicOutputFile?
    /// A descriptor this object opened and must close (a device or FIFO), else -1.
    private var ownedDescriptor: Int32
    private let durable: Bool
    private var done = false

    /// Opens the output. Refuses to write over the input file.
    init(path: String?, inputPath: String?, durable: Bool = false) throws {
        self.durable = durable
        guard let path else {
            (self.path, file, ownedDescriptor, needsSpool) = (nil, nil, -1, true)
            fd = STDOUT_FILENO
            return
        }
        if let inputPath, Self.sameFile(path, inputPath) {
            throw CLIFailure(.usage, "refusing to write the output over the input file '\(inputPath)'")
        }
        self.path = path
        var input = stat()
        let hasInput = inputPath.map { stat($0, &input) == 0 } ?? false
        let target: OutputTarget
        do {
            // A test knob: the named temporary is what file systems without O_TMPFILE get.
            let named = ProcessInfo.processInfo.environment["PNCRYPT_TEST_NAMED_TEMPORARY"] == "1"
            target = try OutputTarget.open(path, input: hasInput ? input : nil, namedTemporary: named)
        } catch {
            switch error.kind {
            case .sameAsInput:
                throw CLIFailure(.usage, "refusing to write the output over the input file '\(inputPath ?? path)'")
            case .cannotCreate: throw CLIFailure(.cannotCreate, error.message)
            case .io: throw CLIFailure(.ioError, error.message)
            }
        }
        switch target {
        case .descriptor(let number):
            let fd = fcntl(number, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else {
                throw CLIFailure(.cannotCreate, "cannot open output '\(path)': \(POSIXIO.lastError())")
            }
            (file, ownedDescriptor, needsSpool) = (nil, fd, true)
        case .stream(let fd):
            (file, ownedDescriptor, needsSpool) = (nil, fd, true)
        case .file(let output):
            (file, ownedDescriptor, needsSpool) = (output, -1, false)
            SignalCleanup.register(output)
            for leftover in output.otherTemporaries() {
                let folder = output.directoryPath.isEmpty ? "" : output.directoryPath + "/"
                CLI.warning("'\(folder)\(leftover)' looks like the temporary file of an interrupted pncrypt run "
                            + "(or of one still running); it may hold plaintext: remove it if no run is going")
            }
        }
        fd = file?.fd ?? ownedDescriptor
    }

    deinit { if !done { abandon() } }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws {
        try POSIXIO.writeAll(fd, bytes, "output")
    }

    /// Makes the output final: gives the file its access and puts it in place (a device or FIFO is closed).
    /// Any failure removes the temporary file and leaves the path as it was.
    func commit() throws {
        done = true
        guard let path else { return }
        guard let file else {
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
        // The signals that remove the temporary stay blocked while it is put in place and forgotten: a signal in
        // between would remove a name that no longer belongs to this run.
        let failure = SignalCleanup.whileBlocked { () -> OutputFileError? in
            defer { SignalCleanup.clear() }
            do throws(OutputFileError) {
                try file.commit(newMode: 0o666 & ~Self.currentUmask, durable: durable)
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            throw CLIFailure(failure.kind == .cannotCreate ? .cannotCreate : .ioError, failure.message)
        }
    }

    /// Throws the output away; the path is left as it was.
    func abandon() {
        done = true
        if ownedDescriptor >= 0 {
            close(ownedDescriptor)
            ownedDescriptor = -1
        }
        guard let file else { return }
        SignalCleanup.whileBlocked {
            file.abandon()
            SignalCleanup.clear()
        }
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// The process's file-creation mask.
    static let currentUmask: mode_t = {
        let mask = umask(0o077)
        umask(mask)
        return mask
    }()
}

/// What every signal that would end the process does: removes what the run created (the named temporary file,
/// where the file system has no `O_TMPFILE`; a nameless one vanishes by itself) and exits 128 + signal, with no
/// backtrace. A crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS) does the same and prints one
/// line, never registers or memory: pncrypt's handlers replace the Swift runtime's backtracer.
///
/// The handlers may only make async-signal-safe calls: the folder descriptor and the name wait in memory
/// allocated before any handler is installed, and the handlers call only `unlinkat`, `write` and `_exit`. The name
/// is changed only with the signals blocked. A signal the parent set to be ignored (`nohup`) stays ignored.
enum SignalCleanup {
    /// The signals whose default action ends the process, other than crashes.
    static let endings: [Int32] = {
        var list = [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
                    SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT]
        list += Array(realTimeRange)
        return list
    }()
    /// The crash signals (the ones a fault raises, and abort).
    static let crashes: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS]

    /// SIGRTMIN...SIGRTMAX as glibc sets them (it keeps the first few for itself).
    static let realTimeRange: ClosedRange<Int32> = {
        typealias Bound = @convention(c) () -> Int32
        let handle = UnsafeMutableRawPointer(bitPattern: 0)
        guard let low = dlsym(handle, "__libc_current_sigrtmin"), let high = dlsym(handle, "__libc_current_sigrtmax")
        else { return 34...64 }
        return unsafeBitCast(low, to: Bound.self)()...unsafeBitCast(high, to: Bound.self)()
    }()

    /// The name of the temporary file in `folder`, as a C string; an empty string when there is none.
    nonisolated(unsafe) static let name: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(NAME_MAX) + 1)
        buffer.initialize(repeating: 0, count: Int(NAME_MAX) + 1)
        return buffer
    }()
    /// The folder of the temporary file (a descriptor the output owns while the name is set).
    nonisolated(unsafe) static var folder: Int32 = -1
    /// The crash line around the signal number, as C strings.
    nonisolated(unsafe) static let crashPrefix: UnsafeMutablePointer<CChar> = strdup("pncrypt: crashed (signal ")!
    nonisolated(unsafe) static let crashSuffix: UnsafeMutablePointer<CChar> = strdup("); output removed\n")!
    /// Room for the signal number's digits.
    nonisolated(unsafe) static let digits = UnsafeMutablePointer<UInt8>.allocate(capacity: 4)
    /// The alternate signal stack, for the life of the process (held here, so it is never a leak: only the kernel
    /// would otherwise point at it).
    static let alternateStackSize = 64 * 1024
    nonisolated(unsafe) static let alternateStack = UnsafeMutableRawPointer.allocate(byteCount: alternateStackSize,
                                                                                     alignment: 16)

    /// Installs the handlers (once, first thing in `main`): no signal can end a run before they are in place.
    static func installAll() {
        _ = (name, crashPrefix, crashSuffix, digits)
        // The alternate stack lets the crash handler run when the fault was a stack overflow.
        var stack = stack_t()
        stack.ss_sp = alternateStack
        stack.ss_size = alternateStackSize
        sigaltstack(&stack, nil)
        POSIXIO.install({ number in
            let name = SignalCleanup.name
            if name[0] != 0 { unlinkat(SignalCleanup.folder, name, 0) }
            _exit(128 + number)
        }, for: endings)
        POSIXIO.install({ number in
            let name = SignalCleanup.name
            if name[0] != 0 { unlinkat(SignalCleanup.folder, name, 0) }
            let digits = SignalCleanup.digits
            var count = 0
            if number >= 10 {
                digits[0] = UInt8(48 + number / 10)
                count = 1
            }
            digits[count] = UInt8(48 + number % 10)
            _ = Glibc.write(STDERR_FILENO, SignalCleanup.crashPrefix, strlen(SignalCleanup.crashPrefix))
            _ = Glibc.write(STDERR_FILENO, digits, count + 1)
            _ = Glibc.write(STDERR_FILENO, SignalCleanup.crashSuffix, strlen(SignalCleanup.crashSuffix))
            _exit(128 + number)
        }, for: crashes, flags: SA_ONSTACK)
    }

    /// Makes the named temporary of `file` (if it has one) the file removed on a signal.
    static func register(_ file: AtomicOutputFile) {
        guard let temporary = file.temporaryName else { return }
        let bytes = Array(temporary.utf8)
        guard !bytes.isEmpty, bytes.count <= Int(NAME_MAX) else { return }
        let buffer = name
        whileBlocked {
            buffer[0] = 0
            folder = file.directory
            for (index, byte) in bytes.enumerated().dropFirst() { buffer[index] = CChar(bitPattern: byte) }
            buffer[bytes.count] = 0
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            // The first byte goes last: a handler on another thread sees either no name or the whole one.
            buffer[0] = CChar(bitPattern: bytes[0])
        }
    }

    /// Forgets the temporary file (call with the signals blocked).
    static func clear() { name[0] = 0 }

    /// Runs `body` with the signals that end the process blocked.
    @discardableResult
    static func whileBlocked<R>(_ body: () -> R) -> R {
        var set = sigset_t()
        var old = sigset_t()
        sigemptyset(&set)
        for signal in endings { sigaddset(&set, signal) }
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
