import Foundation
import PNCrypt
#if canImport(Glibc)
import Glibc
#endif

/// Input that can be read more than once: a regular file named by `-i`, or else standard input (or a FIFO) copied
/// first into an unlinked 0600 temporary file. The input of `decrypt` is ciphertext: the copy holds no plaintext.
final class InputSource {
    let fd: Int32
    let length: Int

    init(_ input: InputOptions) throws {
        if let path = input.input {
            guard FileManager.default.fileExists(atPath: path) else {
                throw CLIFailure(66, "input file '\(path)' does not exist")
            }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw CLIFailure(74, "cannot open input file '\(path)': \(Self.reason())") }
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
                self.fd = fd
                length = Int(info.st_size)
                return
            }
            defer { close(fd) }
            (self.fd, length) = try Self.spool(fd)
        } else {
            (fd, length) = try Self.spool(STDIN_FILENO)
        }
    }

    deinit { close(fd) }

    /// `count` bytes from `offset` (fewer at the end).
    func read(at offset: Int, count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(0, min(count, length - offset)))
        var done = 0
        while done < out.count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw CLIFailure(74, "cannot read the input: \(n == 0 ? "it got shorter" : Self.reason())") }
            done += n
        }
        return out
    }

    /// A handle reading from the start.
    func handleFromStart() throws -> FileHandle {
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw CLIFailure(74, "cannot read the input: \(Self.reason())") }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: false)
    }

    /// Copies a stream into an unlinked 0600 temporary file.
    private static func spool(_ source: Int32) throws -> (Int32, Int) {
        let fd = try diskSpool()
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(source, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { close(fd); throw CLIFailure(74, "cannot read the input: \(reason())") }
            if n == 0 { break }
            try buffer.withUnsafeBytes { try writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            total += n
        }
        return (fd, total)
    }

    private static func diskSpool() throws -> Int32 {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("pncrypt-in-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CLIFailure(74, "cannot create a temporary file: \(reason())") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw CLIFailure(74, "cannot write a temporary copy of the input: \(reason())") }
            done += n
        }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
