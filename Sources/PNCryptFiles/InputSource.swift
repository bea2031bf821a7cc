// An input that can be read more than once (a regular file, else a copy of the stream in an unlinked 0600
// temporary file, made by InputFiles.swift). It owns and closes its descriptor.

import PNCryptBase
import PNCryptCore
import PNCryptPlatform
import SystemPackage

/// Input that can be read more than once: a regular file, or else standard input (or a FIFO, a device) copied
/// first into an unlinked 0600 temporary file. Used where the input is ciphertext (decrypting a file chooses the
/// key on its last blocks before reading it from the start): the copy holds no plaintext. Its `length` is read
/// once, when it is opened: every read stops there, so a file another process appends to is decided and read as
/// the snapshot it was then.
package final class InputSource {
    /// The descriptor, owned (closed on deinit).
    package let fd: FileDescriptor
    /// The input's length in bytes.
    package let length: Int
    /// What the input is called in messages.
    package let name: String

    /// Opens the file at `path`, or standard input when `path` is nil; `name` is what messages call it.
    package init(path: FilePath?, name: String) throws(FileError) {
        self.name = name
        guard let path else {
            (fd, length) = try Self.copy(.standardInput, name: name)
            return
        }
        let fd = try InputFiles.open(path)
        var info = stat()
        if fstat(fd.rawValue, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
            self.fd = fd
            length = Int(info.st_size)
            return
        }
        defer { try? fd.close() }
        (self.fd, length) = try Self.copy(fd, name: name)
    }

    deinit { try? fd.close() }

    /// `count` bytes from `offset` (fewer at the end).
    package func read(at offset: Int, count: Int) throws(FileError) -> [UInt8] {
        try InputFiles.read(fd, at: offset, count: count, length: length, name)
    }

    /// The descriptor, moved back to the start, and how far to read it: `length`, the snapshot its head and last
    /// blocks were read in. A stream of it stops there (`StreamPipeline.run(from:...:length:)`): bytes another
    /// process appends to the file meanwhile are never read, and a file that got shorter is an error.
    package func fromStart() throws(FileError) -> (fd: FileDescriptor, length: Int) {
        try InputFiles.rewind(fd, name)
        return (fd, length)
    }

    /// Copies a stream into an unlinked 0600 temporary file.
    private static func copy(_ source: FileDescriptor, name: String) throws(FileError) -> (FileDescriptor, Int) {
        let fd = try InputFiles.unlinkedTemporary()
        do throws(FileError) {
            let count = try InputFiles.copy(from: source, to: fd, reading: name,
                                            writing: "a temporary copy of \(name)")
            return (fd, count)
        } catch {
            try? fd.close()
            throw error
        }
    }
}
