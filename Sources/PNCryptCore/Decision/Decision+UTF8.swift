// The UTF-8 checks of the decision: every byte read whatever it holds, so the time depends on the length alone.
//
// Ownership: the checks read the caller's bytes for the duration of the call and keep nothing.

// MARK: UTF-8 over the whole length

extension Decision {
    /// Whether `bytes` are valid UTF-8 (RFC 3629, as `isValidUTF8` decides), reading every byte whatever it finds:
    /// one automaton step per byte and no early exit, so the time taken depends on the length alone, not on where
    /// (or whether) an invalid byte is. The decision uses it so that the time does not tell which check failed, nor
    /// where in a plaintext its first invalid byte is.
    ///
    /// With `vectors` (the default where this CPU has them, `ByteVectors`), 16 bytes a step, each byte's class
    /// looked up with the one before it; otherwise one automaton step per byte (`utf8State`). The same answer.
    package static func isValidUTF8InFull(_ bytes: UnsafeRawBufferPointer, vectors: Bool = ByteVectors.available)
        -> Bool {
        guard let base = bytes.baseAddress else { return true }
        if vectors { return ByteVectors.isValidUTF8(base, count: bytes.count) }
        return utf8Rows.withUnsafeBufferPointer { rows in
            utf8State(rows.baseAddress!, base, 0..<bytes.count, from: 0) & 63 == 0
        }
    }

