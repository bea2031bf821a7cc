import ArgumentParser
import PNCrypt
import PNCryptPlatform

extension EnvelopeFormat: ExpressibleByArgument {}

/// The options of the commands that read received messages: keys, input, output, what to do with the messages
/// (`Handling`), line mode. `DecryptOptions` (`message decrypt`, `history decrypt`, `subscribe decrypt`) and
/// `RekeyEnvelopeOptions` (`history rekey`, `subscribe rekey`) are this group.
struct ReceivedOptions<Handling: ParsableArguments>: ParsableArguments {
    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var handling: Handling
    @OptionGroup var lines: LineOptions
    @OptionGroup var maxInput: MaxInputOption

    func validate() throws {
        try lines.validateChoice()
        try lines.check(output)
        try maxInput.check(lines)
    }
}

extension ReceivedOptions {
    /// The one way the envelope commands read: `make` (given the input) makes what reads the messages; with
    /// `--lines` the input goes to `lines` (NDJSON of responses, through the line engine), else the one response is
    /// read whole (within `--max-input`) and goes to `whole`.
    func eachResponse<Reader>(_ make: (Input) throws -> Reader, lines byLine: (Reader, Input) throws -> Void,
                              whole: (Reader, Input, [UInt8]) throws -> Void) throws {
        let data = try input.resolved()
        let reader = try make(data)
        if lines.lines { return try byLine(reader, data) }
        try whole(reader, data, try data.readAll(limit: maxInput.limit))
    }
}

/// The options of the commands that decrypt received messages: how messages are read.
typealias DecryptOptions = ReceivedOptions<MessageReadOptions>

/// The options of the commands that move received messages to a new key: the new key and scheme.
typealias RekeyEnvelopeOptions = ReceivedOptions<RekeyOptions>

extension ReceivedOptions where Handling == MessageReadOptions {
    /// How messages are read.
    var read: MessageReadOptions { handling }

    /// `history decrypt` and `subscribe decrypt`: one response of `formats` (any JSON layout), or with `--lines`
    /// NDJSON of responses, one per line.
    func decryptEnvelopes(formats: [EnvelopeFormat]) throws {
        try eachResponse({ try read.crypto(keys, input: $0) }, lines: { crypto, data in
            let run = try Lines.run(.decryptEnvelopes(crypto, formats: formats, policy: read.policy), lines: lines,
                                    stopOnFailure: read.onError == .fail, input: data, output: output,
                                    rawControl: read.terminal.rawControl)
            let summary = run.summary
            run.summarize(decrypted: summary.messages - summary.failed, failed: summary.failed,
                          of: summary.messages, "message")
            try read.failures.check(failed: summary.failed, of: summary.messages, "message")
        }, whole: { crypto, data, text in
            let result = try read.decrypt(crypto, envelope: text, formats: formats)
            try read.deliver(text: result.text, statuses: result.statuses, total: result.messages, input: data,
                             output: output)
        })
    }
}

extension ReceivedOptions where Handling == RekeyOptions {
    /// The new key and scheme.
    var rekey: RekeyOptions { handling }

    /// One response of `formats` (any JSON layout), or with `--lines` NDJSON of responses, one per line: every
    /// message moved, everything else kept; a status line per message left unchanged, then the summary.
    func rekeyEnvelopes(formats: [EnvelopeFormat]) throws {
        try eachResponse({ try rekey.make(keys, input: $0) }, lines: { moving, data in
            let run = try Lines.run(.rekeyEnvelopes(moving, formats: formats), lines: lines,
                                    stopOnFailure: rekey.onError == .fail, input: data, output: output)
            let summary = run.summary
            try rekey.finish(rekeyed: summary.rekeyed, unchanged: summary.failed, alreadyNew: summary.alreadyNew,
                             of: summary.messages, byReason: run.report.byReason)
        }, whole: { moving, data, text in
            let result = moving.rekey(envelope: try Envelope(parsing: text, formats: formats))
            try deliver(result, statuses: result.statuses, input: data)
        })
    }

