import PNCryptBase

extension JSONValue {
    /// Parses one JSON text (RFC 8259, strictly) from UTF-8 bytes.
    ///
    /// Rejected, with `PNCryptError.Code.invalidJSON` and the byte `offset` of the problem: trailing commas,
    /// comments, `NaN`/`Infinity`, leading zeros (`01`), a leading `+`, control characters U+0000–U+001F
    /// written raw inside strings, escapes other than `\" \\ \/ \b \f \n \r \t \uXXXX`, invalid UTF-8
    /// (overlong forms, encoded surrogates, values above U+10FFFF, truncated sequences), a byte order mark,
    /// and anything but whitespace (space, tab, LF, CR) after the value. The message reads like
    /// `invalid JSON at offset 12: expected ':' after object key`.
    ///
    /// - A `\u` escape of a lone UTF-16 surrogate (a high one not followed by a `\u` low one, or a low one
    ///   alone) is replaced by U+FFFD, as a Swift `String` cannot hold it; the rest of the text is kept.
    /// - Nesting of arrays and objects deeper than `maxDepth` throws `PNCryptError.Code.jsonTooDeep` with the
    ///   offset of the bracket that went too deep. The parser keeps its own stack, so even a 100,000-deep
    ///   input is rejected without deep recursion.
    /// - Numbers keep their literal text (`JSONNumber`); object members keep document order and duplicates.
    /// - A text whose value is an object (a message) is kept, checked, as a copy of the text and a table of where
    ///   each value lies, in one heap block: the object is a view of it, its members are made when read (each read
    ///   makes them again: keep what is read often), and a nested object is a view of the same block, which stays
    ///   in memory while any such object does. In a text whose value is an array whose first value past the
    ///   arrays' openings is an object (a history), each object outside every other object is such a block of its
    ///   own bytes, and the arrays and their other values are made. Writing a view reads the table; in the compact
    ///   style, a block whose text has no whitespace and no escaped string is copied as it is. See `JSONObject`.
    @inlinable
    public init(parsing bytes: some Collection<UInt8>, maxDepth: Int = JSONValue.defaultMaxDepth)
        throws(PNCryptError)
    {
        // The standard library's `with...` methods rethrow untyped errors: carry ours out in a `Result`.
        let parsed = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(PNCryptError) in try JSONParser.parse(buffer, maxDepth: maxDepth) }
        }
        if let parsed {
            self = try parsed.get()
        } else {
            try self.init(parsing: Array(bytes), maxDepth: maxDepth)
        }
    }

    /// Parses one JSON text (RFC 8259, strictly) from the UTF-8 form of `text`; see `init(parsing:maxDepth:)`
    /// for bytes. Offsets in errors count UTF-8 bytes.
    @inlinable
    public init(parsing text: String, maxDepth: Int = JSONValue.defaultMaxDepth) throws(PNCryptError) {
        var text = text
        let parsed = text.withUTF8 { buffer in
            Result { () throws(PNCryptError) in try JSONParser.parse(buffer, maxDepth: maxDepth) }
        }
        self = try parsed.get()
    }
}

extension JSONValue {
    /// Parses one JSON text from `text` (as `init(parsing:maxDepth:)`), where `readable` bytes from its start (at
    /// least its count) may be loaded: strings near the end are read a word at a time too. Nothing past `text` is
    /// used.
    package init(parsing text: UnsafeRawBufferPointer, readable: Int) throws(PNCryptError) {
        self = try JSONParser.parse(text.assumingMemoryBound(to: UInt8.self), maxDepth: JSONValue.defaultMaxDepth,
                                    readable: readable)
    }
}

/// Whether `bytes` are one JSON text. Text that `cannotBeJSONText` refuses is refused at once (no parse, no error
/// made): the headerless rule asks this of every text, and of the reading that loses in auto mode on every message.
/// The rest is checked without making the value or a writer (`JSONParser.isOneText`): the same answer as parsing.
package func isJSONText(_ bytes: UnsafeRawBufferPointer) -> Bool {
    if cannotBeJSONText(bytes) { return false }
    return JSONParser.isOneText(bytes.assumingMemoryBound(to: UInt8.self), maxDepth: JSONValue.defaultMaxDepth,
                                readable: bytes.count)
}

