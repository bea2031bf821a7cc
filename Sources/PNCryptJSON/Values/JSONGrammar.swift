// JSON's grammar, once: the loop every consumer of JSON text runs (`JSONParser.walk`), and the sinks it drives
// (`JSONSink`): the value tree (JSONSink+Tree.swift), the document's node table (JSONSink+Nodes.swift), the
// transcoder's writer (JSONSink+Transcode.swift) and the envelope path's skeleton (JSONSink+Skeleton.swift). As
// simdjson has one stage-2 walker for every consumer: the accepted language, the errors (messages and offsets) and
// the limits (`maxDepth`) are this file's, so every consumer accepts and refuses the same texts alike. The walker
// is generic over its sink and inlined into each entry point, so the optimizer makes one specialized loop per
// sink, as the hand-written loops were.

import PNCryptBase

/// What the grammar loop hands each event of a JSON text to. Leaves are read by the sink through the parser's
/// readers (JSONParser+Leaves.swift) at `position`, so that each consumer reads them as cheaply as it can (a tree
/// makes strings, a node table records where they lie, a transcoder copies them) while the checks stay the
/// parser's.
protocol JSONSink: ~Copyable {
    /// What a finished value is to this sink (a `JSONValue`, a `JSONNode`, nothing).
    associatedtype Value

    /// The string whose opening quote is at `parser.position`, read and checked; `position` is left after it.
    mutating func string(_ parser: inout JSONParser) throws(PNCryptError) -> Value
    /// The key whose opening quote is at `parser.position`, read and checked (the walker reads the `:` after it).
    mutating func key(_ parser: inout JSONParser) throws(PNCryptError)
    /// The `:` after a key was read.
    mutating func keySeparator()
    /// The number at `parser.position`, read and checked.
    mutating func number(_ parser: inout JSONParser) throws(PNCryptError) -> Value
    /// `true`, `false` or `null` (`nil`), read (`parser.position` is after it).
    mutating func literal(_ value: Bool?, _ parser: inout JSONParser) -> Value
    /// A container's opening bracket is at `parser.position` (not yet read), inside `depth` open containers.
    mutating func willOpen(isObject: Bool, depth: Int, _ parser: inout JSONParser)
    /// The container just opened closed at once (its closing bracket read): its value.
    mutating func empty(isObject: Bool, _ parser: inout JSONParser) -> Value
    /// The container just opened has elements, and is open inside `depth` others: a mark that the walker keeps
    /// for it and hands back to `close` (where its elements start on the sink's stacks).
    mutating func open(isObject: Bool, depth: Int) -> Int
    /// `value` was followed by `,` in the innermost open container.
    mutating func element(_ value: consuming Value, isObject: Bool)
    /// `value` was the last in the innermost open container, which closed (its bracket read); `mark` is what
    /// `open` gave it, `depth` the containers still open. Returns the container's value.
    mutating func close(_ value: consuming Value, isObject: Bool, mark: Int, depth: Int,
                        _ parser: inout JSONParser) -> Value
}

