/// Runs `body` over the contiguous bytes of `data` (copying only when `data` is not contiguous), keeping
/// the typed error: the standard library's `withUnsafeBytes` family is `rethrows` and would erase it.
@inline(__always)
func withBytes<R>(_ data: some Collection<UInt8>,
                  _ body: (UnsafeRawBufferPointer) throws(PNCryptError) -> R) throws(PNCryptError) -> R {
    let result = data.withContiguousStorageIfAvailable { buffer in
        Result { () throws(PNCryptError) -> R in try body(UnsafeRawBufferPointer(buffer)) }
    }
    if let result { return try result.get() }
    return try Array(data).withUnsafeBytes { buffer in
        Result { () throws(PNCryptError) -> R in try body(buffer) }
    }.get()
}
