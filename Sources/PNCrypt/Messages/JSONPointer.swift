import PNCryptBase
import PNCryptJSON

/// An RFC 6901 JSON Pointer: which field of a record holds the message (`/message`, `/payload/text`,
/// `/items/0`), for the field-wise calls (`MessageCrypto.encrypt(field:of:raw:)`,
/// `MessageCrypto.decrypt(field:of:policy:)`, `MessageRekey.rekey(field:of:)`, `MessageStream.field`).
///
/// ```swift
/// let pointer = try JSONPointer("/message")
/// let record = Array(#"{"channel":"ch", "message":"06UDjczkvAAYcqWfNwkOiQ==","n":1.10}"#.utf8)
/// let range = try pointer.range(in: record)   // the bytes of "06UDjczkvAAYcqWfNwkOiQ==", quotes included
/// ```
///
/// - The pointer is `""` (the whole document) or `/` followed by reference tokens separated by `/`; in a token
///   `~1` stands for `/` and `~0` for `~`, and any other `~` is refused.
/// - A token names an object member by its key (compared code point by code point, after the key's escapes are
///   decoded), or an array element by its index (`0`, or digits without a leading zero); `-` (past the end)
///   names nothing.
/// - A key repeated in one object: the **last** member counts, as `JSONObject` (JavaScript's `JSON.parse`,
///   Python's `json.loads`) reads it, so the field found is the one those parsers would give an application.
/// - The record (the text a non-empty pointer is followed in) must be a JSON object, as an export's records are.
/// - Bounded: a pointer is at most `maxLength` bytes and `maxTokens` tokens; the record is parsed (and so checked)
///   as any message is, within 512 levels of nesting.
public struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    /// The reference tokens, unescaped (`/a~1b` is `["a/b"]`); empty for the whole document.
    public let tokens: [String]
    /// The pointer as it was given (`/message`).
    public let description: String

    /// The longest pointer accepted, in bytes of UTF-8.
    public static let maxLength = 1024
    /// The most reference tokens a pointer may have (each is one level of nesting).
    public static let maxTokens = 64

    /// What a pointer looks like, for errors that refuse one.
    public static let syntaxHint = "a JSON Pointer (RFC 6901) is \"\" or starts with '/': /message, "
        + "/payload/text, /items/0; in a key '~1' stands for '/' and '~0' for '~'"

    /// Parses a pointer.
    /// - Parameter text: the pointer (`/message`); `""` names the whole document.
    /// - Throws: `invalidValue` (saying what a pointer looks like) when `text` does not start with `/`, has a `~`
    ///   not followed by `0` or `1`, or is longer than `maxLength` bytes or `maxTokens` tokens.
    public init(_ text: String) throws(PNCryptError) {
        description = text
        guard !text.isEmpty else {
            tokens = []
            return
        }
        func refuse(_ why: String) -> PNCryptError {
            PNCryptError(.invalidValue, "invalid JSON Pointer \(Self.quoted(text)): \(why); \(Self.syntaxHint)")
        }
        guard text.utf8.count <= Self.maxLength else {
            throw refuse("longer than \(Self.maxLength) bytes")
        }
        guard text.utf8.first == UInt8(ascii: "/") else { throw refuse("it does not start with '/'") }
        var tokens: [String] = []
        for raw in text.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            var token: [UInt8] = []
            var iterator = raw.makeIterator()
            while let byte = iterator.next() {
                guard byte == UInt8(ascii: "~") else {
                    token.append(byte)
                    continue
                }
                switch iterator.next() {
                case UInt8(ascii: "0"): token.append(UInt8(ascii: "~"))
                case UInt8(ascii: "1"): token.append(UInt8(ascii: "/"))
                default: throw refuse("'~' must be followed by 0 or 1")
                }
            }
            tokens.append(String(decoding: token, as: UTF8.self))
        }
        guard tokens.count <= Self.maxTokens else { throw refuse("more than \(Self.maxTokens) tokens") }
        self.tokens = tokens
    }

    /// The pointer to the record's member `key` (`/key`), for a key that holds no `/` or `~`.
    init(member key: String) {
        tokens = [key]
        description = "/" + key
    }

    /// Whether the pointer is `""`: the whole document (the field-wise calls then act on the whole text).
    public var isWholeDocument: Bool { tokens.isEmpty }

    /// The pointer quoted for a message (`"/message"`), with control characters escaped.
    static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).serialized(), as: UTF8.self)
    }

    /// The byte range, in `text`, of the value this pointer names (without the whitespace around it).
    /// - Parameter text: one JSON text (a record), parsed and checked as a message is.
    /// - Throws: `invalidJSON` or `jsonTooDeep` when the text does not parse; `invalidValue` naming the pointer when
    ///   the text has no such value (a missing key, an index out of range, a token that meets a number, string or
    ///   literal, or a record that is not a JSON object).
    public func range(in text: some Collection<UInt8>) throws(PNCryptError) -> Range<Int> {
        try withBytes(text) { (bytes) throws(PNCryptError) in
            try range(in: bytes.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// `range(in:)` over contiguous bytes.
    package func range(in text: UnsafeBufferPointer<UInt8>) throws(PNCryptError) -> Range<Int> {
        let value = try JSONParser.parse(text, maxDepth: JSONValue.defaultMaxDepth)
        let first = text.firstIndex(where: { !isSpace($0) }) ?? 0
        guard !tokens.isEmpty else {
            let last = text.lastIndex(where: { !isSpace($0) }) ?? first
            return first..<last + 1
        }
        // A text whose value is an object is parsed into one document with a node for each value: the walk reads
        // the nodes (where each string and number lies) and only skips the whitespace and punctuation between them.
        guard case .object(let object) = value, let view = object.view else {
            throw missing(0, "the record is not a JSON object")
        }
        let walk = FieldWalk(text: text, document: view.document)
        var node = view.node
        var start = first
        for (depth, token) in tokens.enumerated() {
            let current = view.document.node(node)
            switch current.kind {
            case .object:
                let children = Int(current.start)
                // The last member with the key counts (see above).
                guard let member = (0..<Int(current.count)).reversed().first(where: {
                    walk.isKey(token, at: children + 2 * $0)
                }) else {
                    throw missing(depth, "no member \(Self.quoted(token))")
                }
                start = walk.valueStart(afterKey: children + 2 * member)
                node = children + 2 * member + 1
            case .array:
                guard let index = Self.arrayIndex(token), index < Int(current.count) else {
                    throw missing(depth, Self.arrayIndex(token) == nil
                                  ? "\(Self.quoted(token)) is not an array index"
                                  : "the array has \(Int(current.count).counting("element"))")
                }
                start = walk.elementStart(of: node, at: start, index: index)
                node = Int(current.start) + index
            default:
                throw missing(depth, "it is not an object or array")
            }
        }
        return start..<walk.end(of: node, at: start)
    }

    /// The error for a value that is not there: `/a/b` was followed to `/a` (`depth` tokens), where `why`.
    private func missing(_ depth: Int, _ why: String) -> PNCryptError {
        let reached = depth == 0 ? "the record" : Self.quoted(Self.prefix(tokens[..<depth]))
        return PNCryptError(.invalidValue, "no field \(Self.quoted(description)): at \(reached), \(why)")
    }

    /// The pointer text of `tokens`.
    static func prefix(_ tokens: ArraySlice<String>) -> String {
        tokens.map { "/" + $0.replacingAll("~", by: "~0").replacingAll("/", by: "~1") }.joined()
    }

    /// The array index a token names (`0`, or digits without a leading zero), nil for any other token.
    static func arrayIndex(_ token: String) -> Int? {
        let utf8 = token.utf8
        guard let first = utf8.first, utf8.count <= 18, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              first != UInt8(ascii: "0") || utf8.count == 1 else { return nil }
        return Int(token)
    }
}

private extension String {
    /// The string with every `target` character replaced by `replacement`.
    func replacingAll(_ target: Character, by replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}

/// Where the values of a parsed document lie in its text: strings and numbers from their nodes, the rest
/// (literals, containers, integers) from the positions between them, skipping only whitespace and punctuation.
private struct FieldWalk {
    let text: UnsafeBufferPointer<UInt8>
    let document: JSONDocument

    /// Whether the key node at `index` is `token`, code point by code point (RFC 6901).
    func isKey(_ token: String, at index: Int) -> Bool {
        let node = document.node(index)
        if node.kind == .plainString || node.kind == .utf8String {
            let start = Int(node.start)
            return token.utf8.elementsEqual(UnsafeBufferPointer(rebasing: text[start..<start + Int(node.count)]))
        }
        return document.string(at: index).unicodeScalars.elementsEqual(token.unicodeScalars)
    }

    /// The first byte at or after `position` that is not whitespace.
    func skipSpace(_ position: Int) -> Int {
        var position = position
        while position < text.count && isSpace(text[position]) { position += 1 }
        return position
    }

    /// Past whitespace, one byte of punctuation (`:` or `,`, or a bracket), and whitespace.
    func skipPunctuation(_ position: Int) -> Int {
        skipSpace(skipSpace(position) + 1)
    }

    /// Where the value of the member whose key node is at `keyIndex` starts.
    func valueStart(afterKey keyIndex: Int) -> Int {
        let key = document.node(keyIndex)
        // The key's content, then its closing quote, whitespace, the colon, whitespace.
        return skipPunctuation(Int(key.start) + Int(key.count) + 1)
    }

    /// Where element `index` of the array at node `array` (whose `[` is at `start`) starts.
    func elementStart(of array: Int, at start: Int, index: Int) -> Int {
        let first = Int(document.node(array).start)
        var position = skipPunctuation(start)
        for element in 0..<index {
            position = skipPunctuation(end(of: first + element, at: position))
        }
        return position
    }

    /// Where the value of node `index`, which starts at `start`, ends.
    func end(of index: Int, at start: Int) -> Int {
        let node = document.node(index)
        switch node.kind {
        case .null, .trueValue: return start + 4
        case .falseValue: return start + 5
        case .number: return Int(node.start) + Int(node.count)
        case .plainString, .utf8String, .escapedString: return Int(node.start) + Int(node.count) + 1
        case .int:
            var position = start
            while position < text.count, text[position] == UInt8(ascii: "-")
                    || (text[position] >= 0x30 && text[position] <= 0x39) {
                position += 1
            }
            return position
        case .object, .array:
            guard node.count > 0 else { return skipSpace(start + 1) + 1 }
            let last: Int, lastStart: Int
            if node.kind == .object {
                last = Int(node.start) + 2 * (Int(node.count) - 1) + 1
                lastStart = valueStart(afterKey: last - 1)
            } else {
                last = Int(node.start) + Int(node.count) - 1
                lastStart = elementStart(of: index, at: start, index: Int(node.count) - 1)
            }
            return skipSpace(end(of: last, at: lastStart)) + 1
        case .made:
            preconditionFailure("a parser's node in a document")
        }
    }
}
