// The unsafe core of the compression layer: every zlib call and every pointer.
//
// Ownership:
// - `ZlibStream` owns one heap-allocated `z_stream` (zlib keeps its address in its internal state, so it must
//   never move) and the zlib state behind it. `end()` runs `deflateEnd`/`inflateEnd` exactly once; the engines
//   call it as soon as a stream finishes or fails, and `deinit` calls it for streams that were abandoned.
// - zlib allocates its state (window, hash chains, pending buffer, inflate tables) through `ZlibMemory`, which
//   records each block's size in front of it and wipes the whole block before freeing it: the window holds the
//   last 32 KiB of plaintext.
// - `DeflateEngine` and `InflateEngine` own their `ZlibStream` and one output scratch buffer of `chunkSize`
//   bytes, wiped and freed in `deinit`. Output is handed to the caller's closure as a pointer into that scratch
//   buffer, valid only during the call.
// - Input pointers are borrowed from the caller for the duration of one call and never stored.

import PNCryptBase
import PNCryptCore


internal import CZlib

import PNCryptPlatform

// MARK: - Lifecycle tracking

/// Counts zlib streams that were initialised and ended, for the lifecycle tests.
///
/// A stream reports to the tracker that was bound with `ZlibStreamTracker.$current.withValue(_:)` when it was
/// created, so tests running in parallel do not see each other's streams.
package final class ZlibStreamTracker: Sendable {
    private let counts = Locked((opened: 0, ended: 0))

    /// The tracker that new streams report to in the current task, if any.
    @TaskLocal package static var current: ZlibStreamTracker?

    package init() {}

    /// Streams whose `deflateInit2`/`inflateInit2` succeeded.
    package var opened: Int { counts.withLock { $0.opened } }
    /// Streams whose `deflateEnd`/`inflateEnd` ran.
    package var ended: Int { counts.withLock { $0.ended } }
    /// Streams initialised and not yet ended.
    package var live: Int { counts.withLock { $0.opened - $0.ended } }

    /// Blocks zlib allocated through `ZlibMemory`, over every stream.
    package var blocksAllocated: Int { blocks.withLock { $0.allocated } }
    /// Blocks still allocated when their stream ended: zlib frees its whole state in `deflateEnd`/`inflateEnd`.
    package var blocksLeftAfterEnd: Int { blocks.withLock { $0.leftAfterEnd } }
    private let blocks = Locked((allocated: 0, leftAfterEnd: 0))

    fileprivate func didOpen() { counts.withLock { $0.opened += 1 } }
    fileprivate func didEnd(_ allocations: ZlibAllocations) {
        counts.withLock { $0.ended += 1 }
        blocks.withLock {
            $0.allocated += allocations.total
            $0.leftAfterEnd += allocations.live
        }
    }
}

// MARK: - zlib's memory

/// zlib's allocator (`zalloc`/`zfree`): every block carries its size in a header in front of it, so that it can be
/// wiped whole before it is freed. zlib's window and buffers hold plaintext.
package enum ZlibMemory {
    /// Bytes in front of each block: its size, padded to keep malloc's 16-byte alignment.
    package static let headerSize = 16

    /// Allocates `byteCount` bytes after a size header; nil when out of memory or the size cannot be represented.
    package static func allocate(byteCount: Int) -> UnsafeMutableRawPointer? {
        guard byteCount >= 0, byteCount <= Int.max - headerSize, let base = malloc(byteCount + headerSize) else {
            return nil
        }
        base.storeBytes(of: byteCount, as: Int.self)
        return base + headerSize
    }

    /// The size recorded for a block from `allocate`.
    package static func byteCount(of block: UnsafeMutableRawPointer) -> Int {
        (block - headerSize).load(as: Int.self)
    }

    /// Overwrites all the bytes of a block from `allocate` with zeros (`wipe`).
    package static func wipe(_ block: UnsafeMutableRawPointer) {
        PNCryptBase.wipe(block, count: byteCount(of: block))
    }

    /// Wipes, then frees, a block from `allocate`.
    package static func release(_ block: UnsafeMutableRawPointer) {
        wipe(block)
        free(block - headerSize)
    }
}

/// Blocks one stream's zlib state holds, counted by the allocator through `z_stream.opaque`.
struct ZlibAllocations {
    /// Blocks allocated and not yet freed.
    package var live = 0
    /// Blocks allocated in all.
    package var total = 0
}

