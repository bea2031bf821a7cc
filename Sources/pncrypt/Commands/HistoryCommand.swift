import ArgumentParser
import PNCrypt
import PNCryptPlatform

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Decrypt a whole history response (v2 or v3 fetch messages), or move it to a new key.",
        subcommands: [HistoryDecryptCommand.self, HistoryRekeyCommand.self])

}

struct HistoryDecryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
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

struct HistoryRekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
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
