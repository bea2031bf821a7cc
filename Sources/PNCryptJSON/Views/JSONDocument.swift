import PNCryptBase

// A parsed JSON object kept as its text and a table of nodes, in one heap block: what `JSONParser.parse` makes of a
// text whose value is an object (a message). `JSONObject` is then a view of one object node, and its members are
// made into `JSONValue`s only when read; the writer writes a view from its nodes. Parsing a message so makes one
// heap object instead of one per array, object and long string, and dropping it frees one.
//
// Layout: `header` counts the nodes and the text's bytes; the elements are the nodes, then the text's bytes in
// whole nodes' worth of space. Nothing in the block changes after `make`, so views share it across threads.

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
    }

    /// The longest text a document holds (node offsets are 32-bit counts); the parser builds longer texts eagerly.
    package static let maxTextCount = Int(UInt32.max)

    /// A document holding a copy of `text` and `nodes`.
    package static func make(text: UnsafeBufferPointer<UInt8>, nodes: UnsafeBufferPointer<JSONNode>) -> JSONDocument {
        let stride = MemoryLayout<JSONNode>.stride
        let textNodes = (text.count + stride - 1) / stride
        let buffer = create(minimumCapacity: nodes.count + textNodes) { _ in
            Header(nodeCount: nodes.count, textCount: text.count)
        }
        let document = unsafeDowncast(buffer, to: JSONDocument.self)
        document.withUnsafeMutablePointerToElements { elements in
            elements.initialize(from: nodes.baseAddress!, count: nodes.count)
            if let source = text.baseAddress {
                UnsafeMutableRawPointer(elements + nodes.count).copyMemory(from: source, byteCount: text.count)
            }
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

    /// The whole text.
    package func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withText(start: 0, count: UInt32(truncatingIfNeeded: header.textCount), body)
    }

    // MARK: - Values

    /// The value of the node at `index`; an object is a view of this document, anything else is made.
    package func value(at index: Int) -> JSONValue {
        let node = node(index)
        switch node.kind {
        case .null: return .null
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .int: return .number(JSONNumber(parsedInt: node.start))
        case .number:
            return .number(JSONNumber(validatedLiteral: withText(start: node.start, count: node.count) {
                String(decoding: $0, as: UTF8.self)
            }))
        case .plainString, .utf8String, .escapedString:
            return .string(string(at: index))
        case .array:
            let first = Int(node.start)
            return .array((0..<Int(node.count)).map { value(at: first + $0) })
        case .object:
            return .object(JSONObject(document: self, node: index))
        }
    }

    /// The string of the string node at `index`.
    package func string(at index: Int) -> String {
        let node = node(index)
        if node.kind == .escapedString {
            return withText { JSONParser.decodeString(in: $0, contentStart: Int(node.start)) }
        }
        return withText(start: node.start, count: node.count) { content in
            if node.kind == .plainString && content.count <= SmallASCII.capacity && SmallASCII.isAvailable {
                return SmallASCII.make(content.baseAddress!, count: content.count, readable: content.count)
            }
            return String(decoding: content, as: UTF8.self)
        }
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
            withText(start: node.start, count: node.count) { writer.writeString(utf8: $0) }
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
