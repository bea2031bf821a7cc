import Foundation
import PNCrypt
#if canImport(Glibc)
import Glibc
#endif

/// Output that appears only when the command succeeds.
///
/// With a path, bytes go to `.<name>.pncrypt-<pid>.tmp` beside it, which is renamed over the path on `commit()`
/// and removed on failure. The rename makes the output all-or-nothing when the process is killed (SIGKILL, crash):
/// the path holds either its old contents or the whole new output. Surviving a power loss also needs the data and
/// the rename on disk: with `durable` (`--sync`), `commit()` fsyncs the file before the rename and the directory
/// after it. That is not the default: like gzip and openssl, pncrypt leaves write-back to the kernel (the fsync of a
/// large file can cost as much as encrypting it). Temporary files left by a killed run (their pid no longer alive) are removed by the
/// next run writing the same path. Without a path, bytes go to standard output.
final class OutputFile {
    let handle: FileHandle
    private let path: String?
    private let temporaryPath: String?
    private let durable: Bool
    private var done = false

    /// Opens the output. Refuses to write over the input file.
    init(path: String?, inputPath: String?, durable: Bool = false) throws {
        self.durable = durable
        guard let path else {
            self.path = nil
            temporaryPath = nil
            handle = FileHandle.standardOutput
            return
        }
        if let inputPath, Self.sameFile(path, inputPath) {
            throw CLIFailure(64, "refusing to write the output over the input file '\(inputPath)'")
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        Self.removeStaleTemporaries(directory: directory, name: name)
        let temporary = (directory as NSString).appendingPathComponent(".\(name).pncrypt-\(getpid()).tmp")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CLIFailure(errno == ENOENT ? 66 : 74, "cannot create output file '\(path)': \(reason)")
        }
        self.path = path
        temporaryPath = temporary
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    deinit { if !done { abandon() } }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws {
        do { try handle.write(contentsOf: bytes) } catch {
            throw CLIFailure(74, "cannot write output: \(error.localizedDescription)")
        }
    }

    /// Makes the output final: flushes and renames the temporary file into place.
    func commit() throws {
        done = true
        guard let path, let temporaryPath else { return }
        guard !durable || fsync(handle.fileDescriptor) == 0 || errno == EINVAL else {
            let reason = String(cString: strerror(errno))
            abandon()
            throw CLIFailure(74, "cannot write '\(path)': \(reason)")
        }
        try? handle.close()
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw CLIFailure(74, "cannot move output into place at '\(path)': \(reason)")
        }
        if durable {
            // The rename is on disk only once the directory is.
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            guard fsync(fd) == 0 || errno == EINVAL else {
                throw CLIFailure(74, "cannot flush the directory of '\(path)': \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Throws the temporary file away; the path is left as it was.
    func abandon() {
        done = true
        guard let temporaryPath else { return }
        try? handle.close()
        unlink(temporaryPath)
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Removes `.<name>.pncrypt-<pid>.tmp` files whose process is gone (a run killed before it could clean up).
    static func removeStaleTemporaries(directory: String, name: String) {
        let prefix = ".\(name).pncrypt-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            let pidText = entry.dropFirst(prefix.count).dropLast(4)
            guard let pid = Int32(pidText) else { continue }
            if pid == getpid() || (kill(pid, 0) == -1 && errno == ESRCH) {
                unlink((directory as NSString).appendingPathComponent(entry))
            }
        }
    }
}

/// A scratch file with no name (unlinked at once), for holding output until it is verified.
final class Spool {
    let handle: FileHandle

    init() throws {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("pncrypt-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CLIFailure(74, "cannot create a temporary file: \(String(cString: strerror(errno)))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Copies everything written so far to `output`.
    func copy(to output: FileHandle) throws {
        lseek(handle.fileDescriptor, 0, SEEK_SET)
        try StreamPipeline.run(from: handle, through: [], to: output)
    }
}
