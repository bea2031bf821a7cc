import PNCryptBase

// A parsed JSON object kept as its text and a table of nodes, in one heap block: what `JSONParser.parse` makes of a
// text whose value is an object (a message), and of each object in a text's arrays outside every other object
// (the messages of a history: a block each, the arrays around them made). `JSONObject` is then a view of one
// object node, and its members are made into `JSONValue`s only when read; the writer writes a view from its nodes,
// or, in the compact style, a text with no whitespace and no escaped string as it is. Parsing a message so makes
// one heap object instead of one per array, object and long string, and dropping it frees one.
//
// Layout: `header` counts the nodes and the text's bytes and says whether the text is compact; the elements are the
// nodes, then the text's bytes and `textPadding` zero bytes in whole nodes' worth of space. Nothing in the block
// changes after `make`, so views share it across threads.

/// One value of a parsed document.
package struct JSONNode {
    package enum Kind: UInt8 {
        case null, falseValue, trueValue
        /// A number that is an `Int64` in canonical spelling: `start` is its value.
        case int
        /// Any other number: its literal text.
        case number
        /// A string of ASCII with no escape: its content is its value.
        case plainString
        /// A string with non-ASCII (valid UTF-8) and no escape: its content is its value.
        case utf8String
        /// A string with an escape: its content decodes as `JSONParser` decodes strings.
        case escapedString
        /// An array: `count` elements, the nodes from `start` on.
        case array
        /// An object: `count` members, each a key node then a value node, from `start` on.
        case object
        /// Only among a parse's nodes outside every object, never in a document: an object already made into a
        /// document, `start` its index among the parser's made values.
        case made
    }

    package var kind: Kind
    /// Text kinds: the length in bytes of the literal or of the string's content (between its quotes); containers:
    /// how many elements or members.
    package var count: UInt32
    /// Text kinds: the offset of the literal or of the string's content in the text; containers: the index of the
    /// first child node; `int`: the value.
    package var start: Int64

    @inline(__always)
    package init(_ kind: Kind, count: Int = 0, start: Int = 0) {
        self.kind = kind
        self.count = UInt32(truncatingIfNeeded: count)
        self.start = Int64(start)
    }
}

