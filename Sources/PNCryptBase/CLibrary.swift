// The C library's functions that Swift's platform module does not declare, found by name in the running process:
// `mallopt` (malloc.h), the xattr calls (sys/xattr.h), `prctl` (variadic, which Swift cannot call), glibc's bounds
// of the real-time signals. The one place the package calls `dlsym`, and the named calls the layers above make
// instead of spelling a C constant or a function type of their own; also the system's random bytes, which each C
// library offers under another name.
import PNCryptPlatform

/// Functions of the C library looked up at run time, and the named calls over them.
package enum CLibrary {
    /// The C function `name` of the running process as `type` (a `@convention(c)` function type), nil where the
    /// C library has no such function.
    package static func function<T>(_ name: String, as type: T.Type) -> T? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
    }

    /// glibc's `mallopt(M_MMAP_THRESHOLD, bytes)`: every allocation of `bytes` or more is a mapping of its own,
    /// given back to the system when freed, and the threshold no longer rises with the blocks freed. False where
    /// the C library has no `mallopt` (not glibc) or refuses the value.
    @discardableResult
    package static func setMmapThreshold(_ bytes: Int32) -> Bool {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
        return function("mallopt", as: Mallopt.self).map { $0(mmapThreshold, bytes) == 1 } ?? false
        #else
        return false
        #endif
    }

    /// Linux's `prctl(PR_SET_CHILD_SUBREAPER, 1)`: the orphans of this process's descendants become its children.
    /// False where that cannot be done (not Linux, or refused).
    package static func becomeChildSubreaper() -> Bool {
        #if os(Linux)
        // prctl is variadic: called through its address with the five words it reads.
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        let subreaper: Int32 = 36   // PR_SET_CHILD_SUBREAPER
        return function("prctl", as: Prctl.self).map { $0(subreaper, 1, 0, 0, 0) == 0 } ?? false
        #else
        return false
        #endif
    }

    /// Fills `count` bytes at `bytes` from the operating system's CSPRNG: `arc4random_buf` on Apple platforms,
    /// `getentropy` elsewhere (at most 256 bytes a call, so one system call per 256 bytes on Linux). False when the
    /// system refuses.
    package static func systemRandom(_ bytes: UnsafeMutableRawPointer, count: Int) -> Bool {
        #if canImport(Darwin)
        arc4random_buf(bytes, count)
        #else
        var offset = 0
        while offset < count {
            let n = min(256, count - offset)
            guard getentropy(bytes + offset, n) == 0 else { return false }
            offset += n
        }
        #endif
        return true
    }

    /// SIGRTMIN...SIGRTMAX as glibc sets them (it keeps the first few real-time signals for itself), nil where the
    /// C library does not say (the caller then takes the kernel's range).
    package static func realTimeSignals() -> ClosedRange<Int32>? {
        typealias Bound = @convention(c) () -> Int32
        guard let low = function("__libc_current_sigrtmin", as: Bound.self),
              let high = function("__libc_current_sigrtmax", as: Bound.self) else { return nil }
        return low()...high()
    }
}
