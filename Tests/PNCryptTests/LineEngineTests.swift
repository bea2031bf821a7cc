import Foundation
@testable import PNCrypt
import Synchronization
import Testing

/// The line engine's waits end: `close()` drops queued batches but never leaves a task or thread waiting for one
/// of them, and a task waiting for a batch returns as soon as it is cancelled.
@Suite struct LineEngineTests {
    /// An engine encrypting message lines on `workers` worker threads.
    static func engine(workers: Int) throws -> LineEngine {
        let crypto = try MessageCrypto(cipherKey: "engine-test-key", scheme: .acrh)
        return try LineEngine(work: LineWork(operation: .encrypt(crypto, raw: true), stopOnFailure: false),
                              workers: workers, batchBytes: 1 << 16, maxBatches: 16)
    }

    /// `count` message lines, about 40 bytes each.
    static func lines(_ count: Int) -> [UInt8] {
        Array((0..<count).map { "{\"n\":\($0),\"text\":\"some message text\"}\n" }.joined().utf8)
    }

    /// Whether `body` ends within `seconds` (it is left running when it does not).
    static func ends(within seconds: Double, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        let ended = Mutex(false)
        Task { await body(); ended.withLock { $0 = true } }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if ended.withLock({ $0 }) { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return ended.withLock { $0 }
    }

    @Test func waitingForABatchThatCloseDroppedReturns() async throws {
        let engine = try Self.engine(workers: 1)
        // The worker takes the first batch; the others wait in the queue and are dropped by close().
        engine.submit(Self.lines(20_000))
        for _ in 0..<4 { engine.submit(Self.lines(100)) }
        engine.close()
        while engine.takeReady() != nil {}
        #expect(engine.batchesInFlight == 0, "batches that will never be done are counted in flight")
        let asyncWait = await Self.ends(within: 60) { try? await engine.waitReady() }
        #expect(asyncWait, "a task waiting for a dropped batch was never resumed")
        let syncWait = await Self.ends(within: 60) { engine.helpOrWait() }
        #expect(syncWait, "a thread waiting for a dropped batch was never woken")
    }

    @Test func aCancelledWaitReturnsAtOnce() async throws {
        let engine = try Self.engine(workers: 1)
        defer { engine.close() }
        // A batch that takes far longer than the wait should: the wait must end by cancellation, not by the batch.
        engine.submit(Self.lines(100_000))
        let waiting = Task { try await engine.waitReady() }
        // Cancelled from a thread of its own, so that a busy cooperative pool cannot delay it past the batch.
        Thread.detachNewThread {
            usleep(50_000)
            waiting.cancel()
        }
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }
}
