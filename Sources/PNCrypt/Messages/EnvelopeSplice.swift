import PNCryptJSON
import PNCryptCore

import PNCryptBase
import PNCryptPlatform

/// The envelope path without a tree: a response's text is checked as JSON in one pass that finds the byte ranges
/// of its encrypted fields (v2 items or their `message`, v3 `message`, subscribe `d` of messages and file
/// messages), only those are decrypted, and the results are spliced into a copy of the text. Everything else is
/// copied, so key order, numbers and timetoken strings are kept by construction.
///
/// The result is the bytes that `Envelope(parsing:formats:)`, `MessageCrypto.decrypt(envelope:...)` and
/// `serialized()` give, always: the scan takes only text whose compact form is exactly what the writer would
/// write (strict RFC 8259 with valid UTF-8, string escapes only as the writer writes them, no duplicate of a key
/// that decides the shape, no `legacy33`, the compact style), and for anything else it gives up (`Fallback`) and
/// the caller takes the tree path, which then gives the same output, or the same error, as before.
struct EnvelopeSplice {
    /// The scan gave up: the tree path decides (it may succeed, or throw the error the text deserves).
    struct Fallback: Error {}

    /// One encrypted field: its value's bytes and where it is, as `Envelope.Location` reports it.
    struct Field {
        var range: Range<Int>
        var index: Int
        /// The channel's string literal (v3: the key; subscribe: `c` when it is a string).
        var channel: Range<Int>?
        /// The timetoken's value (v2 and v3: the item's `timetoken`; subscribe: `p.t`).
        var timetoken: Range<Int>?
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    /// Whether the text has whitespace between tokens (the output is then written without it).
    private(set) var hasSpace = false
    private let maxDepth = JSONValue.defaultMaxDepth

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Shapes

    /// Checks the whole text and tells its format (as `Envelope.detect`, then `check`) and its encrypted fields.
    mutating func scan(formats: [EnvelopeFormat]) throws(Fallback) -> (EnvelopeFormat, [Field]) {
        space()
        guard position < bytes.count else { throw Fallback() }
        let found: (EnvelopeFormat, [Field])
        switch bytes[position] {
        case UInt8(ascii: "["): found = (.v2, try history())
        case UInt8(ascii: "{"): found = try root()
        default: throw Fallback()
        }
        space()
        guard position == bytes.count else { throw Fallback() }
        // A forced format is read as that format even where detection would say another: the tree path does it.
        let formats = formats.isEmpty ? EnvelopeFormat.allCases : formats
        guard formats.count == 1 ? formats[0] == found.0 : formats.contains(found.0) else { throw Fallback() }
        return found
    }

    /// v2: `[[items], start, end]`.
    private mutating func history() throws(Fallback) -> [Field] {
        var fields: [Field] = []
        var parts = 0
        guard try open(UInt8(ascii: "["), depth: 1) else { throw Fallback() }
        repeat {
            space()
            if parts == 0 {
                guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else { throw Fallback() }
                if try open(UInt8(ascii: "["), depth: 2) {
                    var index = 0
                    repeat {
                        space()
                        let start = position
                        if position < bytes.count, bytes[position] == UInt8(ascii: "{") {
                            let found = try members(depth: 3, .item)
                            if let message = found[0], let timetoken = found[1] {
                                fields.append(Field(range: message, index: index, timetoken: timetoken))
                            } else {
                                fields.append(Field(range: start..<position, index: index))
                            }
                        } else {
                            fields.append(Field(range: try value(depth: 2), index: index))
                        }
                        index += 1
                    } while try next(UInt8(ascii: "]"))
                }
            } else {
                _ = try value(depth: 1)
            }
            parts += 1
        } while try next(UInt8(ascii: "]"))
        guard parts == 3 else { throw Fallback() }
        return fields
    }

