import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// The messages of one response read one by one: the decision both envelope paths make for each message, made
/// here once. The tree path (`MessageCrypto.decrypt(envelope:...)`) hands it each field's value; the text path
/// (`decrypt(envelopeText:...)`, `EnvelopeSplice`) each field's text, which it writes decrypted when the message's
/// reader can do it without a value. Either way: the message's reader (its channel's keys, under `ChannelKeys`, or
/// the failure when its channel has none), its decryption with the reading policy, its status at its location,
/// and what it is delivered as.
struct EnvelopeReading {
    /// The reader of every message, when they are not read by channel.
    private let crypto: MessageCrypto
    /// The readers by channel, if so.
    private let channels: ChannelReading?
    /// What a message that is not decrypted becomes (it has a status either way).
    private let policy: DecryptionPolicy
    /// One status per message not decrypted, in the order read, each at its location.
    private(set) var statuses: [MessageStatus] = []
    /// The messages read.
    private(set) var messages = 0

    /// What a message is delivered as.
    enum Delivery {
        /// As it was.
        case original
        /// This value.
        case value(JSONValue)
        /// Already written decrypted (the text path's `write`).
        case written
    }

    /// A reading of a response's messages with `crypto` (or, given `channels`, each with its channel's keys).
    init(_ crypto: MessageCrypto, channels: ChannelReading?, policy: DecryptionPolicy) {
        self.crypto = crypto
        self.channels = channels
        self.policy = policy
    }

    /// Reads one message. `value` is the message (nil when its text does not parse: then nil, and the caller
    /// gives up), `locate` where it is (asked only when needed), and `write` writes it decrypted by the reader given
    /// when it can without a value (true) or writes nothing (false).
    @inline(__always)
    mutating func read(_ value: () -> JSONValue?, at locate: () -> Envelope.Location,
                       write: (MessageCrypto) -> Bool) -> Delivery? {
        messages += 1
        var crypto = self.crypto, location: Envelope.Location?
        if let channels {   // the field's channel's keys, or its failure
            var found = locate()
            switch channels.crypto(at: &found) {
            case .success(let chosen):
                crypto = chosen
                location = found
            case .failure(let error):
                guard let message = value() else { return nil }
                let missing = channels.missing(message, at: found, error: error, policy: policy)
                statuses.append(missing.status)
                return policy == .passThrough ? .original : .value(missing.message)
            }
        }
        // The usual message straight to its text, with no value made; anything else the full way.
        if write(crypto) { return .written }
        guard let message = value() else { return nil }
        let result = crypto.decrypt(message, policy: policy)
        guard let status = result.status else { return .value(result.message) }
        statuses.append(status.located(location ?? locate()))
        return policy == .passThrough ? .original : .value(result.message)
    }
}
