import Foundation
import PNCryptBase
import SystemPackage

/// File descriptors for the layers' tests, which feed their stream stages through real files and pipes as the shells
/// do, without the files layer (PNCryptFiles stands beside compression and above the core): written on
/// swift-system's `FileDescriptor`, as the files layer is; the descriptors are the C library's `Int32`, for suites
/// whose layers know no `FileDescriptor`. The caller owns every descriptor it gets, and closes it.
package enum Descriptors {
    /// A new file of `dir` holding `bytes`, opened for reading.
    package static func file(_ bytes: [UInt8], in dir: URL) throws -> Int32 {
        let url = dir.appendingPathComponent(UUID().uuidString)
        try Data(bytes).write(to: url)
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else { throw PNCryptError(.io, "cannot open '\(url.path)': \(Errno(rawValue: errno))") }
        return fd
    }

    /// The read end of a pipe holding `bytes`, written from another thread, which then closes the write end.
    package static func pipe(_ bytes: [UInt8]) throws(PNCryptError) -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard Foundation.pipe(&ends) == 0 else { throw PNCryptError(.io, "pipe failed: \(Errno(rawValue: errno))") }
        let writer = ends[1]
        Thread.detachNewThread {
            _ = try? FileDescriptor(rawValue: writer).writeAll(bytes)
            close(writer)
        }
        return ends[0]
    }

    /// Fills `buffer` from `fd` at `offset` (`pread`: the file position is untouched).
    /// - Throws: `io` when a read fails or the file ends before the buffer is full.
    package static func read(_ fd: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer)
        throws(PNCryptError) {
        var done = 0
        while done < buffer.count {
            let n: Int
            do {
                let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[done...])
                n = try FileDescriptor(rawValue: fd).read(fromAbsoluteOffset: Int64(offset + done), into: rest)
            } catch {
                throw PNCryptError(.io, "read failed: \(error)")
            }
            guard n > 0 else { throw PNCryptError(.io, "read failed: the file ends at \(offset + done)") }
            done += n
        }
    }

    /// Reads `fd` to its end, `chunkSize` bytes at a time (fewer only in the last chunk), each chunk to `body`.
    /// - Throws: `io` when a read fails; `body`'s error.
    package static func chunks(of fd: Int32, chunkSize: Int,
                               _ body: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkSize, 1), alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let filled: Int
            do {
                filled = try fill(FileDescriptor(rawValue: fd), buffer)
            } catch {
                throw PNCryptError(.io, "read failed: \(error)")
            }
            if filled > 0 { try body(UnsafeRawBufferPointer(rebasing: buffer[0..<filled])) }
            if filled < buffer.count { return }
        }
    }

    /// Fills `buffer` from `fd` as far as the input goes: the count read, less than `buffer.count` only at the end.
    private static func fill(_ fd: FileDescriptor, _ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all of `bytes` to `fd`.
    /// - Throws: `io` when a write fails.
    package static func write(_ fd: Int32, _ bytes: [UInt8]) throws(PNCryptError) {
        do {
            try FileDescriptor(rawValue: fd).writeAll(bytes)
        } catch {
            throw PNCryptError(.io, "write failed: \(error)")
        }
    }

    /// Streams `input` to `output` through stages, as the shells do: each chunk read (`chunkSize` bytes) goes
    /// through `update` (the stages' `update(_:)`), and the end through `finish` (their `finish()`); what they give
    /// back is written to `output`. `progress` is told the bytes read so far after each chunk.
    /// - Throws: `io` when a read or a write fails; the stages' errors.
    package static func stream(from input: Int32, to output: Int32, chunkSize: Int = 1 << 20,
                               progress: ((Int64) -> Void)? = nil,
                               update: ([UInt8]) throws(PNCryptError) -> [UInt8],
                               finish: () throws(PNCryptError) -> [UInt8]) throws(PNCryptError) {
        var total: Int64 = 0
        try chunks(of: input, chunkSize: chunkSize) { (chunk) throws(PNCryptError) in
            try write(output, try update([UInt8](chunk)))
            total += Int64(chunk.count)
            progress?(total)
        }
        try write(output, try finish())
    }
}

extension FileHandle {
    /// The handle's descriptor as swift-system's `FileDescriptor`, the files layer's type (the handle still owns it).
    package var descriptor: FileDescriptor { FileDescriptor(rawValue: fileDescriptor) }
}
