import ArgumentParser
import PNCrypt
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

/// `--channel-key-file CHANNEL=PATH`, declared once: each channel's own keys (`ChannelKeys`), read as `--key-file`
/// reads a key, for `history decrypt|rekey` and `subscribe decrypt|rekey` (a response's messages) and, through
/// `RecordChannelOptions`, `message decrypt|rekey --field` (an export's records).
struct ChannelKeyOptions: ParsableArguments {
    @Option(name: .customLong("channel-key-file"), help: ArgumentHelp("""
        CHANNEL=PATH: a key of the messages of CHANNEL (with --field, of the records whose --channel-field names \
        CHANNEL), read from the file PATH as --key-file reads one (repeatable; a channel given twice has both \
        keys, as --key-file twice). CHANNEL ends at the first =; it is a channel's name, name* (every channel \
        whose name starts with name) or * (every other channel); a channel's own name comes first, then the \
        longest name*, then *. Each message is read only with its channel's keys: under another channel's key it \
        is not decrypted (a status line naming its channel), and a channel with no key, or a record that names no \
        channel, fails the same way. Not with --key or --key-file (PNCRYPT_KEY is not read); for a history or \
        subscribe response, not with --lines.
        """, valueName: "channel=path"), completion: .file())
    var channelKeyFile: [String] = []

    /// Whether channel keys were given.
    var given: Bool { !channelKeyFile.isEmpty }

    /// Refuses `--channel` and `--only-channel` without `--channel-key-file`.
    func validate(channel: V2ChannelOption? = nil, only: OnlyChannelOption? = nil) throws {
        guard !given else { return }
        if channel?.channel != nil {
            throw ValidationError("--channel goes with --channel-key-file (it names a v2 response's channel)")
        }
        if let only, !only.onlyChannel.isEmpty {
            throw ValidationError("--only-channel goes with --channel-key-file (give the channel's old key as"
                                  + " --channel-key-file CHANNEL=PATH)")
        }
    }

    /// The keys by channel, nil when none were given. Each file is read as `--key-file` is; a key that is not a
    /// key, or the same key twice for one channel, is refused (exit 64) naming its source; two channels may share
    /// a key. Refuses `--key`, `--key-file` and `--lines` beside it.
    func resolve(_ keys: KeyOptions, input: Input, lines: LineOptions) throws -> ChannelKeys? {
        guard given else { return nil }
        try Self.refuseOtherKeys(keys)
        if lines.lines {
            throw CLIFailure(.usage, "--channel-key-file reads one response, not --lines")
        }
        return try Self.channelKeys(channelKeyFile, input: input)
    }

    /// Refuses `--key` and `--key-file` beside `--channel-key-file`.
    static func refuseOtherKeys(_ keys: KeyOptions) throws {
        if !keys.key.isEmpty || !keys.keyFile.isEmpty {
            throw CLIFailure(.usage, "--channel-key-file gives every key of the run: not with --key or --key-file"
                             + " (for every other channel: --channel-key-file '*=PATH')")
        }
    }

    /// The keys of `--channel-key-file CHANNEL=PATH` arguments: each file read as `--key-file` is; a key that is
    /// not a key, or the same key twice for one channel, is refused (exit 64) naming its source; two channels may
    /// share a key.
    static func channelKeys(_ channelKeyFile: [String], input: Input) throws -> ChannelKeys {
        var order: [String] = []
        var given: [String: [GivenKey]] = [:]
        defer {
            for pattern in given.keys { for index in given[pattern]!.indices { given[pattern]![index].wipe() } }
        }
        // Each `CHANNEL=PATH` as the bytes given (`RawArguments`): the path is the bytes after the first `=`.
        let raw = try RawArguments.values(channelKeyFile, long: "--channel-key-file", what: "the path")
        for (argument, bytes) in zip(channelKeyFile, raw) {
            let shown = ShownBytes.text(bytes)
            guard let equals = argument.firstIndex(of: "="), let split = bytes.firstIndex(of: UInt8(ascii: "="))
            else {
                throw CLIFailure(.usage, "--channel-key-file '\(shown)': expected CHANNEL=PATH")
            }
            let pattern = String(argument[..<equals]), path = FilePath(bytes: bytes[(split + 1)...])
            if let problem = ChannelKeys.problem(pattern) {
                throw CLIFailure(.usage, "--channel-key-file '\(shown)': \(problem)")
            }
            if path == "-" && input.isStandardInput {
                throw CLIFailure(.usage, "--channel-key-file \(pattern)=- reads the key from standard input: give"
                                 + " the data as TEXT, a file or -i PATH")
            }
            let key = GivenKey(bytes: try KeyOptions.read(keyFile: path),
                               source: "channel key file '\(shown)'", fromFile: true)
            if given[pattern] == nil { order.append(pattern) }
            given[pattern, default: []].append(key)
        }
        var rings: [String: KeyRing] = [:]
        var hints: [FailureHint.Key] = []
        for pattern in order {
            let sources = given[pattern]!
            let ciphers = try sources.map { try $0.cipherKey() }
            if let (first, again) = KeyRing.firstDuplicate(ciphers) {
                throw CLIFailure(.usage, "\(sources[again].source) is the same key as \(sources[first].source): give"
                                 + " each key once (per channel: a key given twice makes every reading ambiguous)")
            }
            rings[pattern] = try KeyRing(keys: ciphers)
            hints += zip(ciphers, sources).map { key, given in given.hintKey(key) }
        }
        KeyShapeHints.record(hints)
        return try ChannelKeys(rings)
    }

    /// `statuses` with the failure of a channel that has no key saying which option gives it one.
    static func advised(_ statuses: [MessageStatus]) -> [MessageStatus] {
        statuses.map { status in
            guard status.error.code == .invalidKey else { return status }
            var advised = status
            if let channel = status.channel {
                advised.error = PNCryptError(.invalidKey, "no key for channel \(JSONValue.string(channel)): add"
                                             + " --channel-key-file '\(channel)=PATH', or '*=PATH' for every other"
                                             + " channel")
            } else {
                advised.error = PNCryptError(.invalidKey, "the response does not name this message's channel:"
                                             + " --channel-key-file '*=PATH' reads it")
            }
            return advised
        }
    }
}
