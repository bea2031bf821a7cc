// The machinery of `MessageStream`: lines cut into batches, batches handled by worker threads, results handed
// back in input order. What each line of a batch goes through is `LineWork` (LineWork.swift). Every raw byte scan
// (memchr) of line mode lives in these two files; the lock, its conditions and the threads are the base's `Locked`
// and `WorkerThread`.
//
// Ownership: `LineEngine` owns its lock, conditions and threads; each thread holds the engine until it ends, and
// `close()` stops and joins them. A batch's arrays belong to whoever holds the batch: the driver until it is
// queued, one worker while it is handled, the driver again once it is done.

import PNCryptBase
import PNCryptJSON
import PNCryptCore

import PNCryptPlatform

/// Whole lines, handled together: the unit of parallel work.
struct LineBatch: Sendable {
    /// Position of the batch in the stream (0, 1, 2, ...): results are written in this order.
    var sequence: Int
    /// The lines, each with its terminator (the last one of the stream may have none).
    var input: [UInt8]
    /// What the lines became, one output line per input line.
    var output: [UInt8] = []
    /// Lines in the batch.
    var lines = 0
    var blank = 0
    var rekeyed = 0
    var alreadyNew = 0
    /// Envelopes: the encrypted fields handled (and one per line that is not a response).
    var messages = 0
    /// Encrypt: messages the style changed (`JSONValue.changes(in:)`), and the first one's index and first change.
    var changed = 0
    var firstChange: (index: Int, change: String)?
    /// The lines that failed, numbered from 0 within the batch, with their statuses (several for a line holding a
    /// response).
    var failures: [(index: Int, status: MessageStatus)] = []
    /// Set when a line failed and the run stops on a failure: the lines after it were not handled.
    var stop = false
    /// The bytes of the batch's long lines, counted in the run's `LineBudget` until it is handed back.
    var longBytes = 0
}

/// Cuts a byte stream into batches of whole lines of about `batchBytes` each.
struct LineSplitter {
    let batchBytes: Int
    let maxLineLength: Int
    /// The batch being filled: whole lines, then the start of the next line.
    private(set) var pending: [UInt8] = []
    /// Where the last complete line in `pending` ends (0: none yet).
    private(set) var lastLineEnd = 0

    init(batchBytes: Int, maxLineLength: Int) {
        self.batchBytes = batchBytes
        self.maxLineLength = maxLineLength
        pending.reserveCapacity(batchBytes + batchBytes / 4)
    }

    /// The largest piece `append` takes at once.
    var pieceSize: Int { batchBytes }

    /// What appending a piece gave.
    enum Cut {
        case none
        case batch([UInt8])
        /// The line being read is longer than `maxLineLength`: the whole lines before it, to finish first.
        case lineTooLong([UInt8])
    }

    /// Appends at most `pieceSize` bytes; returns a batch when one is full.
    mutating func append(_ piece: UnsafeRawBufferPointer, spare: () -> [UInt8]) -> Cut {
        guard let base = piece.baseAddress, piece.count > 0 else { return .none }
        let before = pending.count
        pending.append(contentsOf: piece)
        if let last = Self.lastNewline(base, piece.count) { lastLineEnd = before + last + 1 }
        if pending.count - lastLineEnd > maxLineLength { return .lineTooLong(take(lastLineEnd, spare)) }
        guard pending.count >= batchBytes, lastLineEnd > 0 else { return .none }
        return .batch(take(lastLineEnd, spare))
    }

    /// The rest of the stream (a last line without a newline included), or nil when nothing is left.
    mutating func finish() -> [UInt8]? {
        guard !pending.isEmpty else { return nil }
        return take(pending.count, { [] })
    }

    /// The first `count` bytes of `pending` as a batch; the rest (a partial line) starts the next one.
    private mutating func take(_ count: Int, _ spare: () -> [UInt8]) -> [UInt8] {
        var rest = spare()
        rest.removeAll(keepingCapacity: true)
        rest.reserveCapacity(batchBytes + batchBytes / 4)
        rest.append(contentsOf: pending[count...])
        swap(&rest, &pending)
        // `rest` now holds the old buffer: its tail is the partial line, copied above; wipe it before dropping it.
        rest.withUnsafeMutableBytes { all in
            if all.count > count { wipe(all.baseAddress! + count, count: all.count - count) }
        }
        rest.removeLast(rest.count - count)
        lastLineEnd = 0
        return rest
    }

