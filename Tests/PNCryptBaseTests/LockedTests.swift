import PNCryptBase
import Testing

/// `Locked` (a value under a pthread mutex, conditions to wait on) and `WorkerThread`, the base's one
/// concurrency primitive: every update of many threads is kept, and a waiter wakes when its condition holds.
@Suite struct LockedTests {
    @Test("four threads adding 100,000 times each: every addition kept")
    func noLostUpdates() throws {
        let counter = Locked(0)
        let threads = try (0..<4).map { _ in
            try WorkerThread { for _ in 0..<100_000 { counter.withLock { $0 += 1 } } }
        }
        for thread in threads { thread.join() }
        #expect(counter.withLock { $0 } == 400_000)
    }

    @Test("a thread waiting on a condition runs its body once the value is ready, after the broadcast")
    func waitsForCondition() throws {
        let state = Locked((ready: false, seen: -1, steps: 0))
        let condition = state.makeCondition()
        let waiter = try WorkerThread {
            state.withLock(waitingOn: condition, until: { $0.ready }) { $0.seen = $0.steps }
        }
        for _ in 0..<1000 { state.withLock { $0.steps += 1 } }
        state.withLock { $0.ready = true }
        condition.broadcast()
        waiter.join()
        #expect(state.withLock { $0.seen } == 1000)
    }
}
