import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

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
            try? FileDescriptor.standardError.writeAll(
                TerminalEscaper.json(status.json.serialized() + [0x0A], for: .standardError, raw: false),
                naming: "standard error")
        }
        if !statuses.isEmpty && rekey.onError == .fail {
            throw CLIFailure(.dataFailure, "\(statuses.count.counting("message")) not rekeyed", decryption: true)
        }
        try OutputFile.write(json: result.envelope.json.serialized() + [0x0A], to: output, input: data)
        try rekey.finish(rekeyed: result.rekeyed, unchanged: statuses.count, alreadyNew: result.alreadyNew,
                         of: result.messages)
    }
}

extension ReceivedOptions where Handling == MessageReadOptions {
    /// `history decrypt` and `subscribe decrypt` with `--channel-key-file`: one response, each message read with
    /// its channel's keys.
    func decryptEnvelopes(formats: [EnvelopeFormat], channels: ChannelKeyOptions, v2: V2ChannelOption?) throws {
        let data = try input.resolved()
        guard let keys = try channels.resolve(self.keys, input: data, lines: lines) else { return }
        var template = MessageCrypto(keys: keys.rings.first!.value, scheme: read.reading.explicit ?? .defaultForWriting,
                                     reading: try read.reading.policy, style: read.style)
        template.plaintext = read.plaintext
        let reading = ChannelReading(keys, v2Channel: v2?.channel, template: template)
        let text = try data.readAll(limit: maxInput.limit)
        let result = try text.withUnsafeBufferPointer { (text) throws(PNCryptError) in
            try reading.decrypt(envelopeText: text, formats: formats, policy: read.policy)
        }
        try v2?.check(result.format)
        try read.deliver(text: result.text, statuses: ChannelKeyOptions.advised(result.statuses),
                         total: result.messages, input: data, output: output)
    }
}

extension ReceivedOptions where Handling == RekeyOptions {
    /// `history rekey` and `subscribe rekey` with `--channel-key-file`: one response, each message read with its
    /// channel's keys and moved to the new key (with `--only-channel`, only that channel's).
    func rekeyEnvelopes(formats: [EnvelopeFormat], channels: ChannelKeyOptions, v2: V2ChannelOption?,
                        only: OnlyChannelOption) throws {
        let data = try input.resolved()
        guard let keys = try channels.resolve(self.keys, input: data, lines: lines) else { return }
        let moving = try ChannelRekey(keys, v2Channel: v2?.channel,
                                      reading: ReadPolicy(scheme: nil, legacyScheme: rekey.legacyScheme?.scheme),
                                      to: try rekey.toKey.resolve(), scheme: rekey.toScheme,
                                      only: only.onlyChannel.isEmpty ? nil : Set(only.onlyChannel))
        let text = try data.readAll(limit: maxInput.limit)
        let envelope = try Envelope(parsing: text, formats: formats)
        try v2?.check(envelope.format)
        let result = moving.rekey(envelope: envelope)
        try deliver(result, statuses: ChannelKeyOptions.advised(result.statuses), input: data)
    }
}
