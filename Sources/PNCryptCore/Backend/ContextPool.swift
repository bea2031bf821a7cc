// Keyed cipher contexts for one key and direction, reused across calls. Ownership: the pool owns its idle
// contexts (one in an atomic slot as a +1 `Unmanaged` reference, released in `deinit`, the rest in a locked
// array); a caller holds a context for one call and gives it back.

import PNCryptBase

import Synchronization

/// Keyed contexts for one key and direction, reused across calls and shared safely between threads.
package final class ContextPool: Sendable {
    private let aes256: Bool
    private let key: SecretBytes
    private let encrypting: Bool
    private let idle = Locked<[Backend.Context]>([])
    private static let maxIdle = 16
    /// One more idle context, outside the lock (holding a +1 reference): one caller at a time (the usual case)
    /// takes and returns it with one atomic exchange each way, without locking.
    private let spare = Atomic<Unmanaged<Backend.Context>?>(nil)

    package init(aes256: Bool, key: SecretBytes, encrypting: Bool) {
        self.aes256 = aes256
        self.key = key
        self.encrypting = encrypting
    }

    deinit {
        spare.exchange(nil, ordering: .acquiring)?.release()
    }

    /// Runs `body` with a context no other caller is using, returning it to the pool afterwards.
    package func withContext<R, E: Error>(_ body: (Backend.Context) throws(E) -> R) throws(E) -> R {
        if let taken = spare.exchange(nil, ordering: .acquiring) {
            // The slot's reference goes back into the slot as it is (no retain, no release), or to the array.
            defer {
                if !spare.compareExchange(expected: nil, desired: taken, ordering: .releasing).exchanged {
                    let context = taken.takeRetainedValue()
                    idle.withLock { if $0.count < Self.maxIdle { $0.append(context) } }
                }
            }
            return try taken.withBorrowed(body)
        }
        let context = idle.withLock { $0.popLast() } ?? makeContext()
        defer {
            let retained = Unmanaged.passRetained(context)
            if !spare.compareExchange(expected: nil, desired: retained, ordering: .releasing).exchanged {
                retained.release()
                idle.withLock { if $0.count < Self.maxIdle { $0.append(context) } }
            }
        }
        return try body(context)
    }

    /// A context for the caller's exclusive, long use (a stream).
    package func makeContext() -> Backend.Context {
        Backend.makeContext(aes256: aes256, key: key, encrypting: encrypting)
    }
}
