import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

/// `--lines` and `--jobs`: line mode (NDJSON in, NDJSON out) for the message commands.
struct LineOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "Line mode: the input is NDJSON, one message per line; one output line per input line, in order. Blank "
        + "lines stay blank; a line that fails prints a status line (JSON with its 1-based \"line\") on stderr and "
        + "does not stop the run (unless --on-error fail); the run then ends with a summary line on stderr and "
        + "exit status 1 (unless --allow-failures). CRLF line ends are kept; a last line without a newline "
        + "gets one. To standard output lines are written as they are done (with --on-error fail they are held in "
        + "an unlinked temporary file in TMPDIR until the run has succeeded); -o PATH is all or nothing."))
    var lines = false

    @Option(help: ArgumentHelp("With --lines: threads that handle batches of lines (default: the number of CPUs).",
                               valueName: "n"))
    var jobs: Int?

    @OptionGroup var progress: ProgressOptions

    func validate() throws {
        if let jobs, !(1...MessageStream.maximumJobs).contains(jobs) {
            throw ValidationError("--jobs must be 1 to \(MessageStream.maximumJobs)")
        }
    }

    /// For encrypt and decrypt, where line mode is a choice.
    func validateChoice() throws {
        if jobs != nil && !lines { throw ValidationError("--jobs goes with --lines") }
    }
}

/// The line-mode driver of `message encrypt|decrypt|rekey`: input (TEXT, -i PATH or stdin) through a
/// `MessageStream` into the output, status lines and progress on standard error.
enum Lines {
    /// Runs `operation` over the input; returns the summary. With `stopOnFailure`, output that cannot be taken back
    /// (standard output, a device, a FIFO) waits in an unlinked temporary file until the run has succeeded.
    /// `rawControl` is `--raw-control` (the decrypting commands have it): without it, output to a terminal goes
    /// through a `TerminalLineEscaper`, whatever the operation (rekeying and encrypting copy lines they cannot
    /// change as they are, and those are the input's bytes); elsewhere the sink is the plain write.
    /// The hint for a line that is not JSON from its first byte (`hello`, bare text): each line is one JSON text.
    static let unquotedHint = "; each line is one JSON text: a string message is \"...\" in quotes"

    /// `status` with `unquotedHint` added when its line is not JSON from its first byte ("invalid JSON at
    /// offset 0").
    static func hinted(_ status: MessageStatus) -> MessageStatus {
        guard status.error.code == .invalidJSON, status.error.offset == 0 else { return status }
        var hinted = status
        hinted.error = PNCryptError(.invalidJSON, status.error.message + unquotedHint, offset: 0)
        return hinted
    }

    @discardableResult
    static func run(_ operation: MessageStream.Operation, jobs: Int?, stopOnFailure: Bool, input: Input,
                    output: OutputOptions, progress options: ProgressOptions,
                    rawControl: Bool = false, field: JSONPointer? = nil) throws -> MessageStream.Summary {
        let stream = MessageStream(operation, jobs: jobs ?? MessageStream.defaultJobs, stopOnFailure: stopOnFailure,
                                   field: field)
        let progress = options.line(for: input.filePath, showsLines: true)
        defer { progress.clear() }
        let report: (MessageStatus) -> Void = { given in
            progress.clear()
            let status = Self.hinted(given)
            // Its "original" is input as it was: on a terminal, with DEL and C1 controls escaped too.
            let line = TerminalEscaper.json(status.json.serialized() + [0x0A], for: STDERR_FILENO, raw: false)
            try? POSIXIO.writeAll(STDERR_FILENO, line, "standard error")
        }
        var summary = MessageStream.Summary()
        try OutputFile.produce(output, input: input, holdUntilVerified: stopOnFailure) { target, final in
            let write: ByteSink = { (bytes) throws(PNCryptError) in
                do {
                    try POSIXIO.writeAll(target, bytes, "output")
                } catch let failure as CLIFailure {
                    throw PNCryptError(.io, failure.message)
                } catch {
                    throw PNCryptError(.io, "cannot write output: \(error)")
                }
            }
            // Escaped as it is written, held or not: the held output is copied as it is.
            let escaper = TerminalLineEscaper.forOutput(final, raw: rawControl)
            let sink: ByteSink = if let escaper {
                { (bytes) throws(PNCryptError) in try escaper.update(bytes, write) }
            } else {
                write
            }
            if let text = input.text {
                let session = try stream.makeSession(statuses: report)
                try withExtendedLifetime(Array(text.utf8)) { bytes in
                    try bytes.withUnsafeBytes { try session.update($0, sink) }
                }
                try session.finish(sink)
                summary = session.summary
            } else {
                summary = try input.withDescriptor { fd in
                    let read: MessageStream.Reader = { (size, body) throws(PNCryptError) in
                        try FileIO.pump(fd, chunkSize: size, body)
                    }
                    return try stream.run(reading: read, to: sink, statuses: report) { done in
                        progress.update(bytes: done.bytes, lines: done.lines)
                    }
                }
            }
            try escaper?.finish(write)
            progress.clear()
        }
        return summary
    }

