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
    @OptionGroup var reading: ReadSchemeOptions

    @Option(name: .customLong("on-error"), help: """
        marker: deliver "DECRYPTION_ERROR" (iOS 3.4); passthrough: deliver the original message (current SDKs); \
        fail: exit 1 and print nothing. Each failure prints a status line on stderr.
        """)
    var onError: OnError = .marker

    @Option(help: "How the decrypted JSON is written.")
    var style: JSONStyle = .compact

    func crypto(_ keys: KeyOptions) throws -> MessageCrypto {
        MessageCrypto(keys: try keys.ring(), scheme: reading.explicit ?? .acrh, readScheme: reading.explicit,
                      legacyScheme: reading.legacy, style: style)
    }

    /// Prints each status as one JSON line on standard error, then writes `value` as JSON, unless a status and
    /// `--on-error fail` make it exit 1 with nothing on standard output.
    func deliver(_ value: JSONValue, statuses: [DecryptionStatus], input: InputOptions, output: OutputOptions) throws {
        for status in statuses {
            FileHandle.standardError.write(Data(status.json.serialized() + [0x0A]))
        }
        if !statuses.isEmpty && onError == .fail { throw ExitCode.dataFailure }
        try OutputFile.write(value.serialized(style: style) + [0x0A], to: output, inputPath: input.input)
    }
}

struct MessageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "message",
        abstract: "Encrypt a JSON message for publishing, or decrypt a received one.",
        subcommands: [Encrypt.self, Decrypt.self])

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
        @OptionGroup var writing: WriteSchemeOptions

        @Option(help: "How the message is written before encryption (compact is JavaScript's JSON.stringify).")
        var style: JSONStyle = .compact

        @Flag(help: "Encrypt the input text exactly as given (it must still be valid JSON) instead of rewriting it.")
        var raw = false

        @Flag(help: "Write the compressed publish body (gzip of the wire JSON; binary) instead of the JSON text.")
        var gzip = false

        @Flag(help: "With --gzip: print the HTTP headers to send (the body goes to -o PATH).")
        var headers = false

        @Option(help: ArgumentHelp("With --gzip: bodies shorter than this are sent uncompressed (default 1024).",
                                   valueName: "bytes"))
        var threshold: Int = CompressedPublishBody.defaultThreshold

        func validate() throws {
            if headers && (!gzip || output.output == nil) {
                throw ValidationError("--headers goes with --gzip and -o PATH (the body goes to the file)")
            }
            if threshold < 0 { throw ValidationError("--threshold must be 0 or more") }
        }

        func run() throws {
            let crypto = MessageCrypto(keys: try KeyRing(keys: [try keys.resolve()]), scheme: writing.scheme,
                                       style: style)
            let text = try input.readAll()
            let wire = raw ? try crypto.encrypt(jsonText: text, iv: writing.iv)
                : try crypto.encrypt(try JSONValue(parsing: text), iv: writing.iv)
            guard gzip else {
                return try OutputFile.write(wire.serialized(style: style) + [0x0A], to: output,
                                            inputPath: input.input)
            }
            let body = try CompressedPublishBody(messageText: wire.serialized(style: style), threshold: threshold)
            try OutputFile.write(body.bytes, to: output, inputPath: input.input)
            if headers { print(body.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")) }
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

        func run() throws {
            let crypto = try read.crypto(keys)
            let result = try crypto.decrypt(jsonText: try input.readAll(), policy: read.onError.policy)
            try read.deliver(result.message, statuses: result.status.map { [$0] } ?? [], input: input, output: output)
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
            let crypto = try read.crypto(keys)
            let history = try HistoryResponse(parsing: try input.readAll())
            let result = crypto.decrypt(history: history, policy: read.onError.policy)
            try read.deliver(result.response.json, statuses: result.statuses, input: input, output: output)
        }
    }
}
