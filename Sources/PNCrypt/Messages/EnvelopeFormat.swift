/// The shapes of the responses that carry messages (docs/formats.md section 6), told apart by their structure.
public enum EnvelopeFormat: String, CaseIterable, Hashable, Sendable {
    /// History (v2): `[[messages], start, end]`; items are messages or `{"message", "timetoken", "meta"?}` objects
    /// with integer timetokens.
    case v2
    /// Fetch messages (v3) and history with actions: `{"status": 200, ..., "channels": {"name": [{"message": ...,
    /// "timetoken": "17 digits", ...}, ...]}, "more": {...}?}`; only each item's `message` is encrypted.
    case v3
    /// Subscribe (v2): `{"t": {"t", "r"}, "m": [{"c": channel, "d": payload, "e": type?, "p": {"t", "r"}, ...}]}`;
    /// `d` is encrypted for messages (no `e`, or `e` 0) and file messages (`e` 4, the whole `{"message", "file"}`
    /// one ciphertext); presence (`-pnpres` channels), signals, objects and message actions are not.
    case subscribe

    /// The two history formats, v2 and v3.
    public static let history: [EnvelopeFormat] = [.v2, .v3]

    /// What the format looks like, for error messages.
    var shape: String {
        switch self {
        case .v2: "[[messages], start, end] (v2)"
        case .v3: #"{"channels": {"name": [{"message": ...}, ...]}} (v3)"#
        case .subscribe: #"{"t": {...}, "m": [...]} (subscribe)"#
        }
    }

    /// What the format is, for error messages.
    var name: String {
        switch self {
        case .v2: "a history (v2) response"
        case .v3: "a fetch messages (v3) response"
        case .subscribe: "a subscribe response"
        }
    }
}