    /// `message encrypt --lines`: a line that cannot be encrypted (not JSON) prints its status line, and the run
    /// exits 1 at the end unless `--allow-failures`.
    static func encrypt(keys: KeyOptions, scheme: Scheme, style: JSONStyle, verbatim: Bool, lines: LineOptions,
                        field: JSONPointer?, failures: AllowFailuresOption, input: Input,
                        output: OutputOptions) throws {
        let key = try keys.resolve(input: input, confirm: true)
        let crypto = MessageCrypto(keys: try KeyRing(keys: [key]), scheme: scheme, style: style)
        let summary = try run(.encrypt(crypto, raw: verbatim), jobs: lines.jobs, stopOnFailure: false, input: input,
                              output: output, progress: lines.progress, field: field)
        // As for one message, after the output: one line for the whole run, with the first change.
        if summary.changed > 0, let first = summary.firstChange {
            let count = summary.changed == 1 ? "1 message" : "\(summary.changed) messages"
            CLI.warning("--style \(style) changed \(count); the first, \(first)")
        }
        try failures.checkLines(summary, verb: "encrypted")
    }

    /// `message decrypt --lines`: every line not delivered decrypted prints its status line; `--on-error fail`
    /// stops at the first (its error ends the run) with nothing written; otherwise such lines end the run with a
    /// summary and exit 1 once the output is written, unless `--allow-failures`.
    static func decrypt(keys: KeyOptions, read: MessageReadOptions, lines: LineOptions, field: JSONPointer?,
                        input: Input, output: OutputOptions) throws {
        let crypto = try read.crypto(keys, input: input)
        let summary = try run(.decrypt(crypto, policy: read.policy), jobs: lines.jobs,
                              stopOnFailure: read.onError == .fail,
                              input: input, output: output, progress: lines.progress,
                              rawControl: read.terminal.rawControl, field: field)
        try read.failures.checkLines(summary, verb: "decrypted")
    }

    /// The options of the single-message commands that line mode does not take.
    static func validateEncrypt(lines: LineOptions, iv: [UInt8]?, gzip: Bool) throws {
        try lines.validateChoice()
        guard lines.lines else { return }
        if iv != nil { throw ValidationError("--iv is for one reproducible vector, not --lines") }
        if gzip { throw ValidationError("--gzip makes one publish body, not --lines") }
    }
}

extension AllowFailuresOption {
    /// The end of a line-mode run: exit 1 with a summary when lines failed, unless `--allow-failures`.
    func checkLines(_ summary: MessageStream.Summary, verb: String) throws {
        try check(failed: summary.failed, of: summary.lines - summary.blank, "line", verb)
    }
}
