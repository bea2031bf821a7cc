// Base64 as stream stages: the encoder carries groups of 3 bytes across chunks; the decoder is the stream front of
// the one decoder (Base64Impl.swift: its whole-group loop, its character loop's state, its errors).
//
// Ownership: each stage allocates its output buffer, grows it (freeing the old one) and frees it in `deinit`;
// the sink borrows it for one call. Input chunks are borrowed from the caller for one call. Nothing here is secret
// (Base64 text and ciphertext), so nothing is wiped.

import PNCryptBase


/// Base64 encoding as a stream stage: the same text as `Base64.encode(_:)` of the whole stream, in constant
/// memory (groups of 3 bytes are carried across chunks; the padding is written by `finish`).
package final class Base64StreamEncoder: ByteStreamStage {
    /// Up to 2 bytes of the last chunk that did not make a group of 3.
    private var carry: (UInt8, UInt8) = (0, 0)
    private var carryCount = 0
    private var output = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var finished = false

    /// A new encoder.
    package init() {}

    deinit { output.deallocate() }

    /// Encodes the whole groups of 3 bytes that `input` completes.
    /// - Parameters:
    ///   - input: the next chunk of the stream.
    ///   - sink: receives the output.
    /// - Throws: `invalidValue` after `finish`; otherwise what `sink` throws.
    package func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the Base64 encoder has already finished") }
        var start = 0
        var produced = 0
        reserve(Base64.encodedCount(input.count + 2) + 8)
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
            withUnsafeBytes(of: group) { Base64.encode($0, into: output.baseAddress!) }
            produced = 4
            carryCount = 0
        }
        let whole = (input.count - start) / 3 * 3
        if whole > 0 {
            Base64.encode(UnsafeRawBufferPointer(rebasing: input[start..<(start + whole)]),
                          into: output.baseAddress! + produced)
            produced += Base64.encodedCount(whole)
        }
        let rest = input.count - start - whole
        if rest > 0 {
            carry = (input[start + whole], rest == 2 ? input[start + whole + 1] : 0)
            carryCount = rest
        }
        if produced > 0 { try sink(UnsafeRawBufferPointer(start: output.baseAddress, count: produced)) }
    }

    /// Encodes the bytes carried over, with `=` padding.
    /// - Parameter sink: receives the last output.
    /// - Throws: `invalidValue` when called twice; otherwise what `sink` throws.
    package func finish(_ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the Base64 encoder has already finished") }
        finished = true
        guard carryCount > 0 else { return }
        reserve(8)
        let group = [carry.0, carry.1]
        group.withUnsafeBytes { Base64.encode(UnsafeRawBufferPointer(rebasing: $0[0..<carryCount]),
                                              into: output.baseAddress!) }
        try sink(UnsafeRawBufferPointer(start: output.baseAddress, count: 4))
    }

    private func reserve(_ count: Int) {
        guard output.count < count else { return }
        output.deallocate()
        output = .allocate(byteCount: count, alignment: 16)
    }
}

