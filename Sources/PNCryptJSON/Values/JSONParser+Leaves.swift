// The parser's leaves: numbers and strings, read at `position` by every sink of the grammar loop
// (JSONGrammar.swift), so that every consumer of JSON reads them alike.

import PNCryptBase

extension JSONParser {
    // MARK: - Numbers

    mutating func parseNumber() throws(PNCryptError) -> JSONNumber {
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
    mutating func scanNumber() throws(PNCryptError) -> Int64? {
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
    func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    // MARK: - Strings

    /// The usual string of a message, key or value, on one fast path: at most 15 ASCII bytes, no escape, with 16
    /// bytes readable after the opening quote (`readable`: past the text's end too when the caller says so). Two
    /// word loads find the closing quote (`plainRunStops`, with bytes from 0x80 up stopping too) and the string's
    /// two words are made from the same loads. Returns nil, with `position` unchanged, for anything else:
    /// `parseString` then reads it (and reports any error).
    @inline(__always)
    mutating func shortASCIIString() -> String? {
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
    mutating func parseString() throws(PNCryptError) -> String {
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
    func plainRun(from start: Int) -> (end: Int, ascii: Bool) {
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
    mutating func parseEscapedString(start: Int) throws(PNCryptError) -> String {
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
    mutating func parseEscape(stringStart: Int) throws(PNCryptError) {
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
    mutating func parseHex4() throws(PNCryptError) -> UInt16 {
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

    func hex4(at offset: Int) -> UInt16? {
        var value: UInt16 = 0
        for index in offset..<offset + 4 {
            guard let digit = hexValue(bytes[index]) else { return nil }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    @inline(__always)
    func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    mutating func appendUTF8(_ scalar: UInt32) {
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
    func makeValidatedString(
        _ content: UnsafeBufferPointer<UInt8>, rawStart: Int, rawEnd: Int
    ) throws(PNCryptError) -> String {
        if let string = String(validating: content, as: UTF8.self) {
            return string
        }
        let bad = firstInvalidUTF8(in: UnsafeBufferPointer(rebasing: bytes[rawStart..<rawEnd]))
        let offset = rawStart + (bad ?? 0)
        guard describesErrors else { throw PNCryptError(.invalidJSON, "invalid JSON", offset: offset) }
        throw PNCryptError(
            .invalidJSON, "invalid JSON at offset \(offset): invalid UTF-8 in string", offset: offset)
    }

    /// The content of the string whose opening quote is at `position` when it is ASCII with no escape and no
    /// control character (its bytes are then its value), leaving `position` after the closing quote; nil, with
    /// `position` unchanged, for any other string: the scan of `parseString` (`plainRun`).
    @inline(__always)
    mutating func plainASCIIString() -> Range<Int>? {
        let start = position + 1
        let (end, ascii) = plainRun(from: start)
        guard ascii, end < count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        position = end + 1
        return start..<end
    }
}
