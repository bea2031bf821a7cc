// Wiping memory that held secrets (keys, plaintext) before it is released or reused.
//
// Ownership: these functions write to memory the caller owns and keeps owning; they never free it.
internal import CLibCrypto

/// Overwrites `count` bytes at `pointer` with zeros in a way the compiler cannot remove (`OPENSSL_cleanse`), then
/// shows them to the tests' hook (`OpenSSL.wipeObserver`, nil outside tests).
func wipe(_ pointer: UnsafeMutableRawPointer, count: Int) {
    guard count > 0 else { return }
    OPENSSL_cleanse(pointer, count)
    if let observer = OpenSSL.wipeObserver { observer(UnsafeRawBufferPointer(start: pointer, count: count)) }
}

/// Overwrites the bytes of `buffer`, a view of memory the caller owns and may write (a writer's own output).
func wipe(_ buffer: UnsafeRawBufferPointer) {
    guard let base = buffer.baseAddress else { return }
    wipe(UnsafeMutableRawPointer(mutating: base), count: buffer.count)
}