/// Base64 decoding as a stream stage: exactly the bytes `Base64.decode(_:)` gives for the whole stream, and exactly
/// its error (the same message and offset, counted from the start of the stream) for text it refuses, in
/// constant memory.
///
/// The lenient forms are those of `Base64`: white space at either end, one pair of JSON quotes around the text,
/// line breaks inside. Whether a quote or white space is allowed is known only once the stream has ended (it may
/// close the text), so some errors are thrown by `finish`. Bytes are written to the sink as they are decoded: the
/// output of a stream that fails is not the decoded text, and the caller throws it away.
///
/// `Base64.decode`'s character loop (`Base64.DecodeState`) carried across chunks: a quote or white space that may
/// end the text waits in a run; an error after an opening quote waits for the end too (if the quote is not
/// closed, the quote itself is the first error).
package final class Base64StreamDecoder: ByteStreamStage {
    /// The offset of the next input byte in the stream.
    private var offset = 0
    /// A byte other than white space has been seen.
    private var started = false
    /// The offset of the opening quote, when the text starts with one.
    private var openQuote: Int?
    /// The first error, held until the end when an opening quote may or may not be closed.
    private var deferred: PNCryptError?
    /// White space and quotes after the last other byte (-1: none): allowed only at the end.
    private var runStart = -1
    /// The first space, tab or quote in that run (-1: none) and that byte.
    private var runFirstBad = -1
    private var runFirstBadByte: UInt8 = 0
    /// The last quote in that run (-1: none).
    private var runLastQuote = -1
    /// The one decoder's character loop, carried across chunks.
    private var state = Base64.DecodeState()
    private var output = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var finished = false

    /// A new decoder.
    package init() {}

    deinit { output.deallocate() }

    /// Decodes `input`, writing the whole bytes decoded so far to `sink`.
    /// - Parameters:
    ///   - input: the next chunk of the stream.
    ///   - sink: receives the output.
    /// - Throws: `notBase64` (as `Base64.decode` would for the stream up to here); `invalidValue` after `finish`.
    package func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the Base64 decoder has already finished") }
        guard let p = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else { return }
        let n = input.count
        let base = offset
        offset += n
        let room = Base64.maximumDecodedCount(n) + 8
        if output.count < room {
            output.deallocate()
            output = .allocate(byteCount: room, alignment: 16)
        }
        let out = output.baseAddress!
        let bytes = out.assumingMemoryBound(to: UInt8.self)
        var o = 0
        var i = 0
        let table = Base64.decodeTable
        while i < n {
            if deferred != nil {
                track(p[i], at: base + i)
                i += 1
                continue
            }
            if !started {
                let c = p[i]
                if isSpace(c) {
                    i += 1
                    continue
                }
                started = true
                if c == Self.quote {
                    openQuote = base + i
                    i += 1
                    continue
                }
            }
            if runStart < 0 && state.isAtGroup {
                let (read, written) = Base64.decodeGroups(p + i, n - i, into: out + o, room: room - o)
                i += read
                o += written
                if i >= n { break }
            }
            let c = p[i]
            let at = base + i
            i += 1
            if isSpace(c) || c == Self.quote {
                track(c, at: at)
                continue
            }
            if runStart >= 0 {
                let bad = runFirstBad
                let badByte = runFirstBadByte
                clearRun()
                if bad >= 0 {
                    try fail(Base64.unexpected(badByte, at: bad))
                    track(c, at: at)
                    continue
                }
            }
            do {
                try state.take(c, table[Int(c)], at: at, into: bytes, &o)
            } catch {
                try fail(error)
            }
        }
        if o > 0 { try sink(UnsafeRawBufferPointer(start: out, count: o)) }
    }

    /// Ends the stream: checks what waited for the end (quotes, white space, padding) and writes the last bytes.
    /// - Parameter sink: receives the last output.
    /// - Throws: `notBase64` as `Base64.decode` would for the whole stream; `invalidValue` when called twice.
    package func finish(_ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the Base64 decoder has already finished") }
        finished = true
        // The text ends at its last byte that is not white space; a quote there closes an opening quote.
        let closed = openQuote != nil && runLastQuote >= 0
        if let openQuote, !closed { throw Base64.unexpected(Self.quote, at: openQuote) }
        if let deferred { throw deferred }
        if runLastQuote >= 0 && runFirstBad >= 0 && (runFirstBad < runLastQuote || !closed) {
            throw Base64.unexpected(runFirstBadByte, at: runFirstBad)
        }
        let end = closed ? runLastQuote : runStart >= 0 ? runStart : offset
        if output.count < 8 {
            output.deallocate()
            output = .allocate(byteCount: 8, alignment: 16)
        }
        var count = 0
        try state.end(at: end, into: output.baseAddress!.assumingMemoryBound(to: UInt8.self), &count)
        if count > 0 { try sink(UnsafeRawBufferPointer(start: output.baseAddress, count: count)) }
    }

    private static let quote = UInt8(ascii: "\"")

    /// Adds a byte to the run of white space and quotes that may end the text (any other byte ends the run).
    private func track(_ c: UInt8, at offset: Int) {
        guard isSpace(c) || c == Self.quote else {
            clearRun()
            return
        }
        if runStart < 0 { runStart = offset }
        if c != 0x0A && c != 0x0D && runFirstBad < 0 {
            runFirstBad = offset
            runFirstBadByte = c
        }
        if c == Self.quote { runLastQuote = offset }
    }

    private func clearRun() {
        runStart = -1
        runFirstBad = -1
        runLastQuote = -1
    }

    /// Throws `error` at once, or (after an opening quote, which may turn out not to be closed) keeps it for the
    /// end.
    private func fail(_ error: PNCryptError) throws(PNCryptError) {
        guard openQuote != nil else { throw error }
        deferred = error
    }
}