/// `zalloc`: `items * size` bytes from `ZlibMemory`, counted in the stream's `ZlibAllocations`.
private func zlibAllocate(_ opaque: UnsafeMutableRawPointer?, _ items: uInt, _ size: uInt)
    -> UnsafeMutableRawPointer? {
    let (byteCount, overflow) = Int(items).multipliedReportingOverflow(by: Int(size))
    guard !overflow, let block = ZlibMemory.allocate(byteCount: byteCount) else { return nil }
    if let counts = opaque?.assumingMemoryBound(to: ZlibAllocations.self) {
        counts.pointee.live += 1
        counts.pointee.total += 1
    }
    return block
}

/// `zfree`: wipes and frees a block from `zlibAllocate`.
private func zlibFree(_ opaque: UnsafeMutableRawPointer?, _ block: UnsafeMutableRawPointer?) {
    guard let block else { return }
    ZlibMemory.release(block)
    opaque?.assumingMemoryBound(to: ZlibAllocations.self).pointee.live -= 1
}

// MARK: - The z_stream owner

/// One `z_stream` on the heap, initialised for deflate or inflate, ended exactly once.
package final class ZlibStream {
    package enum Kind { case deflate, inflate }

    package let kind: Kind
    /// Stable address handed to zlib. Valid until `deinit`.
    let pointer: UnsafeMutablePointer<z_stream>
    /// The blocks zlib allocated for this stream (`opaque` points here). Valid until `deinit`.
    private let allocations: UnsafeMutablePointer<ZlibAllocations>
    private(set) var isOpen = false
    private let tracker: ZlibStreamTracker?

    private init(kind: Kind) {
        self.kind = kind
        self.tracker = ZlibStreamTracker.current
        allocations = .allocate(capacity: 1)
        allocations.initialize(to: ZlibAllocations())
        pointer = .allocate(capacity: 1)
        var stream = z_stream()
        stream.zalloc = zlibAllocate
        stream.zfree = zlibFree
        stream.opaque = UnsafeMutableRawPointer(allocations)
        pointer.initialize(to: stream)
    }

    /// Blocks of zlib state allocated and not yet freed (wiped when freed).
    package var liveBlocks: Int { allocations.pointee.live }

    /// A stream for `deflate` with the given level (0–9) and window bits (31 = gzip framing).
    package static func deflating(level: Int32, windowBits: Int32) throws(PNCryptError) -> ZlibStream {
        let stream = ZlibStream(kind: .deflate)
        let rc = pncrypt_deflateInit2(stream.pointer, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY)
        try stream.didInit(rc, "deflateInit2")
        return stream
    }

    /// A stream for `inflate` with the given window bits (47 auto, 31 gzip, 15 zlib, -15 raw).
    package static func inflating(windowBits: Int32) throws(PNCryptError) -> ZlibStream {
        let stream = ZlibStream(kind: .inflate)
        let rc = pncrypt_inflateInit2(stream.pointer, windowBits)
        try stream.didInit(rc, "inflateInit2")
        return stream
    }

    private func didInit(_ rc: Int32, _ function: String) throws(PNCryptError) {
        switch rc {
        case Z_OK:
            isOpen = true
            tracker?.didOpen()
        case Z_MEM_ERROR:
            throw PNCryptError(.io, "zlib could not allocate memory for a stream (\(function))")
        default:
            // Z_STREAM_ERROR (bad parameter) or Z_VERSION_ERROR: both are bugs or a broken installation.
            throw PNCryptError(.invalidValue, "\(function) failed with zlib code \(rc)")
        }
    }

    /// Runs `deflateEnd`/`inflateEnd` if the stream is open. Safe to call more than once.
    package func end() {
        guard isOpen else { return }
        isOpen = false
        switch kind {
        case .deflate: _ = deflateEnd(pointer)  // Z_DATA_ERROR when ended mid-stream; the state is freed anyway.
        case .inflate: _ = inflateEnd(pointer)
        }
        tracker?.didEnd(allocations.pointee)
    }

    deinit {
        end()
        pointer.deinitialize(count: 1)
        pointer.deallocate()
        allocations.deinitialize(count: 1)
        allocations.deallocate()
    }
}

/// zlib counts in `uInt` (32 bits): larger buffers are fed in slices of at most this many bytes.
private let maxZlibSlice = 1 << 30

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

// MARK: - Inflate

