import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// Why one message was not delivered as asked: a message or history item that could not be decrypted, or a line
/// of a `MessageStream` that failed. The one status type of the library, the command line (`message decrypt`,
/// `history decrypt`, `--lines`), the C library (`pncrypt_message_decrypt_status`) and Python; its `json` is the
/// one status form (docs/formats.md section 4.2).
public struct MessageStatus: Hashable, Sendable {
    /// Why: its `code` is the reason (`notBase64`, `wrongKeyOrCorrupt`, `unknownCryptor`, `malformedHeader`,
    /// `notEncrypted` for decryption; `invalidJSON` for a line that is not JSON; ...). Every key-dependent failure is
    /// `wrongKeyOrCorrupt` with one message (`CryptoModule.decryptionFailed`): bad padding and bad UTF-8 look the
    /// same.
    public var error: PNCryptError
    /// The message as it was received, when there is one to show: never the plaintext of an encryption, and not
    /// for a line that is not JSON.
    public var original: JSONValue?
    /// The line's number, from 1, for a line of a `MessageStream`.
    public var line: Int?
    /// The message's position in a response (`Envelope.Location.index`), when it came from one.
    public var index: Int?
    /// The message's channel, when the response names it (v3 fetch, subscribe).
    public var channel: String?
    /// The message's timetoken as received (a string or an exact integer), when the response has one.
    public var timetoken: JSONValue?

    /// A status.
    /// - Parameters:
    ///   - error: why the message was not delivered as asked.
    ///   - original: the message as it was received, if it is to be shown.
    ///   - line: the 1-based line number, in line mode.
    ///   - index: the position in a response.
    ///   - channel: the channel, when the response names it.
    ///   - timetoken: the timetoken as received, when the response has one.
    package init(error: PNCryptError, original: JSONValue? = nil, line: Int? = nil, index: Int? = nil,
                channel: String? = nil, timetoken: JSONValue? = nil) {
        self.error = error
        self.original = original
        self.line = line
        self.index = index
        self.channel = channel
        self.timetoken = timetoken
    }

    /// The reason, named as in status JSON.
    package var reason: PNCryptError.Code { error.code }

    /// The reason's category (`decryption`, `unknownCryptor` for a header this library does not know, `json` for a
    /// line that is not JSON, ...), named as in status JSON.
    package var category: PNCryptError.Category { error.category }

    /// The status as one JSON object, the one status form (docs/formats.md section 4.2):
    /// `{"line":N,"index":N,"channel":"...","timetoken":"...","category":"decryption","reason":"wrongKeyOrCorrupt",
    /// "message":"...","original":...}`, `line`, `index`, `channel`, `timetoken` and `original` only when there is
    /// one.
    public var json: JSONValue {
        var object: JSONObject = [:]
        if let line { object.append(.number(JSONNumber(line)), forKey: "line") }
        if let index { object.append(.number(JSONNumber(index)), forKey: "index") }
        if let channel { object.append(.string(channel), forKey: "channel") }
        if let timetoken { object.append(timetoken, forKey: "timetoken") }
        object.append(.string(category.rawValue), forKey: "category")
        object.append(.string(reason.name), forKey: "reason")
        object.append(.string(error.message), forKey: "message")
        if let original { object.append(original, forKey: "original") }
        return .object(object)
    }
}
