// Wiping memory that held secrets (keys, plaintext) before it is released or reused.
//
// Ownership: these functions write to memory the caller owns and keeps owning; they never free it.
internal import CLibCrypto

/// Overwrites `count` bytes at `pointer` with zeros in a way the compiler cannot remove (`OPENSSL_cleanse`), then,
/// in debug builds (the tests'), shows them to the tests' hook `OpenSSL.wipeObserver`. Release builds do not read
/// the hook: a task-local read per wipe was ~2% of a message's time.
func wipe(_ pointer: UnsafeMutableRawPointer, count: Int) {
    guard count > 0 else { return }
    OPENSSL_cleanse(pointer, count)
    #if DEBUG
    if let observer = OpenSSL.wipeObserver { observer(UnsafeRawBufferPointer(start: pointer, count: count)) }
    #endif
}
