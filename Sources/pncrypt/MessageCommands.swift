import ArgumentParser
import Foundation
import PNCrypt

extension JSONStyle: ExpressibleByArgument {}

/// `--on-error`: what to deliver for a message that cannot be decrypted.
enum OnError: String, ExpressibleByArgument, CaseIterable {
    case marker, passthrough, fail

    var policy: DecryptionPolicy { self == .marker ? .marker : .passThrough }
}

/// Options shared by the commands that decrypt messages.
struct MessageReadOptions: ParsableArguments {
    @Option(help: """
        auto (default: a PNED header, else --legacy-scheme), legacy, legacy-random-iv, acrh or legacy33.
        """)
    var scheme: ReadScheme = .auto

    @Option(name: .customLong("legacy-scheme"), help: ArgumentHelp("""
        With auto: read messages without a PNED header as legacy (fixed IV) or legacy-random-iv, as the \
        sending clients are set. Without it both are tried, and a message is taken only when exactly one reading \
        gives JSON text.
        """, valueName: "scheme"))
    var legacyScheme: LegacyScheme?

    @Option(name: .customLong("on-error"), help: """
        marker: deliver "DECRYPTION_ERROR" (iOS 3.4); passthrough: deliver the original message (current SDKs); \
        fail: exit 1 and print nothing. Each failure prints a status line on stderr.
        """)
    var onError: OnError = .marker

    @Option(help: "How the decrypted JSON is written: compact (default), apple, python or ascii.")
    var style: JSONStyle = .compact

    func crypto(_ keys: KeyOptions) throws -> MessageCrypto {
        let ring = try KeyRing(keys: try keys.resolveAll())
        return MessageCrypto(keys: ring, scheme: scheme.scheme ?? .acrh, readScheme: scheme.scheme,
                             legacyScheme: legacyScheme?.scheme, style: style)
    }

    func validate() throws {
        try LegacyScheme.validate(legacyScheme, with: scheme)
    }

    /// Prints each status as one JSON line on standard error, then writes `value` as JSON, unless a status and
    /// `--on-error fail` make it exit 1 with nothing on standard output.
    func deliver(_ value: JSONValue, statuses: [DecryptionStatus], input: InputOptions, output: OutputOptions) throws {
        for status in statuses {
            FileHandle.standardError.write(Data(status.json.serialized() + [0x0A]))
        }
        if !statuses.isEmpty && onError == .fail { throw ExitCode.failure }
        let out = try OutputFile(path: output.output, inputPath: input.input, durable: output.sync)
        try out.write(value.serialized(style: style) + [0x0A])
        try out.commit()
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
            discussion: """
            The message (JSON) is written in --style, encrypted, Base64-encoded and printed as a JSON string \
            literal. With legacy33 each string leaf is encrypted on its own and the shape is kept.

            Examples:
              pncrypt message encrypt --key enigma --scheme legacy '"Hello World"'
              pncrypt message encrypt --key enigma --scheme legacy33 '["seven","eight"]'
            """)

        @OptionGroup var keys: KeyOptions
        @OptionGroup var input: InputOptions
        @OptionGroup var output: OutputOptions

        @Option(help: "legacy, legacy-random-iv, acrh (default) or legacy33.")
        var scheme: Scheme = .acrh

        @Option(help: "How the message is written before encryption: compact (JavaScript, default), apple, python or ascii.")
        var style: JSONStyle = .compact

        @Flag(help: "Encrypt the input text exactly as given (it must still be valid JSON) instead of rewriting it.")
        var raw = false

        @Option(help: ArgumentHelp("A fixed IV as 32 hex digits, for reproducible vectors.", valueName: "hex"))
        var iv: String?

        @Flag(help: "Write the compressed publish body (gzip of the wire JSON; binary) instead of the JSON text.")
        var gzip = false

        @Flag(help: "With --gzip: print the HTTP headers to send (the body goes to -o PATH).")
        var headers = false

        @Option(help: ArgumentHelp("With --gzip: bodies shorter than this are sent uncompressed (default 1024).",
                                   valueName: "bytes"))
        var threshold: Int = CompressedPublishBody.defaultThreshold

        @OptionGroup var lines: LineOptions

        func validate() throws {
            try Lines.validateEncrypt(lines: lines, iv: iv, gzip: gzip)
            _ = try CLI.parseIV(iv)
            if headers && (!gzip || output.output == nil) {
                throw ValidationError("--headers goes with --gzip and -o PATH (the body goes to the file)")
            }
            if threshold < 0 { throw ValidationError("--threshold must be 0 or more") }
        }

        func run() throws {
            try CLI.run {
                if lines.lines {
                    return try Lines.encrypt(keys: keys, scheme: scheme, style: style, raw: raw, lines: lines,
                                             input: input, output: output)
                }
                let crypto = MessageCrypto(keys: try KeyRing(keys: [try keys.resolve()]), scheme: scheme, style: style)
                let text = try input.readAll()
                let iv = try CLI.parseIV(iv)
                let wire = raw ? try crypto.encrypt(jsonText: text, iv: iv)
                    : try crypto.encrypt(try JSONValue(parsing: text), iv: iv)
                let out = try OutputFile(path: output.output, inputPath: input.input, durable: output.sync)
                guard gzip else {
                    try out.write(wire.serialized(style: style) + [0x0A])
                    return try out.commit()
                }
                let body = try CompressedPublishBody(messageText: wire.serialized(style: style), threshold: threshold)
                try out.write(body.bytes)
                try out.commit()
                if headers { print(body.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")) }
            }
        }
    }

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decrypt a received message (JSON) and print the message JSON.",
            discussion: """
            Only JSON strings are decrypted; the plaintext is parsed as JSON, or kept as a string. A message that \
            cannot be decrypted prints one status line on stderr, for example \
            {"category":"decryptionError","reason":"wrongKeyOrCorrupt","message":"...","original":"..."}. \
            Exit status 0 with --on-error marker or passthrough, 1 with fail (and nothing on stdout). \
            Several --key options are tried in order.

            Example:
              pncrypt message decrypt --key enigma '"06UDjczkvAAYcqWfNwkOiQ=="'
            """)

        @OptionGroup var keys: KeyOptions
        @OptionGroup var input: InputOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var read: MessageReadOptions
        @OptionGroup var lines: LineOptions

        func validate() throws {
            try lines.validateChoice()
        }

        func run() throws {
            try CLI.run {
                if lines.lines {
                    return try Lines.decrypt(keys: keys, read: read, lines: lines, input: input, output: output)
                }
                let crypto = try read.crypto(keys)
                let result = try crypto.decrypt(jsonText: try input.readAll(), policy: read.onError.policy)
                try read.deliver(result.message, statuses: result.status.map { [$0] } ?? [], input: input, output: output)
            }
        }
    }
}

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Decrypt a whole history response.",
        subcommands: [Decrypt.self])

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decrypt every message of a history (v2) response: [[messages], start, end].",
            discussion: """
            Items may be messages or {"message": ..., "timetoken": ...} objects; timetokens stay exact. \
            One status line per failed message goes to stderr, with its index.

            Example:
              pncrypt history decrypt --key enigma --scheme legacy -i response.json --on-error passthrough
            """)

        @OptionGroup var keys: KeyOptions
        @OptionGroup var input: InputOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var read: MessageReadOptions

        func run() throws {
            try CLI.run {
                let crypto = try read.crypto(keys)
                let history = try HistoryResponse(parsing: try input.readAll())
                let result = crypto.decrypt(history: history, policy: read.onError.policy)
                try read.deliver(result.response.json, statuses: result.statuses, input: input, output: output)
            }
        }
    }
}
