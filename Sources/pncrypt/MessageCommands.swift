import ArgumentParser
import PNCrypt
import PNCryptPlatform

extension JSONStyle: ExpressibleByArgument {}
extension PlaintextRule: ExpressibleByArgument {}

/// `--on-error`: what to deliver for a message that is not delivered decrypted (not encrypted, wrong key,
/// corrupt). Under every value each such message prints one status line on standard error, and the run exits 1
/// (after writing the output, unless `fail`) unless `--allow-failures`.
enum OnError: String, ExpressibleByArgument, CaseIterable {
    case marker, passthrough, fail
}

/// `--allow-failures`: exit 0 even when some messages were not decrypted (their status lines still print).
struct AllowFailuresOption: ParsableArguments {
    @Flag(name: .customLong("allow-failures"), help: ArgumentHelp("""
        Exit 0 even when messages were not decrypted (each still prints its status line, and the output has \
        what --on-error says). Without it such a run exits 1 after writing its output.
        """))
    var allowFailures = false

    /// Refuses the flag with `--on-error fail`, which ends the run at the first failure.
    func validate(with onError: String) throws {
        if allowFailures && onError == "fail" {
            throw ValidationError("--allow-failures contradicts --on-error fail")
        }
    }

    /// What to run when a message does not decrypt: the one command that says why, locally, with the key.
    static let diagnoseHint = "pncrypt diagnose, given the same key and the encrypted text, says why"

    /// After the output is written: exit 1 with a one-line summary when `failed` of `total` messages (`noun`:
    /// message or line) were not delivered decrypted, unless the flag is given.
    func check(failed: Int, of total: Int, _ noun: String, _ verb: String = "decrypted") throws {
        guard failed > 0, !allowFailures else { return }
        let why = verb == "decrypted" ? Self.diagnoseHint + "; " : ""
        throw CLIFailure(.dataFailure, "\(failed) of \(total.counting(noun)) not \(verb) (see the status lines; "
                         + why + "--allow-failures to exit 0)", decryption: true)
    }
}

/// Options shared by the commands that decrypt messages.
struct MessageReadOptions: ParsableArguments {
    @OptionGroup var reading: ReadSchemeOptions
    @OptionGroup var terminal: RawControlOption

    @Option(name: .customLong("on-error"), help: """
        What to deliver for a message that is not delivered decrypted (not encrypted, wrong key, corrupt): \
        marker: "DECRYPTION_ERROR" (iOS 3.4; the default for a whole message); passthrough: the original message \
        (current SDKs; the default with --field, where the record keeps its field as it was); fail: nothing. \
        Under each, every such message prints one status line on stderr and the run exits 1 (unless \
        --allow-failures).
        """)
    var onError: OnError?

    @OptionGroup var failures: AllowFailuresOption

    @Option(help: "How the decrypted JSON is written.")
    var style: JSONStyle = .compact

    @Option(name: .customLong("plaintext"), help: ArgumentHelp("""
        What a plaintext must be. json (default): UTF-8 JSON text, which a wrong key practically never gives. text: \
        also UTF-8 that is not JSON (a publisher that encrypted a raw string), delivered as a JSON string, as the \
        SDKs return it; a wrong key passes this check more often (docs/security.md, "Residual risk").
        """, valueName: "json|text"))
    var plaintext: PlaintextRule = .json

    func validate() throws {
        try failures.validate(with: onError?.rawValue ?? "")
    }

    func crypto(_ keys: KeyOptions, input: Input) throws -> MessageCrypto {
        var crypto = MessageCrypto(keys: try keys.ring(input: input), scheme: reading.explicit ?? .defaultForWriting,
                                   reading: try reading.policy, style: style)
        crypto.plaintext = plaintext
        return crypto
    }

    /// `crypto(_:input:)`, or with `channels` the template of their reading (its keys, any channel's, not used).
    func crypto(_ keys: KeyOptions, channels: RecordChannels?, input: Input) throws -> MessageCrypto {
        guard let channels else { return try crypto(keys, input: input) }
        var crypto = MessageCrypto(keys: channels.anyRing, scheme: reading.explicit ?? .defaultForWriting,
                                   reading: try reading.policy, style: style)
        crypto.plaintext = plaintext
        return crypto
    }

    /// Decrypts one received message (JSON text, or bare Base64 taken as the JSON string it would be). Every
    /// failure has its status, whatever `--on-error` says; passthrough delivers the original message.
    func decrypt(_ crypto: MessageCrypto, message text: [UInt8]) throws -> DecryptedMessage {
        var result: DecryptedMessage
        do {
            result = try crypto.decrypt(jsonText: text, policy: .marker)
        } catch {
            guard error.code == .invalidJSON, let base64 = MessageCrypto.bareBase64(text) else { throw error }
            result = crypto.decrypt(.string(base64), policy: .marker)
        }
        if policy == .passThrough, let original = result.status?.original { result.message = original }
        return result
    }

    /// What a whole message not delivered decrypted becomes under `--on-error` (fail delivers nothing at all).
    var policy: DecryptionPolicy { policy(for: .message) }

    /// What a message or a record's field (`target`) not delivered decrypted becomes: as `--on-error` says, else
    /// the library's default for the target (the marker for a message, the field kept for a record).
    func policy(for target: DecryptionPolicy.Target) -> DecryptionPolicy {
        switch onError {
        case .passthrough: .passThrough
        case .marker, .fail: .marker
        case nil: .default(for: target)
        }
    }

    /// Decrypts every message of a response given as text, as `decrypt(_:message:)` does for one.
    func decrypt(_ crypto: MessageCrypto, envelope text: [UInt8], formats: [EnvelopeFormat]) throws
        -> DecryptedEnvelopeText {
        try text.withUnsafeBufferPointer { (text) throws(PNCryptError) in
            try crypto.decrypt(envelopeText: text, formats: formats, policy: policy)
        }
    }

    /// Prints each status as one JSON line on standard error, then writes `value` as JSON, unless a status and
    /// `--on-error fail` make it exit 1 with nothing on standard output. With a status and without
    /// `--allow-failures`, the run then exits 1: `total` messages were given.
    func deliver(_ value: JSONValue, statuses: [MessageStatus], total: Int, input: Input,
                 output: OutputOptions) throws {
        try deliver(text: value.serialized(style: style), statuses: statuses, total: total, input: input,
                    output: output)
    }

    /// As `deliver(_:statuses:total:input:output:)`, with the value already written as `text`.
    func deliver(text: [UInt8], statuses: [MessageStatus], total: Int, input: Input,
                 output: OutputOptions) throws {
        for status in statuses {
            try? POSIXIO.writeAll(STDERR_FILENO, TerminalEscaper.json(status.json.serialized() + [0x0A],
                                                                      for: STDERR_FILENO, raw: false), "standard error")
        }
        if !statuses.isEmpty && onError == .fail {
            throw CLIFailure(.dataFailure, "", decryption: true)
        }
        try OutputFile.write(json: text + [0x0A], to: output, input: input, rawControl: terminal.rawControl)
        try failures.check(failed: statuses.count, of: total, "message")
    }
}

struct MessageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "message",
        abstract: "Encrypt a JSON message for publishing, or decrypt a received one.",
        subcommands: [Encrypt.self, Decrypt.self, Rekey.self])

    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
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
                try POSIXIO.printLine(body.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
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

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
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
}