/// True when `bytes` are certainly not one JSON text by their first and last characters past white space, without
/// parsing; false says nothing (`isJSONText` decides). One pass over the white space at each end, then:
/// - nothing there, or a first character that starts no JSON value: not JSON;
/// - `{`, `[` or `"`: one object, array or string ends with `}`, `]` or `"` (a string: a second `"`);
/// - `t`, `f` or `n`: one only as `true`, `false` or `null` alone;
/// - a digit or `-`: one only as a number alone, which ends with a digit: its characters (digits, `.`, `e`, `E`,
///   `+`, `-`) and nothing else.
///
/// Text cut after 16 bytes (the random-IV reading of a headerless message or text, which the decision checks
/// too) almost always fails one of these: a message cut so starts inside a key, a string or a number and ends
/// with the message's `}`; a parse that fails makes its error, at several times the cost.
package func cannotBeJSONText(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var start = 0
    var end = bytes.count
    while start < end && isSpace(bytes[start]) { start += 1 }
    guard start < end else { return true }
    // Stops after `bytes[start]` at the latest: that one is not white space.
    while isSpace(bytes[end - 1]) { end -= 1 }
    let first = bytes[start], last = bytes[end - 1]
    switch first {
    case UInt8(ascii: "{"): return last != UInt8(ascii: "}")
    case UInt8(ascii: "["): return last != UInt8(ascii: "]")
    case UInt8(ascii: "\""): return last != UInt8(ascii: "\"") || end - start < 2
    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
        let literal: StaticString = first == UInt8(ascii: "t") ? "true" : first == UInt8(ascii: "f") ? "false"
            : "null"
        let length = literal.utf8CodeUnitCount
        return end - start != length
            || !UnsafeRawBufferPointer(start: literal.utf8Start, count: length).elementsEqual(bytes[start..<end])
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(last) else { return true }
        for byte in bytes[start..<end] {
            let isNumber = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-")
            if !isNumber { return true }
        }
        return false
    default:
        return true
    }
}

