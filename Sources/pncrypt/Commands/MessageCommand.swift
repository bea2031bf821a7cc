import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

struct MessageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "message",
        abstract: "Encrypt a JSON message for publishing, or decrypt a received one.",
        subcommands: [MessageEncryptCommand.self, MessageDecryptCommand.self, MessageRekeyCommand.self])

}

struct MessageEncryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Print the wire JSON of an encrypted message.",
        // Written out as for `decrypt`: more than 12 options would shorten it to `[<options>]`.
        usage: "pncrypt message encrypt [--key <key> ...] [--key-file <path> ...] [--lines] [<options>] [<text>]",
        discussion: """
        The message (JSON: a string needs its quotes) is written in --style, encrypted, Base64-encoded and \
        printed as a JSON string literal. With legacy33 each string leaf is encrypted on its own and the \
        shape is kept. With no key given, the key is asked for twice on the terminal.

        Examples:
          pncrypt message encrypt --key enigma --scheme legacy '"Hello World"'
          pncrypt message encrypt --key enigma --scheme legacy33 '["seven","eight"]'
          pncrypt message encrypt -k k --gzip --headers -o body.gz -i message.json
          pncrypt message encrypt -k k --file-id d9515cb7 --file-name cat.jpg '"Look!"'
        """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var writing: WriteSchemeOptions
    @OptionGroup var force: ForceOption

    @Option(help: """
        How the message is written before encryption, as that SDK does (compact is JavaScript's \
        JSON.stringify); a warning on stderr says when the go, ruby, php or kotlin style changes the message.
        """)
    var style: JSONStyle = .compact

    @Flag(help: "Encrypt the input text exactly as given (it must still be valid JSON) instead of rewriting it.")
    var verbatim = false

    @Flag(help: "Write the compressed publish body (gzip of the wire JSON; binary) instead of the JSON text.")
    var gzip = false

    @Flag(help: "With --gzip: print the HTTP headers to send (the body goes to -o PATH).")
    var headers = false

    @Option(help: ArgumentHelp("""
        With --gzip: bodies shorter than this, or that gzip does not make smaller, are sent uncompressed (a \
        note on stderr says so); 0 compresses every body, even one gzip makes larger (default 1024).
        """, valueName: "bytes"))
    var threshold: Int = CompressedPublishBody.defaultThreshold

    @Option(name: .customLong("file-id"), help: ArgumentHelp("""
        Write a file message's payload: {"message": <the message>, "file": {"id": ID, "name": NAME}} \
        encrypted whole, as SDKs publish a file message (with --file-name).
        """, valueName: "id"))
    var fileID: String?

    @Option(name: .customLong("file-name"), help: ArgumentHelp("With --file-id: the file's name.",
                                                               valueName: "name"))
    var fileName: String?

    @OptionGroup var lines: LineOptions
    @OptionGroup var field: FieldOption
    @OptionGroup var failures: AllowFailuresOption
    @OptionGroup var maxInput: MaxInputOption

    func validate() throws {
        if field.field != nil && (gzip || fileID != nil) {
            throw ValidationError("--field encrypts a field of each record: not with --gzip or --file-id")
        }
        if (fileID == nil) != (fileName == nil) {
            throw ValidationError("--file-id and --file-name go together")
        }
        if fileID != nil && (lines.lines || verbatim) {
            throw ValidationError("--file-id makes one file message: not with --lines or --verbatim")
        }
        try Lines.validateEncrypt(lines: lines, iv: writing.iv, gzip: gzip)
        try lines.check(output)
        try maxInput.check(lines)
        if failures.allowFailures && !lines.lines {
            throw ValidationError("--allow-failures goes with --lines (one message either encrypts or fails)")
        }
        if headers && (!gzip || output.output == nil) {
            throw ValidationError("--headers goes with --gzip and -o PATH (the body goes to the file)")
        }
        if threshold < 0 { throw ValidationError("--threshold must be 0 or more") }
        if gzip { try force.check(output) }
    }

    func run() throws {
        let data = try input.resolved()
        if lines.lines {
            return try Lines.encrypt(keys: keys, scheme: writing.scheme, style: style, verbatim: verbatim,
                                     lines: lines, field: try field.pointer(), failures: failures, input: data,
                                     output: output)
        }
        let crypto = MessageCrypto(keys: try KeyRing(keys: [try keys.resolve(input: data, confirm: true)]),
                                   scheme: writing.scheme, style: style)
        let text = try data.readAll(limit: maxInput.limit)
        if let pointer = try field.pointer() {
            return try encrypt(field: pointer, of: text, crypto: crypto, input: data)
        }
        let wire: JSONValue
        var changes: [String] = []
        do {
            if verbatim {
                wire = try crypto.encrypt(jsonText: text, iv: writing.iv)
            } else {
                var value = try JSONValue(parsing: text)
                if let fileID, let fileName {
                    value = FileMessage.payload(value, id: fileID, name: fileName)
                }
                changes = value.changes(in: style)
                wire = try crypto.encrypt(value, iv: writing.iv)
            }
        } catch {
            guard error.code == .invalidJSON else { throw error }
            throw CLIFailure(.badJSON, error.message + Self.quotesHint(text, error))
        }
        guard gzip else {
            try OutputFile.write(json: wire.serialized(style: style) + [0x0A], to: output, input: data)
            return Self.warn(changes)
        }
        let body = try CompressedPublishBody(messageText: wire.serialized(style: style), threshold: threshold,
                                             always: threshold == 0)
        try OutputFile.write(body.bytes, to: output, input: data, binary: force)
        if headers {
            try FileDescriptor.standardOutput.printLine(
                body.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
        }
        if !body.isCompressed { CLI.note(Self.uncompressedNote(body, threshold: threshold)) }
        Self.warn(changes)
    }

    /// `--field` without `--lines`: the record with its field encrypted.
    func encrypt(field pointer: JSONPointer, of text: [UInt8], crypto: MessageCrypto, input: Input) throws {
        var record: [UInt8] = []
        let change = try FieldOption.onRecord { () throws(PNCryptError) in
            try text.withUnsafeBufferPointer { (text) throws(PNCryptError) in
                try crypto.appendEncrypted(field: pointer, of: text, raw: verbatim, iv: writing.iv, to: &record)
            }
        }
        try OutputFile.write(json: record + [0x0A], to: output, input: input)
        Self.warn(change.map { [$0] } ?? [])
    }

    /// Why a `--gzip` body was left as it is (docs/formats.md section 5): under the threshold, or gzip would
    /// not make it smaller.
    static func uncompressedNote(_ body: CompressedPublishBody, threshold: Int) -> String {
        let why = body.uncompressedLength < threshold
            ? "it is \(body.uncompressedLength.counting("byte")), under --threshold \(threshold)"
            : "gzip does not make its \(body.uncompressedLength.counting("byte")) smaller"
        return "the body is not compressed (sent as it is, without Content-Encoding): \(why); "
            + "--threshold 0 compresses every body"
    }

    /// One line on standard error for each way --style changed the message (Go's 16-bit escapes, PHP's raw
    /// strings, numbers through a float, repeated keys): what the SDK would have sent, but not the message.
    static func warn(_ changes: [String]) {
        for change in changes {
            CLI.warning(change)
        }
    }

    /// For text that is not JSON from its first byte (`hello`): a JSON string needs its quotes.
    static func quotesHint(_ text: [UInt8], _ error: PNCryptError) -> String {
        let start = Set("\"{[-0123456789tfn \t\r\n".utf8)
        guard error.offset == 0, let first = text.first, !start.contains(first) else { return "" }
        let line = String(decoding: text, as: UTF8.self)
        if line.count <= 60, !line.contains(where: { $0 == "\"" || $0 == "'" || $0.isNewline }) {
            return "; a JSON string needs its quotes: '\"\(line)\"'"
        }
        return "; a JSON string needs its quotes, as in '\"text\"'"
    }
}