    /// An object at the top: v3 when its `channels` is an object, else subscribe with a `t` object and `m` array.
    private mutating func root() throws(Fallback) -> (EnvelopeFormat, [Field]) {
        var channels: [Field]?, items: [Field]?, seen = (channels: false, t: false, m: false), tObject = false
        if try open(UInt8(ascii: "{"), depth: 1) {
            repeat {
                let key = try key()
                space()
                guard position < bytes.count else { throw Fallback() }
                let first = bytes[position]
                if equal(key, #""channels""#) {
                    guard !seen.channels else { throw Fallback() }
                    seen.channels = true
                    if first == UInt8(ascii: "{") { channels = try v3Channels() } else { _ = try value(depth: 1) }
                } else if equal(key, #""t""#) {
                    guard !seen.t else { throw Fallback() }
                    seen.t = true
                    tObject = first == UInt8(ascii: "{")
                    _ = try value(depth: 1)
                } else if equal(key, #""m""#) {
                    guard !seen.m else { throw Fallback() }
                    seen.m = true
                    if first == UInt8(ascii: "[") { items = try subscribeItems() } else { _ = try value(depth: 1) }
                } else {
                    _ = try value(depth: 1)
                }
            } while try next(UInt8(ascii: "}"))
        }
        if let channels { return (.v3, channels) }
        guard tObject, let items else { throw Fallback() }
        return (.subscribe, items)
    }

    /// v3's `channels`: `{"name": [{"message": ..., "timetoken": ...}, ...], ...}`.
    private mutating func v3Channels() throws(Fallback) -> [Field] {
        var fields: [Field] = []
        guard try open(UInt8(ascii: "{"), depth: 2) else { return fields }
        repeat {
            let name = try key()
            space()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else { throw Fallback() }
            var index = 0
            if try open(UInt8(ascii: "["), depth: 3) {
                repeat {
                    space()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { throw Fallback() }
                    let found = try members(depth: 4, .item)
                    guard let message = found[0] else { throw Fallback() }
                    fields.append(Field(range: message, index: index, channel: name, timetoken: found[1]))
                    index += 1
                } while try next(UInt8(ascii: "]"))
            }
        } while try next(UInt8(ascii: "}"))
        return fields
    }

    /// Subscribe's `m`: the `d` of each item that `Envelope.isEncrypted` takes.
    private mutating func subscribeItems() throws(Fallback) -> [Field] {
        var fields: [Field] = []
        guard try open(UInt8(ascii: "["), depth: 2) else { return fields }
        var index = 0
        repeat {
            space()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { throw Fallback() }
            let found = try members(depth: 3, .subscribe)
            let channel = found[0].flatMap { bytes[$0.lowerBound] == UInt8(ascii: "\"") ? $0 : nil }
            if let payload = found[2], try isEncrypted(channel: channel, type: found[1]) {
                var timetoken: Range<Int>?
                if let p = found[3], bytes[p.lowerBound] == UInt8(ascii: "{") {
                    let end = position
                    position = p.lowerBound
                    timetoken = try members(depth: 4, .publish)[0]
                    position = end
                }
                fields.append(Field(range: payload, index: index, channel: channel, timetoken: timetoken))
            }
            index += 1
        } while try next(UInt8(ascii: "]"))
        return fields
    }