/// A parsed object's text and nodes (see above). Immutable once made, so views share it across threads.
package final class JSONDocument: ManagedBuffer<JSONDocument.Header, JSONNode> {
    package struct Header {
        var nodeCount: Int
        var textCount: Int
        /// Whether the text is as the compact style writes the root: no whitespace, no escaped string.
        var verbatim: Bool
    }

    /// How many zero bytes follow the text, so that the writer may load 16 bytes from any string's start.
    package static let textPadding = 16

    /// The longest text a document holds (node offsets are 32-bit counts); the parser builds longer texts eagerly.
    package static let maxTextCount = Int(UInt32.max)

    /// A document holding a copy of `text` and `nodes`, whose offsets in the parser's text and node index are
    /// `textOffset` and `nodeOffset` more than in the document; `verbatim`: whether the text is as the compact
    /// style writes it (no whitespace, no escaped string).
    package static func make(text: UnsafeBufferPointer<UInt8>, nodes: UnsafeBufferPointer<JSONNode>,
                             textOffset: Int, nodeOffset: Int, verbatim: Bool) -> JSONDocument {
        let stride = MemoryLayout<JSONNode>.stride
        // The text, then `textPadding` zero bytes.
        let textNodes = (text.count + textPadding + stride - 1) / stride
        let buffer = create(minimumCapacity: nodes.count + textNodes) { _ in
            Header(nodeCount: nodes.count, textCount: text.count, verbatim: verbatim)
        }
        let document = unsafeDowncast(buffer, to: JSONDocument.self)
        document.withUnsafeMutablePointerToElements { elements in
            elements.initialize(from: nodes.baseAddress!, count: nodes.count)
            if textOffset != 0 || nodeOffset != 0 {
                for index in 0..<nodes.count {
                    switch elements[index].kind {
                    case .number, .plainString, .utf8String, .escapedString: elements[index].start -= Int64(textOffset)
                    case .array, .object: elements[index].start -= Int64(nodeOffset)
                    case .null, .falseValue, .trueValue, .int, .made: break
                    }
                }
            }
            let textStart = UnsafeMutableRawPointer(elements + nodes.count)
            if let source = text.baseAddress {
                textStart.copyMemory(from: source, byteCount: text.count)
            }
            (textStart + text.count).initializeMemory(as: UInt8.self, repeating: 0, count: textPadding)
        }
        return document
    }

    deinit {
        // The text is a message's plaintext: wiped before the block goes back to the allocator.
        withUnsafeMutablePointers { header, elements in
            wipe(UnsafeMutableRawPointer(elements + header.pointee.nodeCount), count: header.pointee.textCount)
        }
    }

    /// The node at `index`.
    @inline(__always)
    package func node(_ index: Int) -> JSONNode {
        withUnsafeMutablePointerToElements { $0[index] }
    }

    /// `body` over the `count` bytes of the text from `start`.
    @inline(__always)
    package func withText<R>(start: Int64, count: UInt32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeMutablePointers { header, elements in
            let text = UnsafeRawPointer(elements + header.pointee.nodeCount).assumingMemoryBound(to: UInt8.self)
            return body(UnsafeBufferPointer(start: text + Int(start), count: Int(count)))
        }
    }

    /// The whole text. (Read through the pointers: `header`, a class's stored property, would check exclusive
    /// access at run time on every read.)
    @inline(__always)
    package func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeMutablePointers { header, elements in
            let text = UnsafeRawPointer(elements + header.pointee.nodeCount).assumingMemoryBound(to: UInt8.self)
            return body(UnsafeBufferPointer(start: text, count: header.pointee.textCount))
        }
    }

    // MARK: - Values

    /// The value of the node at `index`; an object is a view of this document, anything else is made.
    package func value(at index: Int) -> JSONValue {
        let node = node(index)
        switch node.kind {
        case .array:
            let first = Int(node.start)
            return .array((0..<Int(node.count)).map { value(at: first + $0) })
        case .object:
            return .object(JSONObject(document: self, node: index))
        default:
            return withText { Self.scalar(node, in: $0) }
        }
    }

    /// The value of `node`, which is neither an array nor an object, in `text` (a document's or a parser's).
    static func scalar(_ node: JSONNode, in text: UnsafeBufferPointer<UInt8>) -> JSONValue {
        switch node.kind {
        case .null: return .null
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .int: return .number(JSONNumber(parsedInt: node.start))
        case .number:
            let start = Int(node.start)
            return .number(JSONNumber(validatedLiteral: String(decoding: text[start..<start + Int(node.count)],
                                                               as: UTF8.self)))
        case .plainString, .utf8String, .escapedString:
            return .string(string(node, in: text))
        case .array, .object, .made:
            preconditionFailure("not a scalar node")
        }
    }

    /// The string of the string node at `index`.
    package func string(at index: Int) -> String {
        withText { Self.string(node(index), in: $0) }
    }

    /// The string of the string node `node` in `text`.
    @inline(__always)
    static func string(_ node: JSONNode, in text: UnsafeBufferPointer<UInt8>) -> String {
        if node.kind == .escapedString {
            return JSONParser.decodeString(in: text, contentStart: Int(node.start))
        }
        let content = UnsafeBufferPointer(rebasing: text[Int(node.start)..<Int(node.start) + Int(node.count)])
        if node.kind == .plainString && content.count <= SmallASCII.capacity && SmallASCII.isAvailable {
            return SmallASCII.make(content.baseAddress!, count: content.count, readable: content.count)
        }
        return String(decoding: content, as: UTF8.self)
    }

    /// Whether the string node at `index` is `key`: bytes compared when both are ASCII (where `String`'s
    /// equality is byte equality), `String` equality otherwise (canonical equivalence, as for any `String`).
    package func isKey(_ key: String, at index: Int, keyIsASCII: Bool) -> Bool {
        let node = node(index)
        guard keyIsASCII && node.kind == .plainString else { return string(at: index) == key }
        var key = key
        return key.withUTF8 { utf8 in
            utf8.count == Int(node.count) && withText(start: node.start, count: node.count) { content in
                utf8.elementsEqual(content)
            }
        }
    }

    // MARK: - Writing

    /// Writes the object at `index` as `write(at:into:)` does; the root of a verbatim text in the compact style is
    /// its text, copied.
    package func write(object index: Int, into writer: inout JSONWriter) {
        let copied = writer.copiesVerbatim && withUnsafeMutablePointers { header, elements in
            guard header.pointee.verbatim && index == header.pointee.nodeCount - 1 else { return false }
            let text = UnsafeRawPointer(elements + header.pointee.nodeCount).assumingMemoryBound(to: UInt8.self)
            writer.writeVerbatim(UnsafeBufferPointer(start: text, count: header.pointee.textCount))
            return true
        }
        if !copied { write(at: index, into: &writer) }
    }

    /// Writes the value of the node at `index` as `JSONWriter.write` writes that value (the writer's style must
    /// be exact: `JSONStyle.isExact`).
    package func write(at index: Int, into writer: inout JSONWriter) {
        let node = node(index)
        switch node.kind {
        case .null: writer.writeLiteral("null")
        case .falseValue: writer.writeLiteral("false")
        case .trueValue: writer.writeLiteral("true")
        case .int: writer.writeNumber(JSONNumber(parsedInt: node.start))
        case .number, .escapedString:
            // Rare in messages: through the value.
            switch value(at: index) {
            case .number(let number): writer.writeNumber(number)
            case .string(let string): writer.writeString(string)
            default: break
            }
        case .plainString, .utf8String:
            // The bytes after the string, to the padding's end, may be loaded too (a word at a time).
            withText { text in
                let start = Int(node.start)
                writer.writeString(utf8: UnsafeBufferPointer(rebasing: text[start..<start + Int(node.count)]),
                                   readable: text.count + Self.textPadding - start, ascii: node.kind == .plainString)
            }
        case .made:
            preconditionFailure("a parser's node in a document")
        case .array, .object:
            let isObject = node.kind == .object
            writer.writeStructure(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
            let first = Int(node.start)
            for child in 0..<Int(node.count) {
                if child > 0 { writer.writeSeparator() }
                if isObject {
                    write(at: first + 2 * child, into: &writer)
                    writer.writeKeySeparator()
                    write(at: first + 2 * child + 1, into: &writer)
                } else {
                    write(at: first + child, into: &writer)
                }
            }
            writer.writeStructure(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }
}
