// The headerless rule: how the two legacy readings of data without a `PNED` header are told apart when both
// qualify (docs/formats.md section 1, "The headerless rule"). `Decision` applies it; this file holds the test of
// the one thing that differs between them, the fixed-IV reading's first block.
//
// Ownership: `classify` reads the caller's bytes for the duration of the call and keeps nothing.


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
            if Run.cjk.contains(codePoint) {
                self = .cjk
            } else if HeaderlessRule.hangul.contains(codePoint) {
                self = .hangul
            } else {
                self = .page(codePoint & ~0x7F)
            }
        }

        /// Whether `codePoint` is in this run (for a whole character, `share` is then not 0).
        func contains(_ codePoint: UInt32) -> Bool {
            switch self {
            case .cjk: (codePoint >= 0x3000 && codePoint < 0x3100) || (codePoint >= 0x3400 && codePoint < 0xA000)
                || (codePoint >= 0xFF00 && codePoint < 0xFFF0)  // `HeaderlessRule.cjk`, written out
            case .hangul: HeaderlessRule.hangul.contains(codePoint)
            case .page(let start): codePoint & ~0x7F == start
            }
        }

        /// The state of a character inside this run (`RunState`).
        var kind: RunState {
            switch self {
            case .cjk: .cjk
            case .hangul: .hangul
            case .page: .page
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
    ///
    /// The noncharacters are tested by their code points, a set Unicode fixes for good (U+FDD0-FDEF and the last
    /// two code points of every plane; `HeaderlessRuleTests` checks it against `isNoncharacterCodePoint` on every
    /// scalar): the property lookup cost as much as the general category's.
    static func isNoise(_ scalar: Unicode.Scalar) -> Bool {
        if isNoncharacter(scalar.value) { return true }
        switch scalar.properties.generalCategory {
        case .control, .privateUse, .unassigned, .surrogate: return true
        default: return false
        }
    }

    /// `isNoise`, looked up for the Basic Multilingual Plane: its 65,536 code points in 16 chunks of 4,096 bits, each
    /// worked out by `isNoise` the first time one of its code points is asked about (a lazily initialised global:
    /// once, thread-safe; about 0.5 ms a chunk), so the general category is not looked up again for every
    /// character of every block (it cost about 300 instructions a character). Other planes ask `isNoise`.
    @inline(__always)
    static func isNoiseCached(_ scalar: Unicode.Scalar) -> Bool {
        let value = Int(scalar.value)
        guard value < 0x10000 else { return isNoise(scalar) }
        let bits = noiseChunk(value >> 12)
        return bits[(value & 0xFFF) >> 6] >> UInt64(value & 63) & 1 == 1
    }

    /// The chunk of `isNoiseCached` that holds code points `chunk << 12 ..< (chunk + 1) << 12`.
    private static func noiseChunk(_ chunk: Int) -> [UInt64] {
        switch chunk {
        case 0: noise0
        case 1: noise1
        case 2: noise2
        case 3: noise3
        case 4: noise4
        case 5: noise5
        case 6: noise6
        case 7: noise7
        case 8: noise8
        case 9: noise9
        case 10: noise10
        case 11: noise11
        case 12: noise12
        case 13: noise13
        case 14: noise14
        default: noise15
        }
    }

    /// `isNoise` of 4,096 code points from `chunk << 12`, one bit each (a surrogate, which is no scalar: set).
    static func noiseBits(_ chunk: Int) -> [UInt64] {
        var bits = [UInt64](repeating: 0, count: 64)
        for offset in 0..<4096 {
            let noise = Unicode.Scalar(UInt32(chunk << 12 + offset)).map(isNoise) ?? true
            if noise { bits[offset >> 6] |= 1 << UInt64(offset & 63) }
        }
        return bits
    }

    private static let noise0 = noiseBits(0), noise1 = noiseBits(1), noise2 = noiseBits(2), noise3 = noiseBits(3)
    private static let noise4 = noiseBits(4), noise5 = noiseBits(5), noise6 = noiseBits(6), noise7 = noiseBits(7)
    private static let noise8 = noiseBits(8), noise9 = noiseBits(9), noise10 = noiseBits(10)
    private static let noise11 = noiseBits(11), noise12 = noiseBits(12), noise13 = noiseBits(13)
    private static let noise14 = noiseBits(14), noise15 = noiseBits(15)

    /// Whether `value` is a noncharacter, by its code point (`isNoise`).
    package static func isNoncharacter(_ value: UInt32) -> Bool {
        value & 0xFFFE == 0xFFFE || (value >= 0xFDD0 && value <= 0xFDEF)
    }

    /// The model's step for an ASCII byte after each row: `asciiSteps[row * 128 + byte]` is
    /// `transitions[row][class] / classSizes[class]`, the factor `textProbability` multiplies by (computed the same
    /// way, so the same value), or -1 for a byte text does not hold; `asciiRows[byte]` is the row after it.
    static let asciiSteps: [Double] = (0..<transitions.count).flatMap { row in
        (0..<128).map { byte -> Double in
            guard let next = asciiClass(UInt8(byte)) else { return -1 }
            return table[row * columns + next.rawValue] / classSizes[next.rawValue]
        }
    }
    static let asciiRows: [Int] = (0..<128).map { byte in (asciiClass(UInt8(byte))?.rawValue ?? -1) + 1 }

    /// The model's probability of `block` as the start of a text (a last character cut by the block's end counts
    /// as every character it can begin); nil when the block is not UTF-8 or holds a character text does not hold.
    static func textProbability(_ block: UnsafeRawBufferPointer) -> Double? {
        if block.count == blockLength, let probability = asciiProbability(block) { return probability }
        return table.withUnsafeBufferPointer { table in
            asciiSteps.withUnsafeBufferPointer { steps in
                asciiRows.withUnsafeBufferPointer { rows in
                    wholeMasses.withUnsafeBufferPointer { masses in
                        textProbability(block, table: table, asciiSteps: steps, asciiRows: rows, wholeMasses: masses)
                    }
                }
            }
        }
    }

    /// The mass the model gives a non-ASCII character (or, for a cut one, every character it can become) after
    /// `row`, from how many of its code points are `possible`, in each class's ranges (`latinMain`, `latinRest`,
    /// `emoji`) and the share of the last run (`sameRun`, nil with no run yet). One arithmetic for every
    /// character: `wholeMasses` is this function's answers, so a whole character's mass looked up there is the
    /// same value as computed here.
    @inline(__always)
    static func characterMass(_ table: UnsafeBufferPointer<Double>, row: Int, length: Int, possible: Double,
                              latinMain: Double, latinRest: Double, emoji: Double, sameRun: Double?) -> Double {
        let base = row * columns
        var mass = table[base + Class.otherNonASCII.rawValue] * lengthShare[length] * possible
            / lengthCodePoints[length]
        let latin = latinMain * 0.6 / Double(HeaderlessRule.latinMain.count) + latinRest * 0.4 / latinRestCount
        mass += table[base + Class.latin.rawValue] * latin
        mass += table[base + Class.emoji.rawValue] * emoji / emojiCount
        if let sameRun { mass += table[base + Class.sameRun.rawValue] * sameRun }
        return mass
    }

    /// Which class's ranges a code point is in (they do not overlap): what a whole character's mass depends on,
    /// with its row, its length and the last run.
    enum Category: Int, CaseIterable {
        case other, latinMain, latinRest, emoji

        init(of codePoint: UInt32) {
            if HeaderlessRule.latinMain.contains(codePoint) {
                self = .latinMain
            } else if (codePoint >= 0x80 && codePoint < 0xC0) || (codePoint >= 0x100 && codePoint < 0x250)
                        || (codePoint >= 0x1E00 && codePoint < 0x1F00) {
                self = .latinRest  // `latinRest`, written out
            } else if (codePoint >= 0x2600 && codePoint < 0x27C0) || (codePoint >= 0x1F000 && codePoint < 0x1FB00) {
                self = .emoji  // `emoji`, written out
            } else {
                self = .other
            }
        }

        /// The overlap of a whole character with `latinMain`, `latinRest` and `emoji`: 1 with its class's, else 0.
        var overlaps: (latinMain: Double, latinRest: Double, emoji: Double) {
            (self == .latinMain ? 1 : 0, self == .latinRest ? 1 : 0, self == .emoji ? 1 : 0)
        }
    }

    /// Where a whole character stands against the last run: none yet, outside it, or inside it (by its kind: the
    /// share of one code point differs).
    enum RunState: Int, CaseIterable {
        case noRun, outside, cjk, hangul, page

        /// `Run.share` of one code point in this state (nil: no run), by `Run.share` itself.
        var share: Double? {
            switch self {
            case .noRun: nil
            case .outside: Run.page(0x80).share(0, 1)
            case .cjk: Run.cjk.share(0x4E00, 0x4E01)
            case .hangul: Run.hangul.share(0xAC00, 0xAC01)
            case .page: Run.page(0).share(0, 1)
            }
        }
    }

    static func wholeMassIndex(row: Int, length: Int, category: Category, run: RunState) -> Int {
        ((row &* 5 &+ length) &* 4 &+ category.rawValue) &* 5 &+ run.rawValue
    }

    /// `characterMass` of a whole character for every row, length (2 to 4), category and run state: for a whole
    /// character, `possible` is 1 (a scalar is no surrogate) and each overlap 0 or 1, so these are all its values.
    static let wholeMasses: [Double] = table.withUnsafeBufferPointer { table in
        var masses = [Double](repeating: 0, count: transitions.count * 5 * 4 * 5)
        for row in transitions.indices {
            for length in 2...4 {
                for category in Category.allCases {
                    let (latinMain, latinRest, emoji) = category.overlaps
                    for run in RunState.allCases {
                        masses[wholeMassIndex(row: row, length: length, category: category, run: run)] =
                            characterMass(table, row: row, length: length, possible: Double(UInt32(1)) - 0.0,
                                          latinMain: latinMain, latinRest: latinRest, emoji: emoji,
                                          sameRun: run.share)
                    }
                }
            }
        }
        return masses
    }

    /// `textProbability` of a block of `blockLength` bytes when they are all ASCII (a message's first block,
    /// most text), from `asciiModel`: the same steps multiplied in the same order, so the same value, and nil for a
    /// byte text does not hold, as there. Every step is taken whatever it is: such a byte's step is NaN there,
    /// which every later product keeps (and no product of the model's positive steps is NaN), so the one test is
    /// at the end. One load, one multiplication and the next row's address a byte. Nil when a byte is not ASCII:
    /// `textProbability` then reads the block character by character.
    @inline(__always)
    private static func asciiProbability(_ block: UnsafeRawBufferPointer) -> Double?? {
        let words = (block.loadUnaligned(as: UInt64.self), block.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        guard (words.0 | words.1) & 0x8080_8080_8080_8080 == 0 else { return nil }
        let model = asciiModel
        var probability = 1.0
        var row = model.steps  // the start row's steps
        for index in 0..<blockLength {
            let byte = Int(block.load(fromByteOffset: index, as: UInt8.self))
            probability *= row[byte]
            row = model.nextRows[byte]
        }
        return .some(probability.isNaN ? nil : probability)
    }

    /// `asciiSteps` with NaN for a byte text does not hold (-1 there), and for each byte the address of the next
    /// row's steps in it (row `asciiRows[byte]`), in memory made once and kept for the life of the process: read
    /// without retaining an array per block, and a row's step loaded from its address and the byte alone.
    /// (Immutable once made, so shared across threads as it is.)
    nonisolated(unsafe) static let asciiModel: (steps: UnsafePointer<Double>,
                                                nextRows: UnsafePointer<UnsafePointer<Double>>) = {
        let steps = UnsafeMutablePointer<Double>.allocate(capacity: asciiSteps.count)
        steps.initialize(from: asciiSteps.map { $0 < 0 ? .nan : $0 }, count: asciiSteps.count)
        let rows = UnsafeMutablePointer<UnsafePointer<Double>>.allocate(capacity: asciiRows.count)
        rows.initialize(from: asciiRows.map { UnsafePointer(steps + $0 * 128) }, count: asciiRows.count)
        return (UnsafePointer(steps), UnsafePointer(rows))
    }()

    private static func textProbability(_ block: UnsafeRawBufferPointer, table: UnsafeBufferPointer<Double>,
                                        asciiSteps: UnsafeBufferPointer<Double>, asciiRows: UnsafeBufferPointer<Int>,
                                        wholeMasses: UnsafeBufferPointer<Double>) -> Double? {
        var probability = 1.0
        var row = 0  // the start row
        var lastRun: Run? = nil
        var i = 0
        let count = block.count
        let otherRow = transitions.count - 1
        while i < count {
            let byte = block[i]
            if byte < 0x80 {
                // `table[row * columns + class] / classSizes[class]`, looked up (`asciiSteps`).
                let step = asciiSteps[row &* 128 &+ Int(byte)]
                guard step >= 0 else { return nil }
                probability *= step
                row = asciiRows[Int(byte)]
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
                guard low >= minimum, low <= 0x10FFFF, let scalar = Unicode.Scalar(low), !isNoiseCached(scalar) else {
                    return nil
                }
            } else {
                // A cut character: only the code points it can still become (no overlong form, no surrogate).
                low = max(low, minimum)
                high = min(high, 0x110000)
                guard low < high else { return nil }
            }
            let category = Category(of: low)
            let mass: Double
            if missing == 0 {
                // A whole character: its mass from the table the same arithmetic made (`wholeMasses`).
                let run = lastRun.map { $0.contains(low) ? $0.kind : RunState.outside } ?? RunState.noRun
                mass = wholeMasses[wholeMassIndex(row: row, length: length, category: category, run: run)]
            } else {
                mass = characterMass(table, row: row, length: length,
                                     possible: Double(high - low) - overlap(low, high, surrogates),
                                     latinMain: overlap(low, high, latinMain), latinRest: overlap(low, high, latinRest),
                                     emoji: overlap(low, high, emoji), sameRun: lastRun?.share(low, high))
            }
            probability *= mass
            switch category {
            case .latinMain, .latinRest: row = Class.lower.rawValue + 1
            case .emoji: row = Class.punctuation.rawValue + 1
            case .other:
                row = otherRow
                lastRun = Run(of: low)
            }
            i += length
        }
        return probability
    }
}
