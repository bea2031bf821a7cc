// Input files of the shells: opening one (the CLI's `-i`/INPUT, the C library's `in_path`), copying a stream,
// reading at an offset. The caller owns every descriptor handed out here.

import PNCryptBase
import PNCryptCore
import PNCryptPlatform
import SystemPackage

/// Opening, copying and reading input files.
package enum InputFiles {
    /// Opens an input file for reading (the path's bytes, exactly); the caller closes the descriptor.
    package static func open(_ path: FilePath) throws(FileError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(path, .readOnly, options: .closeOnExec, retryOnInterrupt: true)
        } catch let error as Errno {
            if error == .noSuchFileOrDirectory {
                throw FileError(.missing, "input file '\(path.shown)' does not exist")
            }
            let kind: FileError.Kind = [Errno.permissionDenied, .notDirectory, .tooManySymbolicLinkLevels]
                .contains(error) ? .cannotOpen : .io
            throw FileError(kind, "cannot open input file '\(path.shown)': \(error)")
        } catch {
            throw FileError(.io, "cannot open input file '\(path.shown)': \(error)")
        }
    }

    /// A new 0600 file in `TMPDIR` (else `/tmp`) with no name (unlinked at once), closed on exec; the caller closes
    /// it.
    package static func unlinkedTemporary() throws(FileError) -> FileDescriptor {
        var folder = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        if folder.isEmpty { folder = "/tmp" }
        if !folder.hasSuffix("/") { folder += "/" }
        var template = Array((folder + "pncrypt-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw FileError(.io, "cannot create a temporary file: \(OutputPaths.reason())")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return FileDescriptor(rawValue: fd)
    }

    /// Copies `source` to its end into `destination`; returns the number of bytes copied. Failures name `reading`
    /// or `writing`.
    @discardableResult
    package static func copy(from source: FileDescriptor, to destination: FileDescriptor,
                             reading: @autoclosure () -> String, writing: @autoclosure () -> String)
        throws(FileError) -> Int {
        let size = 1 << 20
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { chunk.deallocate() }
        var total = 0
        while true {
            let n: Int
            do {
                n = try source.read(into: UnsafeMutableRawBufferPointer(start: chunk, count: size))
            } catch {
                throw FileError(.io, "cannot read \(reading()): \(error)")
            }
            if n == 0 { return total }
            do {
                try destination.writeEvery(UnsafeRawBufferPointer(start: chunk, count: n))
            } catch {
                throw FileError(.io, "cannot write \(writing()): \(error)")
            }
            total += n
        }
    }

    /// `count` bytes of the regular file `fd`, `length` bytes long, from `offset` (fewer at its end). Failures name
    /// `what`.
    package static func read(_ fd: FileDescriptor, at offset: Int, count: Int, length: Int,
                             _ what: @autoclosure () -> String) throws(FileError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(0, min(count, length - offset)))
        let filled: Int
        do {
            filled = try out.withUnsafeMutableBytes { try fd.fill($0, at: offset) }
        } catch {
            throw FileError(.io, "cannot read \(what()): \(error)")
        }
        guard filled == out.count else { throw FileError(.io, "cannot read \(what()): it got shorter") }
        return out
    }

    /// Moves `fd` back to its start.
    static func rewind(_ fd: FileDescriptor, _ what: @autoclosure () -> String) throws(FileError) {
        guard (try? fd.seek(offset: 0, from: .start)) == 0 else {
            throw FileError(.io, "cannot read \(what()): \(OutputPaths.reason())")
        }
    }
}
