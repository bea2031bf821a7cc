import PNCryptBase
import PNCryptPlatform
import PNCryptJSON
import PNCryptCore

/// The envelope path without a tree: a response's text is checked as JSON by the one grammar loop, which keeps its
/// values down to the deepest field (`JSONParser.skeleton`); the byte ranges of its encrypted fields (v2 items or
/// their `message`, v3 `message`, subscribe `d` of messages and file messages) are found in that skeleton, only
/// those are decrypted (`EnvelopeReading`, as the tree path reads them), and the results are spliced into a copy
/// of the text. Everything else is copied, so key order, numbers and timetoken strings are kept by construction.
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
    /// The text's values down to the deepest field (`JSONSkeleton`).
    private var skeleton = JSONSkeleton()
    /// Whether the text has whitespace between tokens (the output is then written without it).
    private(set) var hasSpace = false

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Shapes

    /// Checks the whole text and tells its format (as `Envelope.detect`, then `check`) and its encrypted fields.
    mutating func scan(formats: [EnvelopeFormat]) throws(Fallback) -> (EnvelopeFormat, [Field]) {
        // The grammar loop keeps the values down to the deepest field: v2's at level 4, v3's and subscribe's at 5
        // (`p.t`); its depth limit one level short of the parser's, to be safe.
        let levels = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 })
            == UInt8(ascii: "[") ? 4 : 5
        do throws(PNCryptError) {
            skeleton = try JSONParser.skeleton(bytes, levels: levels, maxDepth: JSONValue.defaultMaxDepth - 1)
        } catch {
            throw Fallback()
        }
        guard skeleton.compactEscapes else { throw Fallback() }
        hasSpace = skeleton.hasSpace
        let found = try skeleton.nodes.withUnsafeBufferPointer {
            (buffer) throws(Fallback) -> (EnvelopeFormat, [Field]) in
            let nodes = Nodes(buffer: buffer)
            if nodes[0].isArray { return (.v2, try history(nodes)) }
            if nodes[0].isObject { return try root(nodes) }
            throw Fallback()
        }
        // A forced format is read as that format even where detection would say another: the tree path does it.
        let formats = formats.isEmpty ? EnvelopeFormat.allCases : formats
        guard formats.count == 1 ? formats[0] == found.0 : formats.contains(found.0) else { throw Fallback() }
        return found
    }

    /// v2: `[[items], start, end]`.
    private func history(_ nodes: Nodes) throws(Fallback) -> [Field] {
        var fields: [Field] = []
        var parts = 0
        for part in nodes.children(of: 0) {
            if parts == 0 {
                guard nodes[part].isArray else { throw Fallback() }
                for (index, item) in nodes.children(of: part).enumerated() {
                    let found = nodes[item].isObject ? try members(of: item, .item, nodes) : Found()
                    if let message = found[0], let timetoken = found[1] {
                        fields.append(Field(range: nodes[message].range, index: index,
                                            timetoken: nodes[timetoken].range))
                    } else {
                        fields.append(Field(range: nodes[item].range, index: index))
                    }
                }
            }
            parts += 1
        }
        guard parts == 3 else { throw Fallback() }
        return fields
    }

    /// An object at the top: v3 when its `channels` is an object, else subscribe with a `t` object and `m` array.
    private func root(_ nodes: Nodes) throws(Fallback) -> (EnvelopeFormat, [Field]) {
        var channels: [Field]?, items: [Field]?, seen = (channels: false, t: false, m: false), tObject = false
        for member in nodes.children(of: 0) {
            let key = nodes[member].key!
            if equal(key, #""channels""#) {
                guard !seen.channels else { throw Fallback() }
                seen.channels = true
                if nodes[member].isObject { channels = try v3Channels(member, nodes) }
            } else if equal(key, #""t""#) {
                guard !seen.t else { throw Fallback() }
                seen.t = true
                tObject = nodes[member].isObject
            } else if equal(key, #""m""#) {
                guard !seen.m else { throw Fallback() }
                seen.m = true
                if nodes[member].isArray { items = try subscribeItems(member, nodes) }
            }
        }
        if let channels { return (.v3, channels) }
        guard tObject, let items else { throw Fallback() }
        return (.subscribe, items)
    }

    /// v3's `channels`: `{"name": [{"message": ..., "timetoken": ...}, ...], ...}`.
    private func v3Channels(_ channels: Int, _ nodes: Nodes) throws(Fallback) -> [Field] {
        var fields: [Field] = []
        for list in nodes.children(of: channels) {
            guard nodes[list].isArray else { throw Fallback() }
            for (index, item) in nodes.children(of: list).enumerated() {
                guard nodes[item].isObject else { throw Fallback() }
                let found = try members(of: item, .item, nodes)
                guard let message = found[0] else { throw Fallback() }
                fields.append(Field(range: nodes[message].range, index: index, channel: nodes[list].key,
                                    timetoken: found[1].map { nodes[$0].range }))
            }
        }
        return fields
    }

    /// Subscribe's `m`: the `d` of each item that `Envelope.isEncrypted` takes.
    private func subscribeItems(_ list: Int, _ nodes: Nodes) throws(Fallback) -> [Field] {
        var fields: [Field] = []
        for (index, item) in nodes.children(of: list).enumerated() {
            guard nodes[item].isObject else { throw Fallback() }
            let found = try members(of: item, .subscribe, nodes)
            let channel = found[0].flatMap { nodes[$0].isString ? nodes[$0].range : nil }
            if let payload = found[2], try isEncrypted(channel: channel, type: found[1].map { nodes[$0].range }) {
                var timetoken: Range<Int>?
                if let p = found[3], nodes[p].isObject {
                    timetoken = try members(of: p, .publish, nodes)[0].map { nodes[$0].range }
                }
                fields.append(Field(range: nodes[payload].range, index: index, channel: channel, timetoken: timetoken))
            }
        }
        return fields
    }

    /// The skeleton's nodes in place, read without copies of the array (the scan's per-message work).
    private struct Nodes {
        let buffer: UnsafeBufferPointer<JSONSkeleton.Node>

        subscript(_ index: Int) -> JSONSkeleton.Node { buffer[index] }

        /// The children of the node at `index` (an object's members, an array's elements), as node indices.
        func children(of index: Int) -> Children {
            Children(buffer: buffer, index: index + 1, end: buffer[index].next)
        }
    }

    /// The node indices of one container's children, in order.
    private struct Children: Sequence, IteratorProtocol {
        let buffer: UnsafeBufferPointer<JSONSkeleton.Node>
        var index: Int
        let end: Int

        mutating func next() -> Int? {
            guard index < end else { return nil }
            defer { index = buffer[index].next }
            return index
        }
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

    /// The nodes of an object's members named by `Keys`, in their order.
    struct Found {
        var values: (Int?, Int?, Int?, Int?) = (nil, nil, nil, nil)

        subscript(_ index: Int) -> Int? {
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

    /// The members of the object at node `object` named by `keys`; a key found twice gives up (the tree path
    /// decides which member counts).
    private func members(of object: Int, _ keys: Keys, _ nodes: Nodes) throws(Fallback) -> Found {
        var found = Found()
        for member in nodes.children(of: object) {
            if let which = match(nodes[member].key!, keys) {
                guard found[which] == nil else { throw Fallback() }
                found[which] = member
            }
        }
        return found
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

extension JSONSkeleton.Node {
    // Kinds matched as patterns: `==` on another module's enum is a call through `Equatable`.
    fileprivate var isObject: Bool { if case .object = kind { true } else { false } }
    fileprivate var isArray: Bool { if case .array = kind { true } else { false } }
    fileprivate var isString: Bool { if case .string = kind { true } else { false } }
}
