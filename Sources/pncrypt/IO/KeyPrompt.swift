import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// Asks for the cipher key on the terminal (`/dev/tty`, as `openssl enc` and `age -p` do), without echo: the key
/// never appears on the screen, in the shell history or in the process list. When encrypting it asks twice, so a
/// mistyped key cannot lock the data away.
///
/// While echo is off, SIGINT, SIGTERM, SIGHUP and SIGQUIT restore the terminal before the run ends with 128 + the
/// signal: the handler makes only async-signal-safe calls (`tcsetattr`, `_exit`) on state saved before it is
/// installed.
enum KeyPrompt {
    /// The longest key accepted at the prompt, in bytes.
    static let maximumLength = 4096

    /// The key typed on the terminal, as bytes (refused later when not UTF-8); nil when the process has no
    /// terminal.
    static func read(confirm: Bool) throws -> [UInt8]? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard tcgetattr(fd, TerminalState.saved) == 0 else { return nil }
        var quiet = TerminalState.saved.pointee
        // No echo, but the newline of Enter still shows, so the next line starts where it should.
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        TerminalState.descriptor = fd
        let previous = TerminalState.installHandlers()
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else {
            TerminalState.restoreHandlers(previous)
            return nil
        }
        defer {
            tcsetattr(fd, TCSAFLUSH, TerminalState.saved)
            TerminalState.restoreHandlers(previous)
        }
        let key = try ask(FileDescriptor(rawValue: fd), "Cipher key: ")
        if confirm {
            var again = try ask(FileDescriptor(rawValue: fd), "Cipher key again: ")
            defer { wipe(&again) }
            guard again == key else { throw CLIFailure(.usage, "the keys typed differ; nothing was encrypted") }
        }
        return key
    }

    /// Writes `prompt` and reads one line (without its line end).
    private static func ask(_ fd: FileDescriptor, _ prompt: String) throws -> [UInt8] {
        try fd.writeAll(Array(prompt.utf8), naming: "the terminal")
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = try withUnsafeMutableBytes(of: &byte) { try fd.read(into: $0, naming: "the terminal") }
            if n == 0 || byte == 0x0A { break }
            line.append(byte)
            guard line.count <= maximumLength else {
                throw CLIFailure(.usage, "the key typed is longer than \(maximumLength) bytes")
            }
        }
        if line.last == 0x0D { line.removeLast() }
        return line
    }
}

/// The terminal settings to restore, for the signal handler.
private enum TerminalState {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// The settings before echo was turned off (allocated once, before any handler can run).
    nonisolated(unsafe) static let saved: UnsafeMutablePointer<termios> = {
        let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        pointer.initialize(to: termios())
        return pointer
    }()
    nonisolated(unsafe) static var descriptor: Int32 = -1

    /// Installs the restoring handler for every signal not ignored; returns the previous actions.
    static func installHandlers() -> [(Int32, sigaction)] {
        _ = saved
        return Signals.install({ number in
            tcsetattr(TerminalState.descriptor, TCSAFLUSH, TerminalState.saved)
            _exit(128 + number)
        }, for: signals)
    }

    static func restoreHandlers(_ previous: [(Int32, sigaction)]) {
        Signals.restore(previous)
    }
}
