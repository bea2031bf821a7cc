// Base64's loops over raw bytes (the format is Base64.swift).
//
// Ownership: `input` is borrowed from the caller for one call; `output` is the caller's, with the room each function
// names; the encoder's scratch comes from `withScratch` and never escapes the call.

import PNCryptBase


extension Base64 {
    /// Two characters per entry, for 12 bits of input (the first character in the low byte): 8 KiB.
    private static let pairs: [UInt16] = (0..<4096).map { UInt16(alphabet[$0 >> 6]) | UInt16(alphabet[$0 & 63]) << 8 }

    /// Each character's value placed for its position in a group of 4 (shifted left 18, 12, 6 and 0 bits: four
    /// tables of 256), bit 31 set for anything but an alphabet character: a group decodes with four lookups ORed.
    static let placed: [UInt32] = {
        var table = [UInt32](repeating: 0x8000_0000, count: 1024)
        for (i, c) in alphabet.enumerated() {
            for position in 0..<4 { table[position << 8 | Int(c)] = UInt32(i) << (18 - 6 * position) }
        }
        return table
    }()

    /// The Base64 of `input`; with `quoted`, as a JSON string literal (`"…"`: Base64 needs no escapes, except
    /// `/` in the `apple` style, which the caller handles). One allocation, the exact size.
    package static func encode(_ input: UnsafeRawBufferPointer, quoted: Bool) -> [UInt8] {
        let quote = quoted ? 1 : 0
        let outCount = encodedCount(input.count) + 2 * quote
        // Encoded on the stack (for a message) and copied into the array: `[UInt8](unsafeUninitializedCapacity:)`
        // allocates through a generic runtime path that costs more than the copy.
        return withScratch(outCount) { out in
            let base = out.baseAddress!
            if quoted {
                base.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
                base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: outCount - 1, as: UInt8.self)
            }
            encode(input, into: base + quote)
            return Array(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: outCount))
        }
    }

    /// Writes the Base64 of `input` to `output`, which has room for `encodedCount(input.count)` bytes. With
    /// `vectors` (the default where this CPU has them), the blocks of 12 bytes go to `ByteVectors` first.
    package static func encode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer,
                               vectors: Bool = ByteVectors.available) {
        let n = input.count
        guard n > 0, let raw = input.baseAddress else { return }
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        var i = vectors ? ByteVectors.encodeBase64(raw, count: n, into: output) : 0
        var o = i / 3 * 4
        // Two characters per lookup (12 bits of input). 6 bytes to 8 characters at a time, reading 8 bytes (so
        // while 8 are left); 12 bytes a pass while 14 are left (the second read is bytes 6 to 13), so the loop's
        // tests count once per 12. Then 3 bytes to 4 characters, and the last 1 or 2 bytes with `=` padding.
        pairs.withUnsafeBufferPointer { pairs in
            let pair = pairs.baseAddress!
            @inline(__always) func eight(_ at: Int) -> UInt64 {
                let word = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                let text = UInt64(pair[Int(word >> 52)]) | UInt64(pair[Int(word >> 40 & 0xFFF)]) << 16
                    | UInt64(pair[Int(word >> 28 & 0xFFF)]) << 32 | UInt64(pair[Int(word >> 16 & 0xFFF)]) << 48
                return text.littleEndian
            }
            @inline(__always) func four(_ bits: Int) -> UInt32 {
                UInt32(pair[bits >> 12]) | UInt32(pair[bits & 0xFFF]) << 16
            }
            while i &+ 14 <= n {
                output.storeBytes(of: eight(i), toByteOffset: o, as: UInt64.self)
                output.storeBytes(of: eight(i &+ 6), toByteOffset: o &+ 8, as: UInt64.self)
                i &+= 12
                o &+= 16
            }
            if i &+ 8 <= n {
                output.storeBytes(of: eight(i), toByteOffset: o, as: UInt64.self)
                i &+= 6
                o &+= 8
            }
            while i &+ 3 <= n {
                let bits = Int(bytes[i]) << 16 | Int(bytes[i &+ 1]) << 8 | Int(bytes[i &+ 2])
                output.storeBytes(of: four(bits).littleEndian, toByteOffset: o, as: UInt32.self)
                i &+= 3
                o &+= 4
            }
            let rest = n &- i
            if rest > 0 {
                let two = rest == 2
                let text = four(Int(bytes[i]) << 16 | (two ? Int(bytes[i &+ 1]) << 8 : 0))
                // The characters past the input are padding: the last one, or the last two.
                let padded = two ? text & 0x00FF_FFFF | 0x3D00_0000 : text & 0xFFFF | 0x3D3D_0000
                output.storeBytes(of: padded.littleEndian, toByteOffset: o, as: UInt32.self)
            }
        }
    }

    package static func decode(_ input: UnsafeRawBufferPointer) throws(PNCryptError) -> [UInt8] {
        try makeBytes(capacity: maximumDecodedCount(input.count)) { (output) throws(PNCryptError) in
            try decode(input, into: output)
        }
    }

    /// Decodes `input` into `output`, which has room for `maximumDecodedCount(input.count)` bytes; returns the
    /// count written. With `lineBreaks` false, CR and LF inside are refused like any other stray character.
    ///
    /// The one-shot front of the one decoder: the whole groups (`decodeGroups`), then the character loop
    /// (`DecodeState`) that the stream front (`Base64StreamDecoder`) carries across chunks.
    package static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer,
                       lineBreaks: Bool = true) throws(PNCryptError) -> Int {
        let out = output.assumingMemoryBound(to: UInt8.self)
        var o = 0
        var start = 0
        var end = input.count
        while start < end, isSpace(input[start]) { start += 1 }
        while end > start, isSpace(input[end - 1]) { end -= 1 }
        if end - start >= 2, input[start] == UInt8(ascii: "\""), input[end - 1] == UInt8(ascii: "\"") {
            start += 1
            end -= 1
        }
        let table = decodeTable
        var i = start
        if let p = input.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            let (read, written) = decodeGroups(p + i, end - i, into: output, room: maximumDecodedCount(input.count))
            i += read
            o = written
        }
        // The usual end: one padded group (`xy==` or `xyz=`) and nothing after it, decoded as the loop below would.
        if end - i == 4, input[end - 1] == UInt8(ascii: "=") {
            let a = UInt32(table[Int(input[i])]), b = UInt32(table[Int(input[i + 1])]), c = input[i + 2]
            if a < 64 && b < 64 {
                if c == UInt8(ascii: "=") {
                    out[o] = UInt8(truncatingIfNeeded: a << 2 | b >> 4)
                    return o + 1
                }
                let cValue = UInt32(table[Int(c)])
                if cValue < 64 {
                    let v = a << 18 | b << 12 | cValue << 6
                    out[o] = UInt8(v >> 16)
                    out[o + 1] = UInt8(v >> 8 & 0xFF)
                    return o + 2
                }
            }
        }
        var state = DecodeState()
        for i in i..<end {
            let c = input[i]
            let v = table[Int(c)]
            if lineBreaks && v == 0xFE { continue }
            try state.take(c, v, at: i, into: out, &o)
        }
        try state.end(at: end, into: out, &o)
        return o
    }

    /// Decodes whole groups of 4 alphabet characters from `p` (16 at a time, then 8, then 4), stopping before the
    /// first group with any other byte; returns the characters read and the bytes written. `out` has room for
    /// `room` bytes, at least `count / 4 * 3` (each store of the wider passes writes 8 bytes, so they run while
    /// the room allows). Both fronts' fast path.
    ///
    /// With `vectors` (the default where this CPU has them), the blocks of 16 go to `ByteVectors` first.
    @inline(__always)
    package static func decodeGroups(_ p: UnsafePointer<UInt8>, _ count: Int, into out: UnsafeMutableRawPointer,
                                     room: Int, vectors: Bool = ByteVectors.available) -> (read: Int, written: Int) {
        var (i, o) = vectors ? ByteVectors.decodeBase64(p, count: count, into: out, room: room) : (0, 0)
        placed.withUnsafeBufferPointer { placed in
            let t = placed.baseAddress!
            // 16 characters a pass (two stores of 8 bytes, the second over the first's last 2), one test of the
            // error bits for all 16.
            while i &+ 16 <= count && o &+ 14 <= room {
                let q = p + i
                let a = t[Int(q[0])] | t[256 | Int(q[1])] | t[512 | Int(q[2])] | t[768 | Int(q[3])]
                let b = t[Int(q[4])] | t[256 | Int(q[5])] | t[512 | Int(q[6])] | t[768 | Int(q[7])]
                let c = t[Int(q[8])] | t[256 | Int(q[9])] | t[512 | Int(q[10])] | t[768 | Int(q[11])]
                let d = t[Int(q[12])] | t[256 | Int(q[13])] | t[512 | Int(q[14])] | t[768 | Int(q[15])]
                guard (a | b | c | d) & 0x8000_0000 == 0 else { break }
                out.storeBytes(of: ((UInt64(a) << 24 | UInt64(b)) << 16).bigEndian, toByteOffset: o,
                               as: UInt64.self)
                out.storeBytes(of: ((UInt64(c) << 24 | UInt64(d)) << 16).bigEndian, toByteOffset: o &+ 6,
                               as: UInt64.self)
                o &+= 12
                i &+= 16
            }
            while i &+ 8 <= count && o &+ 8 <= room {
                let high = t[Int(p[i])] | t[256 | Int(p[i &+ 1])] | t[512 | Int(p[i &+ 2])] | t[768 | Int(p[i &+ 3])]
                let low = t[Int(p[i &+ 4])] | t[256 | Int(p[i &+ 5])] | t[512 | Int(p[i &+ 6])]
                    | t[768 | Int(p[i &+ 7])]
                guard (high | low) & 0x8000_0000 == 0 else { break }
                out.storeBytes(of: ((UInt64(high) << 24 | UInt64(low)) << 16).bigEndian, toByteOffset: o,
                               as: UInt64.self)
                o &+= 6
                i &+= 8
            }
            while i &+ 4 <= count {
                let v = t[Int(p[i])] | t[256 | Int(p[i &+ 1])] | t[512 | Int(p[i &+ 2])] | t[768 | Int(p[i &+ 3])]
                guard v & 0x8000_0000 == 0 else { break }
                storeGroup(v, out, at: o)
                o &+= 3
                i &+= 4
            }
        }
        return (i, o)
    }

    /// Writes a group's 3 bytes (the low 24 bits of `group`, the most significant first) at `out + o`: the
    /// whole-group loop's last pass and the character loop's completed group.
    @inline(__always)
    static func storeGroup(_ group: UInt32, _ out: UnsafeMutableRawPointer, at o: Int) {
        out.storeBytes(of: UInt8(truncatingIfNeeded: group >> 16), toByteOffset: o, as: UInt8.self)
        out.storeBytes(of: UInt8(truncatingIfNeeded: group >> 8), toByteOffset: o &+ 1, as: UInt8.self)
        out.storeBytes(of: UInt8(truncatingIfNeeded: group), toByteOffset: o &+ 2, as: UInt8.self)
    }

    /// The character loop's state, the same for both fronts (the stream carries it across chunks): the group
    /// being filled and the `=` padding seen. The fronts decide what the quotes, white space and line breaks
    /// around and inside the text mean; every other byte comes here.
    struct DecodeState {
        private var quad: UInt32 = 0
        private var inQuad = 0
        private var padding = 0
        private var firstPad = -1

        /// Whether no group is begun and no padding seen (the whole-group loop may run).
        var isAtGroup: Bool { inQuad == 0 && padding == 0 }

        /// Takes byte `c` (`v`, its `decodeTable` entry) at stream offset `at`, writing a completed group's 3 bytes
        /// at `out[o]`.
        /// - Throws: `notBase64` for data after padding, a misplaced `=` or any byte outside the alphabet.
        @inline(__always)
        mutating func take(_ c: UInt8, _ v: UInt8, at: Int, into out: UnsafeMutablePointer<UInt8>,
                           _ o: inout Int) throws(PNCryptError) {
            if v < 64 {
                guard padding == 0 else {
                    throw PNCryptError(.notBase64, "not Base64: data after '=' padding at offset \(at)", offset: at)
                }
                quad = quad << 6 | UInt32(v)
                inQuad += 1
                if inQuad == 4 {
                    Base64.storeGroup(quad, UnsafeMutableRawPointer(out), at: o)
                    o += 3
                    quad = 0
                    inQuad = 0
                }
            } else if c == UInt8(ascii: "=") {
                if padding == 0 { firstPad = at }
                padding += 1
                guard inQuad + padding <= 4, inQuad >= 2 else {
                    throw PNCryptError(.notBase64, "not Base64: misplaced '=' at offset \(at)", offset: at)
                }
            } else {
                throw Base64.unexpected(c, at: at)
            }
        }

        /// Ends the text at stream offset `end`: checks the padding and writes the last 1 or 2 bytes at `out[o]`.
        /// - Throws: `notBase64` for incomplete padding or characters left over.
        mutating func end(at end: Int, into out: UnsafeMutablePointer<UInt8>, _ o: inout Int) throws(PNCryptError) {
            if padding > 0 {
                guard inQuad + padding == 4 else {
                    throw PNCryptError(.notBase64, "not Base64: incomplete padding at offset \(firstPad)",
                                       offset: firstPad)
                }
                quad <<= UInt32(6 * padding)
                out[o] = UInt8(quad >> 16)
                o += 1
                if inQuad == 3 {
                    out[o] = UInt8(quad >> 8 & 0xFF)
                    o += 1
                }
            } else if inQuad != 0 {
                throw PNCryptError(.notBase64, "not Base64: \(inQuad.counting("character")) left over at the end"
                                   + " (missing '=' padding?)", offset: end)
            }
        }
    }

    /// The error for a byte the text may not hold at `offset` (both fronts).
    static func unexpected(_ c: UInt8, at offset: Int) -> PNCryptError {
        PNCryptError(.notBase64, "not Base64: unexpected \(describe(c)) at offset \(offset)"
                     + (c == UInt8(ascii: "-") || c == UInt8(ascii: "_") ? " (URL-safe Base64 is not accepted)" : ""),
                     offset: offset)
    }
}
