import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// Why one message was not delivered as asked: a message or history item that could not be decrypted, or a line
/// of a `MessageStream` that failed. The one status type of the library, the command line (`message decrypt`,
/// `history decrypt`, `--lines`), the C library (`pncrypt_message_decrypt_status`) and Python; its `json` is the
/// one status form (docs/formats.md section 4.2).
///
/// A status is one word (its fields live in a shared box, copied on write): a `MessageStatus?` is a pointer, nil
/// for a message that decrypted, so `status == nil` and `if let status` cost a test, not a copy of the fields.
public struct MessageStatus: Hashable, Sendable {
    /// Why: its `code` is the reason (`notBase64`, `wrongKeyOrCorrupt`, `unknownCryptor`, `malformedHeader`,
    /// `notEncrypted` for decryption; `invalidJSON` for a line that is not JSON; ...). Every key-dependent failure is
    /// `wrongKeyOrCorrupt` with one message (`CryptoModule.decryptionFailed`): bad padding and bad UTF-8 look the
    /// same.
    public var error: PNCryptError { get { self[\.error] } set { self[\.error] = newValue } }
    /// The message as it was received, when there is one to show: never the plaintext of an encryption, and not
    /// for a line that is not JSON.
    public var original: JSONValue? { get { self[\.original] } set { self[\.original] = newValue } }
    /// The line's number, from 1, for a line of a `MessageStream`.
    public var line: Int? { get { self[\.line] } set { self[\.line] = newValue } }
    /// The message's position in a response (`Envelope.Location.index`), when it came from one.
    public var index: Int? { get { self[\.index] } set { self[\.index] = newValue } }
    /// The message's channel, when the response names it (v3 fetch, subscribe).
    public var channel: String? { get { self[\.channel] } set { self[\.channel] = newValue } }
    /// The message's timetoken as received (a string or an exact integer), when the response has one.
    public var timetoken: JSONValue? { get { self[\.timetoken] } set { self[\.timetoken] = newValue } }

    /// The fields, in a box shared between copies and changed only when not shared (`unique()`), as the standard
    /// library's collections do: so a box that more than one value (or thread) can see is never written.
    private var box: Box

    /// A field, read from the shared box and written to a box of its own (`unique()`): every property's accessors.
    private subscript<Value>(field: WritableKeyPath<Fields, Value>) -> Value {
        get { box.fields[keyPath: field] }
        set { unique().fields[keyPath: field] = newValue }
    }

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
        box = Box(Fields(error: error, original: original, line: line, index: index, channel: channel,
                         timetoken: timetoken))
    }

    /// The box, made this value's own first when another value shares it.
    private mutating func unique() -> Box {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        return box
    }

    /// Equal when every field is, as before the box.
    public static func == (a: MessageStatus, b: MessageStatus) -> Bool {
        a.box === b.box || a.box.fields == b.box.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.fields)
    }

    /// The six fields, compared and hashed together.
    private struct Fields: Hashable {
        var error: PNCryptError
        var original: JSONValue?
        var line: Int?
        var index: Int?
        var channel: String?
        var timetoken: JSONValue?
    }

    /// The box. `@unchecked Sendable`: it is written only through `unique()`, when one value alone holds it, so
    /// values on different threads never share a box that is being written.
    private final class Box: @unchecked Sendable {
        var fields: Fields

        init(_ fields: Fields) { self.fields = fields }
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
