import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// A response after its messages were decrypted.
public struct DecryptedEnvelope: Hashable, Sendable {
    /// The response with every encrypted field decrypted (or replaced as the policy says), all else unchanged.
    public var envelope: Envelope
    /// One status per message that could not be decrypted, in document order, each with its location (`index`,
    /// `channel`, `timetoken`).
    public var statuses: [MessageStatus]
    /// The encrypted fields the response has (decrypted or not).
    public var messages: Int
}

/// A response decrypted into text (`MessageCrypto.decrypt(envelopeText:...)`).
package struct DecryptedEnvelopeText: Sendable {
    /// Which shape the response has.
    package var format: EnvelopeFormat
    /// The response written compactly, each encrypted field decrypted (or as the policy says).
    package var text: [UInt8]
    /// One status per message not decrypted, in document order, with its location.
    package var statuses: [MessageStatus]
    /// The encrypted fields the response has.
    package var messages: Int
}