    /// One moved response out: a status line per message left unchanged (`statuses`, on standard error), nothing
    /// more with `--on-error fail` when there is one, else the response, then the summary.
    func deliver(_ result: RekeyedEnvelope, statuses: [MessageStatus], input data: Input) throws {
        for status in statuses {
            try? POSIXIO.writeAll(STDERR_FILENO, TerminalEscaper.json(status.json.serialized() + [0x0A],
                                                                      for: STDERR_FILENO, raw: false), "standard error")
        }
        if !statuses.isEmpty && rekey.onError == .fail {
            throw CLIFailure(.dataFailure, "\(statuses.count.counting("message")) not rekeyed", decryption: true)
        }
        try OutputFile.write(json: result.envelope.json.serialized() + [0x0A], to: output, input: data)
        try rekey.finish(rekeyed: result.rekeyed, unchanged: statuses.count, alreadyNew: result.alreadyNew,
                         of: result.messages)
    }
}

/// `--format` of the history commands: v2 or v3, detected by default.
struct HistoryFormatOption: ParsableArguments {
    @Option(help: ArgumentHelp("""
        Read the response as v2 ([[messages], start, end]) or v3 (fetch messages: {"channels": {...}}) only. \
        Without it the format is told by the response's structure.
        """, valueName: "v2|v3"))
    var format: EnvelopeFormat?

    func validate() throws {
        if let format, !EnvelopeFormat.history.contains(format) {
            throw ValidationError("--format is v2 or v3 (a subscribe response: pncrypt subscribe decrypt)")
        }
    }

    var formats: [EnvelopeFormat] { format.map { [$0] } ?? EnvelopeFormat.history }
}

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Decrypt a whole history response (v2 or v3 fetch messages), or move it to a new key.",
        subcommands: [Decrypt.self, Rekey.self])

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decrypt every message of a history response: v2 or v3 (fetch messages, with actions).",
            usage: "pncrypt history decrypt [--key <key> ...] [--key-file <path> ...] [--lines] [<options>] [<text>]",
            discussion: """
            v2: [[messages], start, end]; items may be messages or {"message": ..., "timetoken": ...} objects. \
            v3 (fetch messages, history with actions): {"status": 200, ..., "channels": {"name": [{"message": ..., \
            "timetoken": "...", ...}]}}; only each item's message is decrypted. The format is told by the \
            structure (--format to force it); everything but the messages is kept: key order, exact numbers, \
            timetokens as they were. One status line per message not delivered decrypted goes to stderr, with its \
            index, channel and timetoken; --on-error passthrough keeps such messages as they were, fail prints \
            nothing on stdout. With any such message the run exits 1 (after writing the output, unless fail), or \
            0 with --allow-failures. With --lines the input is NDJSON, one response per line.

            Examples:
              pncrypt history decrypt -k enigma --on-error passthrough -i response.json
              pncrypt history decrypt -k enigma --lines -i archive.ndjson -o plain.ndjson
            """)

        @OptionGroup var options: DecryptOptions
        @OptionGroup var format: HistoryFormatOption
        @OptionGroup var channels: ChannelKeyOptions
        @OptionGroup var channel: V2ChannelOption

        func validate() throws {
            try channels.validate(channel: channel)
        }

        func run() throws {
            guard channels.given else { return try options.decryptEnvelopes(formats: format.formats) }
            try options.decryptEnvelopes(formats: format.formats, channels: channels, v2: channel)
        }
    }

    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move every message of a history response (v2 or v3) to a new key and scheme.",
            usage: """
            pncrypt history rekey [--key <key> ...] [--key-file <path> ...] [--to-key <key> | --to-key-file <path>]
                         [--to-scheme <scheme>] [--lines] [<options>] [<text>]
            """,
            discussion: """
            Each message of the response is moved as message rekey moves one (taken only when exactly one (key, \
            scheme) reading qualifies; a message already under the new key is left as it is); everything else is \
            kept: key order, exact numbers, timetokens. A message that cannot be moved is kept unchanged and prints \
            a status line with its index, channel and timetoken. The run ends with a summary on stderr and exits 1 \
            when messages were left unchanged (unless --allow-failures; --on-error fail writes nothing). With \
            --lines the input is NDJSON, one response per line (an archive of fetch responses).

            Example:
              pncrypt history rekey --key-file old.key --to-key-file new.key -i fetch.json
            """)

        @OptionGroup var options: RekeyEnvelopeOptions
        @OptionGroup var format: HistoryFormatOption
        @OptionGroup var channels: ChannelKeyOptions
        @OptionGroup var channel: V2ChannelOption
        @OptionGroup var only: OnlyChannelOption

        func validate() throws {
            try channels.validate(channel: channel, only: only)
        }

        func run() throws {
            guard channels.given else { return try options.rekeyEnvelopes(formats: format.formats) }
            try options.rekeyEnvelopes(formats: format.formats, channels: channels, v2: channel, only: only)
        }
    }
}

