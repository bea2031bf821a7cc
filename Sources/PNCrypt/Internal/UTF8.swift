// UTF-8 validation (RFC 3629) over raw bytes, for the JSON parser, key-ring checks and the CLI's inputs. Reads
// only the buffer it is given; allocates nothing.

/// Whether `bytes` are valid UTF-8 (RFC 3629, as `String(validating:as:)` decides), without making a String.
func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
func firstInvalidUTF8(in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
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
