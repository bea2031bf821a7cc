// Base64 decoding as a stream stage: the stream front of the one decoder (Base64Impl.swift: its whole-group loop,
// its character loop's state, its errors); the encoder is Base64StreamEncoder.swift.
//
// Ownership: the stage's output buffer (`StageOutput`) is grown as needed and freed with the stage; the sink
// borrows it for one call. Input chunks are borrowed from the caller for one call. Nothing here is secret (Base64
// text and ciphertext), so nothing is wiped.

import PNCryptBase

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
    private var output = StageOutput(stage: "the Base64 decoder")

    /// A new decoder.
    package init() {}

    /// Decodes `input`, writing the whole bytes decoded so far to `sink`.
    /// - Parameters:
    ///   - input: the next chunk of the stream.
    ///   - sink: receives the output.
    /// - Throws: `notBase64` (as `Base64.decode` would for the stream up to here); `invalidValue` after `finish`.
    package func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        try output.checkOpen()
        guard let p = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else { return }
        let n = input.count
        let base = offset
        offset += n
        let room = Base64.maximumDecodedCount(n) + 8
        let out = output.reserve(room)
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
        try output.write(o, to: sink)
    }

    /// Ends the stream: checks what waited for the end (quotes, white space, padding) and writes the last bytes.
    /// - Parameter sink: receives the last output.
    /// - Throws: `notBase64` as `Base64.decode` would for the whole stream; `invalidValue` when called twice.
    package func finish(_ sink: ByteSink) throws(PNCryptError) {
        try output.close()
        // The text ends at its last byte that is not white space; a quote there closes an opening quote.
        let closed = openQuote != nil && runLastQuote >= 0
        if let openQuote, !closed { throw Base64.unexpected(Self.quote, at: openQuote) }
        if let deferred { throw deferred }
        if runLastQuote >= 0 && runFirstBad >= 0 && (runFirstBad < runLastQuote || !closed) {
            throw Base64.unexpected(runFirstBadByte, at: runFirstBad)
        }
        let end = closed ? runLastQuote : runStart >= 0 ? runStart : offset
        let out = output.reserve(8)
        var count = 0
        try state.end(at: end, into: out.assumingMemoryBound(to: UInt8.self), &count)
        try output.write(count, to: sink)
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
