/// Runs `body` over the contiguous bytes of `data` (copying only when `data` is not contiguous), keeping
/// the typed error: the standard library's `withUnsafeBytes` family is `rethrows` and would erase it. A copy is
/// wiped after use: it may hold plaintext.
@inline(__always)
func withBytes<R>(_ data: some Collection<UInt8>,
                  _ body: (UnsafeRawBufferPointer) throws(PNCryptError) -> R) throws(PNCryptError) -> R {
    let result = data.withContiguousStorageIfAvailable { buffer in
        Result { () throws(PNCryptError) -> R in try body(UnsafeRawBufferPointer(buffer)) }
    }
    if let result { return try result.get() }
    var copy = Array(data)
    defer { OpenSSL.cleanse(&copy) }
    return try copy.withUnsafeBytes { buffer in
        Result { () throws(PNCryptError) -> R in try body(buffer) }
    }.get()
}
