import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// The cipher keys of each channel, for apps that give each channel its own key: a response that carries several
/// channels (fetch messages, v3; subscribe) is read message by message, each only with its own channel's keys.
///
/// ```swift
/// let keys = try ChannelKeys(["chat-a": KeyRing(["key-a"]), "chat-b": KeyRing(["key-b"]), "*": KeyRing(["rest"])])
/// let result = keys.decrypt(envelope: try Envelope(parsing: body), policy: .passThrough)
/// // a message of chat-a under key-b is the one public decryption failure, with a status naming chat-a
/// ```
///
/// A pattern is a channel's name, matched exactly, byte for byte; or a name ending in `*`, every channel whose name
/// starts with the bytes before the `*` (`chat.*` matches `chat.1` and `chat.room`, not `chat`); or `*` alone, every
/// channel. Names are compared as bytes, as PubNub compares them: two spellings that Unicode calls equivalent
/// (`café` composed and decomposed) are two channels.
/// A channel is read with the keys of its own name when it has some, else with those of the longest prefix
/// pattern that matches it (`*` is the shortest). A `*` byte anywhere but at the end is refused (a combining mark
/// after it included): PubNub channel names cannot hold one. Within a channel's keys every rule of `KeyRing`
/// applies (all readings, exactly one must qualify); a message is never tried with another channel's keys. Two
/// channels may share a key.
public struct ChannelKeys: Sendable {
    /// The patterns and their keys.
    public let rings: [String: KeyRing]
    /// The prefix patterns without their `*`, longest first.
    private let prefixes: [String]

    /// Keys for channels by pattern.
    /// - Parameter rings: each pattern's keys (`"name"`, `"prefix*"` or `"*"`).
    /// - Throws: `invalidValue` when there are no patterns, or one is empty or has a `*` before its end.
    public init(_ rings: [String: KeyRing]) throws(PNCryptError) {
        guard !rings.isEmpty else {
            throw PNCryptError(.invalidValue, "no channel keys given: give a channel's keys, or \"*\" for every one")
        }
        for pattern in rings.keys {
            if let problem = Self.problem(pattern) { throw PNCryptError(.invalidValue, problem) }
        }
        self.rings = rings
        prefixes = rings.keys.filter { $0.utf8.last == Self.star }
            .map { String(decoding: $0.utf8.dropLast(), as: UTF8.self) }
            .sorted { $0.utf8.count > $1.utf8.count }
    }

    /// What is wrong with `pattern` as a channel pattern, nil when nothing is.
    package static func problem(_ pattern: String) -> String? {
        if pattern.isEmpty { return "a channel pattern is empty: give a channel's name, name* or *" }
        if pattern.utf8.dropLast().contains(star) {
            return "channel pattern \(JSONValue.string(pattern)): * goes only at the end (name* or *)"
        }
        return nil
    }

    /// The `*` of a prefix pattern.
    private static let star = UInt8(ascii: "*")

    /// The pattern whose keys read `channel`: its own name (the same bytes), else the longest prefix pattern, else
    /// nil.
    /// - Parameter channel: a channel's name, as a response names it.
    public func pattern(forChannel channel: String) -> String? {
        // A dictionary finds a key Unicode calls equivalent: only the same bytes are the channel's own name.
        if let own = rings.index(forKey: channel), rings[own].key.utf8.elementsEqual(channel.utf8),
           channel.utf8.last != Self.star {
            return rings[own].key
        }
        for prefix in prefixes where channel.utf8.starts(with: prefix.utf8) { return prefix + "*" }
        return nil
    }

    /// The keys that read `channel` (see `pattern(forChannel:)`), nil when no pattern matches it.
    /// - Parameter channel: a channel's name, as a response names it.
    public func keys(forChannel channel: String) -> KeyRing? {
        pattern(forChannel: channel).flatMap { rings[$0] }
    }

