import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// The line-mode driver of `message encrypt|decrypt|rekey`: input (TEXT, -i PATH or stdin) through a
/// `MessageStream` into the output, status lines and progress on standard error.
enum Lines {
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

    /// What a line-mode run did: the stream's summary, and its statuses counted by reason.
    struct Run {
        var summary: MessageStream.Summary
        var report: StatusReport
    }

    /// Runs `operation` over the input; returns the summary. With `stopOnFailure`, output that cannot be taken back
    /// (standard output, a device, a FIFO) waits in an unlinked temporary file until the run has succeeded.
    /// `rawControl` is `--raw-control` (the decrypting commands have it): without it, output to a terminal goes
    /// through a `TerminalLineEscaper`, whatever the operation (rekeying and encrypting copy lines they cannot
    /// change as they are, and those are the input's bytes); elsewhere the sink is the plain write.
    @discardableResult
    static func run(_ operation: MessageStream.Operation, lines options: LineOptions, stopOnFailure: Bool,
                    input: Input, output: OutputOptions, rawControl: Bool = false,
                    field: JSONPointer? = nil, channels: RecordChannels? = nil) throws -> Run {
        let stream = MessageStream(operation, jobs: options.jobs ?? MessageStream.defaultJobs,
                                   stopOnFailure: stopOnFailure, field: field, channels: channels)
        let progress = options.progress.line(for: input.filePath, showsLines: true)
        defer { progress.clear() }
        let statuses = try StatusReport(path: try options.statusesPath, input: input, durable: output.sync)
        var failure: Error?
        let advise = channels != nil
        let report: (MessageStatus) -> Void = { given in
            progress.clear()
            do {
                try statuses.report(advise ? ChannelKeyOptions.advised([Self.hinted(given)])[0] : Self.hinted(given))
            } catch {
                failure = failure ?? error
            }
        }
        var summary = MessageStream.Summary()
        try OutputFile.produce(output, input: input, holdUntilVerified: stopOnFailure) { target, final in
            let write: ByteSink = { (bytes) throws(PNCryptError) in
                do {
                    try target.writeAll(bytes, naming: "output")
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
                    let gzip = GzipInput(fd, limit: options.limits.limit)
                    return try stream.run(reading: gzip.read, to: sink, statuses: report) { done in
                        progress.update(bytes: gzip.consumed ?? done.bytes, lines: done.lines)
                    }
                }
            }
            if let failure { throw failure }
            try escaper?.finish(write)
            progress.clear()
        }
        try statuses.finish()
        return Run(summary: summary, report: statuses)
    }

    /// `message encrypt --lines`: a line that cannot be encrypted (not JSON) prints its status line, and the run
    /// exits 1 at the end unless `--allow-failures`.
    static func encrypt(keys: KeyOptions, scheme: Scheme, style: JSONStyle, verbatim: Bool, lines: LineOptions,
                        field: JSONPointer?, failures: AllowFailuresOption, input: Input,
                        output: OutputOptions) throws {
        let key = try keys.resolve(input: input, confirm: true)
        let crypto = MessageCrypto(keys: try KeyRing(keys: [key]), scheme: scheme, style: style)
        let summary = try run(.encrypt(crypto, raw: verbatim), lines: lines, stopOnFailure: false, input: input,
                              output: output, field: field).summary
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
    /// With `channels`, each record is read with its channel's keys (`keys` gives none).
    static func decrypt(keys: KeyOptions, read: MessageReadOptions, lines: LineOptions, field: JSONPointer?,
                        channels: RecordChannels? = nil, input: Input, output: OutputOptions) throws {
        let crypto = try read.crypto(keys, channels: channels, input: input)
        let policy = read.policy(for: field == nil ? .message : .record)
        let run = try run(.decrypt(crypto, policy: policy), lines: lines, stopOnFailure: read.onError == .fail,
                          input: input, output: output, rawControl: read.terminal.rawControl, field: field,
                          channels: channels)
        let summary = run.summary
        run.summarize(decrypted: summary.succeeded, failed: summary.failed, of: summary.lines - summary.blank, "line")
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

extension Lines.Run {
    /// The closing summary of a decrypting run, written whatever the outcome (and with `--allow-failures`):
    /// `pncrypt: decrypted 998, not decrypted 2, of 1000 lines, by reason: {"wrongKeyOrCorrupt":2}`.
    func summarize(decrypted: Int, failed: Int, of total: Int, _ noun: String) {
        CLI.printError("decrypted \(decrypted), not decrypted \(failed), of \(total.counting(noun))"
                       + report.byReason)
    }
}

extension AllowFailuresOption {
    /// The end of a line-mode run: exit 1 with a summary when lines failed, unless `--allow-failures`.
    func checkLines(_ summary: MessageStream.Summary, verb: String) throws {
        try check(failed: summary.failed, of: summary.lines - summary.blank, "line", verb)
    }
}