    /// The offset of the last LF in the `count` bytes at `base` (a backward scan: lines are short).
    private static func lastNewline(_ base: UnsafeRawPointer, _ count: Int) -> Int? {
        var i = count - 1
        while i >= 0 {
            if base.load(fromByteOffset: i, as: UInt8.self) == 0x0A { return i }
            i -= 1
        }
        return nil
    }
}

/// Batches handled on worker threads and by the caller while it waits (or inline, with no workers), and handed
/// back in order.
final class LineEngine: Sendable {
    let work: LineWork
    let threaded: Bool
    /// Everything that changes, under one lock; `workReady` wakes workers, `resultReady` a thread in `helpOrWait`.
    private let state: Locked<State>
    private let workReady: Locked<State>.Condition
    private let resultReady: Locked<State>.Condition
    private let maxSpares: Int
    private let maxSpareCapacity: Int

    private struct State {
        var queue: [LineBatch] = []
        var queueHead = 0
        var done: [Int: LineBatch] = [:]
        var submitted = 0
        var emitted = 0
        var closing = false
        var threads: [WorkerThread] = []
        var waiter: UnsafeContinuation<Void, Never>?
        /// Buffers of handled batches, kept for new ones (at most `maxSpares` (4 per worker and 8), none larger
        /// than `maxSpareCapacity`): ~100 KiB buffers allocated on one thread and freed on another cost 12-18%
        /// more CPU per message.
        var spares: [[UInt8]] = []
        /// Input bytes of batches submitted and not yet taken back, and the most there ever were.
        var bytesInFlight = 0
        var peakBytesInFlight = 0

        var hasQueued: Bool { queueHead < queue.count }

        /// Whether a wait for the next batch is over: it is done, nothing is in flight, or the engine is closed
        /// (no batch will be done any more).
        var isReady: Bool { done[emitted] != nil || emitted >= submitted || closing }

        /// The oldest queued batch, taken off the queue.
        mutating func popQueued() -> LineBatch? {
            guard queueHead < queue.count else { return nil }
            let batch = queue[queueHead]
            queue[queueHead].input = []
            queueHead += 1
            if queueHead == queue.count || queueHead > 64 {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            return batch
        }

        /// The suspended waiter, if any, no longer stored (resume it outside the lock).
        mutating func takeWaiter() -> UnsafeContinuation<Void, Never>? {
            defer { waiter = nil }
            return waiter
        }
    }

    /// An engine with `workers` threads (0: every batch is handled inline by `submit`).
    init(work: LineWork, workers: Int, batchBytes: Int, maxBatches: Int) throws(PNCryptError) {
        if workers > 0 { Self.fixMmapThreshold }
        self.work = work
        maxSpares = min(2 * maxBatches + 2, 4 * workers + 8)
        maxSpareCapacity = 4 * batchBytes + 8192
        threaded = workers > 0
        let state = Locked(State())
        self.state = state
        workReady = state.makeCondition()
        resultReady = state.makeCondition()
        for _ in 0..<workers {
            do throws(PNCryptError) {
                let thread = try WorkerThread { [self] in workerLoop(work.withOwnKeys()) }
                state.withLock { $0.threads.append(thread) }
            } catch {
                close()
                throw error
            }
        }
    }

    /// glibc's malloc serves an allocation of 128 KiB or more with its own mapping, given back when freed, and
    /// raises that threshold (up to 32 MiB) to the size of each such block freed. After one long line, the values
    /// of the next ones then come from the heap of the thread that handles them, and each worker's heap keeps its
    /// own peak: measured on 16 lines of 4 MiB, peak RSS 185 MB with 1 job, 386 MB with 4 and 611-767 MB with 16.
    /// Fixed at 1 MiB (which also stops the raising), a block that large is always its own mapping and goes back
    /// when freed: 186 MB with 16 jobs. Done once per process, when the first engine with workers starts; the
    /// process's smaller allocations are served as before (`CLibrary.setMmapThreshold`, a no-op beside glibc).
    private static let fixMmapThreshold: Void = { CLibrary.setMmapThreshold(1 << 20) }()

    /// Input bytes of batches submitted and not yet taken back.
    var bytesInFlight: Int { state.withLock { $0.bytesInFlight } }

    /// The most input bytes there ever were in flight.
    var peakBytesInFlight: Int { state.withLock { $0.peakBytesInFlight } }

    /// Batches submitted and not yet taken back, that may still be: after `close()`, only the batches already done
    /// (the queued ones were dropped, and no worker is left to finish another).
    var batchesInFlight: Int { state.withLock { $0.closing ? $0.done.count : $0.submitted - $0.emitted } }

