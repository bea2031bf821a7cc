import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// A response after its messages were moved to a new key.
public struct RekeyedEnvelope: Hashable, Sendable {
    /// The response with every message moved (or left as it was), all else unchanged.
    public var envelope: Envelope
    /// Messages encrypted again under the new key and scheme.
    public var rekeyed: Int
    /// Messages already under the new key and scheme, left as they were.
    public var alreadyNew: Int
    /// One status per message left unchanged because it could not be decrypted with certainty, with its location.
    public var statuses: [MessageStatus]
    /// The encrypted fields the response has.
    public var messages: Int { rekeyed + alreadyNew + statuses.count }
}
