import PNCryptBase

/// The writer behind `JSONValue.serialized(style:)`: appends UTF-8 to one buffer, which starts on the stack.
///
/// Ownership: the output is a `ByteBuffer` (ByteBuffers.swift); each string's UTF-8 is read through the
/// pointer `String.withUTF8` lends for one call, and the words of a small string are copied out of the value.
@usableFromInline
package struct JSONWriter: ~Copyable {
    /// The stack memory the output starts in: a message's text fits, so writing one allocates nothing.
    @usableFromInline
    package static let stackBytes = 1024

    @usableFromInline
    package var output: ByteBuffer
    let spaced: Bool
    /// Whether this style writes a compact text with no escaped string as that text (`.compact`).
    package let copiesVerbatim: Bool
    /// Bytes 0-63 and 64-127 that this style does not copy as they are, one bit each.
    private let specialLow: UInt64, specialHigh: UInt64
    /// Whether this style escapes `/`, U+007F and every byte from 0x80 up (which start non-ASCII characters).
    private let escapeSlash: Bool, escapeDelete: Bool, escapeNonASCII: Bool
    /// The style's two optional ASCII escapes (`/`, U+007F) repeated in each byte of a word for the word scans;
    /// a style without one repeats `"` instead, which the scans look for anyway. Bytes from 0x80 up: `highMask`.
    private let extraWord1: UInt64, extraWord2: UInt64, highMask: UInt64
    /// `SmallASCII.isAvailable`, read once per writer.
    private let smallStrings = SmallASCII.isAvailable

    private static var hexDigits: StaticString { "0123456789abcdef" }
    /// "00" to "99", two bytes each.
    private static var digitPairs: StaticString {
        """
        0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849\
        5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
        """
    }

    /// For the SDK styles (`go`, `ruby`, `php`, `kotlin`): the style, written by `writeSDK` (JSON/SDKStyles.swift).
    let sdkStyle: JSONStyle?

    @usableFromInline
    package init(style: JSONStyle, output: consuming ByteBuffer) {
        self.output = output
        // A switch, not `JSONStyle.sdkStyles.contains(style)`: hashing the style's raw value cost most of this
        // initializer, once per message written.
        switch style {
        case .go, .ruby, .php, .kotlin: sdkStyle = style
        case .compact, .apple, .python, .ascii: sdkStyle = nil
        }
        spaced = style == .python
        copiesVerbatim = style == .compact
        escapeSlash = style == .apple
        escapeDelete = style == .python
        escapeNonASCII = style == .python || style == .ascii
        // Control characters (0-31), '"' (34), '\\' (92), then '/' (47) and U+007F (127) where the style says.
        let ones: UInt64 = 0x0101_0101_0101_0101
        extraWord1 = ones &* (escapeSlash ? 0x2F : 0x22)
        extraWord2 = ones &* (escapeDelete ? 0x7F : 0x22)
        highMask = escapeNonASCII ? ~0 : 0
        specialLow = 0xFFFF_FFFF | 1 << 0x22 | (escapeSlash ? 1 << 0x2F : 0)
        specialHigh = 1 << (0x5C - 64) | (escapeDelete ? 1 << (0x7F - 64) : 0)
    }

    /// `JSONValue.withSerialized`: `value` is borrowed by the closure, not copied into it (a copy is a retain
    /// and a release per message).
    @inlinable
    package static func withSerialized<R, E: Error>(_ value: borrowing JSONValue, style: JSONStyle,
                                            _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeTemporaryAllocation(byteCount: stackBytes, alignment: 16) { (scratch) throws(E) -> R in
            var writer = JSONWriter(style: style, output: ByteBuffer(startingIn: scratch, secret: true))
            writer.write(value)
            return try writer.output.withBytes(body)
        }
    }

    @usableFromInline
    package mutating func write(_ value: borrowing JSONValue) {
        if let sdkStyle {
            writeSDK(copy value, style: sdkStyle, top: true)
            return
        }
        withUnsafePointer(to: value) { write(at: $0) }
    }

    /// The walk, over pointers into the containers' storage: an element passed as a value is loaded from that
    /// storage as a copy (a retain and a release per element, since the compiler cannot prove that nothing writes
    /// the storage during the call); read through its pointer, only containers are retained, once each, and
    /// strings and keys are read in place.
    private mutating func write(at value: UnsafePointer<JSONValue>) {
        switch value.pointee {
        case .null, .bool, .number, .string:
            writeElement(at: value)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            elements.withUnsafeBufferPointer { elements in
                guard let first = elements.baseAddress else { return }
                for index in 0..<elements.count {
                    if index > 0 { separator() }
                    writeElement(at: first + index)
                }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            if let document = object.document {
                // A parsed object, written from its document's nodes (this walk is for exact styles).
                document.write(object: Int(object.node), into: &self)
                return
            }
            output.append(UInt8(ascii: "{"))
            object.own.withUnsafeBufferPointer { members in
                guard let first = members.baseAddress else { return }
                let keyOffset = MemoryLayout<JSONObject.Member>.offset(of: \.key)!
                let valueOffset = MemoryLayout<JSONObject.Member>.offset(of: \.value)!
                for index in 0..<members.count {
                    if index > 0 { separator() }
                    // A short ASCII key (most keys) straight from the member's memory; any other through a copy.
                    let member = UnsafeRawPointer(first + index)
                    if !(smallStrings && writeSmallASCII(member.load(fromByteOffset: keyOffset,
                                                                     as: (UInt64, UInt64).self))) {
                        write(members[index].key)
                    }
                    output.append(UInt8(ascii: ":"))
                    if spaced { output.append(UInt8(ascii: " ")) }
                    writeElement(at: (member + valueOffset).assumingMemoryBound(to: JSONValue.self))
                }
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// An element or member value: a leaf is written here, in the container's loop, and only a container is a
    /// call of the walk (a call per leaf cost more than most leaves). `@_transparent`: with `@inline(__always)` the
    /// optimizer still made this a call, being part of the walk's recursion (callgrind: 1,729 instructions for the
    /// bench's message against 1,678).
    @_transparent
    private mutating func writeElement(at value: UnsafePointer<JSONValue>) {
        switch value.pointee {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number: writeNumber(at: value)
        case .string: writeString(at: value)
        case .array, .object: write(at: value)
        }
    }

    // Leaves. A payload bound in the walk's `switch` is copied (a retain, and a release at the end) whenever what
    // uses it makes a call that could release memory; the helpers below only look at it, so the compiler reads
    // it in place, and only a string or number that needs such a call (escapes, non-ASCII, long, number text) is
    // copied, in the out-of-line functions.

    @inline(__always)
    private mutating func writeString(at value: UnsafePointer<JSONValue>) {
        if smallStrings, let words = Self.stringWords(value), writeSmallASCII(words) { return }
        writeStringCopy(at: value)
    }

    /// The two words of the string at `value` (nil if it is not a string).
    @inline(__always)
    private static func stringWords(_ value: UnsafePointer<JSONValue>) -> (UInt64, UInt64)? {
        guard case .string(let string) = value.pointee else { return nil }
        return SmallASCII.words(of: string)
    }

    @inline(never)
    private mutating func writeStringCopy(at value: UnsafePointer<JSONValue>) {
        guard case .string(let string) = value.pointee else { return }
        write(string)
    }

    @inline(__always)
    private mutating func writeNumber(at value: UnsafePointer<JSONValue>) {
        if let int = Self.intValue(value) {
            write(int: int)
        } else {
            writeNumberCopy(at: value)
        }
    }

    /// The integer at `value` when it is a number stored as one (nil otherwise).
    @inline(__always)
    private static func intValue(_ value: UnsafePointer<JSONValue>) -> Int64? {
        guard case .number(let number) = value.pointee, case .int(let int) = number.storage else { return nil }
        return int
    }

    @inline(never)
    private mutating func writeNumberCopy(at value: UnsafePointer<JSONValue>) {
        guard case .number(let number) = value.pointee else { return }
        write(number)
    }

    @inline(__always)
    mutating func separator() {
        output.append(UInt8(ascii: ","))
        if spaced { output.append(UInt8(ascii: " ")) }
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        output.append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func write(_ number: borrowing JSONNumber) {
        switch number.storage {
        case .int(let value):
            write(int: value)
        case .text(let text):
            var text = text
            text.withUTF8 { output.append($0) }
        }
    }

    private mutating func write(int value: Int64) {
        // At most 20 bytes ("-" and 19 digits), in groups of 8 digits: the leading group's digits are counted and
        // written, then each further group is exactly 8 digits. Within a group the arithmetic is 32-bit and the
        // digits go two at a time (`digitPairs`), so 17 digits take two divisions of the 64-bit magnitude.
        output.append(maximum: 20) { out in
            let magnitude = value.magnitude
            var at = 0
            if value < 0 {
                out[0] = UInt8(ascii: "-")
                at = 1
            }
            if magnitude < 100_000_000 {
                return at + JSONWriter.writeLeading(UInt32(truncatingIfNeeded: magnitude), to: out + at)
            }
            let low = UInt32(truncatingIfNeeded: magnitude % 100_000_000)
            let rest = magnitude / 100_000_000
            if rest < 100_000_000 {
                at += JSONWriter.writeLeading(UInt32(truncatingIfNeeded: rest), to: out + at)
            } else {
                at += JSONWriter.writeLeading(UInt32(truncatingIfNeeded: rest / 100_000_000), to: out + at)
                JSONWriter.writeEight(UInt32(truncatingIfNeeded: rest % 100_000_000), to: out + at)
                at += 8
            }
            JSONWriter.writeEight(low, to: out + at)
            return at + 8
        }
    }

    /// The two digits of `pair` (below 100) at `out`.
    @inline(__always)
    private static func writePair(_ pair: UInt32, to out: UnsafeMutablePointer<UInt8>) {
        let digits = UnsafeRawPointer(digitPairs.utf8Start).loadUnaligned(fromByteOffset: Int(pair) << 1,
                                                                          as: UInt16.self)
        UnsafeMutableRawPointer(out).storeBytes(of: digits, as: UInt16.self)
    }

    /// Exactly 8 digits of `value` (below 10^8), leading zeros included, at `out`.
    @inline(__always)
    private static func writeEight(_ value: UInt32, to out: UnsafeMutablePointer<UInt8>) {
        let high = value / 10_000, low = value % 10_000
        writePair(high / 100, to: out)
        writePair(high % 100, to: out + 2)
        writePair(low / 100, to: out + 4)
        writePair(low % 100, to: out + 6)
    }

    /// The digits of `value` (below 10^8) with no leading zero at `out`; returns how many.
    @inline(__always)
    private static func writeLeading(_ value: UInt32, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var length = 1
        var rest = value
        if rest >= 10_000 { length += 4; rest /= 10_000 }
        if rest >= 100 { length += 2; rest /= 100 }
        if rest >= 10 { length += 1 }
        var magnitude = value
        var index = length
        while magnitude >= 100 {
            index -= 2
            writePair(magnitude % 100, to: out + index)
            magnitude /= 100
        }
        if magnitude >= 10 {
            writePair(magnitude, to: out + index - 2)
        } else {
            out[index - 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        }
        return length
    }

    mutating func write(_ string: borrowing String) {
        // Short ASCII strings (most keys and many values) straight from the String's own words.
        if smallStrings && writeSmallASCII(SmallASCII.words(of: string)) { return }
        // A native string's UTF-8 in place (borrowed: no copy, so the walk retains no string); `withUTF8` needs a
        // mutable copy, which only a string without contiguous UTF-8 (bridged, on Apple platforms) takes.
        if string.utf8.withContiguousStorageIfAvailable({ writeEscaped($0) }) != nil { return }
        var string = copy string
        string.withUTF8 { writeEscaped($0) }
    }

    /// Writes the string whose two words are `words` when it is a small ASCII string that needs no escape (only
    /// when `smallStrings`); false, with nothing written, otherwise.
    @inline(__always)
    private mutating func writeSmallASCII(_ words: (UInt64, UInt64)) -> Bool {
        guard let small = SmallASCII.read(words: words) else { return false }
        return writeShortASCII(small.low, small.high, count: small.count)
    }

    /// Writes the ASCII string of `count` (at most 16) bytes held in `low` and `high` (memory order, the first
    /// byte lowest; what follows the string does not matter) when it needs no escape; false, with nothing
    /// written, otherwise.
    @inline(__always)
    mutating func writeShortASCII(_ low: UInt64, _ high: UInt64, count: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        // Only the first `count` bytes count.
        let lowValid: UInt64 = count >= 8 ? ~0 : (1 << (count << 3)) &- 1
        let highValid: UInt64 = count <= 8 ? 0 : (1 << ((count - 8) << 3)) &- 1
        let special = asciiSpecialBytes(low) & lowValid | asciiSpecialBytes(high) & highValid
        guard special & (ones &* 0x80) == 0 else { return false }
        output.append(maximum: 18) { out in
            out[0] = UInt8(ascii: "\"")
            UnsafeMutableRawPointer(out + 1).storeBytes(of: low.littleEndian, as: UInt64.self)
            UnsafeMutableRawPointer(out + 9).storeBytes(of: high.littleEndian, as: UInt64.self)
            out[count + 1] = UInt8(ascii: "\"")
            return count + 2
        }
        return true
    }

    /// Whether `byte` is written other than as itself in this style.
    @inline(__always)
    private func isSpecial(_ byte: UInt8) -> Bool {
        if byte >= 0x80 { return escapeNonASCII }
        let mask = byte < 64 ? specialLow : specialHigh
        return mask >> (byte & 63) & 1 != 0
    }

    /// The high bit of each byte of `word` (memory order, the first byte lowest) that is special in this style,
    /// and maybe of bytes after the first such one: the lowest bit set is exact (see the parser's `plainRunStops`).
    @inline(__always)
    func specialBytes(_ word: UInt64) -> UInt64 {
        asciiSpecialBytes(word) | word & highMask & (0x0101_0101_0101_0101 &* 0x80)
    }

    /// `specialBytes` for ASCII bytes only (no branch on the style: its escapes are in `extraWord1`/`extraWord2`).
    @inline(__always)
    private func asciiSpecialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x }
        let found = (word &- ones &* 0x20) & ~word | zeroBytes(word ^ (ones &* 0x22))
            | zeroBytes(word ^ (ones &* 0x5C)) | zeroBytes(word ^ extraWord1) | zeroBytes(word ^ extraWord2)
        return found & (ones &* 0x80)
    }

    /// `utf8`, which needs no escape in this style, between quotes.
    @inline(__always)
    mutating func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        let count = utf8.count
        output.append(maximum: count + 2) { out in
            out[0] = UInt8(ascii: "\"")
            if let base = utf8.baseAddress { (out + 1).update(from: base, count: count) }
            out[count + 1] = UInt8(ascii: "\"")
            return count + 2
        }
    }

    mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let count = utf8.count
        // The common case: nothing to escape. Find the first special byte, 8 bytes at a time while eight are left,
        // then one by one.
        var index = 0
        if let base = utf8.baseAddress {
            while index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let found = specialBytes(UInt64(littleEndian: word))
                if found != 0 {
                    index += found.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            while index < count && !isSpecial(base[index]) { index += 1 }
        }
        guard index < count else {
            writeQuoted(utf8)
            return
        }
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        while index < count {
            let byte = utf8[index]
            if !isSpecial(byte) {
                index += 1
                continue
            }
            if runStart < index {
                output.append(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            if byte < 0x80 {
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

    mutating func writeEscape(_ byte: UInt8) {
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

    mutating func writeUnicodeEscape(_ unit: UInt16) {
        let hex = JSONWriter.hexDigits.utf8Start
        output.append(maximum: 6) { out in
            out[0] = UInt8(ascii: "\\")
            out[1] = UInt8(ascii: "u")
            out[2] = hex[Int(unit >> 12)]
            out[3] = hex[Int(unit >> 8 & 0xF)]
            out[4] = hex[Int(unit >> 4 & 0xF)]
            out[5] = hex[Int(unit & 0xF)]
            return 6
        }
    }
}
