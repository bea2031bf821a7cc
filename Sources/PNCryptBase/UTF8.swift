// UTF-8 validation (RFC 3629) over raw bytes, for the JSON parser, key-ring checks and the CLI's inputs. Reads
// only the buffer it is given; allocates nothing.

/// Whether `bytes` are valid UTF-8 (RFC 3629, as `String(validating:as:)` decides), without making a String.
package func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    // ASCII (most messages) is valid: OR the bytes together, 8 at a time, and look at the high bit.
    var any: UInt64 = 0
    var index = 0
    let count = bytes.count
    while index + 8 <= count {
        any |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        index += 8
    }
    while index < count {
        any |= UInt64(bytes[index])
        index += 1
    }
    if any & 0x8080_8080_8080_8080 == 0 { return true }
    return firstInvalidUTF8(in: bytes.assumingMemoryBound(to: UInt8.self)) == nil
}

/// The index of the first byte that starts an invalid UTF-8 sequence (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF), or `nil` if all of `buffer` is valid.
package func firstInvalidUTF8(in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
    var index = 0
    let count = buffer.count
    func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
        offset < count && range.contains(buffer[offset])
    }
    while index < count {
        let lead = buffer[index]
        let length: Int
        switch lead {
        case 0x00...0x7F:
            length = 1
        case 0xC2...0xDF:
            guard continuation(index + 1) else { return index }
            length = 2
        case 0xE0...0xEF:
            let second: ClosedRange<UInt8> = lead == 0xE0 ? 0xA0...0xBF : lead == 0xED ? 0x80...0x9F : 0x80...0xBF
            guard continuation(index + 1, second), continuation(index + 2) else { return index }
            length = 3
        case 0xF0...0xF4:
            let second: ClosedRange<UInt8> = lead == 0xF0 ? 0x90...0xBF : lead == 0xF4 ? 0x80...0x8F : 0x80...0xBF
            guard continuation(index + 1, second), continuation(index + 2), continuation(index + 3) else {
                return index
            }
            length = 4
        default:
            return index
        }
        index += length
    }
    return nil
}

/// UTF-8 validation over a stream of chunks: the same verdict as `isValidUTF8` over all of them at once (a
/// sequence cut by a chunk boundary waits, at most 3 bytes, for the next chunk).
package struct UTF8StreamValidator {
    private var pending: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    private var pendingCount = 0

    /// A validator at the start of a text.
    package init() {}
    /// No invalid sequence so far.
    package private(set) var valid = true

    /// The length of the sequence `lead` starts when it is a valid lead byte of 2 to 4 bytes, else 1.
    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
    }

    /// Checks the next chunk.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        var start = 0
        if pendingCount > 0 {
            let need = Self.sequenceLength(pending.0)
            while pendingCount < need && start < count {
                withUnsafeMutableBytes(of: &pending) { $0[pendingCount] = bytes[start] }
                pendingCount += 1
                start += 1
            }
            guard pendingCount == need else { return }
            let ok = withUnsafeBytes(of: pending) {
                firstInvalidUTF8(in: UnsafeRawBufferPointer(rebasing: $0[0..<need])
                    .assumingMemoryBound(to: UInt8.self)) == nil
            }
            if !ok { valid = false }
            pendingCount = 0
        }
        // A sequence that starts in the last 3 bytes and does not end in them waits for the next chunk.
        var cut = count
        var back = 1
        while back <= 3 && count - back >= start {
            let byte = bytes[count - back]
            if byte < 0x80 { break }
            if byte >= 0xC0 {
                if Self.sequenceLength(byte) > back { cut = count - back }
                break
            }
            back += 1
        }
        if cut > start && !isValidUTF8(UnsafeRawBufferPointer(rebasing: bytes[start..<cut])) { valid = false }
        for index in cut..<count {
            withUnsafeMutableBytes(of: &pending) { $0[pendingCount] = bytes[index] }
            pendingCount += 1
        }
    }

    /// The verdict once the stream has ended (a sequence cut short is invalid).
    package func finish() -> Bool { valid && pendingCount == 0 }
}