    /// `isValidUTF8InFull` of `bytes` and of `bytes` after its first `split` bytes, in one pass of one automaton:
    /// it runs over the first `split` bytes, takes the byte at `split` from the state it reached and from a state
    /// started afresh, then goes on over the rest from one of the two. Every byte is read once whatever it holds,
    /// and which state goes on is a select, not a branch: the time depends on the length alone.
    ///
    /// The same answers as the two calls. After the byte at `split` the two states are equal or one of them is
    /// the reject state (8, for good): from the accept state both steps are the same step; a state within a
    /// character takes only a continuation byte (80-BF), which the fresh state rejects, so one of the two rejects
    /// whatever the byte is; from the reject state, the whole rejects. So the state that goes on is the one that
    /// does not reject (either, when both are equal), and each reading is valid when its own state after that byte
    /// did not reject and the automaton ends in the accept state.
    ///
    /// With `vectors`, the vector check instead: the blocks up to `split` once, the block at `split` after them and
    /// after nothing, the blocks after it once for both readings (when `split` is a multiple of 16, as the pairs'
    /// block is; two passes otherwise).
    package static func isValidUTF8InFull(_ bytes: UnsafeRawBufferPointer, split: Int,
                                          vectors: Bool = ByteVectors.available) -> (whole: Bool, tail: Bool) {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return (true, true) }
        let split = min(max(split, 0), count)
        if vectors { return ByteVectors.isValidUTF8(base, count: count, split: split) }
        return utf8Rows.withUnsafeBufferPointer { rows in
            let row = rows.baseAddress!
            let head = utf8State(row, base, 0..<split, from: 0)
            guard split < count else { return (head & 63 == 0, true) }
            let step = row[Int(base.load(fromByteOffset: split, as: UInt8.self))]
            let whole = step &>> head, fresh = step  // the fresh state: the step from state 0
            let reject: UInt64 = 8 * 6
            // All ones when the whole's state rejects: then the fresh one goes on (a select without a branch).
            let wholeRejects = 0 &- UInt64(truncatingIfNeeded: (whole & 63) == reject ? 1 : 0)
            var state = (fresh & wholeRejects) | (whole & ~wholeRejects)
            var rest = split + 1
            if split + 8 <= count {
                // The 7 bytes after the one at `split` in one unrolled pass: what is left is then whole passes of 8
                // when `count - split` is a multiple of 8 (the legacy pair's: whole blocks after the first), not 7
                // steps of `utf8State`'s byte-at-a-time loop.
                state = utf8Pass(row, base + rest, bytes: 7, from: state)
                rest = split + 8
            }
            let end = utf8State(row, base, rest..<count, from: state)
            let accepts = end & 63 == 0
            return (accepts && whole & 63 != reject, accepts && fresh & 63 != reject)
        }
    }

    /// The automaton's state (in shift form, `utf8Rows`) after the bytes of `range` from `state`: every byte read,
    /// 8 a pass, each step one shift. The table entry of a byte does not depend on the state, so the steps overlap
    /// and the only chain from byte to byte is the shift. There is no ASCII shortcut: it would make the time tell
    /// whether a plaintext is ASCII.
    @inline(__always)
    private static func utf8State(_ row: UnsafePointer<UInt64>, _ base: UnsafeRawPointer, _ range: Range<Int>,
                                  from start: UInt64) -> UInt64 {
        var state = start
        var index = range.lowerBound
        let end = range.upperBound
        while index &+ 8 <= end {
            state = utf8Pass(row, base + index, bytes: 8, from: state)
            index &+= 8
        }
        while index < end {
            state = row[Int(base.load(fromByteOffset: index, as: UInt8.self))] &>> state
            index &+= 1
        }
        return state
    }

    /// The automaton's state after the `bytes` bytes at `p` (a constant, 7 or 8, at every call: the loop is
    /// unrolled), each loaded on its own: one instruction with its zero extension, where shifting them out of a
    /// word spilled (the shift counts must sit in the one register x86-64 shifts by).
    @inline(__always)
    private static func utf8Pass(_ row: UnsafePointer<UInt64>, _ p: UnsafeRawPointer, bytes: Int, from start: UInt64)
        -> UInt64 {
        var state = start
        for offset in 0..<bytes {
            state = row[Int(p.load(fromByteOffset: offset, as: UInt8.self))] &>> state
        }
        return state
    }

    /// The UTF-8 automaton of `utf8Table` in shift form: state `s` is the shift `6 * s`, and `utf8Rows[byte]` holds
    /// the next state of every state, 6 bits each: the next state is `utf8Rows[byte] &>> state` (the shift takes
    /// the low 6 bits of `state`; the bits above are left over from the row and never read).
    static let utf8Rows: [UInt64] = (0..<256).map { byte in
        (0..<9).reduce(UInt64(0)) { row, state in
            row | UInt64(Int(utf8Table[state * 256 + byte]) / 256 * 6) << UInt64(state * 6)
        }
    }

    /// The UTF-8 automaton: `utf8Table[state + byte]` is the next state, states stored multiplied by 256. States:
    /// 0 accept; 1, 2, 3 need that many continuation bytes (80-BF); 4 after E0 (A0-BF next); 5 after ED (80-9F
    /// next: no surrogates); 6 after F0 (90-BF next); 7 after F4 (80-8F next: nothing above U+10FFFF); 8 reject,
    /// for good.
    static let utf8Table: [UInt16] = {
        func next(_ state: Int, _ byte: Int) -> Int {
            func within(_ low: Int, _ high: Int, _ then: Int) -> Int { (low...high).contains(byte) ? then : 8 }
            switch state {
            case 0:
                switch byte {
                case 0x00...0x7F: return 0
                case 0xC2...0xDF: return 1
                case 0xE0: return 4
                case 0xED: return 5
                case 0xE1...0xEF: return 2
                case 0xF0: return 6
                case 0xF1...0xF3: return 3
                case 0xF4: return 7
                default: return 8
                }
            case 1: return within(0x80, 0xBF, 0)
            case 2: return within(0x80, 0xBF, 1)
            case 3: return within(0x80, 0xBF, 2)
            case 4: return within(0xA0, 0xBF, 1)
            case 5: return within(0x80, 0x9F, 1)
            case 6: return within(0x90, 0xBF, 2)
            case 7: return within(0x80, 0x8F, 2)
            default: return 8
            }
        }
        var table = [UInt16](repeating: 0, count: 9 * 256)
        for state in 0..<9 {
            for byte in 0..<256 { table[state * 256 + byte] = UInt16(next(state, byte) * 256) }
        }
        return table
    }()
}
