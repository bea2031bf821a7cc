// The machinery of `MessageStream`: lines cut into batches, batches handled by worker threads, results handed
// back in input order. Every raw byte scan (memchr) of line mode lives in this file; the lock, its conditions and
// the threads are the base's `Locked` and `WorkerThread`.
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

/// What each line goes through, and how its output is written.
struct LineWork: Sendable {
    let operation: MessageStream.Operation
    let stopOnFailure: Bool
    /// The field of each record that holds the message (`MessageStream.field`), nil for lines that are messages.
    let field: JSONPointer?
    /// With `field`: what reads each record with its channel's keys (`MessageStream.channels`), nil otherwise.
    let records: RecordKeys?
    /// Shared by every worker of the run.
    let budget: LineBudget
    /// Whether a long line waits for room in `budget` (a worker's), or never does (the caller's thread, which hands
    /// batches back).
    let waitsForBudget: Bool

    /// The bytes of the marker a failed decryption delivers, as `style` writes it.
    private let marker: [UInt8]

    init(operation: MessageStream.Operation, stopOnFailure: Bool, field: JSONPointer? = nil,
         records: RecordKeys? = nil, budget: LineBudget = LineBudget(), waitsForBudget: Bool = false) {
        self.operation = operation
        self.stopOnFailure = stopOnFailure
        self.field = field
        self.records = records
        self.budget = budget
        self.waitsForBudget = waitsForBudget
        if case .decrypt(let crypto, _) = operation {
            marker = JSONValue.string(DecryptionPolicy.markerText).serialized(style: crypto.style)
        } else {
            marker = []
        }
    }

    /// The same work with keys of its own, for a worker thread: each thread has its own `CipherKey`s (and so its own
    /// cipher contexts), sharing the derived keys (derived once, for the run), so threads share no context pool on
    /// the per-message path; the budget is shared, and the worker waits for it.
    func withOwnKeys() -> LineWork {
        func own(_ keys: KeyRing) -> KeyRing {
            (try? KeyRing(keys: keys.keys.map { $0.withOwnContexts() })) ?? keys
        }
        func own(_ crypto: MessageCrypto) -> MessageCrypto {
            MessageCrypto(keys: own(crypto.keys), scheme: crypto.scheme, reading: crypto.reading, style: crypto.style)
        }
        func own(_ rekey: MessageRekey) -> MessageRekey {
            (try? MessageRekey(from: own(rekey.from), reading: rekey.reading,
                               to: rekey.to.withOwnContexts(), scheme: rekey.scheme)) ?? rekey
        }
        let operation: MessageStream.Operation = switch self.operation {
        case .encrypt(let crypto, let raw): .encrypt(own(crypto), raw: raw)
        case .decrypt(let crypto, let policy): .decrypt(own(crypto), policy: policy)
        case .rekey(let rekey): .rekey(own(rekey))
        case .decryptEnvelopes(let crypto, let formats, let policy):
            .decryptEnvelopes(own(crypto), formats: formats, policy: policy)
        case .rekeyEnvelopes(let rekey, let formats): .rekeyEnvelopes(own(rekey), formats: formats)
        }
        return LineWork(operation: operation, stopOnFailure: stopOnFailure, field: field,
                        records: records?.withOwnKeys(own), budget: budget, waitsForBudget: true)
    }

    /// Whether the batch's input is plaintext (wiped once handled) or its output is (wiped once written).
    var plaintextInput: Bool { if case .encrypt = operation { true } else { false } }
    var plaintextOutput: Bool {
        switch operation {
        case .decrypt, .decryptEnvelopes: true
        case .encrypt, .rekey, .rekeyEnvelopes: false
        }
    }

    /// Handles every line of `batch`, filling its output and counts.
    func process(_ batch: inout LineBatch) {
        // A recycled buffer when the engine had one (moved out, so it is not copied).
        var output: [UInt8] = []
        swap(&output, &batch.output)
        output.removeAll(keepingCapacity: true)
        // Room for the usual output at once (a message's wire form is about twice its JSON; a plaintext is smaller
        // than its wire form): growing a buffer of this size copies it and may map and unmap memory.
        output.reserveCapacity((plaintextOutput ? batch.input.count : batch.input.count * 2) + 4096)
        batch.input.withUnsafeBytes { input in
            guard let base = input.baseAddress else { return }
            var start = 0
            var index = 0
            while start < input.count {
                let newline = memchr(base + start, 0x0A, input.count - start)
                let end = newline.map { UnsafeRawPointer($0) - base } ?? input.count
                var contentEnd = end
                let crlf = newline != nil && end > start && input[end - 1] == 0x0D
                if crlf { contentEnd -= 1 }
                let line = UnsafeRawBufferPointer(rebasing: input[start..<contentEnd])
                if line.count >= LineBudget.threshold {
                    budget.take(line.count, sequence: batch.sequence, waits: waitsForBudget)
                    batch.longBytes += line.count
                }
                handle(line, index: index, into: &output, batch: &batch)
                if batch.stop { break }
                if crlf { output.append(0x0D) }
                output.append(0x0A)
                index += 1
                start = end + 1
            }
            batch.lines = index
        }
        if plaintextInput { wipe(&batch.input) }
        batch.output = output
    }

