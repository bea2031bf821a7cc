// Counts of the zlib streams opened and ended, and of zlib's blocks, for the lifecycle tests (ZlibStream.swift
// reports to it). It holds no pointer.

import PNCryptBase

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

    func didOpen() { counts.withLock { $0.opened += 1 } }
    func didEnd(_ allocations: ZlibAllocations) {
        counts.withLock { $0.ended += 1 }
        blocks.withLock {
            $0.allocated += allocations.total
            $0.leftAfterEnd += allocations.live
        }
    }
}