/// Streaming inflate with member handling, trailing-garbage detection and an output limit.
///
/// Gzip members may be concatenated (as `gzip -d` accepts): after one ends, input that starts with the gzip
/// magic `1f 8b` begins the next member; any other byte, zero padding included, is trailing garbage. zlib and
/// raw deflate streams are single: any byte after their end is trailing garbage.
package final class InflateEngine {
    private enum State {
        /// Inside a member (or before the first byte of input).
        case inMember
        /// A gzip member ended; more gzip members may follow.
        case betweenMembers
        /// A zlib or raw deflate stream ended; nothing may follow.
        case ended
        /// An error was thrown or the engine finished; every further call repeats this error.
        case closed(PNCryptError)
    }

    private let format: CompressionFormat
    private let outputLimit: UInt64?
    private let stream: ZlibStream
    private let scratch: UnsafeMutableRawBufferPointer
    private var state = State.inMember
    /// Bytes of input consumed so far, over all members.
    package private(set) var bytesIn: UInt64 = 0
    /// Bytes of output handed out so far, over all members.
    package private(set) var bytesOut: UInt64 = 0
    /// Offset of the first byte of the current member.
    private var memberStart: UInt64 = 0
    /// First byte of the current member, once seen (0x1f for gzip).
    private var memberFirstByte: UInt8?
    /// Between members: the input so far ended on a lone 0x1f that may start the next member.
    private var pendingMagicByte = false

    package init(format: CompressionFormat, outputLimit: DecompressionLimit, chunkSize: Int)
        throws(PNCryptError) {
        guard chunkSize > 0 else {
            throw PNCryptError(.invalidValue, "chunk size must be positive, got \(chunkSize)")
        }
        self.outputLimit = try outputLimit.validated()
        self.format = format
        stream = try ZlibStream.inflating(windowBits: format.windowBits)
        scratch = .allocate(byteCount: chunkSize, alignment: 16)
    }

    deinit {
        stream.end()
        PNCryptBase.wipe(scratch.baseAddress!, count: scratch.count)
        scratch.deallocate()
    }

    /// Decompresses `input`, handing every produced piece to `output`.
    package func inflate(_ input: UnsafeRawBufferPointer, output: ByteSink) throws(PNCryptError) {
        // Even with no input: a finished or failed engine says so.
        if case .closed(let error) = state { throw error }
        do throws(PNCryptError) {
            // An error of zlib's or of the caller's sink: the stream cannot resume where it stopped.
            try inflateOrThrow(input, output: output)
        } catch {
            close(error)
            throw error
        }
    }

    /// Checks that the input ended at the end of a stream; the engine cannot be used afterwards.
    package func finish() throws(PNCryptError) {
        switch state {
        case .closed(let error):
            throw error
        case .betweenMembers where !pendingMagicByte, .ended:
            close(PNCryptError(.invalidValue, "the decompressor has already finished"))
        case .inMember where bytesIn == 0:
            let error = PNCryptError(.corruptCompressedData, "\(format.dataName) data is empty", offset: 0)
            close(error)
            throw error
        case .inMember, .betweenMembers:
            let end = Int(bytesIn) + (pendingMagicByte ? 1 : 0)
            let error = PNCryptError(.corruptCompressedData, "\(memberName) data is truncated", offset: end)
            close(error)
            throw error
        }
    }

    private func close(_ error: PNCryptError) {
        state = .closed(error)
        stream.end()
    }

    private func inflateOrThrow(_ input: UnsafeRawBufferPointer,
                                output: ByteSink) throws(PNCryptError) {
        let magic = CompressionFormat.gzipMagic
        var rest = input
        while !rest.isEmpty {
            switch state {
            case .closed(let error):
                throw error
            case .ended:
                throw trailingGarbage(at: bytesIn)
            case .betweenMembers:
                if pendingMagicByte {
                    // The held-back 0x1f is at offset `bytesIn`: it is counted when it is replayed.
                    guard rest[0] == magic.1 else { throw trailingGarbage(at: bytesIn) }
                    try startNextMember(at: bytesIn)
                    pendingMagicByte = false
                    // Replay the 0x1f held back from the previous call.
                    let first = magic.0
                    try withBytes(CollectionOfOne(first)) { (first) throws(PNCryptError) in
                        _ = try inflateMember(first, output: output)
                    }
                } else if rest.count == 1 {
                    guard rest[0] == magic.0 else { throw trailingGarbage(at: bytesIn) }
                    pendingMagicByte = true
                    return
                } else {
                    guard rest[0] == magic.0, rest[1] == magic.1 else { throw trailingGarbage(at: bytesIn) }
                    try startNextMember(at: bytesIn)
                }
            case .inMember:
                if memberFirstByte == nil { memberFirstByte = rest[0] }
                let consumed = try inflateMember(rest, output: output)
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(consumed))
            }
        }
    }

    private func startNextMember(at offset: UInt64) throws(PNCryptError) {
        let rc = inflateReset(stream.pointer)
        guard rc == Z_OK else { throw PNCryptError(.invalidValue, "zlib inflateReset failed with code \(rc)") }
        state = .inMember
        memberStart = offset
        memberFirstByte = CompressionFormat.gzipMagic.0
    }

    /// Runs inflate over `input` until the member ends or the input is used up. Returns the bytes consumed.
    @discardableResult
    private func inflateMember(_ input: UnsafeRawBufferPointer,
                               output: ByteSink) throws(PNCryptError) -> Int {
        let z = stream.pointer
        let slice = UnsafeRawBufferPointer(rebasing: input.prefix(maxZlibSlice))
        z.pointee.next_in = UnsafeMutablePointer(mutating: slice.baseAddress!.assumingMemoryBound(to: Bytef.self))
        z.pointee.avail_in = uInt(slice.count)
        defer {
            z.pointee.next_in = nil
            z.pointee.avail_in = 0
        }
        while true {
            let availBefore = Int(z.pointee.avail_in)
            z.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            z.pointee.avail_out = uInt(scratch.count)
            let rc = CZlib.inflate(z, Z_NO_FLUSH)
            bytesIn += UInt64(availBefore - Int(z.pointee.avail_in))
            let produced = scratch.count - Int(z.pointee.avail_out)
            if produced > 0 {
                if let outputLimit, bytesOut + UInt64(produced) > outputLimit {
                    throw PNCryptError(.outputLimitExceeded,
                                       "decompressed data is larger than the limit of "
                                        + Int(clamping: outputLimit).counting("byte"),
                                       offset: Int(bytesIn))
                }
                bytesOut += UInt64(produced)
                try output(UnsafeRawBufferPointer(rebasing: scratch.prefix(produced)))
            }
            switch rc {
            case Z_STREAM_END:
                state = isGzipMember ? .betweenMembers : .ended
                return slice.count - Int(z.pointee.avail_in)
            case Z_OK, Z_BUF_ERROR:
                // Keep going while zlib filled the scratch buffer (more output may be pending) or has input left.
                if z.pointee.avail_out == 0 || (z.pointee.avail_in > 0 && rc == Z_OK) { continue }
                return slice.count - Int(z.pointee.avail_in)
            case Z_NEED_DICT:
                throw PNCryptError(.corruptCompressedData,
                                   "zlib data needs a preset dictionary, which is not supported", offset: Int(bytesIn))
            case Z_DATA_ERROR:
                throw dataError(message: z.pointee.msg.map { String(cString: $0) } ?? "invalid data")
            case Z_MEM_ERROR:
                throw PNCryptError(.io, "zlib could not allocate memory while decompressing")
            default:
                // Z_STREAM_ERROR: an inconsistent stream, a bug; reported as an error rather than a trap.
                throw PNCryptError(.invalidValue, "zlib inflate failed with code \(rc)", offset: Int(bytesIn))
            }
        }
    }

    private var isGzipMember: Bool {
        switch format {
        case .gzip: return true
        case .gzipOrZlib: return memberFirstByte == CompressionFormat.gzipMagic.0
        case .zlib, .rawDeflate: return false
        }
    }

    /// "gzip", "zlib" or "deflate": the kind of the current member, for messages.
    private var memberName: String {
        guard format == .gzipOrZlib, memberFirstByte != nil else { return format.dataName }
        return isGzipMember ? CompressionFormat.gzip.dataName : CompressionFormat.zlib.dataName
    }

    private func trailingGarbage(at offset: UInt64) -> PNCryptError {
        let what = isGzipMember ? "gzip member" : "\(memberName) stream"
        return PNCryptError(.corruptCompressedData, "trailing garbage after \(what) at offset \(offset)",
                            offset: Int(offset))
    }

    /// Names zlib's Z_DATA_ERROR causes in the terms of the format.
    private func dataError(message: String) -> PNCryptError {
        var text: String
        switch message {
        case "incorrect header check":
            text = "not \(format.dataName) data: incorrect header check"
        case "incorrect data check":
            text = isGzipMember ? "gzip CRC mismatch" : "zlib Adler-32 checksum mismatch"
        case "incorrect length check":
            text = "gzip ISIZE (length) mismatch"
        case "header crc mismatch":
            text = "gzip header CRC mismatch"
        default:
            text = "corrupt \(memberName) data: \(message)"
        }
        if memberStart > 0 { text += " in the member at offset \(memberStart)" }
        return PNCryptError(.corruptCompressedData, text, offset: Int(bytesIn))
    }
}
