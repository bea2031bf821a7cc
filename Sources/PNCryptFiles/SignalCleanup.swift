// What a signal that ends the process leaves behind: nothing. The handlers make only async-signal-safe calls on
// memory allocated before any of them is installed (the temporary's name, the crash line, the alternate stack);
// they live for the life of the process. Installed by a program's `main` (the CLI's), never by the C library: a
// library does not take over its host's signals.

import PNCryptBase
import PNCryptCore
import Synchronization

import PNCryptPlatform

/// What every signal that would end the process does: removes what the run created (the named temporary file,
/// where the file system has no `O_TMPFILE`; a nameless one vanishes by itself), kills the process group of a child
/// it started in a group of its own (`setChildGroup`: the conformance peer) and exits 128 + signal, with no
/// backtrace. A crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS) does the same and prints one
/// line, never registers or memory: these handlers replace the Swift runtime's backtracer.
///
/// The handlers may only make async-signal-safe calls: the folder descriptor and the name wait in memory
/// allocated before any handler is installed, and the handlers call only `unlinkat`, `kill`, `write` and `_exit`.
/// The name is changed only with the signals blocked. A signal the parent set to be ignored (`nohup`) stays ignored.
/// One temporary at a time is registered (`FileOutput` with `cleanupOnSignal`): the CLI writes one output.
package enum SignalCleanup {
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
    static let realTimeRange: ClosedRange<Int32> = CLibrary.realTimeSignals() ?? 34...64

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
    package static func installAll() {
        _ = (name, crashPrefix, crashSuffix, digits)
        // The alternate stack lets the crash handler run when the fault was a stack overflow.
        var stack = stack_t()
        stack.ss_sp = alternateStack
        stack.ss_size = alternateStackSize
        sigaltstack(&stack, nil)
        Signals.install({ number in
            let name = SignalCleanup.name
            if name[0] != 0 { unlinkat(SignalCleanup.folder, name, 0) }
            let group = SignalCleanup.childGroup.load(ordering: .sequentiallyConsistent)
            if group > 0 { kill(-group, SIGKILL) }
            _exit(128 + number)
        }, for: endings)
        Signals.install({ number in
            let name = SignalCleanup.name
            if name[0] != 0 { unlinkat(SignalCleanup.folder, name, 0) }
            let group = SignalCleanup.childGroup.load(ordering: .sequentiallyConsistent)
            if group > 0 { kill(-group, SIGKILL) }
            let digits = SignalCleanup.digits
            var count = 0
            if number >= 10 {
                digits[0] = UInt8(48 + number / 10)
                count = 1
            }
            digits[count] = UInt8(48 + number % 10)
            _ = write(STDERR_FILENO, SignalCleanup.crashPrefix, strlen(SignalCleanup.crashPrefix))
            _ = write(STDERR_FILENO, digits, count + 1)
            _ = write(STDERR_FILENO, SignalCleanup.crashSuffix, strlen(SignalCleanup.crashSuffix))
            _exit(128 + number)
        }, for: crashes, flags: SA_ONSTACK)
    }

    /// The process group of a child the run started in a group of its own (the conformance peer), killed by any
    /// signal that ends the process; 0 when there is none.
    static let childGroup = Atomic<Int32>(0)

    /// Makes `group` (a process group of the run's children, 0 for none) the group killed on a signal. Call it with
    /// the signals blocked between starting the group and this call (`PeerProcess` does).
    package static func setChildGroup(_ group: pid_t) {
        childGroup.store(group, ordering: .sequentiallyConsistent)
    }

    /// Makes the named temporary of `file` (if it has one) the file removed on a signal.
    static func register(_ file: AtomicOutputFile) {
        guard let temporary = file.temporaryName else { return }
        let bytes = temporary.bytes
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
    static func whileBlocked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        var set = sigset_t()
        var old = sigset_t()
        sigemptyset(&set)
        for signal in endings { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        return try body()
    }
}
