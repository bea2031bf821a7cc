// Wiping memory that held secrets (keys, plaintext) before it is released or reused: the one function the layers
// above the cipher backend (the JSON codec's buffers) call, so that they depend on no cryptography library.
//
// Ownership: writes to memory the caller owns and keeps owning; never frees it.

/// Overwrites `count` bytes at `pointer` with zeros in a way the compiler cannot remove (`Backend.cleanse`, which
/// shows them to the tests' hook in debug builds).
@inline(__always)
func wipe(_ pointer: UnsafeMutableRawPointer, count: Int) {
    Backend.cleanse(pointer, count: count)
}
