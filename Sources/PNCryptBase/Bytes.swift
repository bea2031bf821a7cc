// Helpers over raw bytes shared by the library. Ownership: `withBytes` lends the caller's storage for one call
// (or a private copy, wiped after it); `withScratch` memory belongs to the call and never escapes it;
// `withBytesAsync` allocates a copy for one async call, then wipes and frees it.

/// Runs `body` over the contiguous bytes of `data` (copying only when `data` is not contiguous), keeping
/// the typed error: the standard library's `withUnsafeBytes` family is `rethrows` and would erase it. A copy is
/// wiped after use: it may hold plaintext.
@inlinable @inline(__always)
package func withBytes<R, E: Error>(_ data: some Sequence<UInt8>,
                            _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
    let result = data.withContiguousStorageIfAvailable { buffer in
        Result { () throws(E) -> R in try body(UnsafeRawBufferPointer(buffer)) }
    }
    if let result { return try result.get() }
    var copy = Array(data)
    defer { wipe(&copy) }
    return try copy.withUnsafeBytes { buffer in
        Result { () throws(E) -> R in try body(buffer) }
    }.get()
}

/// Whether `byte` is white space as JSON and Base64 text allow around a value: space, tab, LF or CR (RFC 8259).
@inlinable @inline(__always)
package func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

/// Runs `body` with `count` bytes of scratch memory that never escapes it: on the stack when small (a message),
/// else on the heap. (`withUnsafeTemporaryAllocation` alone asks the runtime about stack room above 1 KiB,
/// which on Linux can cost more than the work.)
@inlinable @inline(__always)
package func withScratch<R, E: Error>(_ count: Int,
                              _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
    if count <= 1024 {
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 16) {
            (buffer) throws(E) -> R in try body(buffer)
        }
    }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
    defer { buffer.deallocate() }
    return try body(buffer)
}

extension Unmanaged {
    /// Runs `body` with the instance, neither retained nor released (`_withUnsafeGuaranteedRef`), keeping the
    /// typed error. For a reference the caller knows alive for the call: a closure that captured the reference
    /// itself would retain and release it, two atomic operations per call on the message paths.
    @inlinable @inline(__always)
    package func withBorrowed<R, E: Error>(_ body: (Instance) throws(E) -> R) throws(E) -> R {
        try _withUnsafeGuaranteedRef { instance in Result { () throws(E) -> R in try body(instance) } }.get()
    }
}

/// A new array of at most `capacity` bytes that `body` writes to uninitialized memory, returning the count it
/// wrote; keeps the typed error (`[UInt8](unsafeUninitializedCapacity:)` rethrows untyped).
@inlinable
package func makeBytes(capacity: Int, _ body: (UnsafeMutableRawPointer) throws(PNCryptError) -> Int)
    throws(PNCryptError) -> [UInt8] {
    // `[UInt8](unsafeUninitializedCapacity:)` (and `repeating:count:`) allocate through a generic runtime path that
    // looks the storage's metadata up on every call (about 500 instructions, more than a message's AES), while
    // `reserveCapacity` and `append` are specialized. A message-sized array is written on the stack (wiped after:
    // it may hold plaintext) and copied into an array made that way.
    if capacity > 0 && capacity <= 1024 {
        return try withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 16) {
            (scratch) throws(PNCryptError) -> [UInt8] in
            let base = scratch.baseAddress!
            defer { wipe(base, count: capacity) }
            let written = try body(base)
            var out: [UInt8] = []
            out.reserveCapacity(written)
            out.append(contentsOf: UnsafeRawBufferPointer(start: base, count: written))
            return out
        }
    }
    var failure: PNCryptError?
    let out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
        do throws(PNCryptError) {
            initialized = try body(UnsafeMutableRawPointer(buffer.baseAddress!))
        } catch {
            failure = error
            initialized = 0
        }
    }
    if let failure { throw failure }
    return out
}

/// Runs `body` over a copy of `data` from async code (the standard library's `withUnsafeBytes` takes no async
/// closure); the copy is wiped afterwards (it may hold plaintext).
package func withBytesAsync<R>(_ data: some Collection<UInt8>,
                       _ body: (UnsafeRawBufferPointer) async throws -> R) async throws -> R {
    let count = data.count
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
    defer {
        wipe(buffer.baseAddress!, count: buffer.count)
        buffer.deallocate()
    }
    buffer.copyBytes(from: data)
    return try await body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
}

extension Collection where Element: Equatable {
    /// Where `part` first occurs in this collection, as `firstRange(of:)` gives it (an empty part: at the start).
    /// The C library's layers use this instead: `firstRange(of:)` and `String.contains(_: String)` come from the
    /// standard library's string processing, and one call of either linked it, its regex parser and their Unicode
    /// tables, 1.38 MB, into `libpncrypt.so` (`scripts/bench/size_report.py`; `LinkedModulesTests` keeps them out).
    package func firstRun(of part: some Collection<Element>) -> Range<Index>? {
        guard !part.isEmpty else { return startIndex..<startIndex }
        var start = startIndex
        while true {
            var here = start, there = part.startIndex
            while there != part.endIndex, here != endIndex, self[here] == part[there] {
                formIndex(after: &here)
                part.formIndex(after: &there)
            }
            if there == part.endIndex { return start..<here }
            if here == endIndex { return nil }
            formIndex(after: &start)
        }
    }

    /// Whether `part` occurs in this collection (`firstRun(of:)`).
    package func containsRun(_ part: some Collection<Element>) -> Bool { firstRun(of: part) != nil }
}
