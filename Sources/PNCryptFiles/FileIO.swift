// Every POSIX read/write of a stream lives in this file, in the files layer (the library's layers do no I/O: they
// take chunks and buffers). The caller owns the file descriptors: nothing here opens or closes them. The read
// buffer is owned by `pump`, wiped (it holds plaintext when encrypting) and freed when it returns.

import PNCryptBase
import PNCryptCore

import PNCryptPlatform

package enum FileIO {
    /// Reads `fd` to its end in chunks of `chunkSize`, handing each chunk to `body`. The end of a regular file is
    /// the one it had when the call began (`length`, else `snapshotLength`): bytes another process appends while it
    /// is read are never read, and a file that gets shorter is an `io` error. Throws `invalidValue` for a chunk size
    /// below 1 or a negative `length`.
    package static func pump(_ fd: Int32, chunkSize: Int, length: Int? = nil,
                     _ body: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        guard chunkSize > 0 else {
            throw PNCryptError(.invalidValue, "chunk size must be positive, got \(chunkSize)")
        }
        if let length, length < 0 {
            throw PNCryptError(.invalidValue, "input length must be 0 or more, got \(length)")
        }
        let snapshot = length ?? snapshotLength(fd)
        var remaining = snapshot
        if remaining == 0 { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer {
            wipe(buffer.baseAddress!, count: buffer.count)
            buffer.deallocate()
        }
        while true {
            // Fill the buffer as far as the source gives, so stages see large chunks even from pipes.
            let wanted = remaining.map { min(chunkSize, $0) } ?? chunkSize
            let filled: Int
            do {
                filled = try SystemIO.readFully(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
            } catch {
                throw PNCryptError(.io, "read failed: \(error)")
            }
            if let snapshot, filled < wanted {
                throw PNCryptError(.io, "read failed: the input got shorter while it was read (it had "
                                   + "\(snapshot.counting("byte")) when the run began)")
            }
            if filled > 0 { try body(UnsafeRawBufferPointer(rebasing: buffer[0..<filled])) }
            if let left = remaining {
                remaining = left - filled
                if left == filled { return }
            } else if filled < chunkSize {
                return
            }
        }
    }

    /// The bytes left to read in `fd` when it is a regular file (its size now, less its position): the end of
    /// the snapshot every read of a stream input stops at. Nil for a pipe, a terminal or a device, which are read
    /// to their end.
    package static func snapshotLength(_ fd: Int32) -> Int? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let position = lseek(fd, 0, SEEK_CUR)
        guard position >= 0 else { return nil }
        return max(0, Int(info.st_size) - Int(position))
    }

    /// Writes all of `bytes` to `fd`.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(PNCryptError) {
        do {
            try SystemIO.writeAll(fd, bytes)
        } catch {
            throw PNCryptError(.io, "write failed: \(error)")
        }
    }
}

extension FileIO {
    /// Fills `buffer` from `fd` at `offset` (`pread`: the file position is untouched), retried on EINTR, as far as
    /// the file goes: the count read, less than `buffer.count` only at the file's end. The one positional read loop
    /// (`readFully(_:at:into:)` and `InputFiles.read` word its failures).
    package static func fill(_ fd: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer)
        throws(SystemError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = try SystemIO.retrying { pread(fd, base + done, buffer.count - done, off_t(offset + done)) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Fills `buffer` from `fd` at `offset`.
    /// - Throws: `io` when a read fails or the file ends before the buffer is full.
    package static func readFully(_ fd: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer)
        throws(PNCryptError) {
        let filled: Int
        do {
            filled = try fill(fd, at: offset, into: buffer)
        } catch {
            throw PNCryptError(.io, "read failed: \(error)")
        }
        guard filled == buffer.count else { throw PNCryptError(.io, "read failed: the file got shorter") }
    }
}
