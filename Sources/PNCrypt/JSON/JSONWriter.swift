/// How `JSONValue.serialized(style:)` lays out text, named after the SDK whose bytes it reproduces (SPEC 4).
///
/// All styles write numbers as their literal text, object members in document order, and escape `"` as
/// `\"`, `\` as `\\`, U+0008 U+000C U+000A U+000D U+0009 as `\b \f \n \r \t`, and other U+0000–U+001F as
/// `\u00XX`. Hex digits are lowercase. The raw values are the names used on the command line.
public enum JSONStyle: String, CaseIterable, Hashable, Sendable {
    /// JavaScript `JSON.stringify(v)`: no spaces, raw UTF-8 (U+007F, U+2028, U+2029 too).
    case compact
    /// `NSJSONSerialization` (Objective-C SDK): as `compact`, but `/` is written `\/`.
    case apple
    /// Python `json.dumps(v)` defaults: separators `", "` and `": "`; `ensure_ascii`, so every character
    /// from U+007F up is written `\uXXXX` (astral characters as a surrogate pair, `😀` as `\ud83d\ude00`).
    /// Empty containers are `[]` and `{}`.
    case python
    /// As `compact`, but every non-ASCII character (U+0080 up) written `\uXXXX`, astral ones as surrogate
    /// pairs: what the Go and C# SDKs encrypt. U+007F stays raw.
    case ascii
}

extension JSONValue {
    /// The JSON text of this value as UTF-8 bytes, laid out as `style` says.
    ///
    /// Never fails: every `JSONValue` has a JSON text. Integers are written with all their digits.
    public func serialized(style: JSONStyle = .compact) -> [UInt8] {
        var writer = JSONWriter(style: style)
        writer.write(self)
        return writer.output.array()
    }

    /// Writes this value's JSON text and runs `body` over it, without making an array (the message path).
    func withSerialized<R, E: Error>(style: JSONStyle, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        var writer = JSONWriter(style: style)
        writer.write(self)
        let text = writer.output.bytes
        // Callers encrypt this text: it is plaintext, wiped once they are done with it.
        defer { wipe(text) }
        return try body(text)
    }

    /// The JSON text of this value as a `String`, laid out as `style` says; see `serialized(style:)`.
    public func serializedString(style: JSONStyle = .compact) -> String {
        String(decoding: serialized(style: style), as: UTF8.self)
    }
}

/// The writer behind `JSONValue.serialized(style:)`: appends UTF-8 to one growing buffer.
struct JSONWriter: ~Copyable {
    private(set) var output = ByteBuffer(capacity: 256)
    private let style: JSONStyle
    private let spaced: Bool
    private let table: [UInt8]

    /// Byte classes in the escape tables.
    private static let raw: UInt8 = 0, escape: UInt8 = 1, unicode: UInt8 = 2

    private static let compactTable = makeTable(slash: false, escapeDelete: false, escapeNonASCII: false)
    private static let appleTable = makeTable(slash: true, escapeDelete: false, escapeNonASCII: false)
    private static let pythonTable = makeTable(slash: false, escapeDelete: true, escapeNonASCII: true)
    private static let asciiTable = makeTable(slash: false, escapeDelete: false, escapeNonASCII: true)

    private static func makeTable(slash: Bool, escapeDelete: Bool, escapeNonASCII: Bool) -> [UInt8] {
        (0...255).map { (byte: Int) -> UInt8 in
            switch byte {
            case 0..<0x20, 0x22, 0x5C: return escape
            case 0x2F: return slash ? escape : raw
            case 0x7F: return escapeDelete ? escape : raw
            case 0x80...: return escapeNonASCII ? unicode : raw
            default: return raw
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    init(style: JSONStyle) {
        self.style = style
        spaced = style == .python
        switch style {
        case .compact: table = JSONWriter.compactTable
        case .apple: table = JSONWriter.appleTable
        case .python: table = JSONWriter.pythonTable
        case .ascii: table = JSONWriter.asciiTable
        }
    }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null:
            append("null")
        case .bool(let flag):
            append(flag ? "true" : "false")
        case .number(let number):
            write(number)
        case .string(let string):
            write(string)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { separator() }
                write(element)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            let keys = object.keys
            let values = object.values
            for index in keys.indices {
                if index > 0 { separator() }
                write(keys[index])
                output.append(UInt8(ascii: ":"))
                if spaced { output.append(UInt8(ascii: " ")) }
                write(values[index])
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    @inline(__always)
    private mutating func separator() {
        output.append(UInt8(ascii: ","))
        if spaced { output.append(UInt8(ascii: " ")) }
    }

    @inline(__always)
    private mutating func append(_ text: StaticString) {
        output.append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func write(_ number: JSONNumber) {
        switch number.storage {
        case .int(let value):
            if value < 0 { output.append(UInt8(ascii: "-")) }
            var magnitude = value.magnitude
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
                var start = 20
                repeat {
                    start -= 1
                    digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                } while magnitude > 0
                output.append(UnsafeBufferPointer(rebasing: digits[start..<20]))
            }
        case .text(let text):
            var text = text
            text.withUTF8 { output.append($0) }
        }
    }

    private mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            table.withUnsafeBufferPointer { table in
                writeEscaped(utf8, table)
            }
        }
    }

    private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, _ table: UnsafeBufferPointer<UInt8>) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            let byte = utf8[index]
            let kind = table[Int(byte)]
            if kind == JSONWriter.raw {
                index += 1
                continue
            }
            if runStart < index {
                output.append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            if kind == JSONWriter.escape {
                writeEscape(byte)
                index += 1
            } else {
                // A Swift String is valid UTF-8: decode the scalar starting here and write it as \u escapes.
                var scalar: UInt32
                let length: Int
                switch byte {
                case 0xC0..<0xE0:
                    scalar = UInt32(byte & 0x1F)
                    length = 2
                case 0xE0..<0xF0:
                    scalar = UInt32(byte & 0x0F)
                    length = 3
                default:
                    scalar = UInt32(byte & 0x07)
                    length = 4
                }
                for offset in 1..<length {
                    scalar = scalar << 6 | UInt32(utf8[index + offset] & 0x3F)
                }
                if scalar >= 0x10000 {
                    let value = scalar - 0x10000
                    writeUnicodeEscape(UInt16(0xD800 + (value >> 10)))
                    writeUnicodeEscape(UInt16(0xDC00 + (value & 0x3FF)))
                } else {
                    writeUnicodeEscape(UInt16(scalar))
                }
                index += length
            }
            runStart = index
        }
        if runStart < count {
            output.append(UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private mutating func writeEscape(_ byte: UInt8) {
        let short: UInt8
        switch byte {
        case UInt8(ascii: "\""): short = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): short = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): short = UInt8(ascii: "/")
        case 0x08: short = UInt8(ascii: "b")
        case 0x0C: short = UInt8(ascii: "f")
        case 0x0A: short = UInt8(ascii: "n")
        case 0x0D: short = UInt8(ascii: "r")
        case 0x09: short = UInt8(ascii: "t")
        default:
            writeUnicodeEscape(UInt16(byte))
            return
        }
        output.append(UInt8(ascii: "\\"))
        output.append(short)
    }

    private mutating func writeUnicodeEscape(_ unit: UInt16) {
        let hex = JSONWriter.hexDigits
        output.append(UInt8(ascii: "\\"))
        output.append(UInt8(ascii: "u"))
        output.append(hex[Int(unit >> 12)])
        output.append(hex[Int(unit >> 8 & 0xF)])
        output.append(hex[Int(unit >> 4 & 0xF)])
        output.append(hex[Int(unit & 0xF)])
    }
}
