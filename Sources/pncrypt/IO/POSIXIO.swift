import PNCrypt
import PNCryptFiles
import PNCryptPlatform

/// Every raw POSIX read and write of the CLI (the files layer has its own in `FileIO`). Callers own the descriptors:
/// nothing here closes one it did not open. Failures throw a `CLIFailure` naming `what` was being read or written.
enum POSIXIO {
    /// The reason of the last failed call, as `strerror` says it.
    static func lastError() -> String { String(cString: strerror(errno)) }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ what: @autoclosure () -> String) throws {
        do throws(SystemError) {
            try SystemIO.writeAll(fd, bytes)
        } catch {
            throw CLIFailure(.ioError, "cannot write \(what()): \(error)")
        }
    }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ what: @autoclosure () -> String) throws {
        try bytes.withUnsafeBytes { try writeAll(fd, $0, what()) }
    }

    /// Writes `text` and a newline to standard output, at once (not through stdio's buffer, whose failed writes
    /// `print` loses: a full disk or EIO on standard output exits 74 as for every other output). For reports
    /// (`diagnose`, `inspect`, `vectors check`, headers), which name things the command did not make (a vector's
    /// id, a file name, a header from the data): on a terminal every control character but newline and tab passes
    /// the one escaper (`TerminalEscaper`), as on standard error; pipes and files get the text as it is.
    static func printLine(_ text: String) throws {
        var bytes = Array((text + "\n").utf8)
        if isatty(STDOUT_FILENO) == 1 { bytes = TerminalEscaper.escaped(bytes, layout: true) }
        try writeAll(STDOUT_FILENO, bytes, "output")
    }

    /// Reads into `buffer` once (retrying on EINTR); 0 at the end.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, _ what: @autoclosure () -> String)
        throws -> Int {
        do throws(SystemError) {
            return try SystemIO.read(fd, into: buffer)
        } catch {
            throw CLIFailure(.ioError, "cannot read \(what()): \(error)")
        }
    }

    /// Runs a stream from one descriptor through `stages` into another (the CLI's one call into the library's
    /// stream pipeline), updating `progress` after each chunk and erasing it at the end. A regular file is read to
    /// `length`, else to the end it has when the stream begins (a snapshot: nothing appended later is read).
    static func stream(from input: Int32, through stages: [any ByteStreamStage], to output: Int32,
                       length: Int? = nil, progress: ProgressLine? = nil) throws {
        defer { progress?.clear() }
        try StreamPipeline.run(from: input, through: stages, to: output, length: length,
                               progress: progress.map { line in { line.update(bytes: $0) } })
    }
}
