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

/// Whether `bytes` are one JSON text. Text whose first byte after white space cannot start a JSON value is
/// refused at once (no parse, no error message made): the headerless rule asks this of every text.
package func isJSONText(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
        return false
    }
    switch first {
    case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
         UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
        break
    default:
        return false
    }
    // Checked without making the value (`JSONParser.transcode`, writing nothing): the same answer as parsing.
    return withUnsafeTemporaryAllocation(byteCount: 16, alignment: 16) { scratch in
        var writer = JSONWriter(style: .compact, output: ByteBuffer(startingIn: scratch, secret: false))
        do {
            try JSONParser.transcode(bytes.assumingMemoryBound(to: UInt8.self), maxDepth: JSONValue.defaultMaxDepth,
                                     readable: bytes.count, into: &writer, writing: false)
            return true
        } catch {
            return false
        }
    }
}

/// The parser behind `JSONValue(parsing:)`: one pass over contiguous UTF-8 bytes, no recursion.
///
/// Open containers live on explicit stacks: `frames` (one per open array or object: where its elements start,
/// and whether it is an object), `values` (finished elements of open arrays) and `members` (the members of open
/// objects: a key is pushed with a `null` value when read, and its value stored over that when finished). Closing
/// a container moves its slice into a new array. The stacks start in stack memory lent by `parse`, so a message's
/// parse allocates only the values it returns.
///
/// Ownership: `bytes` is borrowed from the caller's `withUTF8`/`withContiguousStorageIfAvailable` closure and
/// never escapes it; the stacks are borrowed from `parse`'s temporary allocations and die before they do.
@usableFromInline
package struct JSONParser: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// How many bytes from `bytes`' start may be loaded (at least its count): the short-string path loads 16 at a
    /// time and never uses a byte past `bytes`.
    private let readable: Int
    private let maxDepth: Int
    private var position = 0
    /// Whether no whitespace was skipped and no escaped string read since it was last set (the document parse sets
    /// it as an object outside every other object opens): that object's text is then as the compact style writes it.
    private var verbatim = true
    /// The document parse's open object outside every other object, if any: `frames.count` before it opened (-1:
    /// none), `nodes.count` then (its descendants follow), and the offset of its `{`.
    private var outerDepth = -1, outerMark = 0, outerStart = 0
    /// Per open container: the count of `members` (objects) or `values` (arrays) when it opened, times 2, plus
    /// 1 for an object.
    private var frames: InlineStack<Int>
    private var values: InlineStack<JSONValue>
    private var members: InlineStack<JSONObject.Member>
    private var scratch: [UInt8] = []
    /// `SmallASCII.isAvailable`, read once per parse.
    private let smallStrings = SmallASCII.isAvailable

    /// How many of each stack's entries live in stack memory (beyond that, the heap): enough for messages.
    private static let inlineFrames = 32, inlineValues = 16, inlineMembers = 16

    /// Parses one JSON text from `bytes` (see `JSONValue.init(parsing:maxDepth:)`).
    @usableFromInline
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(PNCryptError) -> JSONValue {
        try parse(bytes, maxDepth: maxDepth, readable: bytes.count)
    }

    /// `parse(_:maxDepth:)` where `readable` bytes from `bytes`' start (at least its count) may be loaded: the
    /// message path's plaintext is followed by its padding, so short strings near its end take the fast path too.
    /// A text whose first value past any arrays' openings is an object (a message, an envelope, a history's array
    /// of messages) is parsed by `parseViewDocument`, unless `documents` is false (the tests' reference); any other
    /// text is made at once.
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
                                            frames: frames, values: values, members: members)
                    return try parser.parseDocument()
                }
            }
        }
    }

    private init(_ bytes: UnsafeBufferPointer<UInt8>, readable: Int, maxDepth: Int,
                 frames: UnsafeMutableBufferPointer<Int>,
                 values: UnsafeMutableBufferPointer<JSONValue>,
                 members: UnsafeMutableBufferPointer<JSONObject.Member>) {
        self.bytes = bytes
        self.readable = readable
        self.maxDepth = max(0, maxDepth)
        self.frames = InlineStack(startingIn: frames)
        self.values = InlineStack(startingIn: values)
        self.members = InlineStack(startingIn: members)
    }

    private var count: Int { bytes.count }

    // MARK: - Structure

    mutating func parseDocument() throws(PNCryptError) -> JSONValue {
        while true {
            skipWhitespace()
            guard position < count else { throw expectedValueError() }
            var value: JSONValue
            switch bytes[position] {
            case UInt8(ascii: "\""):
                if let short = shortASCIIString() {
                    value = .string(short)
                } else {
                    value = .string(try parseString())
                }
            case UInt8(ascii: "{"):
                try checkDepth()
                position += 1
                skipWhitespace()
                if position < count && bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    value = .object(JSONObject())
                } else {
                    frames.append(members.count << 1 | 1)
                    try parseKey(after: "'{'", orClose: true)
                    continue
                }
            case UInt8(ascii: "["):
                try checkDepth()
                position += 1
                skipWhitespace()
                if position < count && bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    value = .array([])
                } else {
                    frames.append(values.count << 1)
                    continue
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            case UInt8(ascii: "t"):
                try expectLiteral("true", 0x6575_7274)
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false", 0x6573_6C61, after: 1)
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null", 0x6C6C_756E)
                value = .null
            default:
                throw expectedValueError()
            }

            // Hand the finished value to its container; close containers as far as the text says.
            while true {
                guard frames.count > 0 else {
                    try expectEnd()
                    return value
                }
                let frame = frames.last
                let isObject = frame & 1 == 1
                if try readComma(isObject: isObject) {
                    if isObject {
                        members.top.pointee.value = consume value
                        try parseKey(after: "','", orClose: false)
                    } else {
                        values.append(consume value)
                    }
                    break
                }
                if isObject {
                    members.top.pointee.value = consume value
                    value = .object(JSONObject(members: members.moveOut(from: frame >> 1)))
                } else {
                    values.append(consume value)
                    value = .array(values.moveOut(from: frame >> 1))
                }
                frames.removeLast()
            }
        }
    }

    /// Throws `.jsonTooDeep` if opening one more container would exceed `maxDepth`. Mutating, though it changes
    /// nothing: a non-mutating method borrows the noncopyable parser through a copy of the whole struct, one per
    /// container opened. The error is made out of line.
    @inline(__always)
    private mutating func checkDepth() throws(PNCryptError) {
        if frames.count >= maxDepth { throw depthError() }
    }

    @inline(never)
    private func depthError() -> PNCryptError {
        PNCryptError(.jsonTooDeep, "JSON nested deeper than \(maxDepth) levels at offset \(position)", offset: position)
    }

    /// Reads `"key"` and the `:` after it, leaving `position` at the member's value, and pushes the key.
    private mutating func parseKey(after what: String, orClose: Bool) throws(PNCryptError) {
        try expectKey(after: what, orClose: orClose)
        let key: String
        if let short = shortASCIIString() {
            key = short
        } else {
            key = try parseString()
        }
        try expectColon()
        members.append(JSONObject.Member(key: key, value: .null))
    }

    // The structure around values, shared by `parseDocument` and `transcodeDocument` so that both accept the same
    // texts and give the same errors.

    /// After the top-level value: only white space may follow.
    @inline(__always)
    private mutating func expectEnd() throws(PNCryptError) {
        skipWhitespace()
        if position < count {
            throw error("unexpected \(found()) after the JSON value")
        }
    }

    /// After a value in an open object (`isObject`) or array: reads `,` (true) or the container's close (false),
    /// leaving `position` after it.
    @inline(__always)
    private mutating func readComma(isObject: Bool) throws(PNCryptError) -> Bool {
        skipWhitespace()
        guard position < count else {
            throw error(isObject ? "expected ',' or '}' after object member, found end of input"
                                 : "expected ',' or ']' after array element, found end of input")
        }
        let byte = bytes[position]
        if byte == UInt8(ascii: ",") {
            position += 1
            return true
        }
        if isObject {
            guard byte == UInt8(ascii: "}") else {
                throw error("expected ',' or '}' after object member, found \(found())")
            }
        } else {
            guard byte == UInt8(ascii: "]") else {
                throw error("expected ',' or ']' after array element, found \(found())")
            }
        }
        position += 1
        return false
    }

    /// Before a key: white space, then its opening quote (not read).
    @inline(__always)
    private mutating func expectKey(after what: String, orClose: Bool) throws(PNCryptError) {
        skipWhitespace()
        guard position < count, bytes[position] == UInt8(ascii: "\"") else {
            let expected = orClose ? "a string key or '}'" : "a string key"
            throw error("expected \(expected) after \(what), found \(found())")
        }
    }

    /// After a key: white space, then the `:`, read.
    @inline(__always)
    private mutating func expectColon() throws(PNCryptError) {
        skipWhitespace()
        guard position < count, bytes[position] == UInt8(ascii: ":") else {
            throw error("expected ':' after object key, found \(found())")
        }
        position += 1
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09:
                position += 1
                verbatim = false
            default: return
            }
        }
    }

    /// Reads `word`; `tail` is its last 4 bytes as a little-endian integer, which start `after` bytes in.
    @inline(__always)
    private mutating func expectLiteral(_ word: StaticString, _ tail: UInt32, after: Int = 0) throws(PNCryptError) {
        let start = position + after
        if start + 4 <= count,
           UInt32(littleEndian: UnsafeRawPointer(bytes.baseAddress! + start).loadUnaligned(as: UInt32.self)) == tail
        {
            position = start + 4
            return
        }
        try expectLiteralSlowly(word)
    }

    /// `expectLiteral` byte by byte, stopping at the first difference (its offset is the error's).
    private mutating func expectLiteralSlowly(_ word: StaticString) throws(PNCryptError) {
        let start = position
        let utf8 = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for (index, expected) in utf8.enumerated() {
            position = start + index
            guard position < count, bytes[position] == expected else {
                throw error("expected '\(word)', found \(found())")
            }
        }
        position = start + utf8.count
    }

    // MARK: - Numbers

    private mutating func parseNumber() throws(PNCryptError) -> JSONNumber {
        let start = position
        if let value = try scanNumber() {
            return JSONNumber(parsedInt: value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        return JSONNumber(validatedLiteral: text)
    }

    /// Reads the number at `position`: its value when it is an integer of at most 18 digits (so an `Int64`) other
    /// than `-0`, nil for any other number (its text is then the bytes read).
    @inline(__always)
    private mutating func scanNumber() throws(PNCryptError) -> Int64? {
        var negative = false
        if bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        guard position < count, isDigit(bytes[position]) else {
            throw error("expected a digit after '-', found \(found())")
        }
        var magnitude: UInt64 = 0
        var digitCount = 0
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < count && isDigit(bytes[position]) {
                throw error("leading zeros are not allowed in numbers")
            }
        } else {
            // A local index: the stored `position` would be written back on every digit. Eight digits a step
            // while eight are there (a 17-digit timetoken takes two steps and one digit), then one at a time.
            var index = position
            let base = UnsafeRawPointer(bytes.baseAddress!)
            while index + 8 <= count {
                let word = UInt64(littleEndian: (base + index).loadUnaligned(as: UInt64.self))
                guard JSONParser.areEightDigits(word) else { break }
                magnitude = magnitude &* 100_000_000 &+ JSONParser.eightDigitsValue(word)
                index += 8
            }
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                magnitude = magnitude &* 10 &+ UInt64(digit)
                index += 1
            }
            digitCount = index - position
            position = index
        }
        var isInteger = true
        if position < count && bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < count, isDigit(bytes[position]) else {
                throw error("expected a digit after '.', found \(found())")
            }
            while position < count && isDigit(bytes[position]) { position += 1 }
        }
        if position < count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            isInteger = false
            position += 1
            if position < count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) {
                position += 1
            }
            guard position < count, isDigit(bytes[position]) else {
                throw error("expected a digit in the exponent, found \(found())")
            }
            while position < count && isDigit(bytes[position]) { position += 1 }
        }
        // Up to 18 digits always fit in Int64; "-0" keeps its sign as text.
        if isInteger && digitCount <= 18 && !(negative && magnitude == 0) {
            let value = Int64(magnitude)
            return negative ? -value : value
        }
        return nil
    }

    /// Whether the 8 bytes of `word` (memory order, the first in the low bits) are all ASCII digits: each byte's
    /// high nibble is 3, and adding 6 to it leaves the high nibble 3 (so its low nibble is at most 9).
    @inline(__always)
    static func areEightDigits(_ word: UInt64) -> Bool {
        let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        return (word & highNibbles) | ((word &+ 0x0606_0606_0606_0606) & highNibbles) >> 4 == 0x3333_3333_3333_3333
    }

    /// The value of 8 ASCII digits (`areEightDigits(word)`), the first the most significant: pairs, then groups
    /// of four, then the eight, each step one multiply over the whole word.
    @inline(__always)
    static func eightDigitsValue(_ word: UInt64) -> UInt64 {
        var value = word &- 0x3030_3030_3030_3030
        value = (value &* 10 &+ value >> 8) & 0x00FF_00FF_00FF_00FF
        value = (value &* 100 &+ value >> 16) & 0x0000_FFFF_0000_FFFF
        return (value &* 10_000 &+ value >> 32) & 0xFFFF_FFFF
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    // MARK: - Strings

    /// The usual string of a message, key or value, on one fast path: at most 15 ASCII bytes, no escape, with 16
    /// bytes readable after the opening quote (`readable`: past the text's end too when the caller says so). Two
    /// word loads find the closing quote (`plainRunStops`, with bytes from 0x80 up stopping too) and the string's
    /// two words are made from the same loads. Returns nil, with `position` unchanged, for anything else:
    /// `parseString` then reads it (and reports any error).
    @inline(__always)
    private mutating func shortASCIIString() -> String? {
        let start = position + 1
        guard smallStrings, start + 16 <= readable else { return nil }
        let raw = UnsafeRawPointer(bytes.baseAddress! + start)
        let low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let highBits: UInt64 = 0x8080_8080_8080_8080
        // The lowest bit of each mask is exact (see `plainRunStops`), so the lowest of their union is too.
        let lowStops = JSONParser.plainRunStops(low) | low & highBits
        let highStops = JSONParser.plainRunStops(high) | high & highBits
        let length = lowStops != 0 ? lowStops.trailingZeroBitCount >> 3
                                   : 8 + highStops.trailingZeroBitCount >> 3
        // 16 means no stop in the 16 bytes: a longer string. The closing quote must be in the text: a stop past
        // its end is in the bytes that are only readable, and the general path reports the unterminated string.
        guard length < 16, start + length < count,
              raw.load(fromByteOffset: length, as: UInt8.self) == UInt8(ascii: "\"") else {
            return nil
        }
        position = start + length + 1
        return SmallASCII.make(bytes.baseAddress! + start, count: length, readable: 16)
    }

    /// Reads a string starting at its opening quote; leaves `position` after the closing quote.
    @inline(never)
    private mutating func parseString() throws(PNCryptError) -> String {
        position += 1
        let start = position
        let base = bytes.baseAddress!
        let end = count
        let (index, ascii) = plainRun(from: start)
        position = index
        guard index < end else { throw unterminatedStringError(start: start - 1) }
        let byte = base[index]
        if byte == UInt8(ascii: "\"") {
            let content = UnsafeBufferPointer(rebasing: bytes[start..<index])
            position += 1
            if ascii {
                if content.count <= SmallASCII.capacity && smallStrings {
                    return SmallASCII.make(base + start, count: content.count, readable: end - start)
                }
                return String(decoding: content, as: UTF8.self)
            }
            return try makeValidatedString(content, rawStart: start, rawEnd: index)
        }
        if byte == UInt8(ascii: "\\") {
            return try parseEscapedString(start: start)
        }
        throw controlCharacterError(byte)
    }

    /// Where the plain run of a string's content from `start` ends (at `"`, `\\`, a control character, or the
    /// text's end) and whether it is all ASCII. A local index over the base pointer (the stored `position` would be
    /// reloaded and stored on every byte); eight bytes at a time while eight are left (the stop found exactly),
    /// then byte by byte.
    @inline(__always)
    private func plainRun(from start: Int) -> (end: Int, ascii: Bool) {
        let base = bytes.baseAddress!
        let end = count
        var index = start
        var seenWord: UInt64 = 0
        while index + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let stops = JSONParser.plainRunStops(word)
            if stops == 0 {
                seenWord |= word
                index += 8
                continue
            }
            let plain = stops.trailingZeroBitCount >> 3
            seenWord |= word & ((1 << (plain << 3)) &- 1)
            index += plain
            break
        }
        var seen: UInt8 = seenWord & 0x8080_8080_8080_8080 == 0 ? 0 : 0x80
        // Only when fewer than eight bytes are left (or the word loop stopped on the byte that ends the run).
        while index < end {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            seen |= byte
            index += 1
        }
        return (index, seen < 0x80)
    }

    /// The high bit of each byte of `word` (bytes in memory order, the first in the low bits) that is `"`, `\\` or
    /// a control character (below 0x20), and maybe of bytes after the first such byte: the lowest bit set is exact
    /// (the classic "has a zero byte" and "has a byte less than n" tests; bytes from 0x80 up never count).
    @inline(__always)
    static func plainRunStops(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        return (control | quoteZero | backslashZero) & (ones &* 0x80)
    }

    /// The slow path of `parseString`, from the first backslash on, decoding into `scratch`.
    private mutating func parseEscapedString(start: Int) throws(PNCryptError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        var seen: UInt8 = 0
        for byte in scratch { seen |= byte }
        while position < count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                if seen < 0x80 {
                    return String(decoding: scratch, as: UTF8.self)
                }
                let rawEnd = position - 1
                return try scratch.withUnsafeBufferPointer { (buffer) throws(PNCryptError) -> String in
                    try makeValidatedString(buffer, rawStart: start, rawEnd: rawEnd)
                }
            case UInt8(ascii: "\\"):
                try parseEscape(stringStart: start - 1)
            case 0..<0x20:
                throw controlCharacterError(byte)
            default:
                seen |= byte
                scratch.append(byte)
                position += 1
            }
        }
        throw unterminatedStringError(start: start - 1)
    }

    /// Decodes the escape at `position` (a backslash) into `scratch`.
    private mutating func parseEscape(stringStart: Int) throws(PNCryptError) {
        let escapeStart = position
        position += 1
        guard position < count else { throw unterminatedStringError(start: stringStart) }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            var scalar: UInt32 = 0xFFFD
            switch unit {
            case 0xD800...0xDBFF:
                // A high surrogate needs a `\u` low surrogate right after it; otherwise it becomes U+FFFD and
                // whatever follows is read on its own.
                if position + 6 <= count && bytes[position] == UInt8(ascii: "\\")
                    && bytes[position + 1] == UInt8(ascii: "u"),
                    let low = hex4(at: position + 2), (0xDC00...0xDFFF).contains(low)
                {
                    position += 6
                    scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                }
            case 0xDC00...0xDFFF:
                break
            default:
                scalar = UInt32(unit)
            }
            appendUTF8(scalar)
        default:
            position = escapeStart
            let shown = byte >= 0x20 && byte < 0x7F ? "'\\\(Character(Unicode.Scalar(byte)))'" : "'\\'"
            throw error("invalid escape \(shown) in string")
        }
    }

    /// Reads the 4 hex digits after `\u`, leaving `position` after them.
    private mutating func parseHex4() throws(PNCryptError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard position < count, let digit = hexValue(bytes[position]) else {
                throw error("expected 4 hex digits after '\\u', found \(found())")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    private func hex4(at offset: Int) -> UInt16? {
        var value: UInt16 = 0
        for index in offset..<offset + 4 {
            guard let digit = hexValue(bytes[index]) else { return nil }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    @inline(__always)
    private func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Makes a `String` from decoded bytes that contain non-ASCII; on invalid UTF-8, finds the first bad byte
    /// in the raw input `rawStart..<rawEnd` (escapes are ASCII, so raw bytes are checked the same way).
    private func makeValidatedString(
        _ content: UnsafeBufferPointer<UInt8>, rawStart: Int, rawEnd: Int
    ) throws(PNCryptError) -> String {
        if let string = String(validating: content, as: UTF8.self) {
            return string
        }
        let bad = firstInvalidUTF8(in: UnsafeBufferPointer(rebasing: bytes[rawStart..<rawEnd]))
        let offset = rawStart + (bad ?? 0)
        throw PNCryptError(
            .invalidJSON, "invalid JSON at offset \(offset): invalid UTF-8 in string", offset: offset)
    }

    // MARK: - Errors

    // Errors are made out of line, their messages in autoclosures: the string interpolations stay out of the
    // parsing loops, which keeps the hot code small (the message path's instruction-cache misses).
    @inline(never)
    private func error(_ what: @autoclosure () -> String) -> PNCryptError {
        PNCryptError(.invalidJSON, "invalid JSON at offset \(position): \(what())", offset: position)
    }

    /// Names the byte at `position` for an error message: `'x'`, `byte 0xC3`, or `end of input`.
    @inline(never)
    private func found() -> String {
        guard position < count else { return "end of input" }
        let byte = bytes[position]
        if byte > 0x20 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(byte < 0x10 ? "0" : "")\(hex)"
    }

    @inline(never)
    private func expectedValueError() -> PNCryptError {
        // Point out a trailing comma: the last non-space byte before a closing bracket is ','.
        if position < count && (bytes[position] == UInt8(ascii: "]") || bytes[position] == UInt8(ascii: "}")) {
            var back = position - 1
            while back >= 0 && [0x20, 0x0A, 0x0D, 0x09].contains(bytes[back]) { back -= 1 }
            if back >= 0 && bytes[back] == UInt8(ascii: ",") {
                return error("trailing comma before \(found())")
            }
        }
        return error("expected a JSON value, found \(found())")
    }

    @inline(never)
    private func controlCharacterError(_ byte: UInt8) -> PNCryptError {
        let hex = String(byte, radix: 16, uppercase: true)
        return error("unescaped control character U+00\(byte < 0x10 ? "0" : "")\(hex) in string")
    }

    @inline(never)
    private func unterminatedStringError(start: Int) -> PNCryptError {
        PNCryptError(
            .invalidJSON,
            "invalid JSON at offset \(count): unterminated string starting at offset \(start)",
            offset: count)
    }
}

// MARK: - Text without a value

extension JSONParser {
    /// Writes the JSON text in `bytes` to `writer` exactly as parsing it (`parse(_:maxDepth:readable:)`) and
    /// writing the value would, without making the value: no heap object for its containers or its ASCII strings.
    /// Throws exactly when parsing throws: the same grammar, checks and limits, the same leaves (strings with an
    /// escape or non-ASCII, and numbers, are read by the parser's own functions and written by the writer's). With
    /// `writing` false it only checks. `writer`'s style must be exact (`JSONStyle.isExact`: not one that rewrites
    /// values); what it holds after a throw is a prefix, for the caller to drop.
    package static func transcode(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, readable: Int,
                                  into writer: inout JSONWriter, writing: Bool) throws(PNCryptError) {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: inlineFrames) { (frames) throws(PNCryptError) in
            // The value stacks stay empty: one entry of stack memory each.
            try withUnsafeTemporaryAllocation(of: JSONValue.self, capacity: 1) { (values) throws(PNCryptError) in
                try withUnsafeTemporaryAllocation(of: JSONObject.Member.self, capacity: 1) {
                    (members) throws(PNCryptError) in
                    var parser = JSONParser(bytes, readable: max(bytes.count, readable), maxDepth: maxDepth,
                                            frames: frames, values: values, members: members)
                    try parser.transcodeDocument(into: &writer, writing: writing)
                }
            }
        }
    }

    /// `parseDocument`'s loop, writing each token instead of keeping values: `frames` holds 1 for an open object,
    /// 0 for an open array.
    private mutating func transcodeDocument(into writer: inout JSONWriter, writing: Bool) throws(PNCryptError) {
        while true {
            skipWhitespace()
            guard position < count else { throw expectedValueError() }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                try transcodeString(into: &writer, writing: writing)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                // `}` and `]` are their openers plus 2.
                let open = bytes[position]
                try checkDepth()
                position += 1
                if writing { writer.writeStructure(open) }
                skipWhitespace()
                if position < count && bytes[position] == open + 2 {
                    position += 1
                    if writing { writer.writeStructure(open + 2) }
                } else {
                    let isObject = open == UInt8(ascii: "{")
                    frames.append(isObject ? 1 : 0)
                    if isObject { try transcodeKey(after: "'{'", orClose: true, into: &writer, writing: writing) }
                    continue
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let number = try parseNumber()
                if writing { writer.writeNumber(number) }
            case UInt8(ascii: "t"):
                try expectLiteral("true", 0x6575_7274)
                if writing { writer.writeLiteral("true") }
            case UInt8(ascii: "f"):
                try expectLiteral("false", 0x6573_6C61, after: 1)
                if writing { writer.writeLiteral("false") }
            case UInt8(ascii: "n"):
                try expectLiteral("null", 0x6C6C_756E)
                if writing { writer.writeLiteral("null") }
            default:
                throw expectedValueError()
            }

            // After a value: close containers as far as the text says, or go on to the next element or member.
            while true {
                guard frames.count > 0 else {
                    try expectEnd()
                    return
                }
                let isObject = frames.last == 1
                if try readComma(isObject: isObject) {
                    if writing { writer.writeSeparator() }
                    if isObject { try transcodeKey(after: "','", orClose: false, into: &writer, writing: writing) }
                    break
                }
                if writing { writer.writeStructure(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) }
                frames.removeLast()
            }
        }
    }

    /// `parseKey`, writing the key and what follows it.
    private mutating func transcodeKey(after what: String, orClose: Bool, into writer: inout JSONWriter,
                                       writing: Bool) throws(PNCryptError) {
        try expectKey(after: what, orClose: orClose)
        try transcodeString(into: &writer, writing: writing)
        try expectColon()
        if writing { writer.writeKeySeparator() }
    }

    /// The string at `position` (its opening quote): an ASCII one with no escape straight from the text, any other
    /// through `parseString`.
    @inline(__always)
    private mutating func transcodeString(into writer: inout JSONWriter, writing: Bool) throws(PNCryptError) {
        if let content = plainASCIIString() {
            if writing { writer.writeString(utf8: UnsafeBufferPointer(rebasing: bytes[content])) }
            return
        }
        let string = try parseString()
        if writing { writer.writeString(string) }
    }

    /// The content of the string whose opening quote is at `position` when it is ASCII with no escape and no
    /// control character (its bytes are then its value), leaving `position` after the closing quote; nil, with
    /// `position` unchanged, for any other string: the scan of `parseString` (`plainRun`).
    @inline(__always)
    private mutating func plainASCIIString() -> Range<Int>? {
        let start = position + 1
        let (end, ascii) = plainRun(from: start)
        guard ascii, end < count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        position = end + 1
        return start..<end
    }
}

// MARK: - Documents

extension JSONParser {
    /// How many nodes the document parse keeps in stack memory (beyond that, the heap): enough for messages.
    private static let inlineNodes = 32

    /// Parses a text into values whose objects are views of documents: each object outside every other object (the
    /// text's, or each element of its arrays: the messages of a history) becomes one `JSONDocument` of its own
    /// bytes; the arrays around them are made. The same grammar, checks, limits and errors as `parseDocument` (the
    /// structure helpers are shared), strings and numbers read by the same functions, but values recorded as
    /// nodes, not made. `objectRoot`: the text's value is an object (a message: one document of the whole text).
    static func parseViewDocument(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, objectRoot: Bool)
        throws(PNCryptError) -> JSONValue {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: inlineFrames) {
            (frames) throws(PNCryptError) -> JSONValue in
            try withUnsafeTemporaryAllocation(of: JSONNode.self, capacity: 2 * inlineNodes) {
                (nodeMemory) throws(PNCryptError) -> JSONValue in
                // The values stack holds the objects made (a message: one); the members stack stays empty.
                try withUnsafeTemporaryAllocation(of: JSONValue.self, capacity: 1) {
                    (values) throws(PNCryptError) -> JSONValue in
                    try withUnsafeTemporaryAllocation(of: JSONObject.Member.self, capacity: 1) {
                        (members) throws(PNCryptError) -> JSONValue in
                        var parser = JSONParser(bytes, readable: bytes.count, maxDepth: maxDepth,
                                                frames: frames, values: values, members: members)
                        let half = inlineNodes
                        var pending = InlineStack(startingIn: UnsafeMutableBufferPointer(rebasing: nodeMemory[..<half]))
                        var nodes = InlineStack(startingIn: UnsafeMutableBufferPointer(rebasing: nodeMemory[half...]))
                        if objectRoot {
                            nodes.append(try parser.parseObjectNodes(pending: &pending, nodes: &nodes))
                            let document = nodes.withElements {
                                JSONDocument.make(text: bytes, nodes: $0, textOffset: 0, nodeOffset: 0,
                                                  verbatim: parser.verbatim)
                            }
                            return .object(JSONObject(document: document, node: nodes.count - 1))
                        }
                        let root = try parser.parseOuterNodes(pending: &pending, nodes: &nodes)
                        return nodes.withElements { parser.outerValue(root, nodes: $0) }
                    }
                }
            }
        }
    }

    /// `parseNodes` for a text whose value is an object (a message): its own copy of the loop, without the outer
    /// objects' bookkeeping.
    @inline(never)
    private mutating func parseObjectNodes(pending: inout InlineStack<JSONNode>,
                                           nodes: inout InlineStack<JSONNode>) throws(PNCryptError) -> JSONNode {
        try parseNodes(pending: &pending, nodes: &nodes, outer: false)
    }

    /// `parseNodes` for a text whose value is an array: each object outside every other object becomes a document.
    @inline(never)
    private mutating func parseOuterNodes(pending: inout InlineStack<JSONNode>,
                                          nodes: inout InlineStack<JSONNode>) throws(PNCryptError) -> JSONNode {
        try parseNodes(pending: &pending, nodes: &nodes, outer: true)
    }

    /// `parseDocument`'s loop, recording nodes: the children of open containers wait on `pending` (an object's as
    /// key, value, key, ...); a container that closes moves them to `nodes` and waits as one node itself. With
    /// `outer`, an object outside every other object, when it closes, becomes a document (`madeObject`). Returns
    /// the root node.
    @inline(__always)
    private mutating func parseNodes(pending: inout InlineStack<JSONNode>, nodes: inout InlineStack<JSONNode>,
                                     outer: Bool) throws(PNCryptError) -> JSONNode {
        while true {
            skipWhitespace()
            guard position < count else { throw expectedValueError() }
            var node: JSONNode
            switch bytes[position] {
            case UInt8(ascii: "\""):
                node = try stringNode()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                // `}` and `]` are their openers plus 2.
                let open = bytes[position]
                let isObject = open == UInt8(ascii: "{")
                try checkDepth()
                let outerObject = outer && isObject && outerDepth < 0
                if outerObject { (outerMark, outerStart, verbatim) = (nodes.count, position, true) }
                position += 1
                skipWhitespace()
                if position < count && bytes[position] == open + 2 {
                    position += 1
                    node = JSONNode(isObject ? .object : .array)
                    if outerObject { node = madeObject(node, nodes: &nodes) }
                } else {
                    if outerObject { outerDepth = frames.count }
                    frames.append(pending.count << 1 | (isObject ? 1 : 0))
                    if isObject { try nodeKey(after: "'{'", orClose: true, pending: &pending) }
                    continue
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = position
                if let value = try scanNumber() {
                    node = JSONNode(.int)
                    node.start = value
                } else {
                    node = JSONNode(.number, count: position - start, start: start)
                }
            case UInt8(ascii: "t"):
                try expectLiteral("true", 0x6575_7274)
                node = JSONNode(.trueValue)
            case UInt8(ascii: "f"):
                try expectLiteral("false", 0x6573_6C61, after: 1)
                node = JSONNode(.falseValue)
            case UInt8(ascii: "n"):
                try expectLiteral("null", 0x6C6C_756E)
                node = JSONNode(.null)
            default:
                throw expectedValueError()
            }

            // Hand the finished node to its container; close containers as far as the text says.
            while true {
                guard frames.count > 0 else {
                    try expectEnd()
                    return node
                }
                let frame = frames.last
                let isObject = frame & 1 == 1
                pending.append(node)
                if try readComma(isObject: isObject) {
                    if isObject { try nodeKey(after: "','", orClose: false, pending: &pending) }
                    break
                }
                let first = frame >> 1
                let children = pending.count - first
                let start = nodes.count
                pending.move(from: first, onto: &nodes)
                node = JSONNode(isObject ? .object : .array, count: isObject ? children >> 1 : children, start: start)
                frames.removeLast()
                if outer && frames.count == outerDepth {
                    outerDepth = -1
                    node = madeObject(node, nodes: &nodes)
                }
            }
        }
    }

    /// The object `node`, outside every other object, just closed: its descendants are `nodes` from `outerMark`
    /// on and its text runs from `outerStart` to `position` (`verbatim` says whether it is compact). Makes them a
    /// document, pops them, puts the view on `values` and returns the node that stands for it.
    private mutating func madeObject(_ node: JSONNode, nodes: inout InlineStack<JSONNode>) -> JSONNode {
        let mark = outerMark, textStart = outerStart
        nodes.append(node)
        let document = nodes.withElements { all in
            JSONDocument.make(text: UnsafeBufferPointer(rebasing: bytes[textStart..<position]),
                              nodes: UnsafeBufferPointer(rebasing: all[mark...]),
                              textOffset: textStart, nodeOffset: mark, verbatim: verbatim)
        }
        let root = nodes.count - 1 - mark
        nodes.removeAll(from: mark)
        values.append(.object(JSONObject(document: document, node: root)))
        return JSONNode(.made, start: values.count - 1)
    }

    /// The value of `node`, a node outside every object: an array is made, a made object taken from `values`.
    private func outerValue(_ node: JSONNode, nodes: UnsafeBufferPointer<JSONNode>) -> JSONValue {
        switch node.kind {
        case .made:
            return values[Int(node.start)]
        case .array:
            let first = Int(node.start)
            return .array((0..<Int(node.count)).map { outerValue(nodes[first + $0], nodes: nodes) })
        case .object:
            preconditionFailure("an object outside a document")
        default:
            return JSONDocument.scalar(node, in: bytes)
        }
    }

    /// `parseKey`, recording the key as a node.
    private mutating func nodeKey(after what: String, orClose: Bool,
                                  pending: inout InlineStack<JSONNode>) throws(PNCryptError) {
        try expectKey(after: what, orClose: orClose)
        pending.append(try stringNode())
        try expectColon()
    }

    /// The string at `position` (its opening quote) as a node, checked as `parseString` checks it.
    @inline(__always)
    private mutating func stringNode() throws(PNCryptError) -> JSONNode {
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

    /// The string whose content starts at `contentStart` in `text`, already checked by a document parse, decoded
    /// as `parseString` decodes it.
    static func decodeString(in text: UnsafeBufferPointer<UInt8>, contentStart: Int) -> String {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 1) { frames in
            withUnsafeTemporaryAllocation(of: JSONValue.self, capacity: 1) { values in
                withUnsafeTemporaryAllocation(of: JSONObject.Member.self, capacity: 1) { members in
                    var parser = JSONParser(text, readable: text.count, maxDepth: 0,
                                            frames: frames, values: values, members: members)
                    parser.position = contentStart - 1
                    do {
                        return try parser.parseString()
                    } catch {
                        preconditionFailure("a checked string did not decode: \(error)")
                    }
                }
            }
        }
    }
}
