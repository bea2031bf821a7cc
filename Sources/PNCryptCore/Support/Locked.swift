// The one lock of PNCrypt: a value guarded by a heap-allocated `pthread_mutex_t`, owned by `Locked` and destroyed
// in its `deinit`.

import PNCryptJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t` (heap-allocated, so it never moves).
///
/// Not `Synchronization.Mutex`: on Linux its futex lock lives in the uninstrumented standard library, so
/// ThreadSanitizer cannot see it and reported every access to the context pool as a race (checked with a 10-line
/// program). ThreadSanitizer intercepts `pthread_mutex_lock`, so `swift test --sanitize=thread` checks the locking.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only under `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }
}
