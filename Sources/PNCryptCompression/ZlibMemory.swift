// zlib's allocator (see ZlibStream.swift, which hands it to zlib).
//
// Ownership: every block is `malloc`ed with its size in a header in front of it and wiped whole (`wipe`) before
// it is freed: zlib's window holds the last 32 KiB of plaintext. The caller (zlib, through `zlibFree`) frees each
// block once.

import PNCryptBase
import PNCryptPlatform

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
