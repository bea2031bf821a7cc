import PNCryptBase
import PNCryptJSON
import PNCryptCore

// Records (the lines of an export: `{"channel":"ch","message":"<Base64>","timetoken":"..."}`) read with the keys of
// their own channel: the channel is another field of the record (`RecordChannels.channelField`), and its keys are
// chosen as a response's messages' are (`ChannelReading.crypto(forChannel:)`, `ChannelRekey.rekey(forChannel:)`).

/// Each record's message read only with the keys of the record's channel, the channel being a field of the record:
/// what `MessageStream.channels` and `pncrypt message decrypt|rekey --field POINTER --channel-key-file C=PATH` use.
///
/// ```swift
/// let channels = RecordChannels(try ChannelKeys(["ch-a": KeyRing(["key-a"]), "ch-b": KeyRing(["key-b"])]))
/// let record = try channels.keys.decrypt(field: JSONPointer("/message"), of: line, policy: .passThrough)
/// // a record of ch-a whose message is under key-b is the one public decryption failure, its status naming ch-a
/// ```
///
/// A record's channel is the JSON string at `channelField`; a record without it, or where it is not a string, is
/// refused (`invalidValue` naming the pointer), never read with some other key. A channel no pattern matches is
/// `invalidKey` ("no key for channel ..."), as in a response.
public struct RecordChannels: Sendable {
    /// The keys by channel.
    public let keys: ChannelKeys
    /// Where each record names its channel (`/channel` in the exports of PubNub's SDKs and of history).
    public let channelField: JSONPointer

    /// Records whose channel is at `channelField`, read with `keys`.
    public init(_ keys: ChannelKeys, channelField: JSONPointer = .channel) {
        self.keys = keys
        self.channelField = channelField
    }

    /// How the message of a failure to find a record's channel starts (`JSONPointer.channel(of:)`).
    package static let channelFailurePrefix = "the record's channel"
}

extension JSONPointer {
    /// `/channel`: where an export's record names its channel (the default `RecordChannels.channelField`).
    public static let channel = JSONPointer(member: "channel")

    /// The channel a record names at this pointer: the JSON string there.
    /// - Throws: `invalidValue` naming the pointer when the record has no such field or it is not a JSON string;
    ///   what `range(in:)` throws for a record that does not parse.
    package func channel(of record: UnsafeBufferPointer<UInt8>) throws(PNCryptError) -> String {
        let range: Range<Int>
        do throws(PNCryptError) {
            range = try self.range(in: record)
        } catch where error.code == .invalidValue {
            throw PNCryptError(.invalidValue, RecordChannels.channelFailurePrefix + ": " + error.message)
        }
        guard case .string(let name) = try JSONValue(parsing: UnsafeBufferPointer(rebasing: record[range])) else {
            throw PNCryptError(.invalidValue, RecordChannels.channelFailurePrefix + " \(Self.quoted(description)) is"
                               + " not a JSON string (a channel's name)")
        }
        return name
    }
}

extension ChannelReading {
    /// The reader of the messages of `channel` (its keys, as this reading's template reads), or the failure when
    /// no pattern matches it (or no channel is named). The one choice of a message's keys by its channel: the
    /// envelope paths (`crypto(at:)`) and the record paths call it.
    package func crypto(forChannel channel: String?) -> Result<MessageCrypto, PNCryptError> {
        guard let channel, let ring = keys.keys(forChannel: channel) else {
            return .failure(ChannelKeys.missing(channel))
        }
        var crypto = MessageCrypto(keys: ring, scheme: template.scheme, reading: template.reading,
                                   style: template.style)
        crypto.plaintext = template.plaintext
        return .success(crypto)
    }

    /// `MessageCrypto.appendDecrypted(field:of:policy:to:)` with the keys of the record's channel (at
    /// `channelField`): a record whose channel has no keys has the field delivered as `policy` says, with an
    /// `invalidKey` status. Every status names the channel.
    /// - Throws: as `MessageCrypto.decrypt(field:of:policy:)`; `invalidValue` naming `channelField` when the record
    ///   names no channel there.
    package func appendDecrypted(field: JSONPointer, of record: UnsafeBufferPointer<UInt8>, channelField: JSONPointer,
                                 policy: DecryptionPolicy, to output: inout [UInt8]) throws(PNCryptError)
        -> MessageStatus? {
        let range = try field.range(in: record)
        let channel = try channelField.channel(of: record)
        var status: MessageStatus?
        switch crypto(forChannel: channel) {
        case .success(let crypto):
            status = try crypto.appendDecrypted(field: field, of: record, policy: policy, to: &output)
        case .failure(let error):
            let message = UnsafeBufferPointer(rebasing: record[range])
            status = MessageStatus(error: error, original: try JSONValue(parsing: message))
            field.splice(record, range, into: &output) { output in
                if policy == .passThrough {
                    output.append(contentsOf: message)
                } else {
                    output.append(contentsOf: JSONValue.string(DecryptionPolicy.markerText)
                        .serialized(style: template.style))
                }
            }
        }
        status?.channel = channel
        return status
    }
}

extension ChannelReading {
    /// `appendDecrypted(field:of:channelField:policy:to:)` into a record of its own.
    package func decrypt(field: JSONPointer, of record: UnsafeBufferPointer<UInt8>, channelField: JSONPointer,
                         policy: DecryptionPolicy) throws(PNCryptError) -> DecryptedRecord {
        var output: [UInt8] = []
        let status = try appendDecrypted(field: field, of: record, channelField: channelField, policy: policy,
                                         to: &output)
        return DecryptedRecord(text: output, status: status)
    }
}

