import Foundation
import PNCryptBase
import PNCryptFiles
import SystemPackage
import Testing

/// Reads and writes on swift-system's `FileDescriptor`, the package's one seam to descriptors, as the files layer
/// uses them: a read interrupted by a signal is retried (not reported), a short write goes on where it stopped,
/// `fill` reads as far as the input goes, and a failure carries its errno and reason.
@Suite struct DescriptorIOTests {
    /// Marks signal delivery for `interruptedReadIsRetried` (a handler installed without SA_RESTART, so a blocked
    /// `read` returns EINTR).
    nonisolated(unsafe) static var delivered: Int32 = 0

    @Test func interruptedReadIsRetried() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in DescriptorIOTests.delivered += 1 }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the kernel returns EINTR from the blocked read
        var previous = sigaction()
        try #require(sigaction(SIGWINCH, &action, &previous) == 0)
        defer { sigaction(SIGWINCH, &previous, nil) }

        final class Box: @unchecked Sendable {
            var thread = pthread_t()
            var result: Result<Int, Errno>?
            var buffer = [UInt8](repeating: 0, count: 16)
            let started = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
        }
        let box = Box()
        let readEnd = FileDescriptor(rawValue: fds[0])
        Thread.detachNewThread {
            // The thread inherits its creator's signal mask: let SIGWINCH in.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGWINCH)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            box.thread = pthread_self()
            box.started.signal()
            box.result = box.buffer.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in
                    do {
                        return try readEnd.read(into: buffer)
                    } catch {
                        throw error as? Errno ?? .ioError
                    }
                }
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
        try FileDescriptor(rawValue: fds[1]).writeAll(text)
        #expect(box.finished.wait(timeout: .now() + 10) == .success)
        #expect(DescriptorIOTests.delivered > 0, "no signal reached the reading thread")
        #expect(try box.result?.get() == text.count)
        #expect(Array(box.buffer[0..<text.count]) == text)
    }

    /// `writeEvery`, the package's one write loop (swift-system's `writeAll` would call again for ever on a write
    /// that wrote nothing; this one fails with EIO).
    @Test func writeEveryWritesEverythingThroughAPipe() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]) }
        // More than a pipe holds (64 KiB on Linux): writes come back short and the rest follows.
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let writeEnd = fds[1]
        let writer = Thread {
            _ = try? bytes.withUnsafeBytes { try FileDescriptor(rawValue: writeEnd).writeEvery($0) }
            close(writeEnd)
        }
        writer.start()
        var received = [UInt8](repeating: 0, count: bytes.count + 1)
        let count = try received.withUnsafeMutableBytes { buffer in
            try FileDescriptor(rawValue: fds[0]).fill(buffer)
        }
        #expect(count == bytes.count)
        #expect(Array(received[0..<count]) == bytes)
    }

    /// A failure is the call's `Errno`, whose text is `strerror`'s: the files layer's and the CLI's messages
    /// ("read failed: Bad file descriptor") say it as they did before swift-system.
    @Test func failuresCarryTheirErrno() {
        var buffer = [UInt8](repeating: 0, count: 4)
        let closed = FileDescriptor(rawValue: -1)
        #expect(throws: Errno.badFileDescriptor) { try buffer.withUnsafeMutableBytes { try closed.fill($0) } }
        #expect(throws: Errno.badFileDescriptor) { try buffer.withUnsafeBytes { try closed.writeEvery($0) } }
        #expect(throws: Errno.badFileDescriptor) { try buffer.withUnsafeMutableBytes { try closed.fill($0, at: 0) } }
        #expect("\(Errno.badFileDescriptor)" == String(cString: strerror(EBADF)))
        #expect(throws: Errno.badFileDescriptor) { try closed.writeAll([1, 2, 3]) }
        let written = [UInt8](repeating: 1, count: 3).withUnsafeBytes { bytes in
            Result { () throws(PNCryptError) in try closed.writeStream(bytes) }
        }
        #expect(throws: PNCryptError(.io, "write failed: \(String(cString: strerror(EBADF)))")) { try written.get() }
        let read = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(PNCryptError) in try closed.readFully(at: 0, into: bytes) }
        }
        #expect(throws: PNCryptError(.io, "read failed: \(String(cString: strerror(EBADF)))")) { try read.get() }
    }
}
