// The grammar loop's sink that keeps a text's shallow structure (`JSONSkeleton`): each value down to a given
// level, where it lies and under which key; deeper values only as part of the text of the value that holds them.
// The envelope path's field finder reads it (PNCrypt's EnvelopeSplice.swift), so a response is checked with the
// grammar, checks and limits of every parse, and its fields are found by their place in it.

import PNCryptBase

/// The shallow structure of one JSON text: its values down to `levels` deep (the text's value is level 1), in
/// document order, each with the range of its text and, for an object's member, of its key.
package struct JSONSkeleton: Sendable {
    /// One value.
    package struct Node: Sendable {
        /// What kind of value it is.
        package enum Kind: UInt8, Sendable {
            case string, number, literal, array, object
        }

        /// What kind of value it is.
        package var kind: Kind
        /// The value's text, without the white space around it.
        package var range: Range<Int>
        /// The member's key literal, quotes included (nil for an array's element or the text's value).
        package var key: Range<Int>?
        /// The index of the first node after this value's descendants (the nodes between are its descendants;
        /// none for a container at the deepest level kept): a container's children are the node after it, that
        /// node's `next`, and so on before its own `next`.
        package var next: Int
    }

    /// The values, the text's value first, each container before its descendants.
    package var nodes: [Node]
    /// Whether the text has white space between tokens.
    package var hasSpace: Bool
    /// Whether every string with an escape is written as the compact writer writes it (`\" \\ \b \f \n \r \t`,
    /// `\u00xx` in lowercase for the other control characters): then a text without white space is its compact
    /// form.
    package var compactEscapes: Bool

    /// A skeleton of no text (no nodes), for a value to hold one before it has one.
    package init() {
        self.init(nodes: [], hasSpace: false, compactEscapes: true)
    }

    init(nodes: [Node], hasSpace: Bool, compactEscapes: Bool) {
        self.nodes = nodes
        self.hasSpace = hasSpace
        self.compactEscapes = compactEscapes
    }
}

/// Records the values down to `levels` deep as `JSONSkeleton.Node`s, each at its start (a container's range and
/// `next` are completed when it closes). Strings are read and checked by the parser's functions; numbers and
/// literals too.
struct SkeletonSink: JSONSink {
    private let levels: Int
    fileprivate var nodes: [JSONSkeleton.Node] = []
    /// The containers open now.
    private var level = 0
    /// The key of the member whose value comes next.
    private var key: Range<Int>?
    /// The node of the container opening now, -1 when it is too deep to keep.
    private var opening = -1
    fileprivate var compactEscapes = true

    init(levels: Int, capacity: Int) {
        self.levels = levels
        nodes.reserveCapacity(capacity)
    }

    /// A value of `kind` at `range` in the innermost open container: kept when it is not too deep, as the node
    /// returned (-1 otherwise). Each value takes the key read before it.
    @inline(__always)
    private mutating func add(_ kind: JSONSkeleton.Node.Kind, _ range: Range<Int>) -> Int {
        let member = key
        key = nil
        guard level < levels else { return -1 }
        nodes.append(JSONSkeleton.Node(kind: kind, range: range, key: member, next: nodes.count + 1))
        return nodes.count - 1
    }

    /// A string at `parser.position`, read and checked; its literal's range.
    @inline(__always)
    private mutating func read(_ parser: inout JSONParser) throws(PNCryptError) -> Range<Int> {
        let start = parser.position
        if parser.plainASCIIString() == nil { try readOther(&parser) }
        return start..<parser.position
    }

    /// A string with non-ASCII or an escape (or an error), checked as `parseString` checks it; notes whether an
    /// escape is not as the compact writer writes it. `verbatim` tells only of white space here.
    @inline(never)
    private mutating func readOther(_ parser: inout JSONParser) throws(PNCryptError) {
        let start = parser.position, verbatim = parser.verbatim
        let node = try parser.stringNode()
        parser.verbatim = verbatim
        if node.kind == .escapedString && compactEscapes {
            compactEscapes = Self.isCompact(UnsafeBufferPointer(rebasing: parser.bytes[start..<parser.position]))
        }
    }

