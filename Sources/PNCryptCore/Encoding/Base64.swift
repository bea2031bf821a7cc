import PNCryptBase

/// Base64 as PubNub messages use it: standard alphabet `A-Z a-z 0-9 + /` with `=` padding.
///
/// Output is always padded, with no line breaks. Input is read leniently in the ways real clients differ and
/// strictly otherwise: surrounding whitespace, one pair of surrounding JSON quotes (`"q/xJ...Fw=="`), and line
/// breaks inside (old JavaScript clients wrapped at 64 columns) are accepted; any other character, misplaced
/// `=`, or a length that is not a whole number of 4-character groups is a `notBase64` error naming the offset.
///
/// This file holds the format (alphabet, padding, what is accepted); the loops over bytes are in
/// Base64Impl.swift.
package enum Base64 {
    package static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0...63 for alphabet characters, 0xFE for CR/LF (skipped), 0xFF otherwise.
    package static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        table[Int(UInt8(ascii: "\n"))] = 0xFE
        table[Int(UInt8(ascii: "\r"))] = 0xFE
        return table
    }()

    /// Standard padded Base64 of `bytes`, as UTF-8 bytes.
    package static func encodeBytes(_ bytes: some Collection<UInt8>) -> [UInt8] {
        withBytes(bytes) { encode($0, quoted: false) }
    }

    /// Standard padded Base64 of `bytes`.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: encodeBytes(bytes), as: UTF8.self)
    }

    /// Decodes Base64 text (see the type's rules on what is accepted).
    /// - Throws: `PNCryptError.notBase64` with the offset of the first offending character.
    package static func decode(_ text: String) throws(PNCryptError) -> [UInt8] {
        try withBytes(text.utf8) { (buffer) throws(PNCryptError) in try decode(buffer) }
    }

    /// Decodes Base64 text given as UTF-8 bytes.
    package static func decode(_ bytes: some Collection<UInt8>) throws(PNCryptError) -> [UInt8] {
        try withBytes(bytes) { (buffer) throws(PNCryptError) in try decode(buffer) }
    }

    /// Whether `c` is an alphabet character or `=`. Compared, not looked up, and inlinable: the message path asks
    /// it of two bytes per message, and a call that reads a lazily made table cost more than the answer.
    @inlinable
    package static func isCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    /// The length of the padded Base64 text of `count` bytes (room `encode(_:into:)` needs).
    package static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// An upper bound of the decoded size of `count` characters of Base64 text (room `decode(_:into:)` needs).
    package static func maximumDecodedCount(_ count: Int) -> Int { count / 4 * 3 + 3 }

    /// A byte as an error message names it.
    package static func describe(_ c: UInt8) -> String {
        if c == 0x20 { return "space" }
        if c == 0x09 { return "tab" }
        if c >= 0x21 && c < 0x7F { return "character '\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x" + Hex.encode([c])
    }
}
