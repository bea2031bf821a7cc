// The files layer's reads and writes of a stream, on swift-system's `FileDescriptor`, the package's one seam to
// descriptors (it retries a call a signal interrupts, EINTR, and reports failures as `Errno`). What this file adds is
// the files layer's own: a stream read to the end it had when the run began (`pump`), a positional read that says
// when a file got shorter, and how their failures are worded. The library's layers do no I/O: they take chunks and
// buffers. The caller owns every descriptor: nothing here opens or closes one. The read buffer is owned by `pump`,
// wiped (it holds plaintext when encrypting) and freed when it returns.

import PNCryptBase
import PNCryptCore
import PNCryptPlatform
import SystemPackage

/// Runs `call`, a system call swift-system does not wrap (`openat`, `poll`, `waitpid`: -1 with `errno` set on
/// failure), again while a signal interrupts it: its result, or its failure as `Errno`.
package func retryingInterrupted<T: BinaryInteger>(_ call: () -> T) throws(Errno) -> T {
    while true {
        let result = call()
        if result >= 0 { return result }
        let error = Errno(rawValue: errno)
        if error != .interrupted { throw error }
    }
}

extension FileDescriptor {
    /// Reads `fd` to its end in chunks of `chunkSize`, handing each chunk to `body`. The end of a regular file is
    /// the one it had when the call began (`length`, else `snapshotLength`): bytes another process appends while it
    /// is read are never read, and a file that gets shorter is an `io` error. Throws `invalidValue` for a chunk size
    /// below 1 or a negative `length`.
    package func pump(chunkSize: Int, length: Int? = nil,
                      _ body: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        guard chunkSize > 0 else {
            throw PNCryptError(.invalidValue, "chunk size must be positive, got \(chunkSize)")
        }
        if let length, length < 0 {
            throw PNCryptError(.invalidValue, "input length must be 0 or more, got \(length)")
        }
        let snapshot = length ?? snapshotLength
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
                filled = try fill(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
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

    /// The bytes left to read when this is a regular file (its size now, less its position): the end of the
    /// snapshot every read of a stream input stops at. Nil for a pipe, a terminal or a device, which are read to
    /// their end.
    package var snapshotLength: Int? {
        // The C library's `stat` (swift-system's `FileDescriptor.stat()` needs System 1.7.0 where it is an OS API).
        var info = PNCryptPlatform.stat()
        guard fstat(rawValue, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              let position = try? seek(offset: 0, from: .current) else { return nil }
        return max(0, Int(info.st_size) - Int(position))
    }

    /// Fills `buffer` from the position, as far as the input goes: the count read, less than `buffer.count` only
    /// at the end.
    package func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Fills `buffer` from `offset` (the position is untouched), as far as the file goes: the count read, less
    /// than `buffer.count` only at the file's end. The one positional read loop (`readFully(at:into:)` and
    /// `InputFiles.read` word its failures).
    package func fill(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try read(fromAbsoluteOffset: Int64(offset + done),
                             into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Fills `buffer` from `offset`.
    /// - Throws: `io` when a read fails or the file ends before the buffer is full.
    package func readFully(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(PNCryptError) {
        let filled: Int
        do {
            filled = try fill(buffer, at: offset)
        } catch {
            throw PNCryptError(.io, "read failed: \(error)")
        }
        guard filled == buffer.count else { throw PNCryptError(.io, "read failed: the file got shorter") }
    }

    /// Writes all of `bytes`, however many calls it takes: a short write continues where it stopped, a call a signal
    /// interrupts is made again. A write that writes nothing fails with EIO (swift-system's `writeAll` would call
    /// again for ever: a hang, where the package promises a failure). The package's one write loop: every
    /// `writeAll` of the files layer and the CLI comes here (`LayerTests.descriptorsGoThroughSwiftSystem`).
    package func writeEvery(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let written: Int
            do {
                written = try write(UnsafeRawBufferPointer(rebasing: bytes[offset...]), retryOnInterrupt: true)
            } catch let error as Errno {
                throw error
            } catch {
                throw .ioError
            }
            guard written > 0 else { throw .ioError }
            offset += written
        }
    }

    /// Writes all of `bytes`.
    /// - Throws: `io` ("write failed: ...") when a write fails.
    package func writeStream(_ bytes: UnsafeRawBufferPointer) throws(PNCryptError) {
        do {
            try writeEvery(bytes)
        } catch {
            throw PNCryptError(.io, "write failed: \(error)")
        }
    }
}
