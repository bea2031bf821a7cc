import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// The CLI's reads and writes, on swift-system's `FileDescriptor` (the files layer has its own, for streams, in
/// `FileDescriptor+Streams.swift`): the CLI's wording of their failures. Callers own the descriptors: nothing here
/// closes one it did not open. Failures throw a `CLIFailure` naming `what` was being read or written (exit 74).
extension FileDescriptor {
    /// Writes all of `bytes`.
    func writeAll(_ bytes: UnsafeRawBufferPointer, naming what: @autoclosure () -> String) throws {
        do {
            try writeEvery(bytes)
        } catch {
            throw CLIFailure(.ioError, "cannot write \(what()): \(error)")
        }
    }

    /// Writes all of `bytes`.
    func writeAll(_ bytes: [UInt8], naming what: @autoclosure () -> String) throws {
        try bytes.withUnsafeBytes { try writeAll($0, naming: what()) }
    }

    /// Writes `text` and a newline, at once (not through stdio's buffer, whose failed writes `print` loses: a full
    /// disk or EIO on standard output exits 74 as for every other output). For reports on standard output
    /// (`diagnose`, `inspect`, `vectors check`, headers), which name things the command did not make (a vector's id,
    /// a file name, a header from the data): on a terminal every control character but newline and tab passes the
    /// one escaper (`TerminalEscaper`), as on standard error; pipes and files get the text as it is.
    func printLine(_ text: String) throws {
        var bytes = Array((text + "\n").utf8)
        if isatty(rawValue) == 1 { bytes = TerminalEscaper.escaped(bytes, layout: true) }
        try writeAll(bytes, naming: "output")
    }

    /// Reads into `buffer` once (retrying on EINTR); 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, naming what: @autoclosure () -> String) throws -> Int {
        do {
            return try read(into: buffer)
        } catch {
            throw CLIFailure(.ioError, "cannot read \(what()): \(error)")
        }
    }

    /// Runs a stream from this descriptor through `stages` into `output` (the CLI's one call into the library's
    /// stream pipeline), updating `progress` after each chunk and erasing it at the end. A regular file is read to
    /// `length`, else to the end it has when the stream begins (a snapshot: nothing appended later is read).
    func stream(through stages: [any ByteStreamStage], to output: FileDescriptor, length: Int? = nil,
                progress: ProgressLine? = nil) throws {
        defer { progress?.clear() }
        try StreamPipeline.run(from: self, through: stages, to: output, length: length,
                               progress: progress.map { line in { line.update(bytes: $0) } })
    }

    /// A sink writing everything here, through `escaper` when there is one (the library's stream calls take a
    /// `ByteSink`, whose failures are `PNCryptError`s: `io`, exit 74).
    func sink(through escaper: TerminalEscaper? = nil) -> ByteSink {
        let write: ByteSink = { (bytes) throws(PNCryptError) in
            do {
                try writeEvery(bytes)
            } catch {
                throw PNCryptError(.io, "cannot write output: \(error)")
            }
        }
        guard let escaper else { return write }
        return { (bytes) throws(PNCryptError) in try escaper.update(bytes, write) }
    }

    /// Ends what `sink(through:)` wrote: the escaper's last bytes.
    func finish(through escaper: TerminalEscaper?) throws(PNCryptError) {
        try escaper?.finish(sink())
    }
}
