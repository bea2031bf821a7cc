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
        case lower, upper, digit, space, punctuation, whitespace, sameRun, otherNonASCII
    }

    /// `transitions[previous][next]`: the chance that a character of class `next` follows one of `previous`
    /// (rows: start, lower, upper, digit, space, punctuation, whitespace, non-ASCII; each row sums to 1). Within a
    /// class every character is equally likely: 26 letters, 10 digits, 1 space, 32 punctuation and symbol
    /// characters, 5 whitespace controls; `sameRun` is a character of the same run (a 128-code-point page, or the
    /// CJK ideographs, or the Hangul syllables) as the last non-ASCII character; `otherNonASCII` any other, spread
    /// over every code point of its UTF-8 length (45% two bytes, 45% three, 10% four).
    static let transitions: [[Double]] = [
        [0.24, 0.19, 0.12, 0.02, 0.25, 0.01, 0.00, 0.17],  // start
        [0.68, 0.03, 0.03, 0.14, 0.07, 0.01, 0.02, 0.02],  // after a lowercase letter
        [0.45, 0.25, 0.05, 0.08, 0.10, 0.01, 0.03, 0.03],  // after an uppercase letter
        [0.06, 0.04, 0.55, 0.08, 0.22, 0.01, 0.02, 0.02],  // after a digit
        [0.55, 0.14, 0.08, 0.04, 0.10, 0.02, 0.04, 0.03],  // after a space
        [0.30, 0.10, 0.15, 0.12, 0.25, 0.03, 0.03, 0.02],  // after punctuation
        [0.25, 0.15, 0.05, 0.15, 0.15, 0.20, 0.03, 0.02],  // after a whitespace control
        [0.05, 0.01, 0.02, 0.10, 0.07, 0.01, 0.66, 0.08],  // after a non-ASCII character
    ]

    static let classSizes: [Double] = [26, 26, 10, 1, 32, 5]

    /// The share of `otherNonASCII` for a UTF-8 length (index 2, 3, 4) and the code points of that length.
    static let lengthShare: [Double] = [0, 0, 0.45, 0.45, 0.10]
    static let lengthCodePoints: [Double] = [0, 0, 0x800 - 0x80, 0x10000 - 0x800 - 0x800, 0x110000 - 0x10000]

    /// The run of a non-ASCII code point: its bounds.
    static func run(of codePoint: UInt32) -> Range<UInt32> {
        switch codePoint {
        case 0x3400...0x9FFF: 0x3400..<0xA000      // CJK ideographs (extension A and the unified block)
        case 0xAC00...0xD7A3: 0xAC00..<0xD7A4      // Hangul syllables
        default: (codePoint & ~0x7F)..<((codePoint & ~0x7F) + 0x80)
        }
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
        var probability = 1.0
        var previous = 0  // the start row
        var lastRun: Range<UInt32>? = nil
        var i = 0
        let count = block.count
        while i < count {
            let byte = block[i]
            if byte < 0x80 {
                guard let next = asciiClass(byte) else { return nil }
                probability *= transitions[previous][next.rawValue] / classSizes[next.rawValue]
                previous = next.rawValue + 1
                i += 1
                continue
            }
            let length = byte >= 0xC2 && byte <= 0xDF ? 2 : byte >= 0xE0 && byte <= 0xEF ? 3
                : byte >= 0xF0 && byte <= 0xF4 ? 4 : 0
            guard length > 0 else { return nil }
            let row = transitions[previous]
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
            let surrogates = Int64(min(high, 0xE000)) - Int64(max(low, 0xD800))
            let possible = Double(Int64(high - low) - max(0, surrogates))
            var mass = row[Class.otherNonASCII.rawValue] * lengthShare[length] * possible / lengthCodePoints[length]
            if let run = lastRun {
                let overlap = Int64(min(high, run.upperBound)) - Int64(max(low, run.lowerBound))
                if overlap > 0 { mass += row[Class.sameRun.rawValue] * Double(overlap) / Double(run.count) }
            }
            probability *= mass
            previous = transitions.count - 1
            lastRun = run(of: low)
            i += length
        }
        return probability
    }
}
