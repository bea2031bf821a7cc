// The vector forms of the core's byte loops (the C target CPNCryptSIMD: SSSE3 on x86-64), and whether this CPU runs
// them. The one file of the core that imports that target; each loop's caller chooses with `ByteVectors.available`
// and keeps its Swift loop for every other CPU (and for its tests, which run both).
//
// Ownership: every function reads and writes the caller's memory for the duration of the call and keeps nothing.

internal import CPNCryptSIMD

/// The vector loops: UTF-8 validation in time that depends on the length alone, and Base64's whole blocks both ways.
package enum ByteVectors {
    /// Whether this CPU runs the vector loops (x86-64 with SSSE3); when false, nothing here is called. The CPU is
    /// asked once; after that a load of the C target's answer (a `static let` here would be a `swift_once` call
    /// at every loop on Linux).
    package static var available: Bool { pnsimd_available() != 0 }

    /// Whether the `count` bytes at `bytes` are valid UTF-8 (RFC 3629), every byte read and no branch on one: the
    /// time depends on `count` alone (`Decision.isValidUTF8InFull`'s promise).
    @inline(__always)
    static func isValidUTF8(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        pnsimd_utf8_valid(bytes.assumingMemoryBound(to: UInt8.self), count) != 0
    }

    /// `isValidUTF8` of the `count` bytes at `bytes` and of the bytes after the first `split`, in one pass when
    /// `split` is a multiple of 16 (`Decision.isValidUTF8InFull(_:split:)`'s promise: the time depends on the
    /// lengths alone).
    @inline(__always)
    static func isValidUTF8(_ bytes: UnsafeRawPointer, count: Int, split: Int) -> (whole: Bool, tail: Bool) {
        var tail: Int32 = 0
        let whole = pnsimd_utf8_valid_split(bytes.assumingMemoryBound(to: UInt8.self), count, split, &tail)
        return (whole != 0, tail != 0)
    }

    /// Base64's whole blocks of 16 alphabet characters from `p` to `out` (12 bytes a block, each stored 16 wide:
    /// blocks run while `room` allows), stopping before the first block with any other byte: the characters read
    /// and the bytes written, as `Base64.decodeGroups` returns them.
    @inline(__always)
    static func decodeBase64(_ p: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutableRawPointer, room: Int)
        -> (read: Int, written: Int) {
        var written = 0
        let read = pnsimd_base64_decode(p, count, out.assumingMemoryBound(to: UInt8.self), room, &written)
        return (read, written)
    }

    /// Base64's whole blocks of 12 bytes of `input` to 16 characters each at `out`, while 16 bytes are left to load:
    /// the bytes read (the characters written are 4/3 of them).
    @inline(__always)
    static func encodeBase64(_ input: UnsafeRawPointer, count: Int, into out: UnsafeMutableRawPointer) -> Int {
        pnsimd_base64_encode(input.assumingMemoryBound(to: UInt8.self), count, out.assumingMemoryBound(to: UInt8.self))
    }
}