    /// The failure of a message whose channel has no keys (or is not named: `channel` nil).
    package static func missing(_ channel: String?) -> PNCryptError {
        guard let channel else {
            return PNCryptError(.invalidKey, "the response does not name this message's channel, so no channel's"
                                + " key can read it (a v2 history response: name its channel)")
        }
        return PNCryptError(.invalidKey, "no key for channel \(JSONValue.string(channel)): give its key, or a key for"
                            + " every other channel (*)")
    }
}

/// What reads the messages of one response under `ChannelKeys`: each message's reader by its channel.
package struct ChannelReading: Sendable {
    /// The keys by channel.
    package let keys: ChannelKeys
    /// The channel of a v2 response (its body names none).
    package let v2Channel: String?
    /// How messages are read and written (its keys are not used).
    package let template: MessageCrypto

    /// A reading of `keys` as `template` reads (its scheme, reading and style; not its keys).
    package init(_ keys: ChannelKeys, v2Channel: String?, template: MessageCrypto) {
        self.keys = keys
        self.v2Channel = v2Channel
        self.template = template
    }

    /// A reading of `keys` with `reading` and `style`.
    init(_ keys: ChannelKeys, v2Channel: String?, reading: ReadPolicy, style: JSONStyle) {
        // Any ring: the template's keys are never used (`ChannelKeys` is never empty).
        let ring = keys.rings.first!.value
        self.init(keys, v2Channel: v2Channel,
                  template: MessageCrypto(keys: ring, scheme: reading.scheme ?? .defaultForWriting, reading: reading,
                                          style: style))
    }

    /// The reader of the message at `location` (whose channel is set to the v2 channel when it has none), or the
    /// failure when its channel has no keys.
    package func crypto(at location: inout Envelope.Location) -> Result<MessageCrypto, PNCryptError> {
        if location.channel == nil { location.channel = v2Channel }
        guard let channel = location.channel, let ring = keys.keys(forChannel: channel) else {
            return .failure(ChannelKeys.missing(location.channel))
        }
        var crypto = MessageCrypto(keys: ring, scheme: template.scheme, reading: template.reading,
                                   style: template.style)
        crypto.plaintext = template.plaintext
        return .success(crypto)
    }

    /// What a message whose channel has no keys is delivered as, and its status.
    package func missing(_ message: JSONValue, at location: Envelope.Location, error: PNCryptError,
                         policy: DecryptionPolicy) -> (message: JSONValue, status: MessageStatus) {
        (policy == .passThrough ? message : .string(DecryptionPolicy.markerText),
         MessageStatus(error: error, original: message).located(location))
    }

    /// The tree path (`MessageCrypto.decrypt(envelope:...)` with this reading): every encrypted field read with
    /// its channel's keys.
    func decrypt(envelope: Envelope, policy: DecryptionPolicy) -> DecryptedEnvelope {
        template.decrypt(envelope: envelope, policy: policy, channels: self)
    }
}

extension ChannelKeys {
    /// Decrypts every encrypted field of a response, each only with the keys of its channel (`keys(forChannel:)`);
    /// as `MessageCrypto.decrypt(envelope:policy:)` does with one key ring otherwise. Never throws: a message that
    /// cannot be decrypted has a status (with its channel) and is delivered as `policy` says; so has a message
    /// whose channel has no keys (`invalidKey`, naming the channel), whatever the policy.
    /// - Parameters:
    ///   - envelope: the response.
    ///   - channel: the channel of a v2 history response, whose body does not name it; not used for v3 and
    ///     subscribe, which name each message's channel. Without it every message of a v2 response fails.
    ///   - reading: how messages are read (`MessageCrypto.reading`).
    ///   - style: how decrypted messages are written (`MessageCrypto.style`).
    ///   - policy: what a message that is not decrypted becomes.
    public func decrypt(envelope: Envelope, channel: String? = nil, reading: ReadPolicy = .rule,
                        style: JSONStyle = .compact, policy: DecryptionPolicy) -> DecryptedEnvelope {
        ChannelReading(self, v2Channel: channel, reading: reading, style: style)
            .decrypt(envelope: envelope, policy: policy)
    }