    /// Queues `input` as the next batch (handled at once when not threaded).
    func submit(_ input: [UInt8]) {
        let inline: LineBatch? = state.withLock { state in
            var batch = LineBatch(sequence: state.submitted, input: input)
            batch.output = state.spares.popLast() ?? []
            state.submitted += 1
            state.bytesInFlight += input.count
            state.peakBytesInFlight = max(state.peakBytesInFlight, state.bytesInFlight)
            guard threaded else { return batch }
            state.queue.append(batch)
            workReady.signal()
            return nil
        }
        guard var batch = inline else { return }
        work.process(&batch)
        state.withLock { $0.done[batch.sequence] = batch }
    }

    /// An empty buffer to fill (a recycled one when there is one).
    func spare() -> [UInt8] {
        state.withLock { $0.spares.popLast() ?? [] }
    }

    /// Takes `buffer` (wiped already when it held plaintext; left empty) for a later batch, unless it grew too
    /// large.
    func recycle(_ buffer: inout [UInt8]) {
        defer { buffer = [] }
        guard buffer.capacity <= maxSpareCapacity else { return }
        buffer.removeAll(keepingCapacity: true)
        let buffer = buffer
        state.withLock { state in
            if state.spares.count < maxSpares { state.spares.append(buffer) }
        }
    }

    /// The next batch in order, when it is done.
    func takeReady() -> LineBatch? {
        let taken = state.withLock { state -> LineBatch? in
            guard let batch = state.done.removeValue(forKey: state.emitted) else { return nil }
            state.emitted += 1
            state.bytesInFlight -= batch.input.count
            return batch
        }
        if let taken { work.budget.handedBack(taken.sequence, releasing: taken.longBytes) }
        return taken
    }

    /// Returns once the next batch in order is done (or nothing is in flight, or the engine is closed). Until then
    /// the caller handles queued batches itself, and sleeps only when every queued batch is already being handled.
    func helpOrWait() {
        while true {
            let queued = state.withLock(waitingOn: resultReady, until: { $0.isReady || $0.hasQueued }) { state in
                state.isReady ? nil : state.popQueued()
            }
            guard var batch = queued else { return }
            work.process(&batch)
            state.withLock { $0.done[batch.sequence] = batch }
        }
    }

    /// As `helpOrWait()` without helping, suspending the task instead of blocking the thread.
    /// - Throws: `CancellationError` when the task is cancelled, at once, even while it waits.
    func waitReady() async throws {
        try await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                // Checked under the lock: a cancellation after this point finds the waiter stored and resumes it.
                let stored = state.withLock { state in
                    if state.isReady || Task.isCancelled { return false }
                    state.waiter = continuation
                    return true
                }
                if !stored { continuation.resume() }
            }
            try Task.checkCancellation()
        } onCancel: {
            state.withLock { $0.takeWaiter() }?.resume()
        }
    }

    /// Stops the workers and waits for them to end; queued batches are dropped (their plaintext wiped), and a task
    /// or thread waiting for a batch returns. Safe to call more than once.
    func close() {
        work.budget.close()
        let (joining, waiter) = state.withLock { state in
            state.closing = true
            if work.plaintextInput {
                for index in state.queueHead..<state.queue.count { wipe(&state.queue[index].input) }
            }
            state.queue.removeAll()
            state.queueHead = 0
            workReady.broadcast()
            resultReady.broadcast()
            defer { state.threads = [] }
            return (state.threads, state.takeWaiter())
        }
        waiter?.resume()
        for thread in joining { thread.join() }
        // Batches done after a dropped one can never be taken back in order: dropped too (plaintext wiped).
        state.withLock { state in
            var next = state.emitted
            while state.done[next] != nil { next += 1 }
            for sequence in state.done.keys where sequence > next {
                guard var batch = state.done.removeValue(forKey: sequence) else { continue }
                if work.plaintextInput { wipe(&batch.input) }
                if work.plaintextOutput { wipe(&batch.output) }
            }
        }
    }

    private func workerLoop(_ work: LineWork) {
        while true {
            let queued = state.withLock(waitingOn: workReady, until: { $0.hasQueued || $0.closing }) { state in
                state.closing ? nil : state.popQueued()
            }
            guard var batch = queued else { return }
            work.process(&batch)
            let finished = batch
            let resume = state.withLock { state -> UnsafeContinuation<Void, Never>? in
                state.done[finished.sequence] = finished
                guard finished.sequence == state.emitted else { return nil }
                resultReady.signal()
                return state.takeWaiter()
            }
            resume?.resume()
        }
    }
}
