// Short ASCII strings built and read as the two words a Swift `String` is, for the JSON codec's hot paths.
//
// On 64-bit platforms Swift keeps a string of up to 15 UTF-8 bytes inside the `String` value ("small string"):
// the bytes in memory order across the two words, and the top byte of the second word holding a discriminator
// (0xE0: immortal, ASCII, small) plus the count. Making one through `String(decoding:as:)` costs ~165
// instructions (a call into the runtime, validation); a JSON key or short value then costs more to create than
// to parse. Here the words are written directly.
//
// This relies on the standard library's in-memory layout, so it is checked before use: `SmallASCII.isAvailable`
// compares, once per process, the words built here with those of strings the standard library makes itself, for
// every length from 0 to 15 (and checks that longer strings are not taken for small ones). When they differ (another
// platform, another Swift), every caller takes the public API instead. Nothing is allocated or retained: small
// strings own no memory. Pointers are only read, within the lengths given.

package enum SmallASCII {
    /// The longest string kept inside a `String` value.
    package static let capacity = 15

    /// Whether the layout below is the one this standard library uses (checked once).
    package static let isAvailable: Bool = {
        #if (arch(x86_64) || arch(arm64)) && _endian(little)
        guard MemoryLayout<String>.size == 16 else { return false }
        let sample = Array("{\"key\": 17, x}~".utf8)
        for count in 0...capacity {
            for start in [0, 15 - count] {
                let bytes = Array(sample[start..<start + count])
                let official = bytes.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
                let padded = bytes + [UInt8](repeating: 0x7E, count: 16)
                let ours = padded.withUnsafeBufferPointer { words($0.baseAddress!, count: count, readable: 16) }
                let bytewise = bytes.withUnsafeBufferPointer { words($0.baseAddress!, count: count, readable: count) }
                guard words(of: official) == ours, ours == bytewise else {
                    return false
                }
            }
        }
        // Strings that are not small ASCII must never read as small ASCII.
        let others = [String(repeating: "x", count: 16), String(repeating: "y", count: 40), "é", "naïve text",
                      String(decoding: Array("a 20-byte key, ASCII".utf8), as: UTF8.self)]
        for other in others where read(other) != nil { return false }
        return true
        #else
        return false
        #endif
    }()

    /// The two words of the small string holding `count` (at most 15) ASCII bytes at `bytes`, of which
    /// `readable` (at least `count`) may be read: whole words when 16 are, else byte by byte (never a byte-wise
    /// store followed by a word load, which stalls).
    @inline(__always)
    private static func words(_ bytes: UnsafePointer<UInt8>, count: Int, readable: Int) -> (UInt64, UInt64) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        if readable >= 16 {
            let raw = UnsafeRawPointer(bytes)
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            low &= count >= 8 ? ~0 : (1 << (count << 3)) &- 1
            high &= count <= 8 ? 0 : (1 << ((count - 8) << 3)) &- 1
        } else {
            for index in 0..<min(count, 8) { low |= UInt64(bytes[index]) << (index << 3) }
            for index in min(count, 8)..<count { high |= UInt64(bytes[index]) << ((index - 8) << 3) }
        }
        return (low, high | UInt64(0xE0 | count) << 56)
    }

    /// The string of `count` ASCII bytes at `bytes` (`count` at most `capacity`; only when `isAvailable`), where
    /// `readable` bytes (at least `count`) may be read.
    @inline(__always)
    package static func make(_ bytes: UnsafePointer<UInt8>, count: Int, readable: Int) -> String {
        // The words are stored over an empty string (immortal, so nothing is leaked) rather than bit-cast: a
        // bit-cast value is copied out, a retain call per string (a no-op on a small string, but a call).
        var string = ""
        withUnsafeMutableBytes(of: &string) {
            $0.storeBytes(of: words(bytes, count: count, readable: readable), as: (UInt64, UInt64).self)
        }
        return string
    }

    /// The bytes of `string` as two words (memory order) and its length, when it is a small ASCII string (only
    /// meaningful when `isAvailable`); nil otherwise.
    @inline(__always)
    package static func read(_ string: String) -> (low: UInt64, high: UInt64, count: Int)? {
        read(words: words(of: string))
    }

    /// The two words of `string` as they lie in memory (the one place that reads a `String`'s layout; only
    /// meaningful when `isAvailable`). Inlined, a string bound in place is read without a retain.
    @inline(__always)
    package static func words(of string: String) -> (UInt64, UInt64) {
        unsafeBitCast(string, to: (UInt64, UInt64).self)
    }

    /// `read(_:)` of the string whose two words are `words` (read from its memory without a retain).
    @inline(__always)
    package static func read(words: (UInt64, UInt64)) -> (low: UInt64, high: UInt64, count: Int)? {
        guard words.1 >> 60 == 0xE else { return nil }
        return (words.0, words.1 & 0x00FF_FFFF_FFFF_FFFF, Int(words.1 >> 56 & 0x0F))
    }
}