struct SubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Decrypt a subscribe response, or move it to a new key.",
        subcommands: [Decrypt.self, Rekey.self])

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decrypt the messages of a subscribe (v2) response: {\"t\": {...}, \"m\": [...]}.",
            usage: """
            pncrypt subscribe decrypt [--key <key> ...] [--key-file <path> ...] [--lines] [<options>] [<text>]
            """,
            discussion: """
            Each item's payload "d" is decrypted when the item is a message (no "e", or "e" 0) or a file message \
            ("e" 4: the whole {"message": ..., "file": {"id", "name"}} is one ciphertext); presence events \
            (channels ending in -pnpres), signals (1), objects (2) and message actions (3) pass untouched, as does \
            everything else: key order, exact numbers, timetokens. One status line per message not delivered \
            decrypted goes to stderr, with its index in "m", channel and timetoken; --on-error and \
            --allow-failures work as for history decrypt. With --lines the input is NDJSON, one response per line.

            Example:
              pncrypt subscribe decrypt -k enigma --on-error passthrough -i subscribe.json
            """)

        @OptionGroup var options: DecryptOptions
        @OptionGroup var channels: ChannelKeyOptions

        func run() throws {
            guard channels.given else { return try options.decryptEnvelopes(formats: [.subscribe]) }
            try options.decryptEnvelopes(formats: [.subscribe], channels: channels, v2: nil)
        }
    }

    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move every message of a subscribe response to a new key and scheme.",
            usage: """
            pncrypt subscribe rekey [--key <key> ...] [--key-file <path> ...] [--to-key <key> | --to-key-file <path>]
                           [--to-scheme <scheme>] [--lines] [<options>] [<text>]
            """,
            discussion: """
            The messages are the payloads "d" that subscribe decrypt reads (no "e", "e" 0, and file messages, \
            "e" 4); presence events, signals, objects and message actions pass untouched. Each is moved as \
            message rekey moves one (taken only when exactly one (key, scheme) reading qualifies; a message \
            already under the new key is left as it is); everything else is kept: key order, exact numbers, \
            timetokens. A message that cannot be moved is kept unchanged and prints a status line with its index \
            in "m", channel and timetoken. The run ends with a summary on stderr and exits 1 when messages were \
            left unchanged (unless --allow-failures; --on-error fail writes nothing). With --lines the input is \
            NDJSON, one response per line (a recording of a subscribe loop).

            Example:
              pncrypt subscribe rekey --key-file old.key --to-key-file new.key -i sub.json
            """)

        @OptionGroup var options: RekeyEnvelopeOptions
        @OptionGroup var channels: ChannelKeyOptions
        @OptionGroup var only: OnlyChannelOption

        func validate() throws {
            try channels.validate(only: only)
        }

        func run() throws {
            guard channels.given else { return try options.rekeyEnvelopes(formats: [.subscribe]) }
            try options.rekeyEnvelopes(formats: [.subscribe], channels: channels, v2: nil, only: only)
        }
    }
}
