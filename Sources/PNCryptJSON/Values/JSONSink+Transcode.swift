// The grammar loop's sinks that make no value: the transcoder's writer (`JSONParser.transcode`) and the check
// (`isJSONText`).

import PNCryptBase

/// Writes each token to a `JSONWriter` as it is read: the text in the writer's style, exactly as writing the
/// parsed value would. ASCII strings with no escape go from the text to the writer; other strings and numbers
/// are read by the parser's functions and written by the writer's.
struct TranscodeSink: JSONSink {
    /// The caller's writer, lent for the parse.
    private let writer: UnsafeMutablePointer<JSONWriter>

    init(writer: UnsafeMutablePointer<JSONWriter>) {
        self.writer = writer
    }

    @inline(__always)
    mutating func string(_ parser: inout JSONParser) throws(PNCryptError) {
        if let content = parser.plainASCIIString() {
            writer.pointee.writeString(utf8: UnsafeBufferPointer(rebasing: parser.bytes[content]))
            return
        }
        writer.pointee.writeString(try parser.parseString())
    }

    @inline(__always)
    mutating func key(_ parser: inout JSONParser) throws(PNCryptError) { try string(&parser) }

    @inline(__always)
    mutating func keySeparator() { writer.pointee.writeKeySeparator() }

    @inline(__always)
    mutating func number(_ parser: inout JSONParser) throws(PNCryptError) {
        writer.pointee.writeNumber(try parser.parseNumber())
    }

    @inline(__always)
    mutating func literal(_ value: Bool?, _ parser: inout JSONParser) {
        guard let value else { return writer.pointee.writeLiteral("null") }
        writer.pointee.writeLiteral(value ? "true" : "false")
    }

    @inline(__always)
    mutating func willOpen(isObject: Bool, depth: Int, _ parser: inout JSONParser) {
        writer.pointee.writeStructure(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
    }

    @inline(__always)
    mutating func empty(isObject: Bool, _ parser: inout JSONParser) {
        writer.pointee.writeStructure(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }

    @inline(__always)
    mutating func open(isObject: Bool, depth: Int) -> Int { 0 }

    @inline(__always)
    mutating func element(_ value: consuming Void, isObject: Bool) { writer.pointee.writeSeparator() }

    @inline(__always)
    mutating func close(_ value: consuming Void, isObject: Bool, mark: Int, depth: Int, _ parser: inout JSONParser) {
        writer.pointee.writeStructure(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }
}

/// Checks the text and keeps nothing: `isJSONText`'s answer, the same as parsing's.
struct CheckSink: JSONSink {
    /// A string is checked as the document parse checks it (`stringNode`: as `parseString` checks it), which makes
    /// no `String` of one with non-ASCII and no escape: the usual message's text ("ünïcödé" and the like).
    @inline(__always)
    mutating func string(_ parser: inout JSONParser) throws(PNCryptError) {
        if parser.plainASCIIString() == nil { _ = try parser.stringNode() }
    }

    @inline(__always)
    mutating func key(_ parser: inout JSONParser) throws(PNCryptError) { try string(&parser) }

    @inline(__always)
    mutating func keySeparator() {}

    @inline(__always)
    mutating func number(_ parser: inout JSONParser) throws(PNCryptError) { _ = try parser.scanNumber() }

    @inline(__always)
    mutating func literal(_ value: Bool?, _ parser: inout JSONParser) {}

    @inline(__always)
    mutating func willOpen(isObject: Bool, depth: Int, _ parser: inout JSONParser) {}

    @inline(__always)
    mutating func empty(isObject: Bool, _ parser: inout JSONParser) {}

    @inline(__always)
    mutating func open(isObject: Bool, depth: Int) -> Int { 0 }

    @inline(__always)
    mutating func element(_ value: consuming Void, isObject: Bool) {}

    @inline(__always)
    mutating func close(_ value: consuming Void, isObject: Bool, mark: Int, depth: Int, _ parser: inout JSONParser) {}
}
