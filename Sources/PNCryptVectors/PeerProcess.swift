// The peer of `pncrypt conformance`: a command started once through `/bin/sh -c`, one JSON request a line on its
// standard input, one JSON answer a line on its standard output (docs/conformance.md). The peer is untrusted: it may
// die, hang, write garbage or write without end, and none of that may hang the harness. Every wait is a poll() with
// a deadline; a peer past it is killed with its whole process group. Its standard error is read through a pipe
// and only the last `stderrLimit` bytes are kept; its environment has no `PNCRYPT_` variable (no key reaches it).
// POSIX only (no Foundation).
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// One running peer process.
package final class PeerProcess {
    /// Why a request got no answer.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The peer did not answer within the timeout; it was killed.
        case timeout(seconds: Double)
        /// The peer closed its output or exited (with its wait status, when known).
        case died(String)
        /// The peer wrote a line that is not a JSON object (the line, cut to 300 bytes).
        case garbage(String)
        /// The peer wrote a line longer than the limit without ending it.
        case tooLong(Int)
        /// The peer could not be started.
        case notStarted(String)

        /// One line saying what happened (peer text in it is not escaped: the caller escapes for terminals).
        package var description: String {
            switch self {
            case .timeout(let seconds): "no answer within \(Self.seconds(seconds)) (the peer was killed)"
            case .died(let how): "the peer \(how)"
            case .garbage(let line): "the peer's answer is not a JSON object: \(line)"
            case .tooLong(let limit): "the peer wrote more than \(limit) bytes without a line end"
            case .notStarted(let why): "the peer could not be started: \(why)"
            }
        }

        private static func seconds(_ value: Double) -> String {
            value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
        }
    }

    /// The longest answer line taken (a 1 MiB plaintext in Base64 and its JSON are well under it).
    package static let maxLineLength = 64 << 20
    /// How much of the peer's standard error is kept: the last 64 KiB (the rest is read and dropped).
    package static let stderrLimit = 64 << 10

    /// The shell command the peer runs.
    package let command: String
    private var pid: pid_t = -1
    private var toPeer: Int32 = -1
    private var fromPeer: Int32 = -1
    private var fromStderr: Int32 = -1
    /// The last `stderrLimit` bytes (at most) the peer wrote to its standard error.
    private var stderrKept: [UInt8] = []
    private var pending: [UInt8] = []
    private var status: Int32?
    /// Told the peer's process group when it starts and 0 when it is gone (see `init`).
    private let groupChanged: (pid_t) -> Void

    /// The signals that end a process and may come from outside at any time: blocked while the peer is started and
    /// its group handed to `groupChanged`, so that no signal can end the harness between the two.
    private static let asynchronousEndings: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
                                                       SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR]

    /// Starts `/bin/sh -c command` in a process group of its own, standard input, output and error on pipes (only the
    /// last `stderrLimit` bytes of its standard error are kept, for `stderrTail`), in the environment of this process
    /// without any `PNCRYPT_` variable (`PNCRYPT_KEY`, `PNCRYPT_TO_KEY` and whatever else pncrypt reads).
    ///
    /// `groupChanged` is told the peer's process group once it runs (with the signals that end a process blocked,
    /// so that a handler that kills the group it was told cannot miss it) and 0 once it is killed: a program's
    /// signal handler kills that group before the program ends (the CLI's does).
    /// - Throws: `Failure.notStarted`.
    package init(command: String, groupChanged: @escaping (pid_t) -> Void = { _ in }) throws(Failure) {
        self.command = command
        self.groupChanged = groupChanged
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard pipe(&input) == 0 else { throw .notStarted("pipe: \(Self.lastError())") }
        guard pipe(&output) == 0 else {
            close(input[0]); close(input[1])
            throw .notStarted("pipe: \(Self.lastError())")
        }
        guard pipe(&errors) == 0 else {
            for fd in input + output { close(fd) }
            throw .notStarted("pipe: \(Self.lastError())")
        }
        // Only the copies made for the child (dup2 clears the flag) cross exec.
        for fd in input + output + errors { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group (killed whole on a timeout); SIGPIPE as by default, whatever the harness does; no
        // signal blocked (the harness blocks some while it starts the peer).
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes,
                                 Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let arguments = ["/bin/sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment: [UnsafeMutablePointer<CChar>?] = Self.peerEnvironment().map { strdup($0) } + [nil]
        defer { for pointer in environment { free(pointer) } }
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        for signal in Self.asynchronousEndings { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var child: pid_t = 0
        let result = posix_spawn(&child, "/bin/sh", &actions, &attributes, &argv, &environment)
        close(input[0])
        close(output[1])
        close(errors[1])
        guard result == 0 else {
            close(input[1]); close(output[0]); close(errors[0])
            throw .notStarted("/bin/sh: \(String(cString: strerror(result)))")
        }
        pid = child
        groupChanged(child)
        toPeer = input[1]
        fromPeer = output[0]
        fromStderr = errors[0]
        for fd in [toPeer, fromPeer, fromStderr] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        stop(grace: 0)
    }

    /// The environment a peer gets: this process's, without the variables named `PNCRYPT_...` (keys among them).
    static func peerEnvironment() -> [String] {
        var out: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let variable = String(cString: pointer)
            if !variable.hasPrefix("PNCRYPT_") { out.append(variable) }
            entry += 1
        }
        return out
    }

    /// Whether the process is still there to be asked.
    package var isRunning: Bool { pid > 0 }

    /// Sends one line (`request` and a newline) and returns the next line the peer writes, parsed, within `timeout`
    /// seconds. On a timeout, the peer's death or a line that is not a JSON object, the peer is stopped (killed if
    /// need be) and the failure thrown; it must be started again to be asked more.
    package func ask(_ request: [UInt8], timeout: Double) throws(Failure) -> JSONValue {
        guard isRunning else { throw .died("is not running") }
        let deadline = Self.now() + timeout
        var out = request
        out.append(0x0A)
        var written = 0
        while true {
            if let newline = pending.firstIndex(of: 0x0A), written == out.count {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                guard let value = try? JSONValue(parsing: line), value.objectValue != nil else {
                    stop(grace: 0)
                    throw .garbage(Self.excerpt(line))
                }
                return value
            }
            guard pending.count <= Self.maxLineLength else {
                stop(grace: 0)
                throw .tooLong(Self.maxLineLength)
            }
            let left = deadline - Self.now()
            guard left > 0 else {
                stop(grace: 0)
                throw .timeout(seconds: timeout)
            }
            // The peer's standard error is read as it comes (a peer that fills the pipe must not block); once it is
            // closed (-1), poll skips it.
            var fds = [pollfd(fd: fromPeer, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: fromStderr, events: Int16(POLLIN), revents: 0)]
            if written < out.count { fds.append(pollfd(fd: toPeer, events: Int16(POLLOUT), revents: 0)) }
            // A signal may make the wait start again (`retryingInterrupted`): the deadline is checked above.
            let milliseconds = Int32(min(left * 1000 + 1, 60_000))
            let count = nfds_t(fds.count)
            do throws(Errno) {
                _ = try retryingInterrupted { poll(&fds, count, milliseconds) }
            } catch {
                stop(grace: 0)
                throw .died("cannot be polled: \(error)")
            }
            if fds[1].revents != 0 { drainStderr() }
            if fds.count > 2 && fds[2].revents != 0 {
                let from = written
                let target = FileDescriptor(rawValue: toPeer)
                do {
                    written += try out.withUnsafeBytes { raw in
                        try target.write(UnsafeRawBufferPointer(rebasing: raw[from...]))
                    }
                } catch Errno.resourceTemporarilyUnavailable {
                    // Not ready after all: poll again.
                } catch Errno.brokenPipe {
                    // It closed its input. Its answer may still come; else the read below sees the end.
                    written = out.count
                } catch {
                    stop(grace: 0)
                    throw .died("cannot be written to: \(error)")
                }
            }
            if fds[0].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                var n = 0
                var ended = false
                let source = FileDescriptor(rawValue: fromPeer)
                do {
                    n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
                    ended = n == 0
                } catch Errno.resourceTemporarilyUnavailable {
                    n = 0
                } catch {
                    ended = true
                }
                if n > 0 { pending += chunk[0..<n] }
                if ended {
                    let how = stop(grace: 0.5)
                    if !pending.isEmpty {
                        throw .died("\(how) in the middle of a line: \(Self.excerpt(pending))")
                    }
                    throw .died(how)
                }
            }
        }
    }

    /// Ends the peer: closes its input, waits up to `grace` seconds for it to exit, then kills its process group.
    /// Returns how it ended ("exited with status 3", "was killed by signal 9").
    @discardableResult
    package func stop(grace: Double) -> String {
        guard pid > 0 else { return describe(status) }
        if toPeer >= 0 { close(toPeer); toPeer = -1 }
        let deadline = Self.now() + grace
        var waited: Int32 = 0
        var done = false
        let child = pid
        while true {
            guard let r = try? retryingInterrupted({ waitpid(child, &waited, WNOHANG) }) else { break }
            if r == child { done = true; break }
            if Self.now() >= deadline { break }
            usleep(10_000)
        }
        // The group goes, whether the shell itself exited or not: a child it left behind must not live on. (A child
        // that left the group, by setsid or setpgid, is not reached here: the CLI kills those it adopted.)
        kill(-child, SIGKILL)
        groupChanged(0)
        if !done {
            _ = try? retryingInterrupted { waitpid(child, &waited, 0) }
        }
        status = waited
        pid = -1
        if fromPeer >= 0 { close(fromPeer); fromPeer = -1 }
        drainStderr()
        if fromStderr >= 0 {
            close(fromStderr)
            fromStderr = -1
        }
        pending = []
        return describe(status)
    }

    /// Reads what the peer's standard error holds now (at most 1 MiB a call: a peer that writes without end cannot
    /// keep the harness here), keeping the last `stderrLimit` bytes. At its end (the peer closed it, or died), the
    /// pipe is closed: a closed pipe would wake every poll at once.
    private func drainStderr() {
        guard fromStderr >= 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let source = FileDescriptor(rawValue: fromStderr)
        for _ in 0..<16 {
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch Errno.resourceTemporarilyUnavailable {
                return
            } catch {
                n = 0
            }
            guard n > 0 else {
                close(fromStderr)
                fromStderr = -1
                return
            }
            stderrKept += chunk[0..<n]
            if stderrKept.count > Self.stderrLimit { stderrKept.removeFirst(stderrKept.count - Self.stderrLimit) }
        }
    }

    /// The last `limit` bytes the peer wrote to its standard error, of the last `stderrLimit` kept (for reports;
    /// untrusted text).
    package func stderrTail(limit: Int = 2000) -> [UInt8] {
        if pid > 0 { drainStderr() }
        return Array(stderrKept.suffix(limit))
    }

    private func describe(_ status: Int32?) -> String {
        guard let status else { return "is not running" }
        let signal = status & 0x7F
        if signal == 0 { return "exited with status \((status >> 8) & 0xFF)" }
        return "was killed by signal \(signal)"
    }

    private static func excerpt(_ bytes: [UInt8]) -> String {
        let cut = bytes.count > 300 ? Array(bytes.prefix(300)) : bytes
        return String(decoding: cut, as: UTF8.self) + (bytes.count > 300 ? "…" : "")
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
