// The grammar loop's sink that records where each value lies (`JSONNode`s) instead of making it: the document
// parse, whose objects are views of their text (`JSONDocument`).

import PNCryptBase

/// Which objects of a text become documents: the text's own (its value is an object), or each outside every other
/// object (its value is an array: the messages of a history). A type, not a flag, so that each gets its own
/// specialized loop.
protocol JSONNodeRoots {
    /// Whether objects outside every other object become documents of their own.
    static var outer: Bool { get }
}

/// The text's value is an object (a message): one document of the whole text.
enum JSONObjectRoot: JSONNodeRoots {
    static var outer: Bool { false }
}

/// The text's value is an array: each object outside every other object becomes a document.
enum JSONOuterObjects: JSONNodeRoots {
    static var outer: Bool { true }
}

/// Records nodes: the children of open containers wait on `pending` (an object's as key, value, key, ...); a
/// container that closes moves them to `nodes` and waits as one node itself. With `Roots.outer`, an object outside
/// every other object, when it closes, becomes a document (`madeObject`), kept on `values`.
struct NodeSink<Roots: JSONNodeRoots>: JSONSink, ~Copyable {
    private var pending: InlineStack<JSONNode>
    fileprivate var nodes: InlineStack<JSONNode>
    /// The objects made into documents.
    private var values: InlineStack<JSONValue>
    /// The open object outside every other object, if any: the depth it opened at (-1: none), `nodes.count` then
    /// (its descendants follow), and the offset of its `{`; and whether the container opening now is one.
    private var outerDepth = -1, outerMark = 0, outerStart = 0, openingOuter = false

    init(pending: UnsafeMutableBufferPointer<JSONNode>, nodes: UnsafeMutableBufferPointer<JSONNode>,
         values: UnsafeMutableBufferPointer<JSONValue>) {
        self.pending = InlineStack(startingIn: pending)
        self.nodes = InlineStack(startingIn: nodes)
        self.values = InlineStack(startingIn: values)
    }

    @inline(__always)
    mutating func string(_ parser: inout JSONParser) throws(PNCryptError) -> JSONNode {
        try parser.stringNode()
    }

    @inline(__always)
    mutating func key(_ parser: inout JSONParser) throws(PNCryptError) {
        pending.append(try parser.stringNode())
    }

    @inline(__always)
    mutating func keySeparator() {}

    @inline(__always)
    mutating func number(_ parser: inout JSONParser) throws(PNCryptError) -> JSONNode {
        let start = parser.position
        if let value = try parser.scanNumber() {
            var node = JSONNode(.int)
            node.start = value
            return node
        }
        return JSONNode(.number, count: parser.position - start, start: start)
    }

    @inline(__always)
    mutating func literal(_ value: Bool?, _ parser: inout JSONParser) -> JSONNode {
        guard let value else { return JSONNode(.null) }
        return JSONNode(value ? .trueValue : .falseValue)
    }

    @inline(__always)
    mutating func willOpen(isObject: Bool, depth: Int, _ parser: inout JSONParser) {
        openingOuter = Roots.outer && isObject && outerDepth < 0
        if openingOuter { (outerMark, outerStart, parser.verbatim) = (nodes.count, parser.position, true) }
    }

    @inline(__always)
    mutating func empty(isObject: Bool, _ parser: inout JSONParser) -> JSONNode {
        let node = JSONNode(isObject ? .object : .array)
        return openingOuter ? madeObject(node, parser) : node
    }

    @inline(__always)
    mutating func open(isObject: Bool, depth: Int) -> Int {
        if openingOuter { outerDepth = depth }
        return pending.count
    }

    @inline(__always)
    mutating func element(_ value: consuming JSONNode, isObject: Bool) {
        pending.append(value)
    }

    @inline(__always)
    mutating func close(_ value: consuming JSONNode, isObject: Bool, mark: Int, depth: Int,
                        _ parser: inout JSONParser) -> JSONNode {
        pending.append(value)
        let children = pending.count - mark
        let start = nodes.count
        pending.move(from: mark, onto: &nodes)
        let node = JSONNode(isObject ? .object : .array, count: isObject ? children >> 1 : children, start: start)
        guard Roots.outer && depth == outerDepth else { return node }
        outerDepth = -1
        return madeObject(node, parser)
    }

    /// The object `node`, outside every other object, just closed: its descendants are `nodes` from `outerMark`
    /// on and its text runs from `outerStart` to the parser's position (its `verbatim` says whether it is
    /// compact). Makes them a document, pops them, puts the view on `values` and returns the node that stands for
    /// it.
    private mutating func madeObject(_ node: JSONNode, _ parser: borrowing JSONParser) -> JSONNode {
        let mark = outerMark, textStart = outerStart
        nodes.append(node)
        let document = nodes.withElements { all in
            JSONDocument.make(text: UnsafeBufferPointer(rebasing: parser.bytes[textStart..<parser.position]),
                              nodes: UnsafeBufferPointer(rebasing: all[mark...]),
                              textOffset: textStart, nodeOffset: mark, verbatim: parser.verbatim)
        }
        let root = nodes.count - 1 - mark
        nodes.removeAll(from: mark)
        values.append(.object(JSONObject(document: document, node: root)))
        return JSONNode(.made, start: values.count - 1)
    }

