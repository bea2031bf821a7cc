
/// Lowercase hex encoding and decoding: the package's one hex codec.
package enum Hex {
    /// The digits, lowercase.
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex of `bytes`.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the lowercase hex digits of `bytes` to `out` (two per byte). Reserve the room first when `out`
    /// will hold a secret: a growing array leaves copies behind.
    package static func append(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
    }

    /// The bytes of hex text (either case); nil when it is not an even number of hex digits.
    package static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