    /// Whether each escape of the checked string `literal` is as the compact writer writes it.
    static func isCompact(_ literal: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 1
        while index < literal.count - 1 {
            guard literal[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            switch literal[index + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                 UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 2
            case UInt8(ascii: "u"):
                // `\u00xx` with lowercase hex, for a control character without a short escape.
                let high = literal[index + 4], low = literal[index + 5]
                guard literal[index + 2] == UInt8(ascii: "0"), literal[index + 3] == UInt8(ascii: "0"),
                      high == UInt8(ascii: "0") || high == UInt8(ascii: "1") else { return false }
                let lowValue: UInt8
                switch low {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): lowValue = low - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): lowValue = low - UInt8(ascii: "a") + 10
                default: return false
                }
                let value = (high - UInt8(ascii: "0")) * 16 + lowValue
                guard ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(value) else { return false }
                index += 6
            default:
                return false
            }
        }
        return true
    }

    @inline(__always)
    mutating func string(_ parser: inout JSONParser) throws(PNCryptError) {
        _ = add(.string, try read(&parser))
    }

    @inline(__always)
    mutating func key(_ parser: inout JSONParser) throws(PNCryptError) {
        key = try read(&parser)
    }

    @inline(__always)
    mutating func keySeparator() {}

    @inline(__always)
    mutating func number(_ parser: inout JSONParser) throws(PNCryptError) {
        let start = parser.position
        _ = try parser.scanNumber()
        _ = add(.number, start..<parser.position)
    }

    @inline(__always)
    mutating func literal(_ value: Bool?, _ parser: inout JSONParser) {
        let length = value == false ? 5 : 4
        _ = add(.literal, (parser.position - length)..<parser.position)
    }

    @inline(__always)
    mutating func willOpen(isObject: Bool, depth: Int, _ parser: inout JSONParser) {
        opening = add(isObject ? .object : .array, parser.position..<parser.position)
    }

    @inline(__always)
    mutating func empty(isObject: Bool, _ parser: inout JSONParser) {
        if opening >= 0 { nodes[opening].range = nodes[opening].range.lowerBound..<parser.position }
    }

    @inline(__always)
    mutating func open(isObject: Bool, depth: Int) -> Int {
        level = depth + 1
        return opening
    }

    @inline(__always)
    mutating func element(_ value: consuming Void, isObject: Bool) {}

    @inline(__always)
    mutating func close(_ value: consuming Void, isObject: Bool, mark: Int, depth: Int, _ parser: inout JSONParser) {
        level = depth
        guard mark >= 0 else { return }
        nodes[mark].range = nodes[mark].range.lowerBound..<parser.position
        nodes[mark].next = nodes.count
    }
}

extension JSONParser {
    /// The skeleton of the JSON text in `bytes` down to `levels` deep: the grammar loop with a `SkeletonSink`, so
    /// it throws exactly when parsing throws (with `maxDepth`).
    package static func skeleton(_ bytes: UnsafeBufferPointer<UInt8>, levels: Int, maxDepth: Int)
        throws(PNCryptError) -> JSONSkeleton {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: inlineFrames) {
            (frames) throws(PNCryptError) -> JSONSkeleton in
            var parser = JSONParser(bytes, readable: bytes.count, maxDepth: maxDepth, frames: frames)
            return try parser.skeleton(levels: levels)
        }
    }

    /// The grammar loop keeping the skeleton (one specialized copy).
    @inline(never)
    private mutating func skeleton(levels: Int) throws(PNCryptError) -> JSONSkeleton {
        var sink = SkeletonSink(levels: levels, capacity: count / 32)
        try walk(&sink)
        return JSONSkeleton(nodes: sink.nodes, hasSpace: !verbatim, compactEscapes: sink.compactEscapes)
    }
}