struct MessageDecryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Decrypt a received message (JSON) and print the message JSON.",
        // Written out as for `decrypt`: more than 12 options would shorten it to `[<options>]`.
        usage: "pncrypt message decrypt [--key <key> ...] [--key-file <path> ...] [--lines] [<options>] [<text>]",
        discussion: """
        Only JSON strings are decrypted (bare Base64 is taken as the string it would be); the plaintext must \
        be JSON text (what makes a wrong key certain to fail), delivered as its value; with --plaintext text, \
        UTF-8 that is not JSON is delivered as a JSON string, as the SDKs return a raw string. A message that \
        is not delivered decrypted (not encrypted, wrong key, corrupt) prints one status line on stderr, for \
        example \
        {"category":"decryption","reason":"wrongKeyOrCorrupt","message":"...","original":"..."}. \
        Such a run exits 1: with --on-error marker or passthrough after writing the output, with fail with \
        nothing on stdout; --allow-failures makes it exit 0. Several --key options are tried in order. A record \
        export whose channels have keys of their own: --field /message with --channel-key-file CHANNEL=PATH \
        for each channel reads each record only with the keys of the channel it names (--channel-field, \
        /channel by default); a record under another channel's key is not decrypted.

        Examples:
          pncrypt message decrypt --key enigma '"06UDjczkvAAYcqWfNwkOiQ=="'
          pncrypt message decrypt -k enigma --scheme auto,legacy33 --lines -i a.ndjson
          pncrypt message decrypt --lines --field /message --channel-key-file ch=ch.key
        """)

    @OptionGroup var options: DecryptOptions
    @OptionGroup var field: FieldOption
    @OptionGroup var channels: RecordChannelOptions

    func validate() throws {
        try channels.check(field)
    }

    func run() throws {
        let (keys, read, output) = (options.keys, options.read, options.output)
        let data = try options.input.resolved()
        let pointer = try field.pointer()
        let byChannel = try channels.resolve(keys, input: data)
        if options.lines.lines {
            return try Lines.decrypt(keys: keys, read: read, lines: options.lines, field: pointer,
                                     channels: byChannel, input: data, output: output)
        }
        let crypto = try read.crypto(keys, channels: byChannel, input: data)
        if let pointer {
            let text = try data.readAll(limit: options.maxInput.limit)
            let record = try byChannel.map { channels in
                try FieldOption.onRecord { () throws(PNCryptError) in
                    try channels.keys.decrypt(field: pointer, of: text, channelField: channels.channelField,
                                              reading: crypto.reading, style: crypto.style,
                                              plaintext: crypto.plaintext, policy: read.policy(for: .record))
                }
            } ?? FieldOption.onRecord { () throws(PNCryptError) in
                try crypto.decrypt(field: pointer, of: text, policy: read.policy(for: .record))
            }
            return try read.deliver(text: record.text,
                                    statuses: ChannelKeyOptions.advised(record.status.map { [$0] } ?? []),
                                    total: 1, input: data, output: output)
        }
        let result = try read.decrypt(crypto, message: try data.readAll(limit: options.maxInput.limit))
        try read.deliver(result.message, statuses: result.status.map { [$0] } ?? [], total: 1, input: data,
                         output: output)
    }
}

struct MessageRekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
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
