// Input files of the shells: opening one (the CLI's `-i`/INPUT, the C library's `in_path`) and an input that can
// be read more than once (a regular file, else a copy of the stream in an unlinked 0600 temporary file). The
// caller owns every descriptor handed out here, except an `InputSource`'s, which it closes itself.

import PNCryptBase
import PNCryptCore

import PNCryptPlatform

/// Opening, copying and reading input files.
package enum InputFiles {
    /// Opens an input file for reading; the caller closes the descriptor.
    package static func open(_ path: String) throws(FileError) -> Int32 {
        let fd = PNCryptPlatform.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = OutputPaths.reason()
            if errno == ENOENT { throw FileError(.missing, "input file '\(path)' does not exist") }
            let kind: FileError.Kind = [EACCES, ENOTDIR, ELOOP].contains(errno) ? .cannotOpen : .io
            throw FileError(kind, "cannot open input file '\(path)': \(reason)")
        }
        return fd
    }

    /// A new 0600 file in `TMPDIR` (else `/tmp`) with no name (unlinked at once), closed on exec; the caller closes
    /// it.
    package static func unlinkedTemporary() throws(FileError) -> Int32 {
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
        return fd
    }

    /// Copies `source` to its end into `destination`; returns the number of bytes copied. Failures name `reading`
    /// or `writing`.
    @discardableResult
    package static func copy(from source: Int32, to destination: Int32, reading: @autoclosure () -> String,
                             writing: @autoclosure () -> String) throws(FileError) -> Int {
        let size = 1 << 20
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { chunk.deallocate() }
        var total = 0
        while true {
            let n: Int
            do throws(SystemError) {
                n = try SystemIO.read(source, into: UnsafeMutableRawBufferPointer(start: chunk, count: size))
            } catch {
                throw FileError(.io, "cannot read \(reading()): \(error)")
            }
            if n == 0 { return total }
            do throws(SystemError) {
                try SystemIO.writeAll(destination, UnsafeRawBufferPointer(start: chunk, count: n))
            } catch {
                throw FileError(.io, "cannot write \(writing()): \(error)")
            }
            total += n
        }
    }

    /// `count` bytes of the regular file `fd`, `length` bytes long, from `offset` (fewer at its end). Failures name
    /// `what`.
    package static func read(_ fd: Int32, at offset: Int, count: Int, length: Int, _ what: @autoclosure () -> String)
        throws(FileError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(0, min(count, length - offset)))
        let filled: Int
        do {
            // `withUnsafeMutableBytes` rethrows untyped: the error is still the `SystemError`.
            filled = try out.withUnsafeMutableBytes { try FileIO.fill(fd, at: offset, into: $0) }
        } catch {
            throw FileError(.io, "cannot read \(what()): \(error)")
        }
        guard filled == out.count else { throw FileError(.io, "cannot read \(what()): it got shorter") }
        return out
    }

    /// Moves `fd` back to its start.
    static func rewind(_ fd: Int32, _ what: @autoclosure () -> String) throws(FileError) {
        guard lseek(fd, 0, SEEK_SET) == 0 else {
            throw FileError(.io, "cannot read \(what()): \(OutputPaths.reason())")
        }
    }
}

/// Input that can be read more than once: a regular file, or else standard input (or a FIFO, a device) copied
/// first into an unlinked 0600 temporary file. Used where the input is ciphertext (decrypting a file chooses the
/// key on its last blocks before reading it from the start): the copy holds no plaintext. Its `length` is read
/// once, when it is opened: every read stops there, so a file another process appends to is decided and read as
/// the snapshot it was then.
package final class InputSource {
    /// The descriptor, owned (closed on deinit).
    package let fd: Int32
    /// The input's length in bytes.
    package let length: Int
    /// What the input is called in messages.
    package let name: String

    /// Opens the file at `path`, or standard input when `path` is nil; `name` is what messages call it.
    package init(path: String?, name: String) throws(FileError) {
        self.name = name
        guard let path else {
            (fd, length) = try Self.copy(STDIN_FILENO, name: name)
            return
        }
        let fd = try InputFiles.open(path)
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
            self.fd = fd
            length = Int(info.st_size)
            return
        }
        defer { close(fd) }
        (self.fd, length) = try Self.copy(fd, name: name)
    }

    deinit { close(fd) }

    /// `count` bytes from `offset` (fewer at the end).
    package func read(at offset: Int, count: Int) throws(FileError) -> [UInt8] {
        try InputFiles.read(fd, at: offset, count: count, length: length, name)
    }

    /// The descriptor, moved back to the start, and how far to read it: `length`, the snapshot its head and last
    /// blocks were read in. A stream of it stops there (`StreamPipeline.run(from:...:length:)`): bytes another
    /// process appends to the file meanwhile are never read, and a file that got shorter is an error.
    package func fromStart() throws(FileError) -> (fd: Int32, length: Int) {
        try InputFiles.rewind(fd, name)
        return (fd, length)
    }

    /// Copies a stream into an unlinked 0600 temporary file.
    private static func copy(_ source: Int32, name: String) throws(FileError) -> (Int32, Int) {
        let fd = try InputFiles.unlinkedTemporary()
        do throws(FileError) {
            let count = try InputFiles.copy(from: source, to: fd, reading: name,
                                            writing: "a temporary copy of \(name)")
            return (fd, count)
        } catch {
            close(fd)
            throw error
        }
    }
}

/// A scratch file with no name (unlinked at once), for holding output until it is verified (output that cannot be
/// taken back, such as standard output, a device or a FIFO).
package final class Spool {
    /// The descriptor to write the held output to.
    package let fd: Int32

    /// A new spool in `TMPDIR`.
    package init() throws(FileError) {
        fd = try InputFiles.unlinkedTemporary()
    }

    deinit { close(fd) }

    /// Copies everything written so far to `output`.
    package func copy(to output: Int32) throws(FileError) {
        try InputFiles.rewind(fd, "the held output")
        try InputFiles.copy(from: fd, to: output, reading: "the held output", writing: "output")
    }
}
