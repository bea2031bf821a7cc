import ArgumentParser
import PNCrypt
import PNCryptPlatform

struct SubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Decrypt a subscribe response, or move it to a new key.",
        subcommands: [SubscribeDecryptCommand.self, SubscribeRekeyCommand.self])

}

struct SubscribeDecryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
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

struct SubscribeRekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
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
