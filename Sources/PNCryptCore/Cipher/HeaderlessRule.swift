// The headerless rule: how the two legacy readings of data without a `PNED` header are told apart when both
// qualify (docs/formats.md section 1, "The headerless rule"). `Decision` applies it; this file holds the test of
// the one thing that differs between them, the fixed-IV reading's first block.
//
// Ownership: `classify` reads the caller's bytes for the duration of the call and keeps nothing.

import PNCryptJSON

/// Tells the two legacy readings of headerless data apart by their structure.
///
/// For CBC, the random-IV reading of any ciphertext is exactly the fixed-IV reading without its first 16 bytes,
/// with the same padding: for headerless data of two blocks or more both readings always pass the padding check,
/// and as text both are valid UTF-8 whenever the cut falls on a character boundary. The one block that differs is
/// the fixed-IV reading's first: real plaintext for data written with the fixed IV, and for data written with a
/// random IV, that IV decrypted: 16 bytes of noise.
///
/// `classify` scores that block under a simple model of text (`textProbability`: letters, digits, spaces and
/// punctuation of any script, a character's class depending on the one before it) and calls it text when the model
/// finds it at least 2^27 times likelier than 16 uniform random bytes (2^-128). Whatever the model, the chance
/// that noise passes is then at most 2^-27 (about 7.5e-9): summed over every accepted block B, noise has
/// `2^-128 <= 2^-27 * textProbability(B)`, and `textProbability` sums to at most 1 over all blocks.
package enum HeaderlessRule {
    /// What the fixed-IV reading's first block looks like.
    package enum FirstBlock: Sendable, Hashable {
        /// Text, by the model (noise passes at most 2^-27 of the time): the data was written with the fixed IV.
        case text
        /// Not text: not valid UTF-8, or a character text does not hold (C0 controls other than tab, line feed,
        /// vertical tab, form feed, carriage return and escape; DEL; C1 controls; private-use, unassigned and
        /// noncharacter code points): a decrypted IV.
        case noise
        /// Valid UTF-8 of ordinary characters, but too unlikely as text to be called text.
        case undecided
    }

    /// The length of the block that decides.
    package static let blockLength = Cryptor.blockSize

    /// A block is text when `textProbability` is at least this: 2^27 times the 2^-128 of 16 random bytes.
    package static let textThreshold = 0x1p-101

    /// Classifies the first `blockLength` bytes of a fixed-IV reading's plaintext (fewer: `.undecided`).
    package static func classify(_ plaintext: UnsafeRawBufferPointer) -> FirstBlock {
        guard plaintext.count >= blockLength else { return .undecided }
        guard let probability = textProbability(UnsafeRawBufferPointer(rebasing: plaintext[0..<blockLength])) else {
            return .noise
        }
        return probability >= textThreshold ? .text : .undecided
    }

    // MARK: The model of text

    /// A character's class, the state of the model.
    enum Class: Int {
        case lower, upper, digit, space, punctuation, whitespace, latin, emoji, sameRun, otherNonASCII
    }

    /// `transitions[previous][next]`: the chance that a character of class `next` follows one of `previous`
    /// (rows: start, lower, upper, digit, space, punctuation, whitespace, other non-ASCII; each row sums to 1).
    /// Within a class every character is equally likely: 26 letters, 10 digits, 1 space, 32 punctuation and
    /// symbol characters (escape counts as one), 5 whitespace controls; `latin`, the accented Latin letters
    /// (U+0080-024F and U+1E00-1EFF, 60% of the class on the 64 of U+00C0-00FF), after which the state is that of
    /// a lowercase letter; `emoji` (U+2600-27BF, U+1F000-1FAFF), after which it is that of punctuation;
    /// `sameRun`, a character of the same run as the last other non-ASCII character (its 128-code-point page; the
    /// CJK ideographs with kana, CJK punctuation and full-width forms; the Hangul syllables); `otherNonASCII`, any
    /// other, spread over every code point of its UTF-8 length (45% two bytes, 45% three, 10% four).
    static let transitions: [[Double]] = [
        [0.22, 0.18, 0.11, 0.02, 0.23, 0.01, 0.04, 0.03, 0.00, 0.16],  // start
        [0.63, 0.03, 0.03, 0.14, 0.07, 0.01, 0.06, 0.01, 0.01, 0.01],  // after a lowercase (or accented) letter
        [0.42, 0.24, 0.05, 0.08, 0.10, 0.01, 0.05, 0.01, 0.02, 0.02],  // after an uppercase letter
        [0.06, 0.04, 0.55, 0.08, 0.21, 0.01, 0.01, 0.01, 0.02, 0.01],  // after a digit
        [0.52, 0.14, 0.08, 0.03, 0.10, 0.02, 0.04, 0.03, 0.02, 0.02],  // after a space
        [0.29, 0.10, 0.15, 0.12, 0.24, 0.03, 0.01, 0.02, 0.02, 0.02],  // after punctuation (or an emoji)
        [0.25, 0.15, 0.05, 0.15, 0.14, 0.20, 0.01, 0.02, 0.02, 0.01],  // after a whitespace control
        [0.05, 0.01, 0.02, 0.10, 0.07, 0.01, 0.00, 0.01, 0.65, 0.08],  // after another non-ASCII character
    ]

    static let classSizes: [Double] = [26, 26, 10, 1, 32, 5]

    /// `transitions`, flattened (row * columns + column), and read without bounds checks on the hot path.
    static let table: [Double] = transitions.flatMap { $0 }
    static let columns = Class.otherNonASCII.rawValue + 1

    /// The share of `otherNonASCII` for a UTF-8 length (index 2, 3, 4) and the code points of that length.
    static let lengthShare: [Double] = [0, 0, 0.45, 0.45, 0.10]
    static let lengthCodePoints: [Double] = [0, 0, 0x800 - 0x80, 0x10000 - 0x800 - 0x800, 0x110000 - 0x10000]

    /// The accented Latin letters: U+00C0-00FF (60% of the class), then U+0080-00BF, U+0100-024F, U+1E00-1EFF.
    static let latinMain: Range<UInt32> = 0xC0..<0x100
    static let latinRest: [Range<UInt32>] = [0x80..<0xC0, 0x100..<0x250, 0x1E00..<0x1F00]
    static let latinRestCount = Double(latinRest.reduce(0) { $0 + $1.count })
    static let emoji: [Range<UInt32>] = [0x2600..<0x27C0, 0x1F000..<0x1FB00]
    static let emojiCount = Double(emoji.reduce(0) { $0 + $1.count })
    static let cjk: [Range<UInt32>] = [0x3000..<0x3100, 0x3400..<0xA000, 0xFF00..<0xFFF0]
    static let cjkCount = Double(cjk.reduce(0) { $0 + $1.count })
    static let hangul: Range<UInt32> = 0xAC00..<0xD7A4
    static let surrogates: Range<UInt32> = 0xD800..<0xE000

    /// A run of one script: the CJK ideographs with kana, CJK punctuation and full-width forms; the Hangul
    /// syllables; or one 128-code-point page.
    enum Run: Equatable {
        case cjk, hangul
        case page(UInt32)

        init(of codePoint: UInt32) {
            if HeaderlessRule.cjk.contains(where: { $0.contains(codePoint) }) {
                self = .cjk
            } else if HeaderlessRule.hangul.contains(codePoint) {
                self = .hangul
            } else {
                self = .page(codePoint & ~0x7F)
            }
        }

        /// The share of the run that `low..<high` covers.
        func share(_ low: UInt32, _ high: UInt32) -> Double {
            switch self {
            case .cjk: HeaderlessRule.overlap(low, high, HeaderlessRule.cjk) / HeaderlessRule.cjkCount
            case .hangul: HeaderlessRule.overlap(low, high, HeaderlessRule.hangul) / Double(HeaderlessRule.hangul.count)
            case .page(let start): HeaderlessRule.overlap(low, high, start..<(start + 0x80)) / 0x80
            }
        }
    }

    /// How many of `low..<high` lie in `range`.
    @inline(__always)
    static func overlap(_ low: UInt32, _ high: UInt32, _ range: Range<UInt32>) -> Double {
        Double(max(0, Int64(min(high, range.upperBound)) - Int64(max(low, range.lowerBound))))
    }

    /// How many of `low..<high` lie in `ranges`.
    static func overlap(_ low: UInt32, _ high: UInt32, _ ranges: [Range<UInt32>]) -> Double {
        var total = 0.0
        for range in ranges { total += overlap(low, high, range) }
        return total
    }

    /// The class of an ASCII byte; nil for a control character that is not whitespace, or DEL.
    static func asciiClass(_ byte: UInt8) -> Class? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): .lower
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): .upper
        case UInt8(ascii: "0")...UInt8(ascii: "9"): .digit
        case 0x20: .space
        case 0x21...0x7E: .punctuation
        case 0x09...0x0D: .whitespace
        case 0x1B: .punctuation  // escape: in terminal text, never decisive
        default: nil
        }
    }

    /// Whether a non-ASCII scalar is one text does not hold.
    static func isNoise(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .privateUse, .unassigned, .surrogate: true
        default: scalar.properties.isNoncharacterCodePoint
        }
    }

    /// The model's probability of `block` as the start of a text (a last character cut by the block's end counts
    /// as every character it can begin); nil when the block is not UTF-8 or holds a character text does not hold.
    static func textProbability(_ block: UnsafeRawBufferPointer) -> Double? {
        table.withUnsafeBufferPointer { table in textProbability(block, table: table) }
    }

    private static func textProbability(_ block: UnsafeRawBufferPointer, table: UnsafeBufferPointer<Double>)
        -> Double? {
        var probability = 1.0
        var row = 0  // the start row
        var lastRun: Run? = nil
        var i = 0
        let count = block.count
        let otherRow = transitions.count - 1
        while i < count {
            let byte = block[i]
            if byte < 0x80 {
                guard let next = asciiClass(byte) else { return nil }
                probability *= table[row * columns + next.rawValue] / classSizes[next.rawValue]
                row = next.rawValue + 1
                i += 1
                continue
            }
            let length = byte >= 0xC2 && byte <= 0xDF ? 2 : byte >= 0xE0 && byte <= 0xEF ? 3
                : byte >= 0xF0 && byte <= 0xF4 ? 4 : 0
            guard length > 0 else { return nil }
            let available = min(length, count - i)
            // The code points the bytes present allow: all of them when the character is whole.
            var low = UInt32(byte) & (0x7F >> UInt32(length))
            for k in 1..<available {
                let continuation = block[i + k]
                guard continuation & 0xC0 == 0x80 else { return nil }
                low = low << 6 | UInt32(continuation & 0x3F)
            }
            let missing = UInt32(length - available)
            low <<= 6 * missing
            var high = low + (1 << (6 * missing))
            let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
            if missing == 0 {
                // A whole character: reject overlong forms, surrogates and what is past U+10FFFF, as UTF-8 does.
                guard low >= minimum, low <= 0x10FFFF, let scalar = Unicode.Scalar(low), !isNoise(scalar) else {
                    return nil
                }
            } else {
                // A cut character: only the code points it can still become (no overlong form, no surrogate).
                low = max(low, minimum)
                high = min(high, 0x110000)
                guard low < high else { return nil }
            }
            let base = row * columns
            let possible = Double(high - low) - overlap(low, high, surrogates)
            var mass = table[base + Class.otherNonASCII.rawValue] * lengthShare[length] * possible
                / lengthCodePoints[length]
            let latin = overlap(low, high, latinMain) * 0.6 / Double(latinMain.count)
                + overlap(low, high, latinRest) * 0.4 / latinRestCount
            mass += table[base + Class.latin.rawValue] * latin
            mass += table[base + Class.emoji.rawValue] * overlap(low, high, emoji) / emojiCount
            if let lastRun { mass += table[base + Class.sameRun.rawValue] * lastRun.share(low, high) }
            probability *= mass
            if latinMain.contains(low) || latinRest.contains(where: { $0.contains(low) }) {
                row = Class.lower.rawValue + 1
            } else if emoji.contains(where: { $0.contains(low) }) {
                row = Class.punctuation.rawValue + 1
            } else {
                row = otherRow
                lastRun = Run(of: low)
            }
            i += length
        }
        return probability
    }
}
