import PNCrypt
#if canImport(Glibc)
import Glibc
#endif

/// Input that can be read more than once: a regular file, or else standard input (or a FIFO) copied
/// first into an unlinked 0600 temporary file. The input of `decrypt` is ciphertext: the copy holds no plaintext.
final class InputSource {
    let fd: Int32
    let length: Int
    /// What the input is called in messages.
    let name: String

    init(_ input: Input) throws {
        name = input.describe
        guard let path = input.filePath else {
            (fd, length) = try Self.copy(STDIN_FILENO, name: name)
            return
        }
        let fd = try Input.open(path)
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
    func read(at offset: Int, count: Int) throws -> [UInt8] {
        try POSIXIO.read(fd, at: offset, count: count, length: length, name)
    }

    /// The descriptor, moved back to the start.
    func fromStart() throws -> Int32 {
        try POSIXIO.rewind(fd, name)
        return fd
    }

    /// Copies a stream into an unlinked 0600 temporary file.
    private static func copy(_ source: Int32, name: String) throws -> (Int32, Int) {
        let fd = try POSIXIO.unlinkedTemporary()
        do {
            let count = try POSIXIO.copy(from: source, to: fd, reading: name,
                                         writing: "a temporary copy of \(name)")
            return (fd, count)
        } catch {
            close(fd)
            throw error
        }
    }
}
