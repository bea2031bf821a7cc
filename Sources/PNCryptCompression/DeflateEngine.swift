// Streaming deflate over a `ZlibStream` (ZlibStream.swift).
//
// Ownership:
// - `DeflateEngine` owns its `ZlibStream` and one output scratch buffer of `chunkSize` bytes, wiped and freed in
//   `deinit`. Output is handed to the caller's closure as a pointer into that scratch buffer, valid only during
//   the call.
// - Input pointers are borrowed from the caller for the duration of one call and never stored.

import PNCryptBase
import PNCryptCore
internal import CZlib
import PNCryptPlatform

// MARK: - Deflate

/// Streaming deflate with gzip framing, producing output in pieces of at most `chunkSize` bytes.
package final class DeflateEngine {
    private let stream: ZlibStream
    private let scratch: UnsafeMutableRawBufferPointer
    /// Why the engine cannot be used any more, once it has finished or failed.
    private var closedReason: String?
    package private(set) var bytesIn: UInt64 = 0
    package private(set) var bytesOut: UInt64 = 0

    package init(level: Int, chunkSize: Int) throws(PNCryptError) {
        try Self.validate(level: level)
        guard chunkSize > 0 else {
            throw PNCryptError(.invalidValue, "chunk size must be positive, got \(chunkSize)")
        }
        stream = try ZlibStream.deflating(level: Int32(level), windowBits: 31)
        scratch = .allocate(byteCount: chunkSize, alignment: 16)
    }

    deinit {
        stream.end()
        PNCryptBase.wipe(scratch.baseAddress!, count: scratch.count)
        scratch.deallocate()
    }

    package static func validate(level: Int) throws(PNCryptError) {
        guard (0...9).contains(level) else {
            throw PNCryptError(.invalidValue, "gzip compression level must be 0 through 9, got \(level)")
        }
    }

    package enum Flush { case none, sync, finish }

    /// Compresses `input`, handing every produced piece to `output`; `.finish` ends the gzip member.
    /// After an error (the closure's), the stream is ended and every further call throws.
    package func deflate(_ input: UnsafeRawBufferPointer, flush: Flush,
                 output: ByteSink) throws(PNCryptError) {
        if let closedReason {
            throw PNCryptError(.invalidValue, closedReason)
        }
        do throws(PNCryptError) {
            // Feed the input in slices zlib can count; only the last slice carries the flush.
            var rest = input
            repeat {
                let slice = UnsafeRawBufferPointer(rebasing: rest.prefix(maxZlibSlice))
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(slice.count))
                let mode: Int32
                switch (rest.isEmpty, flush) {
                case (false, _), (true, .none): mode = Z_NO_FLUSH
                case (true, .sync): mode = Z_SYNC_FLUSH
                case (true, .finish): mode = Z_FINISH
                }
                try deflateSlice(slice, mode: mode, output: output)
            } while !rest.isEmpty
        } catch {
            close("the gzip compressor stopped after an output error: \(error)")
            throw error
        }
        if flush == .finish {
            close("the gzip compressor has already finished")
        }
    }

    /// `deflate` with no new input: a sync flush, or the end of the member.
    package func end(_ flush: Flush, output: ByteSink) throws(PNCryptError) {
        try deflate(UnsafeRawBufferPointer(start: nil, count: 0), flush: flush, output: output)
    }

    private func close(_ reason: String) {
        closedReason = reason
        stream.end()
    }

    private func deflateSlice(_ input: UnsafeRawBufferPointer, mode: Int32,
                              output: ByteSink) throws(PNCryptError) {
        let z = stream.pointer
        z.pointee.next_in = input.isEmpty ? nil : UnsafeMutablePointer(
            mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        z.pointee.avail_in = uInt(input.count)
        defer {
            z.pointee.next_in = nil
            z.pointee.avail_in = 0
        }
        while true {
            z.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            z.pointee.avail_out = uInt(scratch.count)
            let rc = CZlib.deflate(z, mode)
            // Z_BUF_ERROR only means "no progress possible": not fatal. Anything else (Z_STREAM_ERROR: an
            // inconsistent stream) is a bug, reported as an error rather than a trap.
            guard rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR else {
                throw PNCryptError(.invalidValue, "zlib deflate failed with code \(rc)")
            }
            let produced = scratch.count - Int(z.pointee.avail_out)
            bytesOut += UInt64(produced)
            if produced > 0 {
                try output(UnsafeRawBufferPointer(rebasing: scratch.prefix(produced)))
            }
            // Done when zlib took all input and had room to spare (so nothing is pending), or the member ended.
            if rc == Z_STREAM_END || (z.pointee.avail_in == 0 && z.pointee.avail_out != 0 && mode != Z_FINISH) {
                break
            }
        }
        bytesIn += UInt64(input.count)
    }

    /// Compresses `input` into one gzip member in a single call, into an array sized by `deflateBound`.
    static func compressOneShot(_ input: UnsafeRawBufferPointer, level: Int) throws(PNCryptError) -> [UInt8] {
        try validate(level: level)
        guard input.count <= maxZlibSlice else {
            // Beyond zlib's 32-bit counters: stream it.
            let engine = try DeflateEngine(level: level, chunkSize: 1 << 20)
            var out: [UInt8] = []
            try engine.deflate(input, flush: .finish) { out.append(contentsOf: $0) }
            return out
        }
        let stream = try ZlibStream.deflating(level: Int32(level), windowBits: 31)
        defer { stream.end() }
        let z = stream.pointer
        let bound = Int(deflateBound(z, uLong(input.count)))
        return try makeBytes(capacity: bound) { (buffer) throws(PNCryptError) -> Int in
            z.pointee.next_in = input.isEmpty ? nil : UnsafeMutablePointer(
                mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
            z.pointee.avail_in = uInt(input.count)
            z.pointee.next_out = buffer.assumingMemoryBound(to: Bytef.self)
            z.pointee.avail_out = uInt(bound)
            let rc = CZlib.deflate(z, Z_FINISH)
            z.pointee.next_in = nil
            z.pointee.next_out = nil
            guard rc == Z_STREAM_END else {
                throw PNCryptError(.invalidValue, "deflate did not finish within deflateBound (zlib code \(rc))")
            }
            return bound - Int(z.pointee.avail_out)
        }
    }
}
