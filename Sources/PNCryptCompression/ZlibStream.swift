// The unsafe core of the compression layer: the `z_stream` owner (the engines, DeflateEngine.swift and
// InflateEngine.swift, drive it; zlib's memory is ZlibMemory.swift's). Every zlib call and pointer is in these four
// files.
//
// Ownership:
// - `ZlibStream` owns one heap-allocated `z_stream` (zlib keeps its address in its internal state, so it must
//   never move) and the zlib state behind it. `end()` runs `deflateEnd`/`inflateEnd` exactly once; the engines
//   call it as soon as a stream finishes or fails, and `deinit` calls it for streams that were abandoned.
// - zlib allocates its state (window, hash chains, pending buffer, inflate tables) through `ZlibMemory`, which
//   records each block's size in front of it and wipes the whole block before freeing it: the window holds the
//   last 32 KiB of plaintext. The stream's `ZlibAllocations` (its `opaque`) count the blocks.

import PNCryptBase
import PNCryptCore
internal import CZlib
import PNCryptPlatform

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
let maxZlibSlice = 1 << 30
