import ArgumentParser
import PNCrypt
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

/// The new key of `rekey`: `--to-key`, `--to-key-file`, or `PNCRYPT_TO_KEY`.
struct ToKeyOptions: ParsableArguments {
    @Option(name: .customLong("to-key"), help: ArgumentHelp(
        "The new cipher key. Visible to other users of this machine: prefer --to-key-file or PNCRYPT_TO_KEY.",
        valueName: "key"))
    var toKey: String?

    @Option(name: .customLong("to-key-file"), help: ArgumentHelp(
        "Read the new cipher key from a file (one line end at the end, LF or CRLF, is ignored).",
        valueName: "path"), completion: .file())
    var toKeyFile: String?

    func validate() throws {
        if toKey != nil && toKeyFile != nil { throw ValidationError("give --to-key or --to-key-file, not both") }
    }

    /// The new key, from the first source given (the file read as `--key-file` is), refused when it is not
    /// valid UTF-8.
    func resolve() throws -> CipherKey {
        var given: GivenKey
        if let toKey {
            given = GivenKey(bytes: try RawArguments.values([toKey], long: "--to-key")[0], source: "--to-key")
        } else if let path = try RawArguments.path(toKeyFile, long: "--to-key-file") {
            given = GivenKey(bytes: try KeyOptions.read(keyFile: path), source: "key file '\(path.shown)'")
        } else if let environment = RawArguments.environment("PNCRYPT_TO_KEY") {
            given = GivenKey(bytes: environment, source: "PNCRYPT_TO_KEY")
        } else {
            throw CLIFailure(.usage, "no new key: give --to-key, --to-key-file, or set PNCRYPT_TO_KEY")
        }
        defer { given.wipe() }
        return try given.cipherKey()
    }
}

/// The options of `message rekey` and `history rekey` after the keys: the new key and scheme, how headerless
/// data is read, and what a message that cannot be moved does to the run.
struct RekeyOptions: ParsableArguments {
    @OptionGroup var toKey: ToKeyOptions

    @Option(name: .customLong("on-error"), help: ArgumentHelp("""
        What to do with a message that cannot be decrypted with certainty: passthrough: copy it unchanged (exit 1 \
        at the end, unless --allow-failures); fail: stop, write nothing, exit 1.
        """, valueName: "passthrough|fail"))
    var onError: OnError = .passthrough

    @OptionGroup var failures: AllowFailuresOption

    @Option(name: .customLong("to-scheme"), help: "The new scheme: acrh (default), legacy-random-iv or legacy.")
    var toScheme: Scheme = .defaultForWriting

    @Option(name: .customLong("legacy-scheme"), help: ArgumentHelp("""
        Read messages without a PNED header as legacy (fixed IV) or legacy-random-iv only. Without it both are \
        tried, and a message is taken only when exactly one reading gives JSON text.
        """, valueName: "scheme"))
    var legacyScheme: LegacyScheme?

    func validate() throws {
        if toScheme.row.message != .whole {
            throw ValidationError("--to-scheme \(toScheme) is not supported: use \(Scheme.defaultForWriting)")
        }
        if onError == .marker {
            throw ValidationError("rekey keeps a message it cannot decrypt: --on-error passthrough or fail")
        }
        try failures.validate(with: onError.rawValue)
    }

    /// The rekeying the options ask for, from the old keys of `keys`.
    /// With `channels`, the template of their rekeying (its old keys, any channel's, are not used).
    func make(_ keys: KeyOptions, channels: RecordChannels? = nil, input: Input) throws -> MessageRekey {
        let reading = ReadPolicy(scheme: nil, legacyScheme: legacyScheme?.scheme)
        return try MessageRekey(from: try channels?.anyRing ?? keys.ring(input: input), reading: reading,
                                to: try toKey.resolve(), scheme: toScheme)
    }

    /// After the output: the summary line on standard error, then exit 1 when messages were left unchanged
    /// (unless `--allow-failures`).
    /// `byReason` (line mode): the statuses counted by reason (`StatusReport.byReason`).
    func finish(rekeyed: Int, unchanged: Int, alreadyNew: Int, of total: Int, byReason: String = "") throws {
        let text = "pncrypt: rekeyed \(rekeyed), unchanged \(unchanged) (not decryptable), already new \(alreadyNew)"
            + byReason + "\n"
        try POSIXIO.writeAll(STDERR_FILENO, Array(text.utf8), "standard error")
        try failures.check(failed: unchanged, of: total, "message", "rekeyed")
    }
}

extension MessageCommand {
    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move messages (NDJSON, one per line) to a new key and scheme.",
            usage: """
            pncrypt message rekey [--key <key> ...] [--key-file <path> ...] [--to-key <key> | --to-key-file <path>]
                         [--to-scheme <scheme>] [<options>] [<text>]
            """,
            discussion: """
            Each line's message (a JSON string of Base64, as message decrypt reads it) is decrypted with the old \
            keys (--key or --key-file, both repeatable, or PNCRYPT_KEY) and encrypted again, byte for byte the same \
            JSON text, under the new key (--to-key, --to-key-file or PNCRYPT_TO_KEY) in --to-scheme. A message is \
            taken only when exactly one (key, scheme) reading gives valid padding and JSON text, the new key in the \
            new scheme included: a message already readable that way is left as it is, so running rekey again \
            changes nothing. A message that cannot be decrypted with certainty, or a line that is not one, is \
            copied unchanged and prints a status line (JSON, with its 1-based "line") on stderr. The run ends with \
            a summary on stderr: rekeyed N, unchanged N (not decryptable), already new N. When messages are left \
            unchanged the run exits 1 once the output is written (--on-error passthrough, the default), unless \
            --allow-failures; --on-error fail stops at the first such line and writes nothing.

            Line mode is always on (--lines is accepted for symmetry with encrypt and decrypt). Blank lines stay \
            blank; CRLF line ends are kept. Lines are handled by --jobs threads and written in input order. \
            -o PATH is all or nothing; to standard output, lines are written as they are done.

            With --field POINTER and --channel-key-file CHANNEL=PATH (instead of --key), each record is read only \
            with the old keys of its channel (--channel-field, /channel by default) and moved to the new key.

            Example:
              pncrypt message rekey --key-file old.key --to-key-file new.key -i a.ndjson
            """)

        @OptionGroup var keys: KeyOptions
        @OptionGroup var input: InputOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var lines: LineOptions
        @OptionGroup var rekey: RekeyOptions
        @OptionGroup var field: FieldOption
        @OptionGroup var channels: RecordChannelOptions

        func validate() throws {
            try lines.check(output)
            try channels.check(field)
        }

        func run() throws {
            let data = try input.resolved()
            let pointer = try field.pointer()
            let byChannel = try channels.resolve(keys, input: data)
            let rekey = try rekey.make(keys, channels: byChannel, input: data)
            let run = try Lines.run(.rekey(rekey), lines: lines, stopOnFailure: self.rekey.onError == .fail,
                                    input: data, output: output, field: pointer, channels: byChannel)
            let summary = run.summary
            try self.rekey.finish(rekeyed: summary.rekeyed, unchanged: summary.unchanged,
                                  alreadyNew: summary.alreadyNew, of: summary.lines - summary.blank,
                                  byReason: run.report.byReason)
        }
    }
}
