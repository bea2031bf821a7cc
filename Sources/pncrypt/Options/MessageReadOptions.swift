import ArgumentParser
import PNCrypt
import PNCryptPlatform
import SystemPackage

/// Options shared by the commands that decrypt messages.
struct MessageReadOptions: ParsableArguments {
    @OptionGroup var reading: ReadSchemeOptions
    @OptionGroup var terminal: RawControlOption

    @OptionGroup var onErrorOption: OnErrorOption

    /// `--on-error`, nil when not given.
    var onError: OnError? { onErrorOption.onError }

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
            try? FileDescriptor.standardError.writeAll(
                TerminalEscaper.json(status.json.serialized() + [0x0A], for: .standardError, raw: false),
                naming: "standard error")
        }
        if !statuses.isEmpty && onError == .fail {
            throw CLIFailure(.dataFailure, "", decryption: true)
        }
        try OutputFile.write(json: text + [0x0A], to: output, input: input, rawControl: terminal.rawControl)
        try failures.check(failed: statuses.count, of: total, "message")
    }
}