    /// Moves every encrypted field of a response to `to` in `scheme`, each read only with the keys of its channel
    /// (as `MessageRekey.rekey(envelope:)` moves them with one key ring otherwise). Never throws for a message: one
    /// that cannot be moved, or whose channel has no keys, is left as it was with a status.
    /// - Parameters:
    ///   - envelope: the response.
    ///   - channel: the channel of a v2 history response (as for `decrypt(envelope:channel:reading:style:policy:)`).
    ///   - reading: how headerless data is read (`MessageRekey`'s `reading`).
    ///   - to: the new key.
    ///   - scheme: the new scheme.
    ///   - onlyChannels: when given, only the messages of these channels (exact names) are moved; every other
    ///     message is copied as it is, not read, and not counted.
    /// - Throws: what `MessageRekey.init(from:reading:to:scheme:)` throws for `reading` and `scheme`.
    public func rekey(envelope: Envelope, channel: String? = nil, reading: ReadPolicy = .rule, to: CipherKey,
                      scheme: Scheme = .defaultForWriting, onlyChannels: Set<String>? = nil) throws(PNCryptError)
        -> RekeyedEnvelope {
        try ChannelRekey(self, v2Channel: channel, reading: reading, to: to, scheme: scheme, only: onlyChannels)
            .rekey(envelope: envelope)
    }
}

/// `ChannelKeys.rekey`, made once for many responses (the line path): a `MessageRekey` per pattern.
package struct ChannelRekey: Sendable {
    private let keys: ChannelKeys
    private let v2Channel: String?
    private let only: Set<String>?
    private let rekeys: [String: MessageRekey]

    /// A rekeying of `keys` to `to` in `scheme`.
    /// - Throws: what `MessageRekey.init` throws.
    package init(_ keys: ChannelKeys, v2Channel: String?, reading: ReadPolicy, to: CipherKey, scheme: Scheme,
                 only: Set<String>?) throws(PNCryptError) {
        var rekeys: [String: MessageRekey] = [:]
        for (pattern, ring) in keys.rings {
            rekeys[pattern] = try MessageRekey(from: ring, reading: reading, to: to, scheme: scheme)
        }
        self.keys = keys
        self.v2Channel = v2Channel
        self.only = only
        self.rekeys = rekeys
    }

    /// Moves every message of `envelope` of the channels asked for.
    package func rekey(envelope: Envelope) -> RekeyedEnvelope {
        var out = envelope
        var result = RekeyedEnvelope(envelope: envelope, rekeyed: 0, alreadyNew: 0, statuses: [])
        out.mapMessages { message, location in
            var location = location
            if location.channel == nil { location.channel = v2Channel }
            if let only, !(location.channel.map(only.contains) ?? false) { return message }
            guard let channel = location.channel, let pattern = keys.pattern(forChannel: channel),
                  let rekey = rekeys[pattern] else {
                let error = ChannelKeys.missing(location.channel)
                result.statuses.append(MessageStatus(error: error, original: message).located(location))
                return message
            }
            return rekey.rekey(message, at: location, counting: &result)
        }
        result.envelope = out
        return result
    }
}

extension ChannelReading {
    /// The text path (`MessageCrypto.decrypt(envelopeText:...)` with this reading): the splice path when the text
    /// allows, else the tree; the same bytes and statuses either way.
    /// - Throws: what `Envelope(parsing:formats:)` throws.
    package func decrypt(envelopeText text: UnsafeBufferPointer<UInt8>,
                         formats: [EnvelopeFormat] = EnvelopeFormat.allCases, policy: DecryptionPolicy)
        throws(PNCryptError) -> DecryptedEnvelopeText {
        try template.decrypt(envelopeText: text, formats: formats, policy: policy, channels: self)
    }
}