extension ChannelRekey {
    /// `MessageRekey.rekey(field:of:)` with the old keys of the record's channel (at `channelField`): a record
    /// that names no channel there (`invalidValue` naming the pointer), or whose channel has no keys
    /// (`invalidKey`), is unchanged.
    package func rekey(field: JSONPointer, of record: UnsafeBufferPointer<UInt8>, channelField: JSONPointer)
        -> MessageRekey.Outcome {
        rekeyNamingChannel(field: field, of: record, channelField: channelField).outcome
    }

    /// `rekey(field:of:channelField:)` and the record's channel, when it names one.
    package func rekeyNamingChannel(field: JSONPointer, of record: UnsafeBufferPointer<UInt8>,
                                    channelField: JSONPointer) -> (outcome: MessageRekey.Outcome, channel: String?) {
        let channel: String
        do throws(PNCryptError) {
            _ = try field.range(in: record)
            channel = try channelField.channel(of: record)
        } catch {
            return (.unchanged(error), nil)
        }
        switch rekey(forChannel: channel) {
        case .success(let rekey): return (rekey.rekey(field: field, of: record), channel)
        case .failure(let error): return (.unchanged(error), channel)
        }
    }
}

extension RecordChannels {
    /// What reads the records' messages as `template` reads (its scheme, reading and style; not its keys).
    package func reading(_ template: MessageCrypto) -> ChannelReading {
        ChannelReading(keys, v2Channel: nil, template: template)
    }

    /// What moves the records' messages as `template` moves (its reading, new key and scheme; not its old keys).
    /// - Throws: what `MessageRekey.init` throws.
    package func rekeying(_ template: MessageRekey) throws(PNCryptError) -> ChannelRekey {
        try ChannelRekey(keys, v2Channel: nil, reading: template.reading, to: template.to, scheme: template.scheme,
                         only: nil)
    }

    /// The same records with keys of their own (`CipherKey.withOwnContexts`), for a worker thread.
    package func withOwnKeys(_ own: (KeyRing) -> KeyRing) -> RecordChannels {
        guard let keys = try? ChannelKeys(keys.rings.mapValues(own)) else { return self }
        return RecordChannels(keys, channelField: channelField)
    }
}

extension ChannelKeys {
    /// Decrypts one field of a record with the keys of the record's channel (the JSON string at `channelField`),
    /// as `MessageCrypto.decrypt(field:of:policy:)` does with one key ring: a message under another channel's key
    /// is the one public decryption failure, and a channel with no keys fails as in a response (`invalidKey`,
    /// the field delivered as `policy` says). A status names the record's channel.
    /// - Parameters:
    ///   - field: where the message is (`/message`).
    ///   - record: one JSON text.
    ///   - channelField: where the record names its channel (`/channel`).
    ///   - reading: how messages are read (`MessageCrypto.reading`).
    ///   - style: how the decrypted message is written (`MessageCrypto.style`).
    ///   - plaintext: what a plaintext must be (`MessageCrypto.plaintext`).
    ///   - policy: what a field that is not delivered decrypted becomes (`DecryptionPolicy.default(for: .record)`:
    ///     kept as it was).
    /// - Throws: `invalidJSON` when the record does not parse; `invalidValue` naming the pointer when the record
    ///   has no such field, or no channel (a JSON string) at `channelField`. Decryption failures are not thrown.
    public func decrypt(field: JSONPointer, of record: some Collection<UInt8>, channelField: JSONPointer = .channel,
                        reading: ReadPolicy = .rule, style: JSONStyle = .compact, plaintext: PlaintextRule = .json,
                        policy: DecryptionPolicy = .default(for: .record)) throws(PNCryptError) -> DecryptedRecord {
        var template = ChannelReading(self, v2Channel: nil, reading: reading, style: style).template
        template.plaintext = plaintext
        let channels = ChannelReading(self, v2Channel: nil, template: template)
        return try withBytes(record) { (bytes) throws(PNCryptError) -> DecryptedRecord in
            try channels.decrypt(field: field, of: bytes.assumingMemoryBound(to: UInt8.self),
                                 channelField: channelField, policy: policy)
        }
    }

    /// Moves one field of a record to `to` in `scheme`, read only with the keys of the record's channel (the JSON
    /// string at `channelField`), as `MessageRekey.rekey(field:of:)` moves it with one key ring. Never throws for
    /// the record: one that cannot be moved, names no channel, or whose channel has no keys is `unchanged`.
    /// - Parameters:
    ///   - field: where the message is (`/message`).
    ///   - record: one JSON text.
    ///   - channelField: where the record names its channel (`/channel`).
    ///   - reading: how headerless data is read (`MessageRekey`'s `reading`).
    ///   - to: the new key.
    ///   - scheme: the new scheme.
    /// - Throws: what `MessageRekey.init(from:reading:to:scheme:)` throws for `reading` and `scheme`.
    public func rekey(field: JSONPointer, of record: some Collection<UInt8>, channelField: JSONPointer = .channel,
                      reading: ReadPolicy = .rule, to: CipherKey, scheme: Scheme = .defaultForWriting)
        throws(PNCryptError) -> MessageRekey.Outcome {
        let moving = try ChannelRekey(self, v2Channel: nil, reading: reading, to: to, scheme: scheme, only: nil)
        return withBytes(record) { bytes in
            moving.rekey(field: field, of: bytes.assumingMemoryBound(to: UInt8.self), channelField: channelField)
        }
    }
}
