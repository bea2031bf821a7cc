// Wiping memory that held secrets (keys, plaintext) before it is released or reused: the one wipe function of
// the package. It lives in the lowest layer so that every layer (the JSON codec's buffers, the cipher core,
// compression, messages, the C library) calls the same function without depending on a cryptography library.
//
// Ownership: writes to memory the caller owns and keeps owning; never frees it.
import PNCryptPlatform

/// The test hook of `wipe`.
@usableFromInline
package enum Wiping {
    /// Test hook: called with every buffer right after it was wiped (before it is freed), in the task that wiped
    /// it. Lets tests check that a buffer was wiped and holds zeros. Read in debug builds only: a task-local read
    /// per wipe was ~2% of a message's time.
    @TaskLocal @usableFromInline package static var observer: (@Sendable (UnsafeRawBufferPointer) -> Void)?
}

/// Overwrites `count` bytes at `pointer` with zeros in a way the compiler cannot remove (`explicit_bzero`,
/// `memset_s` on Darwin); in debug builds (the tests'), then shows them to `Wiping.observer`.
@inlinable @inline(__always)
package func wipe(_ pointer: UnsafeMutableRawPointer, count: Int) {
    guard count > 0 else { return }
    #if canImport(Darwin)
    _ = memset_s(pointer, count, 0, count)
    #else
    explicit_bzero(pointer, count)
    #endif
    #if DEBUG
    if let observer = Wiping.observer { observer(UnsafeRawBufferPointer(start: pointer, count: count)) }
    #endif
}

/// Overwrites `bytes` with zeros. Call it only on an array this code owns alone: on shared storage the write
/// would first copy it (and wipe only the copy).
@inlinable
package func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { wipe(base, count: buffer.count) }
    }
}