    /// The value of `node`, a node outside every object: an array is made, a made object taken from `values`.
    func outerValue(_ node: JSONNode, nodes: UnsafeBufferPointer<JSONNode>,
                    text: UnsafeBufferPointer<UInt8>) -> JSONValue {
        switch node.kind {
        case .made:
            return values[Int(node.start)]
        case .array:
            let first = Int(node.start)
            return .array((0..<Int(node.count)).map { outerValue(nodes[first + $0], nodes: nodes, text: text) })
        case .object:
            preconditionFailure("an object outside a document")
        default:
            return JSONDocument.scalar(node, in: text)
        }
    }
}

// MARK: - Documents

extension JSONParser {
    /// Parses a text into values whose objects are views of documents: each object outside every other object (the
    /// text's, or each element of its arrays: the messages of a history) becomes one `JSONDocument` of its own
    /// bytes; the arrays around them are made. The grammar loop with a `NodeSink`: the same grammar, checks, limits
    /// and errors as every parse, strings and numbers read by the same functions, but values recorded as nodes,
    /// not made. `objectRoot`: the text's value is an object (a message: one document of the whole text).
    static func parseViewDocument(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, objectRoot: Bool)
        throws(PNCryptError) -> JSONValue {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: inlineFrames) {
            (frames) throws(PNCryptError) -> JSONValue in
            try withUnsafeTemporaryAllocation(of: JSONNode.self, capacity: 2 * inlineNodes) {
                (nodeMemory) throws(PNCryptError) -> JSONValue in
                // The values stack holds the objects made (a message: none).
                try withUnsafeTemporaryAllocation(of: JSONValue.self, capacity: 1) {
                    (values) throws(PNCryptError) -> JSONValue in
                    var parser = JSONParser(bytes, readable: bytes.count, maxDepth: maxDepth, frames: frames)
                    let pending = UnsafeMutableBufferPointer(rebasing: nodeMemory[..<inlineNodes])
                    let nodes = UnsafeMutableBufferPointer(rebasing: nodeMemory[inlineNodes...])
                    if objectRoot {
                        return try parser.parseNodes(JSONObjectRoot.self, pending: pending, nodes: nodes,
                                                     values: values)
                    }
                    return try parser.parseNodes(JSONOuterObjects.self, pending: pending, nodes: nodes,
                                                 values: values)
                }
            }
        }
    }

    /// The document parse with `Roots`: for an object root (a message), one document of the whole text; for an
    /// array root, each object outside every other object a document, the arrays around them made. One
    /// specialized copy per `Roots`.
    @inline(never)
    private mutating func parseNodes<Roots: JSONNodeRoots>(_ roots: Roots.Type,
                                                           pending: UnsafeMutableBufferPointer<JSONNode>,
                                                           nodes: UnsafeMutableBufferPointer<JSONNode>,
                                                           values: UnsafeMutableBufferPointer<JSONValue>)
        throws(PNCryptError) -> JSONValue {
        var sink = NodeSink<Roots>(pending: pending, nodes: nodes, values: values)
        let root = try walk(&sink)
        if Roots.outer { return sink.nodes.withElements { sink.outerValue(root, nodes: $0, text: bytes) } }
        sink.nodes.append(root)
        let document = sink.nodes.withElements {
            JSONDocument.make(text: bytes, nodes: $0, textOffset: 0, nodeOffset: 0, verbatim: verbatim)
        }
        return .object(JSONObject(document: document, node: sink.nodes.count - 1))
    }

    /// The string at `position` (its opening quote) as a node, checked as `parseString` checks it.
    @inline(__always)
    mutating func stringNode() throws(PNCryptError) -> JSONNode {
        let start = position + 1
        let (end, ascii) = plainRun(from: start)
        if end < count && bytes[end] == UInt8(ascii: "\"") {
            let content = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if ascii || isValidUTF8(UnsafeRawBufferPointer(content)) {
                position = end + 1
                return JSONNode(ascii ? .plainString : .utf8String, count: end - start, start: start)
            }
        }
        return try escapedStringNode(start: start)
    }

    /// A string with an escape (or an error): `parseString` checks it, and what it made is dropped.
    @inline(never)
    private mutating func escapedStringNode(start: Int) throws(PNCryptError) -> JSONNode {
        _ = try parseString()
        verbatim = false
        return JSONNode(.escapedString, count: position - 1 - start, start: start)
    }
}
