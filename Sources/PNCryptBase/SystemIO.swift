// The package's POSIX reads and writes that retry when a signal interrupts them (EINTR): the one EINTR loop of
// PNCrypt, which the files layer, the vector checker, the CLI and the bench call instead of their own (the
// library's stream stages do no I/O: they take chunks).
//
// Ownership: the caller owns every descriptor and buffer; nothing here opens, closes, allocates or keeps one.
import PNCryptPlatform

/// POSIX calls retried while a signal interrupts them (EINTR), with typed failures.
package enum SystemIO {
    /// Runs `call` (a system call returning -1 with `errno` set on failure) again while it fails with EINTR: its
    /// result, or the failure.
    @inlinable
    package static func retrying<T: BinaryInteger>(_ call: () -> T) throws(SystemError) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw SystemError.current }
        }
    }

    /// Reads at most `buffer.count` bytes from `fd` into `buffer`, once: the count read, 0 at the end.
    @inlinable
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try retrying { systemRead(fd, base, buffer.count) }
    }

    /// Fills `buffer` from `fd` as far as the input goes: the count read, less than `buffer.count` only at the end.
    @inlinable
    package static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = try read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all of `bytes` to `fd`, however many calls it takes (short writes continue where they stopped). A
    /// write that writes nothing fails with EIO.
    @inlinable
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = try retrying { systemWrite(fd, base + offset, bytes.count - offset) }
            guard n > 0 else { throw SystemError(EIO) }
            offset += n
        }
    }

    /// `read(2)` (the name `read` is this type's).
    @usableFromInline
    static func systemRead(_ fd: Int32, _ base: UnsafeMutableRawPointer, _ count: Int) -> Int {
        PNCryptPlatform.read(fd, base, count)
    }

    /// `write(2)`.
    @usableFromInline
    static func systemWrite(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
        PNCryptPlatform.write(fd, base, count)
    }
}