extension JSONParser {
    /// The grammar loop: reads one JSON text from `position`, handing each event to `sink`, and returns the text's
    /// value as the sink makes it. No recursion: open containers are `frames` (the sink's mark times 2, plus 1 for
    /// an object). Inlined into each caller, so each sink gets a loop of its own.
    @inline(__always)
    mutating func walk<Sink: JSONSink & ~Copyable>(_ sink: inout Sink) throws(PNCryptError) -> Sink.Value {
        while true {
            skipWhitespace()
            guard position < count else { throw expectedValueError() }
            var value: Sink.Value
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                value = try sink.string(&self)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                // `}` and `]` are their openers plus 2.
                let isObject = byte == UInt8(ascii: "{")
                try checkDepth()
                sink.willOpen(isObject: isObject, depth: frames.count, &self)
                position += 1
                skipWhitespace()
                if position < count && bytes[position] == byte + 2 {
                    position += 1
                    value = sink.empty(isObject: isObject, &self)
                } else {
                    frames.append(sink.open(isObject: isObject, depth: frames.count) << 1 | (isObject ? 1 : 0))
                    if isObject { try key(after: "'{'", orClose: true, &sink) }
                    continue
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try sink.number(&self)
            case UInt8(ascii: "t"):
                try expectLiteral("true", 0x6575_7274)
                value = sink.literal(true, &self)
            case UInt8(ascii: "f"):
                try expectLiteral("false", 0x6573_6C61, after: 1)
                value = sink.literal(false, &self)
            case UInt8(ascii: "n"):
                try expectLiteral("null", 0x6C6C_756E)
                value = sink.literal(nil, &self)
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
                    sink.element(value, isObject: isObject)
                    if isObject { try key(after: "','", orClose: false, &sink) }
                    break
                }
                frames.removeLast()
                value = sink.close(value, isObject: isObject, mark: frame >> 1, depth: frames.count, &self)
            }
        }
    }

    /// A key: its opening quote after `what` (or, with `orClose`, the object's close, which the caller has ruled
    /// out), the key, and the `:` after it, leaving `position` at the member's value.
    @inline(__always)
    private mutating func key<Sink: JSONSink & ~Copyable>(after what: String, orClose: Bool,
                                                         _ sink: inout Sink) throws(PNCryptError) {
        try expectKey(after: what, orClose: orClose)
        try sink.key(&self)
        try expectColon()
        sink.keySeparator()
    }

    /// Throws `.jsonTooDeep` if opening one more container would exceed `maxDepth`. Mutating, though it changes
    /// nothing: a non-mutating method borrows the noncopyable parser through a copy of the whole struct, one per
    /// container opened. The error is made out of line.
    @inline(__always)
    mutating func checkDepth() throws(PNCryptError) {
        if frames.count >= maxDepth { throw depthError() }
    }

    @inline(never)
    func depthError() -> PNCryptError {
        PNCryptError(.jsonTooDeep, "JSON nested deeper than \(maxDepth) levels at offset \(position)", offset: position)
    }

    // The structure around values.

    /// After the top-level value: only white space may follow.
    @inline(__always)
    mutating func expectEnd() throws(PNCryptError) {
        skipWhitespace()
        if position < count {
            throw error("unexpected \(found()) after the JSON value")
        }
    }

    /// After a value in an open object (`isObject`) or array: reads `,` (true) or the container's close (false),
    /// leaving `position` after it.
    @inline(__always)
    mutating func readComma(isObject: Bool) throws(PNCryptError) -> Bool {
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
    mutating func expectKey(after what: String, orClose: Bool) throws(PNCryptError) {
        skipWhitespace()
        guard position < count, bytes[position] == UInt8(ascii: "\"") else {
            let expected = orClose ? "a string key or '}'" : "a string key"
            throw error("expected \(expected) after \(what), found \(found())")
        }
    }

    /// After a key: white space, then the `:`, read.
    @inline(__always)
    mutating func expectColon() throws(PNCryptError) {
        skipWhitespace()
        guard position < count, bytes[position] == UInt8(ascii: ":") else {
            throw error("expected ':' after object key, found \(found())")
        }
        position += 1
    }

    @inline(__always)
    mutating func skipWhitespace() {
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
    mutating func expectLiteral(_ word: StaticString, _ tail: UInt32, after: Int = 0) throws(PNCryptError) {
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
    mutating func expectLiteralSlowly(_ word: StaticString) throws(PNCryptError) {
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

    // MARK: - Errors

    // Errors are made out of line, their messages in autoclosures: the string interpolations stay out of the
    // parsing loops, which keeps the hot code small (the message path's instruction-cache misses).
    /// Without `describesErrors`, the error has no words beyond "invalid JSON" (and `what` is not run).
    @inline(never)
    func error(_ what: @autoclosure () -> String) -> PNCryptError {
        guard describesErrors else { return PNCryptError(.invalidJSON, "invalid JSON", offset: position) }
        return PNCryptError(.invalidJSON, "invalid JSON at offset \(position): \(what())", offset: position)
    }

    /// Names the byte at `position` for an error message: `'x'`, `byte 0xC3`, or `end of input`.
    @inline(never)
    func found() -> String {
        guard position < count else { return "end of input" }
        let byte = bytes[position]
        if byte > 0x20 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(byte < 0x10 ? "0" : "")\(hex)"
    }

    @inline(never)
    func expectedValueError() -> PNCryptError {
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
    func controlCharacterError(_ byte: UInt8) -> PNCryptError {
        let hex = String(byte, radix: 16, uppercase: true)
        return error("unescaped control character U+00\(byte < 0x10 ? "0" : "")\(hex) in string")
    }

    @inline(never)
    func unterminatedStringError(start: Int) -> PNCryptError {
        PNCryptError(
            .invalidJSON,
            "invalid JSON at offset \(count): unterminated string starting at offset \(start)",
            offset: count)
    }
}
