import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// A record after its field was decrypted (`MessageCrypto.decrypt(field:of:policy:)`).
public struct DecryptedRecord: Hashable, Sendable {
    /// The record, every byte as given except the field: the decrypted message written in the crypto's style, or
    /// what the policy delivers in its place.
    public var text: [UInt8]
    /// Set when the field was not delivered decrypted (as `DecryptedMessage.status`).
    public var status: MessageStatus?
}
