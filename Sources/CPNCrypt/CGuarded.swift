// How one C entry point runs (`guarded`; `guardedDelivering` for a call that succeeds with a failure to report):
// the caller's error record cleared, the modules it names held for the call, and any failure turned into its code
// and message (`CFailure`, `ErrorRecord`: CErrors.swift). No Swift error escapes an entry point.

/// Runs one entry point: clears `err`, runs `body`, and turns any failure into its code and `err`.
func guarded(_ err: UnsafeMutableRawPointer?, _ body: () throws -> Void) -> Int32 {
    let record = ErrorRecord(pointer: err)
    record.clear()
    do {
        try body()
        return 0
    } catch {
        return record.set(CFailure.from(error))
    }
}

/// `guarded(_:_:)` for an entry point that takes modules: each (NULL aside) is held for the call
/// (`CModule.hold`), so that `pncrypt_module_free` in another thread during the call cannot free it under the call.
func guarded(_ err: UnsafeMutableRawPointer?, holding module: OpaquePointer?, _ other: OpaquePointer? = nil,
             _ body: () throws -> Void) -> Int32 {
    let first = CModule.hold(module)
    let second = CModule.hold(other)
    defer {
        first?.release()
        second?.release()
    }
    return guarded(err) {
        do {
            try body()
        } catch {
            throw CFailure.from(error).hinted(by: first?.takeUnretainedValue())
        }
    }
}

/// `guarded(_:holding:_:_:)` for an entry point that can succeed and still report a failure (a batch's first failed
/// item, a field or message delivered as its policy says): `body` returns it, and it is recorded in `status` only
/// when the call itself succeeded (code 0).
func guardedDelivering(_ status: CErrorOut, holding module: CModuleHandle, _ other: CModuleHandle = nil,
                       _ body: () throws -> CFailure?) -> Int32 {
    var failure: CFailure?
    let code = guarded(status, holding: module, other) {
        failure = try body()?.hinted(by: try? CModule.from(module))
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}
