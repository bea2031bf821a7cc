// Base64 encoding as a stream stage: groups of 3 bytes carried across chunks (the decoder is
// Base64StreamDecoder.swift).
//
// Ownership: the stage's output buffer (`StageOutput`) is grown as needed and freed with the stage; the sink
// borrows it for one call. Input chunks are borrowed from the caller for one call. Nothing here is secret (Base64
// text), so nothing is wiped.

import PNCryptBase

/// Base64 encoding as a stream stage: the same text as `Base64.encode(_:)` of the whole stream, in constant
/// memory (groups of 3 bytes are carried across chunks; the padding is written by `finish`).
package final class Base64StreamEncoder: ByteStreamStage {
    /// Up to 2 bytes of the last chunk that did not make a group of 3.
    private var carry: (UInt8, UInt8) = (0, 0)
    private var carryCount = 0
    private var output = StageOutput(stage: "the Base64 encoder")

    /// A new encoder.
    package init() {}

    /// Encodes the whole groups of 3 bytes that `input` completes.
    /// - Parameters:
    ///   - input: the next chunk of the stream.
    ///   - sink: receives the output.
    /// - Throws: `invalidValue` after `finish`; otherwise what `sink` throws.
    package func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        try output.checkOpen()
        var start = 0
        var produced = 0
        let out = output.reserve(Base64.encodedCount(input.count + 2) + 8)
        if carryCount > 0 {
            // Complete the carried group first.
            var group: (UInt8, UInt8, UInt8) = (carry.0, carry.1, 0)
            while carryCount < 3 && start < input.count {
                if carryCount == 1 { group.1 = input[start] } else { group.2 = input[start] }
                carryCount += 1
                start += 1
            }
            guard carryCount == 3 else {
                carry = (group.0, group.1)
                return
            }
            withUnsafeBytes(of: group) { Base64.encode($0, into: out) }
            produced = 4
            carryCount = 0
        }
        let whole = (input.count - start) / 3 * 3
        if whole > 0 {
            Base64.encode(UnsafeRawBufferPointer(rebasing: input[start..<(start + whole)]),
                          into: out + produced)
            produced += Base64.encodedCount(whole)
        }
        let rest = input.count - start - whole
        if rest > 0 {
            carry = (input[start + whole], rest == 2 ? input[start + whole + 1] : 0)
            carryCount = rest
        }
        try output.write(produced, to: sink)
    }

    /// Encodes the bytes carried over, with `=` padding.
    /// - Parameter sink: receives the last output.
    /// - Throws: `invalidValue` when called twice; otherwise what `sink` throws.
    package func finish(_ sink: ByteSink) throws(PNCryptError) {
        try output.close()
        guard carryCount > 0 else { return }
        let out = output.reserve(8)
        let group = [carry.0, carry.1]
        group.withUnsafeBytes { Base64.encode(UnsafeRawBufferPointer(rebasing: $0[0..<carryCount]), into: out) }
        try output.write(4, to: sink)
    }
}
