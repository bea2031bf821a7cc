import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// `--lines`, `--jobs`, `--statuses` and `--max-size` (gzip input): line mode (NDJSON in, NDJSON out) for the
/// message, history and subscribe commands.
struct LineOptions: ParsableArguments {
    @Flag(help: ArgumentHelp("""
        Line mode: the input is NDJSON, one message per line; one output line per input line, in order. Blank \
        lines stay blank; a line that fails prints a status line (JSON with its 1-based "line") on stderr and \
        does not stop the run (unless --on-error fail); at most \(StatusReport.shownLimit) go to stderr, then the \
        count of the rest (--statuses FILE keeps every one). A run that ends writes a summary line on stderr, its \
        failures counted by reason, and exits 1 when a line failed (unless --allow-failures). Gzip input (-i PATH \
        or standard input starting with 1f 8b) is read as what it holds, at most --max-size of it; bare Base64 \
        lines are read as the JSON strings they would be. CRLF line ends are kept; a last line without a newline \
        gets one. To standard output lines are written as they are done (with --on-error fail they are held in \
        an unlinked temporary file in TMPDIR until the run has succeeded); -o PATH is all or nothing.
        """))
    var lines = false

    @Option(help: ArgumentHelp("With --lines: threads that handle batches of lines (default: the number of CPUs).",
                               valueName: "n"))
    var jobs: Int?

    @OptionGroup var progress: ProgressOptions

    @Option(name: .customLong("statuses"), help: ArgumentHelp("""
        With --lines: write every status line (NDJSON, each with its 1-based "line") to this file, which appears \
        only when the run ends, as -o does; standard error shows at most \(StatusReport.shownLimit) of them, then \
        the count of the rest.
        """, valueName: "path"), completion: .file())
    var statuses: String?

    @OptionGroup var limits: LimitOptions

    func validate() throws {
        if let jobs, !(1...MessageStream.maximumJobs).contains(jobs) {
            throw ValidationError("--jobs must be 1 to \(MessageStream.maximumJobs)")
        }
    }

    /// For encrypt and decrypt, where line mode is a choice.
    func validateChoice() throws {
        if jobs != nil && !lines { throw ValidationError("--jobs goes with --lines") }
        if statuses != nil && !lines { throw ValidationError("--statuses goes with --lines") }
        if limits.maxSize != nil && !lines {
            throw ValidationError("--max-size goes with --lines (it bounds gzip input read as what it holds)")
        }
    }

    /// The bytes `--statuses` was given (`RawArguments`), nil without it.
    var statusesPath: FilePath? {
        get throws { try RawArguments.path(statuses, long: "--statuses") }
    }

    /// `--statuses` and `-o` name two files.
    func check(_ output: OutputOptions) throws {
        if let statuses = try statusesPath, statuses == (try output.path) {
            throw ValidationError("--statuses and -o name the same file: give two")
        }
    }
}