/// The parser behind `JSONValue(parsing:)`, `JSONParser.transcode` and the document parse: one pass over contiguous
/// UTF-8 bytes, no recursion. The grammar is one loop (`walk`, JSONGrammar.swift) that drives a sink: a value
/// tree (`TreeSink`), a document's node table (`NodeSink`), a writer (`TranscodeSink`), a check (`CheckSink`) or
/// the envelope path's skeleton (`SkeletonSink`).
///
/// Open containers live on an explicit stack, `frames`; the sinks keep their own stacks of finished values. The
/// stacks start in stack memory lent by the entry points, so a message's parse allocates only the values it
/// returns.
///
/// Ownership: `bytes` is borrowed from the caller's `withUTF8`/`withContiguousStorageIfAvailable` closure and
/// never escapes it; the stacks are borrowed from the entry points' temporary allocations and die before they do.
@usableFromInline
package struct JSONParser: ~Copyable {
    let bytes: UnsafeBufferPointer<UInt8>
    /// How many bytes from `bytes`' start may be loaded (at least its count): the short-string path loads 16 at a
    /// time and never uses a byte past `bytes`.
    let readable: Int
    let maxDepth: Int
    var position = 0
    /// Whether no whitespace was skipped and no escaped string read since it was last set (the document parse sets
    /// it as an object outside every other object opens): that object's text is then as the compact style writes it.
    var verbatim = true
    /// Per open container: the sink's mark (`JSONSink.open`) times 2, plus 1 for an object.
    var frames: InlineStack<Int>
    var scratch: [UInt8] = []
    /// `SmallASCII.isAvailable`, read once per parse.
    let smallStrings = SmallASCII.isAvailable
    /// Whether an error says what was wrong (`error(_:)`). False for a check whose caller keeps only yes or no
    /// (`isJSONText`): there the message would be made and dropped, and in auto mode the reading that loses fails
    /// this check on almost every message (2,400 instructions a message, the most of auto's cost over a named
    /// scheme in `--lines`: docs/performance.md).
    var describesErrors = true

    /// How many of each stack's entries live in stack memory (beyond that, the heap): enough for messages.
    static let inlineFrames = 32, inlineValues = 16, inlineMembers = 16, inlineNodes = 32

    init(_ bytes: UnsafeBufferPointer<UInt8>, readable: Int, maxDepth: Int, frames: UnsafeMutableBufferPointer<Int>) {
        self.bytes = bytes
        self.readable = readable
        self.maxDepth = max(0, maxDepth)
        self.frames = InlineStack(startingIn: frames)
    }

    var count: Int { bytes.count }

    /// Parses one JSON text from `bytes` (see `JSONValue.init(parsing:maxDepth:)`).
    @usableFromInline
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(PNCryptError) -> JSONValue {
        try parse(bytes, maxDepth: maxDepth, readable: bytes.count)
    }

    /// `parse(_:maxDepth:)` where `readable` bytes from `bytes`' start (at least its count) may be loaded: the
    /// message path's plaintext is followed by its padding, so short strings near its end take the fast path too.
    /// A text whose first value past any arrays' openings is an object (a message, an envelope, a history's array
    /// of messages) is parsed by `parseViewDocument`, unless `documents` is false (the tests' reference); any other
    /// text is made at once (`TreeSink`).
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, readable: Int,
                              documents: Bool = true) throws(PNCryptError) -> JSONValue {
        if documents, bytes.count <= JSONDocument.maxTextCount, let first = bytes.firstIndex(where: { !isSpace($0) }) {
            if bytes[first] == UInt8(ascii: "{") {
                return try parseViewDocument(bytes, maxDepth: maxDepth, objectRoot: true)
            }
            if bytes[first] == UInt8(ascii: "["),
               bytes[first...].first(where: { !isSpace($0) && $0 != UInt8(ascii: "[") }) == UInt8(ascii: "{") {
                return try parseViewDocument(bytes, maxDepth: maxDepth, objectRoot: false)
            }
        }
        return try withUnsafeTemporaryAllocation(of: Int.self, capacity: inlineFrames) {
            (frames) throws(PNCryptError) -> JSONValue in
            try withUnsafeTemporaryAllocation(of: JSONValue.self, capacity: inlineValues) {
                (values) throws(PNCryptError) -> JSONValue in
                try withUnsafeTemporaryAllocation(of: JSONObject.Member.self, capacity: inlineMembers) {
                    (members) throws(PNCryptError) -> JSONValue in
                    var parser = JSONParser(bytes, readable: max(bytes.count, readable), maxDepth: maxDepth,
                                            frames: frames)
                    var sink = TreeSink(values: values, members: members)
                    return try parser.walk(&sink)
                }
            }
        }
    }

    /// Writes the JSON text in `bytes` to `writer` exactly as parsing it (`parse(_:maxDepth:readable:)`) and
    /// writing the value would, without making the value: no heap object for its containers or its ASCII strings.
    /// Throws exactly when parsing throws: the same grammar loop, the same leaves (strings with an escape or
    /// non-ASCII, and numbers, are read by the parser's own functions and written by the writer's). `writer`'s
    /// style must be exact (`JSONStyle.isExact`: not one that rewrites values); what it holds after a throw is a
    /// prefix, for the caller to drop.
    package static func transcode(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, readable: Int,
                                  into writer: inout JSONWriter) throws(PNCryptError) {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: inlineFrames) { (frames) throws(PNCryptError) in
            var parser = JSONParser(bytes, readable: max(bytes.count, readable), maxDepth: maxDepth, frames: frames)
            try withUnsafeMutablePointer(to: &writer) { (writer) throws(PNCryptError) in
                try parser.transcode(writer)
            }
        }
    }

    /// Checks that `bytes` are one JSON text, throwing exactly where `transcode` and parsing throw, at the same
    /// offset, without a writer (a check writes nothing, and making one cost as much as the rest of a short check)
    /// and without words: its errors say only "invalid JSON" and where (`describesErrors`), for callers that keep
    /// whether it threw (`isOneText`, where it is inlined).
    @inline(__always)
    package static func checkOneText(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, readable: Int)
        throws(PNCryptError) {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: inlineFrames) { (frames) throws(PNCryptError) in
            var parser = JSONParser(bytes, readable: max(bytes.count, readable), maxDepth: maxDepth, frames: frames)
            parser.describesErrors = false
            try parser.check()
        }
    }

    /// Whether `bytes` are one JSON text (`checkOneText` did not throw): `isJSONText`'s parse.
    package static func isOneText(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, readable: Int) -> Bool {
        do throws(PNCryptError) {
            try checkOneText(bytes, maxDepth: maxDepth, readable: readable)
            return true
        } catch {
            return false
        }
    }

    /// The grammar loop writing to `writer` (one specialized copy).
    @inline(never)
    private mutating func transcode(_ writer: UnsafeMutablePointer<JSONWriter>) throws(PNCryptError) {
        var sink = TranscodeSink(writer: writer)
        try walk(&sink)
    }

    /// The grammar loop only checking (one specialized copy).
    @inline(never)
    private mutating func check() throws(PNCryptError) {
        var sink = CheckSink()
        try walk(&sink)
    }

    /// The string whose content starts at `contentStart` in `text`, already checked by a document parse, decoded
    /// as `parseString` decodes it.
    static func decodeString(in text: UnsafeBufferPointer<UInt8>, contentStart: Int) -> String {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 1) { frames in
            var parser = JSONParser(text, readable: text.count, maxDepth: 0, frames: frames)
            parser.position = contentStart - 1
            do {
                return try parser.parseString()
            } catch {
                preconditionFailure("a checked string did not decode: \(error)")
            }
        }
    }
}
