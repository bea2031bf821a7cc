// The one concurrency primitive of the package: a value guarded by a lock, the lock's condition variables, and
// the threads that wait on them. Every pthread mutex, condition variable and thread call of the package is in
// this file (LayerTests checks it).
//
// Ownership: `Locked` owns its heap-allocated `pthread_mutex_t` and destroys it in its `deinit`; each `Condition`
// owns its `pthread_cond_t` the same way. A `WorkerThread` is joined by whoever started it.

import PNCryptPlatform

/// A value guarded by a `pthread_mutex_t` (heap-allocated, so it never moves), with condition variables to wait
/// on for the value to change.
///
/// Not `Synchronization.Mutex`: on Linux its futex lock lives in the uninstrumented standard library, so
/// ThreadSanitizer cannot see it and reported every access to the context pool as a race (checked with a 10-line
/// program). ThreadSanitizer intercepts `pthread_mutex_lock` and `pthread_cond_wait`, so
/// `swift test --sanitize=thread` checks the locking.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only under `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = makePthreadObject(pthread_mutex_t()) { pthread_mutex_init($0, nil) }
    }

    deinit {
        freePthreadObject(mutex, pthread_mutex_destroy)
    }

    /// Runs `body` on the value with the lock held.
    package func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }

    /// Waits until `ready` holds for the value, then runs `body` on it; the lock is held for every check and for
    /// `body`, and released while the thread sleeps on `condition` (until another thread signals it after a change
    /// that may make `ready` hold).
    package func withLock<R>(waitingOn condition: Condition, until ready: (Value) -> Bool,
                             _ body: (inout Value) -> R) -> R {
        precondition(condition.owner == ObjectIdentifier(self), "a condition of another lock")
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(value) { pthread_cond_wait(condition.variable, mutex) }
        return body(&value)
    }

    /// A new condition variable of this lock, for `withLock(waitingOn:until:_:)`.
    package func makeCondition() -> Condition {
        Condition(owner: ObjectIdentifier(self))
    }

    /// A condition variable of one `Locked`: threads sleep on it in `withLock(waitingOn:until:_:)` until another
    /// thread, having changed the value, signals it (with the lock held or not).
    package final class Condition: @unchecked Sendable {
        // @unchecked: `variable` is only passed to the pthread calls, which are thread-safe.
        fileprivate let variable: UnsafeMutablePointer<pthread_cond_t>
        fileprivate let owner: ObjectIdentifier

        fileprivate init(owner: ObjectIdentifier) {
            self.owner = owner
            variable = makePthreadObject(pthread_cond_t()) { pthread_cond_init($0, nil) }
        }

        deinit {
            freePthreadObject(variable, pthread_cond_destroy)
        }

        /// Wakes one thread waiting on the condition, if any.
        package func signal() {
            pthread_cond_signal(variable)
        }

        /// Wakes every thread waiting on the condition.
        package func broadcast() {
            pthread_cond_broadcast(variable)
        }
    }
}

/// A mutex or condition variable in heap memory of its own (so it never moves), zeroed, then set up by `initialize`.
private func makePthreadObject<Object>(_ zero: Object, _ initialize: (UnsafeMutablePointer<Object>) -> Int32)
    -> UnsafeMutablePointer<Object> {
    let object = UnsafeMutablePointer<Object>.allocate(capacity: 1)
    object.initialize(to: zero)
    _ = initialize(object)
    return object
}

/// Ends an object `makePthreadObject` made: `destroy` (the pthread call), then its memory.
private func freePthreadObject<Object>(_ object: UnsafeMutablePointer<Object>,
                                       _ destroy: (UnsafeMutablePointer<Object>) -> Int32) {
    _ = destroy(object)
    object.deinitialize(count: 1)
    object.deallocate()
}

/// A thread of its own (not one of the concurrency pool's), running one closure until it returns; the line
/// engine's workers, which block on a `Locked`'s conditions.
package struct WorkerThread: @unchecked Sendable {
    // @unchecked: the handle is only passed to `pthread_join`, once, by the thread that started it.
    private let thread: pthread_t

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a thread running `body`.
    /// - Throws: `PNCryptError.Code.io` when the system refuses to start a thread.
    package init(_ body: @escaping @Sendable () -> Void) throws(PNCryptError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw PNCryptError(.io, "cannot start a worker thread (error \(started))")
        }
        self.thread = thread
    }

    /// Waits for the thread to end.
    package func join() {
        pthread_join(thread, nil)
    }
}
