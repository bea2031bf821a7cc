import Foundation
import PNCryptBase
import Testing

/// `SystemIO`, the one EINTR loop: a read interrupted by a signal is retried (not reported), a short write goes on
/// where it stopped, and a failure carries its errno and reason.
@Suite struct SystemIOTests {
    /// Marks signal delivery for `interruptedReadIsRetried` (a handler installed without SA_RESTART, so a blocked
    /// `read` returns EINTR).
    nonisolated(unsafe) static var delivered: Int32 = 0

    @Test func interruptedReadIsRetried() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in SystemIOTests.delivered += 1 }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the kernel returns EINTR from the blocked read
        var previous = sigaction()
        try #require(sigaction(SIGWINCH, &action, &previous) == 0)
        defer { sigaction(SIGWINCH, &previous, nil) }

        final class Box: @unchecked Sendable {
            var thread = pthread_t()
            var result: Result<Int, SystemError>?
            var buffer = [UInt8](repeating: 0, count: 16)
            let started = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
        }
        let box = Box()
        let readEnd = fds[0]
        Thread.detachNewThread {
            // The thread inherits its creator's signal mask: let SIGWINCH in.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGWINCH)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            box.thread = pthread_self()
            box.started.signal()
            box.result = Result { () throws(SystemError) in
                try box.buffer.withUnsafeMutableBytes { buffer in
                    Result { () throws(SystemError) in try SystemIO.read(readEnd, into: buffer) }
                }.get()
            }
            box.finished.signal()
        }
        box.started.wait()
        // Interrupt the blocked read several times before anything is written.
        for _ in 0..<5 {
            usleep(20_000)
            pthread_kill(box.thread, SIGWINCH)
        }
        usleep(20_000)
        #expect(box.result == nil, "the read returned before anything was written")
        let text = Array("after signals".utf8)
        try text.withUnsafeBytes { buffer in try SystemIO.writeAll(fds[1], buffer) }
        #expect(box.finished.wait(timeout: .now() + 10) == .success)
        #expect(SystemIOTests.delivered > 0, "no signal reached the reading thread")
        #expect(try box.result?.get() == text.count)
        #expect(Array(box.buffer[0..<text.count]) == text)
    }

    @Test func writeAllWritesEverythingThroughAPipe() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]) }
        // More than a pipe holds (64 KiB on Linux): writes come back short and the rest follows.
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let writeEnd = fds[1]
        let writer = Thread {
            bytes.withUnsafeBytes { try? SystemIO.writeAll(writeEnd, $0) }
            close(writeEnd)
        }
        writer.start()
        var received = [UInt8](repeating: 0, count: bytes.count + 1)
        let count = try received.withUnsafeMutableBytes { buffer in
            try Result { () throws(SystemError) in try SystemIO.readFully(fds[0], into: buffer) }.get()
        }
        #expect(count == bytes.count)
        #expect(Array(received[0..<count]) == bytes)
    }

    @Test func failuresCarryTheirErrno() {
        var buffer = [UInt8](repeating: 0, count: 4)
        let failure = buffer.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemError) in try SystemIO.read(-1, into: buffer) }
        }
        #expect(throws: SystemError(EBADF)) { try failure.get() }
        #expect(SystemError(EBADF).description == String(cString: strerror(EBADF)))
        #expect(throws: SystemError(EBADF)) { try [UInt8](repeating: 1, count: 3).withUnsafeBytes {
            try SystemIO.writeAll(-1, $0)
        } }
    }
}