    /// One line: blank lines are copied; a failure is recorded with the line's index in the batch.
    private func handle(_ line: UnsafeRawBufferPointer, index: Int, into output: inout [UInt8],
                        batch: inout LineBatch) {
        if Self.isBlank(line) {
            output.append(contentsOf: line)
            batch.blank += 1
            return
        }
        func fail(_ error: PNCryptError, original: JSONValue? = nil) {
            fail(MessageStatus(error: error, original: original))
        }
        func fail(_ status: MessageStatus) {
            batch.failures.append((index, status))
            if stopOnFailure { batch.stop = true }
        }
        if let field {
            if let status = handle(record: line, field: field, index: index, into: &output, batch: &batch) {
                fail(status)
            }
            return
        }
        /// A line that is not a response of the formats: copied as it was, one failure.
        func notEnvelope(_ error: PNCryptError) {
            batch.messages += 1
            output.append(contentsOf: line)
            fail(error)
        }
        switch operation {
        case .encrypt(let crypto, let raw):
            do throws(PNCryptError) {
                if raw {
                    let wire = try crypto.encrypt(jsonText: line)
                    output.append(contentsOf: wire.serialized(style: crypto.style))
                } else {
                    let value = try JSONValue(parsing: line)
                    // Only the go, ruby, php and kotlin styles can change a message; the others return at once.
                    if let change = value.changes(in: crypto.style).first {
                        if batch.firstChange == nil { batch.firstChange = (index, change) }
                        batch.changed += 1
                    }
                    try crypto.appendPublishBody(value, to: &output)
                }
            } catch {
                // Nothing of the plaintext is echoed: the line stays empty and the status carries no original.
                fail(error)
            }
        case .decrypt(let crypto, let policy):
            // The usual line (a string literal that decrypts) straight to its text, with no value made; anything
            // else the full way, which writes the same text.
            if crypto.withDecryptedText(stringLiteral: line, style: crypto.style, {
                output.append(contentsOf: $0)
            }) {
                return
            }
            // Every line not delivered decrypted (a message that is not encrypted included) has a status;
            // passthrough copies the line as it was. Bare Base64 is the JSON string it would be, as for one message
            // (`MessageCrypto.bareBase64`).
            let result: DecryptedMessage
            do throws(PNCryptError) {
                result = try crypto.decrypt(jsonText: line, policy: policy)
            } catch {
                guard error.code == .invalidJSON, let base64 = MessageCrypto.bareBase64(line) else {
                    fail(error)
                    output.append(contentsOf: policy == .marker ? marker : Array(line))
                    return
                }
                result = crypto.decrypt(.string(base64), policy: policy)
            }
            if let status = result.status {
                fail(status.error, original: status.original)
                if policy == .passThrough {
                    output.append(contentsOf: line)
                    return
                }
            }
            result.message.withSerialized(style: crypto.style) { output.append(contentsOf: $0) }
        case .rekey(let rekey):
            // Bare Base64 is read as the JSON string it would be, and written back bare: the line keeps its form.
            var outcome = rekey.rekey(jsonText: line)
            var bare = false
            if case .unchanged(let error) = outcome, error.code == .invalidJSON,
               let base64 = MessageCrypto.bareBase64(line) {
                outcome = rekey.rekey(.string(base64))
                bare = true
            }
            switch outcome {
            case .rekeyed(let wire):
                output.append(contentsOf: bare ? wire.dropFirst().dropLast() : wire[...])
                batch.rekeyed += 1
            case .alreadyNew:
                output.append(contentsOf: line)
                batch.alreadyNew += 1
            case .unchanged(let error):
                output.append(contentsOf: line)
                fail(error)
            }
        case .decryptEnvelopes(let crypto, let formats, let policy):
            do throws(PNCryptError) {
                // The splice path where the line allows, else the tree path: the same bytes either way.
                let result = try crypto.decrypt(envelopeText: line.assumingMemoryBound(to: UInt8.self),
                                                formats: formats, policy: policy)
                batch.messages += result.messages
                result.statuses.forEach(fail)
                output.append(contentsOf: result.text)
            } catch {
                notEnvelope(error)
            }
        case .rekeyEnvelopes(let rekey, let formats):
            do throws(PNCryptError) {
                let result = rekey.rekey(envelope: try Envelope(parsing: line, formats: formats))
                batch.messages += result.messages
                batch.rekeyed += result.rekeyed
                batch.alreadyNew += result.alreadyNew
                result.statuses.forEach(fail)
                result.envelope.json.withSerialized(style: .compact) { output.append(contentsOf: $0) }
            } catch {
                notEnvelope(error)
            }
        }
    }

    /// A line of nothing but spaces, tabs and carriage returns.
    static func isBlank(_ line: UnsafeRawBufferPointer) -> Bool {
        for byte in line where byte != 0x20 && byte != 0x09 && byte != 0x0D { return false }
        return true
    }
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
    /// process's smaller allocations are served as before. (`mallopt` is declared in `malloc.h`, which the Glibc
    /// module leaves out: found by name.)
    private static let fixMmapThreshold: Void = {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {
            _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 1 << 20)
        }
        #endif
    }()

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