    /// `Envelope.isEncrypted` on the item's `c` (a string literal) and `e`.
    private func isEncrypted(channel: Range<Int>?, type: Range<Int>?) throws(Fallback) -> Bool {
        if let channel {
            let content = bytes[(channel.lowerBound + 1)..<(channel.upperBound - 1)]
            // An escape could spell the suffix another way: the tree path decides.
            guard !content.contains(UInt8(ascii: "\\")) else { throw Fallback() }
            let presence = Self.presence
            if content.count >= presence.count && content.suffix(presence.count).elementsEqual(presence) {
                // `hasSuffix` compares characters: a non-ASCII character before the `-` may join it (a prepended
                // mark), and then the tree path says it is no presence channel.
                let before = content.count > presence.count ? content.dropLast(presence.count).last : nil
                guard (before ?? 0) < 0x80 else { throw Fallback() }
                return false
            }
        }
        guard let type else { return true }
        let text = bytes[type]
        if text.elementsEqual(Self.null) || text.elementsEqual([UInt8(ascii: "0")])
            || text.elementsEqual([UInt8(ascii: "4")]) {
            return true
        }
        let first = text[text.startIndex]
        guard first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false   // a string, object, array or boolean: never encrypted
        }
        // Other integers are not 0 or 4; `-0`, fractions and exponents are left to the tree path.
        guard !text.elementsEqual(Array("-0".utf8)),
              text.dropFirst().allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw Fallback()
        }
        return false
    }

    // MARK: Values

    static let presence = Array("-pnpres".utf8), null = Array("null".utf8)

    private func equal(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard let base = bytes.baseAddress, literal.utf8CodeUnitCount == range.count else { return false }
        return memcmp(base + range.lowerBound, literal.utf8Start, range.count) == 0
    }

    /// The keys an object is read for: an item's `message` and `timetoken` (v2, v3), a subscribe item's `c`, `e`,
    /// `d`, `p`, or `p`'s `t`.
    enum Keys {
        case item, subscribe, publish
    }

    /// The value ranges of an object's members named by `Keys`, in their order.
    struct Found {
        var values: (Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?) = (nil, nil, nil, nil)

        subscript(_ index: Int) -> Range<Int>? {
            get {
                switch index {
                case 0: values.0
                case 1: values.1
                case 2: values.2
                default: values.3
                }
            }
            set {
                switch index {
                case 0: values.0 = newValue
                case 1: values.1 = newValue
                case 2: values.2 = newValue
                default: values.3 = newValue
                }
            }
        }
    }

    /// Which of `keys` the key literal at `range` is.
    private func match(_ range: Range<Int>, _ keys: Keys) -> Int? {
        switch keys {
        case .item:
            if equal(range, #""message""#) { return 0 }
            if equal(range, #""timetoken""#) { return 1 }
        case .subscribe:
            guard range.count == 3 else { return nil }
            switch bytes[range.lowerBound + 1] {
            case UInt8(ascii: "c"): return 0
            case UInt8(ascii: "e"): return 1
            case UInt8(ascii: "d"): return 2
            case UInt8(ascii: "p"): return 3
            default: return nil
            }
        case .publish:
            if equal(range, #""t""#) { return 0 }
        }
        return nil
    }

    /// Reads an object (at `position`), returning the value range of each of `keys`; a key found twice gives up
    /// (the tree path decides which member counts).
    private mutating func members(depth: Int, _ keys: Keys) throws(Fallback) -> Found {
        var found = Found()
        guard try open(UInt8(ascii: "{"), depth: depth) else { return found }
        repeat {
            let key = try key()
            let range = try value(depth: depth)
            if let which = match(key, keys) {
                guard found[which] == nil else { throw Fallback() }
                found[which] = range
            }
        } while try next(UInt8(ascii: "}"))
        return found
    }

    /// Skips whitespace, noting that there was some.
    private mutating func space() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09:
                hasSpace = true
                position += 1
            default:
                return
            }
        }
    }

    /// Reads `bracket` (the caller saw it) at nesting `depth`; false when the container is empty (and closed).
    private mutating func open(_ bracket: UInt8, depth: Int) throws(Fallback) -> Bool {
        guard depth < maxDepth else { throw Fallback() }   // one short of the parser's limit, to be safe
        position += 1
        space()
        guard position < bytes.count else { throw Fallback() }
        let close = bracket == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
        if bytes[position] == close {
            position += 1
            return false
        }
        return true
    }

    /// After an element: true after a comma (another follows), false after `close`.
    private mutating func next(_ close: UInt8) throws(Fallback) -> Bool {
        space()
        guard position < bytes.count else { throw Fallback() }
        let byte = bytes[position]
        position += 1
        if byte == UInt8(ascii: ",") { return true }
        guard byte == close else { throw Fallback() }
        return false
    }

    /// A member's key and its colon; the key's string literal.
    private mutating func key() throws(Fallback) -> Range<Int> {
        space()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw Fallback() }
        let start = position
        try string()
        let range = start..<position
        space()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw Fallback() }
        position += 1
        return range
    }

    /// One value of any kind, checked; its range (without the whitespace around it).
    private mutating func value(depth: Int) throws(Fallback) -> Range<Int> {
        space()
        guard position < bytes.count else { throw Fallback() }
        let start = position
        switch bytes[position] {
        case UInt8(ascii: "{"):
            if try open(UInt8(ascii: "{"), depth: depth + 1) {
                repeat {
                    _ = try key()
                    _ = try value(depth: depth + 1)
                } while try next(UInt8(ascii: "}"))
            }
        case UInt8(ascii: "["):
            if try open(UInt8(ascii: "["), depth: depth + 1) {
                repeat { _ = try value(depth: depth + 1) } while try next(UInt8(ascii: "]"))
            }
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
        return start..<position
    }

    private mutating func literal(_ word: StaticString) throws(Fallback) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw Fallback() }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] { throw Fallback() }
        position += count
    }

    /// RFC 8259's number.
    private mutating func number() throws(Fallback) {
        func digit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 0x30 && bytes[at] <= 0x39 }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard digit(position) else { throw Fallback() }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while digit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digit(position) else { throw Fallback() }
            while digit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digit(position) else { throw Fallback() }
            while digit(position) { position += 1 }
        }
    }

    /// A string literal (at its opening quote): valid UTF-8, no raw control characters, and escapes only as the
    /// compact writer writes them (`\" \\ \b \f \n \r \t`, `\u00xx` for the other control characters), so that
    /// the literal is what the tree path would write back.
    private mutating func string() throws(Fallback) {
        position += 1
        // Eight bytes at a time while none of them is `"`, `\`, a control character or non-ASCII.
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while position + 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                    | ((word &- ones &* 0x20) & ~word) | word
                if special & highs != 0 { break }
                position += 8
            }
        }
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"):
                try escape()
            case 0..<0x20:
                throw Fallback()
            case 0x20..<0x80:
                position += 1
            default:
                try scalar()
            }
        }
        throw Fallback()
    }

    private mutating func escape() throws(Fallback) {
        guard position + 1 < bytes.count else { throw Fallback() }
        switch bytes[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
             UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        case UInt8(ascii: "u"):
            // `\u00xx` with lowercase hex, for a control character without a short escape.
            guard position + 5 < bytes.count, bytes[position + 2] == UInt8(ascii: "0"),
                  bytes[position + 3] == UInt8(ascii: "0") else { throw Fallback() }
            let high = bytes[position + 4], low = bytes[position + 5]
            guard high == UInt8(ascii: "0") || high == UInt8(ascii: "1") else { throw Fallback() }
            let lowValue: UInt8
            switch low {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): lowValue = low - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): lowValue = low - UInt8(ascii: "a") + 10
            default: throw Fallback()
            }
            let value = (high - UInt8(ascii: "0")) * 16 + lowValue
            guard ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(value) else { throw Fallback() }
            position += 6
        default:
            throw Fallback()
        }
    }

    /// One UTF-8 sequence of 2 to 4 bytes (no overlong forms, surrogates or values above U+10FFFF).
    private mutating func scalar() throws(Fallback) {
        let lead = bytes[position]
        let count: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: count = 3; second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: count = 3; second = 0x80...0x9F
        case 0xF0: count = 4; second = 0x90...0xBF
        case 0xF1...0xF3: count = 4
        case 0xF4: count = 4; second = 0x80...0x8F
        default: throw Fallback()
        }
        guard position + count <= bytes.count, second.contains(bytes[position + 1]) else { throw Fallback() }
        for offset in 2..<max(2, count) where !(0x80...0xBF).contains(bytes[position + offset]) {
            throw Fallback()
        }
        position += count
    }

    // MARK: Output

    /// `bytes[range]` appended to `output`, without whitespace between tokens when the text has some.
    func copy(_ range: Range<Int>, to output: inout [UInt8]) {
        guard hasSpace else {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
            return
        }
        var inString = false, escaped = false
        for index in range {
            let byte = bytes[index]
            if inString {
                output.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte != 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09 {
                output.append(byte)
                inString = byte == UInt8(ascii: "\"")
            }
        }
    }

    /// Where a field is, as statuses report it.
    func location(_ field: Field) -> Envelope.Location {
        func parsed(_ range: Range<Int>?) -> JSONValue? {
            range.flatMap { try? JSONValue(parsing: UnsafeBufferPointer(rebasing: bytes[$0])) }
        }
        return Envelope.Location(index: field.index, channel: parsed(field.channel)?.stringValue,
                                 timetoken: parsed(field.timetoken))
    }

    var count: Int { bytes.count }
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

extension MessageCrypto {
    /// Decrypts a response given as text and writes it back: the same bytes as `Envelope(parsing:formats:)`,
    /// `decrypt(envelope:policy:statusForEveryFailure:)` and `serialized(style: style)`, without the tree when the
    /// text allows (`EnvelopeSplice`).
    /// With `channels`, each message is read with its channel's keys (`ChannelReading`; this value's are not used).
    /// - Throws: what `Envelope(parsing:formats:)` throws.
    package func decrypt(envelopeText text: UnsafeBufferPointer<UInt8>,
                         formats: [EnvelopeFormat] = EnvelopeFormat.allCases, policy: DecryptionPolicy,
                         statusForEveryFailure: Bool = false, channels: ChannelReading? = nil) throws(PNCryptError)
        -> DecryptedEnvelopeText {
        if style == .compact && leafScheme == nil,
           let spliced = splice(text, formats: formats, policy: policy, statusForEveryFailure: statusForEveryFailure,
                                channels: channels) {
            return spliced
        }
        let envelope = try Envelope(parsing: text, formats: formats)
        let result = channels?.decrypt(envelope: envelope, policy: policy,
                                       statusForEveryFailure: statusForEveryFailure)
            ?? decrypt(envelope: envelope, policy: policy, statusForEveryFailure: statusForEveryFailure)
        return DecryptedEnvelopeText(format: envelope.format, text: result.envelope.json.serialized(style: style),
                                     statuses: result.statuses, messages: result.messages)
    }

    /// The splice path of `decrypt(envelopeText:...)`; nil when the scan gives up.
    private func splice(_ text: UnsafeBufferPointer<UInt8>, formats: [EnvelopeFormat], policy: DecryptionPolicy,
                        statusForEveryFailure: Bool, channels: ChannelReading?) -> DecryptedEnvelopeText? {
        var scanner = EnvelopeSplice(text)
        let format: EnvelopeFormat, fields: [EnvelopeSplice.Field]
        do throws(EnvelopeSplice.Fallback) {
            (format, fields) = try scanner.scan(formats: formats)
        } catch {
            return nil
        }
        let reading = statusForEveryFailure ? DecryptionPolicy.marker : policy
        var output: [UInt8] = []
        output.reserveCapacity(text.count + text.count / 4)
        var statuses: [MessageStatus] = []
        var at = 0
        for field in fields {
            scanner.copy(at..<field.range.lowerBound, to: &output)
            at = field.range.upperBound
            let message = UnsafeBufferPointer(rebasing: text[field.range])
            var crypto = self, location: Envelope.Location?
            if let channels {   // the field's channel's keys, or its failure
                var found = scanner.location(field)
                switch channels.crypto(at: &found) {
                case .success(let chosen):
                    crypto = chosen
                    location = found
                case .failure(let error):
                    guard let value = try? JSONValue(parsing: message) else { return nil }
                    let missing = channels.missing(value, at: found, error: error, policy: policy)
                    statuses.append(missing.status)
                    if policy == .passThrough {
                        scanner.copy(field.range, to: &output)
                    } else {
                        missing.message.withSerialized(style: .compact) { output.append(contentsOf: $0) }
                    }
                    continue
                }
            }
            // The usual message straight to its text, with no value made; anything else the full way.
            if crypto.withDecryptedText(stringLiteral: UnsafeRawBufferPointer(message), style: .compact, {
                output.append(contentsOf: $0)
            }) {
                continue
            }
            // The field is valid JSON, so the text parses: no error to report here.
            guard let result = try? crypto.decrypt(jsonText: message, policy: reading) else { return nil }
            if let status = result.status {
                statuses.append(status.located(location ?? scanner.location(field)))
                if policy == .passThrough {
                    scanner.copy(field.range, to: &output)
                    continue
                }
            }
            result.message.withSerialized(style: .compact) { output.append(contentsOf: $0) }
        }
        scanner.copy(at..<scanner.count, to: &output)
        return DecryptedEnvelopeText(format: format, text: output, statuses: statuses, messages: fields.count)
    }
}
