import PNCryptBase
import PNCryptJSON
import PNCryptCore

import PNCryptPlatform

/// Encrypts, decrypts or rekeys a stream of messages given as NDJSON (one JSON message per line), on every core,
/// in bounded memory, writing one output line per input line in input order.
///
/// ```swift
/// let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy)
/// let stream = MessageStream(.decrypt(crypto, policy: .marker))
/// let result = try stream.run(Array("\"06UDjczkvAAYcqWfNwkOiQ==\"\n\nnot json\n".utf8))
/// // result.output: "\"Hello World\"\n\n\"DECRYPTION_ERROR\"\n"; result.statuses[0].line == 3
/// ```
///
/// Lines:
/// - A line ends with LF or CRLF; the last one may have no terminator. Its output line ends as it did (CRLF or
///   LF), and with LF when it had none.
/// - A blank line (nothing, or only spaces, tabs and CRs) is written back as it was.
/// - A line that fails (text that is not JSON, a message that cannot be decrypted or encrypted) is a failure of
///   that line, reported as a `MessageStatus` with its 1-based number, not of the run (unless `stopOnFailure`). What
///   its output line holds depends on the operation (see `Operation`).
/// - A line longer than `maxLineLength` bytes stops the run with `invalidValue` naming its number.
///
/// Parallel work: the stream is cut into batches of whole lines (about 64 KiB each), handled on `jobs` threads
/// (the caller's, which also reads and writes, and `jobs - 1` workers; from async code, `jobs` workers) and
/// written in order. At most `8 × jobs` batches (and 8 MiB of input) are in flight at once, so memory stays
/// bounded whatever the input's length: about `jobs × 8 × 64 KiB` of input and its output, plus one line of at
/// most `maxLineLength`.
///
/// Sources: bytes in memory (`run(_:)`), an `AsyncSequence` of chunks (`run(_:output:statuses:)`, for async
/// code), or anything that can push chunks into a `Session` (a `ByteStreamStage`, so a `Decompressor` can feed
/// it in an array of stages).
public struct MessageStream: Sendable {
    /// What each line goes through.
    public enum Operation: Sendable {
        /// Encrypts each line's message (JSON text) for publishing; the output line is the wire JSON
        /// (`"<Base64>"`, or a `legacy33` object). With `raw` the line's text is encrypted exactly as given (it must
        /// still parse); otherwise it is written again in the crypto's style first. A line that cannot be
        /// encrypted gives an empty output line and a status without the plaintext.
        case encrypt(MessageCrypto, raw: Bool)
        /// Decrypts each line's wire message (a JSON string of Base64, or a `legacy33` object; bare Base64 is the
        /// JSON string it would be) as `MessageCrypto.decrypt(jsonText:policy:)` does; the output line is the
        /// message in the crypto's style.
        /// Every line not delivered decrypted (a message that is not encrypted included) has a status and gets what
        /// `policy` delivers: the marker, or the line copied as it was.
        case decrypt(MessageCrypto, policy: DecryptionPolicy)
        /// Moves each line's message to a new key and scheme (see `MessageRekey`); messages already new and
        /// messages that cannot be moved are copied as they were, the latter with a status. A bare Base64 line is
        /// read as the JSON string it would be, and a rekeyed one is written bare.
        case rekey(MessageRekey)
        /// Decrypts each line's response (an `Envelope` of one of `formats`) as `MessageCrypto.decrypt(envelope:
        /// policy:)` does; the output line is the response in the crypto's style. Every message not delivered
        /// decrypted (one that is not encrypted included) has a status with its line, index, channel and
        /// timetoken, and gets what `policy` delivers. A line that is not such a response is copied as it was,
        /// with a status.
        case decryptEnvelopes(MessageCrypto, formats: [EnvelopeFormat], policy: DecryptionPolicy)
        /// Moves each line's response (an `Envelope` of one of `formats`) to a new key and scheme, as
        /// `MessageRekey.rekey(envelope:)` does; messages that cannot be moved are kept, each with a status.
        case rekeyEnvelopes(MessageRekey, formats: [EnvelopeFormat])
    }

    /// What a run did.
    public struct Summary: Hashable, Sendable {
        /// Lines read (blank ones included).
        public var lines = 0
        /// Blank lines, written back as they were.
        public var blank = 0
        /// Lines that failed (each reported as a `MessageStatus`); for rekey, the messages left unchanged; for
        /// envelopes, the messages not delivered (several may share a line) and the lines that are not responses.
        public var failed = 0
        /// Rekey: messages encrypted again under the new key and scheme.
        public var rekeyed = 0
        /// Rekey: messages already under the new key and scheme, left as they were.
        public var alreadyNew = 0
        /// Envelopes: the messages (encrypted fields) of the responses, and one for each line that is not a
        /// response; `failed` counts the statuses, so it may exceed the lines.
        public var messages = 0
        /// Input bytes read.
        public var bytes: Int64 = 0
        /// Encrypt: messages that writing in the style changed (`JSONValue.changes(in:)`: Go's 16-bit escapes,
        /// PHP's raw strings and big integers, repeated keys); the SDK would have sent them so.
        public var changed = 0
        /// Encrypt: the first such message, as "line N: <its first change>".
        package var firstChange: String?

        /// Rekey: messages left unchanged because they could not be decrypted with certainty (the failed lines).
        package var unchanged: Int { failed }
        /// Lines handled without failure (blank lines excluded).
        package var succeeded: Int { lines - blank - failed }

        /// An empty summary.
        package init() {}
    }

    /// How far a run has got: input bytes and lines whose output has been written.
    package struct Progress: Hashable, Sendable {
        /// Input bytes done.
        package var bytes: Int64
        /// Lines done.
        package var lines: Int
    }

    /// The result of `run(_:)` on bytes in memory.
    public struct Output: Sendable {
        /// The output lines.
        public var output: [UInt8]
        /// The failures, in line order.
        public var statuses: [MessageStatus]
        /// What was done.
        public var summary: Summary
    }

    /// What each line goes through.
    public var operation: Operation
    /// Threads that handle batches, the caller's included (1: everything on the caller's thread). Default: the
    /// number of online CPUs.
    public var jobs: Int
    /// Stop at the first failed line (after reporting its status): the run throws that line's error, its message
    /// starting `line N:`. Output of earlier batches has been written by then: callers that promise all or
    /// nothing write to a temporary place.
    public var stopOnFailure: Bool
    /// The longest line accepted, in bytes (terminator excluded). Default 4 MiB (PubNub messages are at most
    /// 32 KiB); a longer line stops the run.
    public var maxLineLength: Int
    /// The field of each line's record that holds the message (`encrypt`, `decrypt` and `rekey` only), or nil for
    /// lines that are messages. Each line is then a record (`{"channel":"ch","message":"<Base64>",...}`): its field
    /// is encrypted, decrypted or moved as a line's message is, and every other byte of the line is kept
    /// (`MessageCrypto.encrypt(field:of:raw:iv:)`, `MessageCrypto.decrypt(field:of:policy:)`,
    /// `MessageRekey.rekey(field:of:)`). A line without the field (or whose field is not a string, to decrypt or
    /// rekey) fails with a status naming the pointer; decrypt and rekey copy such a line as it was (decrypt under
    /// the marker policy puts the marker in the place of a field that is there but does not decrypt), encrypt
    /// writes an empty line. The pointer `""` is the same as nil.
    public var field: JSONPointer?
    /// With `field`, for `decrypt` and `rekey`: each record's message read only with the keys of the record's
    /// channel (`RecordChannels`: the channel is the JSON string at its `channelField`), as
    /// `ChannelKeys.decrypt(field:of:channelField:reading:style:policy:)` and `rekey(field:of:...)` read one
    /// record. The operation's keys are then not used: its crypto gives the reading and style (decrypt), its
    /// `MessageRekey` the reading, new key and scheme (rekey). A record under another channel's key fails as any
    /// undecryptable one; a record that names no channel there fails naming the pointer (copied as it was); a
    /// channel with no keys fails with `invalidKey`. Nil: every record read with the operation's keys.
    public var channels: RecordChannels?
    /// Bytes of input per batch (about). Default 64 KiB.
    package var batchBytes = 1 << 16

    /// The default `maxLineLength`: 4 MiB.
    @usableFromInline package static let defaultMaxLineLength = 4 << 20
    /// The most `jobs` a stream accepts.
    @usableFromInline package static let maximumJobs = 256

    /// The number of online CPUs (at least 1): the default number of jobs.
    public static var defaultJobs: Int {
        max(1, min(maximumJobs, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }

    /// A stream that runs `operation` over every line.
    /// - Parameters:
    ///   - operation: what each line goes through.
    ///   - jobs: threads that handle batches (see `jobs`).
    ///   - stopOnFailure: stop at the first failed line (see `stopOnFailure`).
    ///   - maxLineLength: the longest line accepted, in bytes.
    ///   - field: the field of each line's record that holds the message (see `field`), nil for lines that are
    ///     messages.
    ///   - channels: with `field`, each record read with its channel's keys (see `channels`).
    public init(_ operation: Operation, jobs: Int = MessageStream.defaultJobs, stopOnFailure: Bool = false,
                maxLineLength: Int = MessageStream.defaultMaxLineLength, field: JSONPointer? = nil,
                channels: RecordChannels? = nil) {
        self.operation = operation
        self.jobs = jobs
        self.stopOnFailure = stopOnFailure
        self.maxLineLength = maxLineLength
        self.field = field
        self.channels = channels
    }

    // MARK: Running

    /// Hands chunks of at most the size given to the body, to the input's end (the files layer reads a file
    /// descriptor so: `FileDescriptor.pump`).
    package typealias Reader = (_ chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void)
        throws(PNCryptError) -> Void

    /// Reads the input `read` gives to its end and writes the output lines to `sink`, in order, on the calling
    /// thread.
    /// - Parameters:
    ///   - read: gives the input, chunk by chunk.
    ///   - sink: receives the output, in order; each buffer is valid only during the call.
    ///   - statuses: called (on the calling thread, in line order) for each failed line.
    ///   - progress: called after each batch is written.
    /// - Throws: `invalidValue` for bad settings or a line longer than `maxLineLength`; `io` when reading fails;
    ///   the sink's error; with `stopOnFailure`, the first failed line's error.
    package func run(reading read: Reader, to sink: @escaping ByteSink,
                     statuses: @escaping (MessageStatus) -> Void = { _ in },
                     progress: ((Progress) -> Void)? = nil) throws(PNCryptError) -> Summary {
        // `sink` and `statuses` are escaping (the session keeps `statuses`; the reader's body captures `sink`)
        // rather than passed through `withoutActuallyEscaping`, whose run-time check names this file with the
        // length of its unmapped path (Swift 6.3.1): the release binaries would differ between checkouts in folders
        // of different lengths (scripts/checks/check_reproducible.sh).
        let session = try Session(self, statuses: statuses, progress: progress)
        try read(batchBytes) { (chunk) throws(PNCryptError) in
            try session.update(chunk, sink)
        }
        try session.finish(sink)
        return session.summary
    }

    /// Runs over bytes in memory and returns the whole output (for inputs that fit in memory).
    public func run(_ input: some Collection<UInt8>) throws(PNCryptError) -> Output {
        var output: [UInt8] = []
        var collected: [MessageStatus] = []
        let session = try Session(self, statuses: { collected.append($0) })
        try withBytes(input) { (bytes) throws(PNCryptError) in
            try session.update(bytes) { output.append(contentsOf: $0) }
        }
        try session.finish { output.append(contentsOf: $0) }
        return Output(output: output, statuses: collected, summary: session.summary)
    }

    /// Runs over chunks from async code: waits for the workers by suspending, never by blocking a thread of the
    /// cooperative pool. `output` gets the output in order, one batch of lines at a time; `statuses` each failure.
    /// - Throws: a `PNCryptError` as `run(reading:to:)`, an error of `chunks` or `output`, or `CancellationError`
    ///   when the task is cancelled (checked between chunks).
    public func run<Chunks: AsyncSequence>(_ chunks: Chunks, output: ([UInt8]) async throws -> Void,
                                           statuses: (MessageStatus) async -> Void = { _ in }) async throws -> Summary
        where Chunks.Element: Collection, Chunks.Element.Element == UInt8 {
        var pendingStatuses: [MessageStatus] = []
        let session = try Session(self, statuses: { pendingStatuses.append($0) }, async: true)
        defer { session.close() }
        func deliver(_ batches: [[UInt8]]) async throws {
            for status in pendingStatuses { await statuses(status) }
            pendingStatuses.removeAll()
            for batch in batches { try await output(batch) }
        }
        for try await chunk in chunks {
            try Task.checkCancellation()
            try await withBytesAsync(chunk) { (bytes: UnsafeRawBufferPointer) async throws in
                var offset = 0
                while offset < bytes.count {
                    let n = min(session.pieceSize, bytes.count - offset)
                    var batches: [[UInt8]] = []
                    let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n])
                    try session.append(piece) { batches.append(Array($0)) }
                    offset += n
                    try await deliver(batches)
                    while session.mustWait {
                        try await session.engine.waitReady()
                        batches = []
                        try session.emitReady { batches.append(Array($0)) }
                        try await deliver(batches)
                    }
                }
            }
        }
        var batches: [[UInt8]] = []
        try session.submitRest { batches.append(Array($0)) }
        try await deliver(batches)
        while session.engine.batchesInFlight > 0 {
            try await session.engine.waitReady()
            batches = []
            try session.emitReady { batches.append(Array($0)) }
            try await deliver(batches)
        }
        try session.end()
        return session.summary
    }

    /// A session to push chunks into by hand (see `Session`).
    public func makeSession(statuses: @escaping (MessageStatus) -> Void = { _ in }) throws(PNCryptError) -> Session {
        try Session(self, statuses: statuses)
    }

    // MARK: Session

    /// A stream in progress, fed chunks of any size by `update(_:_:)` and ended by `finish(_:)`, which write the
    /// output lines to their sink in order. A `ByteStreamStage`, so it can follow a `Decompressor` in an
    /// array of stages. Use one session from one thread at a time; it starts its worker threads when made and
    /// stops them when finished (or released).
    public final class Session: ByteStreamStage {
        let stream: MessageStream
        let engine: LineEngine
        private var splitter: LineSplitter
        private let statuses: (MessageStatus) -> Void
        private let progress: ((Progress) -> Void)?
        private let maxBatches: Int
        private let maxBytesInFlight = 8 << 20
        private var finished = false
        /// What has been written so far.
        public private(set) var summary = Summary()

        init(_ stream: MessageStream, statuses: @escaping (MessageStatus) -> Void,
             progress: ((Progress) -> Void)? = nil, async: Bool = false) throws(PNCryptError) {
            guard (1...MessageStream.maximumJobs).contains(stream.jobs) else {
                throw PNCryptError(.invalidValue, "jobs must be 1 to \(MessageStream.maximumJobs), not \(stream.jobs)")
            }
            guard stream.maxLineLength > 0, stream.batchBytes > 0 else {
                throw PNCryptError(.invalidValue, "the line length limit must be positive, not \(stream.maxLineLength)")
            }
            let field = stream.field.flatMap { $0.isWholeDocument ? nil : $0 }
            if field != nil {
                switch stream.operation {
                case .encrypt, .decrypt, .rekey: break
                case .decryptEnvelopes, .rekeyEnvelopes:
                    throw PNCryptError(.invalidValue, "a field goes with encrypt, decrypt and rekey, not envelopes")
                }
            }
            var records: RecordKeys?
            if let channels = stream.channels {
                guard field != nil else {
                    throw PNCryptError(.invalidValue, "channel keys by record need the message's field (field:"
                                       + " /message), not the whole line")
                }
                records = try RecordKeys(channels, operation: stream.operation)
            }
            self.stream = stream
            self.statuses = statuses
            self.progress = progress
            splitter = LineSplitter(batchBytes: stream.batchBytes, maxLineLength: stream.maxLineLength)
            maxBatches = 8 * stream.jobs
            // Synchronous: the caller is one of the jobs (it handles batches while it waits). Async: every job is
            // a worker thread, so the task only awaits.
            engine = try LineEngine(work: LineWork(operation: stream.operation, stopOnFailure: stream.stopOnFailure,
                                                   field: field, records: records),
                                    workers: async ? stream.jobs : stream.jobs - 1, batchBytes: stream.batchBytes,
                                    maxBatches: maxBatches)
        }

        deinit { engine.close() }

        /// The most bytes `append` takes at once.
        var pieceSize: Int { splitter.pieceSize }

        /// Whether the driver must wait for a batch before reading on (the memory bound).
        var mustWait: Bool {
            let inFlight = engine.batchesInFlight
            return inFlight > 0 && (inFlight >= maxBatches || engine.bytesInFlight >= maxBytesInFlight)
        }

        /// The most input bytes that were ever in flight at once (for tests of the memory bound).
        var peakBytesInFlight: Int { engine.peakBytesInFlight }

        /// Splits `input` into batches and writes whatever output is ready, waiting for the workers whenever
        /// the memory bound is reached.
        public func update(_ input: UnsafeRawBufferPointer,
                           _ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
            guard !finished else { throw PNCryptError(.invalidValue, "the message stream has already finished") }
            var offset = 0
            while offset < input.count {
                let n = min(pieceSize, input.count - offset)
                try append(UnsafeRawBufferPointer(rebasing: input[offset..<offset + n]), sink)
                offset += n
                while mustWait {
                    engine.helpOrWait()
                    try emitReady(sink)
                }
            }
        }

        /// Handles the last line (even without a newline), waits for every batch and writes the rest.
        /// - Throws: as `update`; `invalidValue` when called twice.
        public func finish(_ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
            guard !finished else { throw PNCryptError(.invalidValue, "the message stream has already finished") }
            try submitRest(sink)
            while engine.batchesInFlight > 0 {
                engine.helpOrWait()
                try emitReady(sink)
            }
            try end()
        }

        /// Appends one piece (at most `pieceSize` bytes), submitting a batch when one is full.
        func append(_ piece: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
            switch splitter.append(piece, spare: engine.spare) {
            case .none:
                break
            case .batch(let batch):
                engine.submit(batch)
            case .lineTooLong(let before):
                // Finish the lines before it, so the failure names the right line.
                if !before.isEmpty { engine.submit(before) }
                while engine.batchesInFlight > 0 {
                    engine.helpOrWait()
                    try emitReady(sink)
                }
                fail()
                throw PNCryptError(.invalidValue, "line \(summary.lines + 1) is longer than \(stream.maxLineLength) "
                                   + "bytes (the line length limit)")
            }
            try emitReady(sink)
        }

        /// Submits what is left (a last line without a newline) as the final batch.
        func submitRest(_ sink: ByteSink) throws(PNCryptError) {
            guard !finished else { throw PNCryptError(.invalidValue, "the message stream has already finished") }
            if let rest = splitter.finish() { engine.submit(rest) }
            try emitReady(sink)
        }

        /// Marks the session finished and stops the workers.
        func end() throws(PNCryptError) {
            finished = true
            engine.close()
        }

        /// Stops everything after a failure.
        private func fail() {
            finished = true
            engine.close()
        }

        /// Stops the workers (a session abandoned by async code).
        func close() {
            if !finished { fail() }
        }

        /// Writes every batch that is done, in order: statuses first, then the output.
        func emitReady(_ sink: ByteSink) throws(PNCryptError) {
            while var batch = engine.takeReady() {
                for failure in batch.failures {
                    let line = summary.lines + failure.index + 1
                    var status = failure.status
                    status.line = line
                    statuses(status)
                    if stream.stopOnFailure {
                        fail()
                        throw PNCryptError(status.error.code, "line \(line): \(status.error.message)")
                    }
                }
                do throws(PNCryptError) {
                    try withBytes(batch.output) { (bytes) throws(PNCryptError) in try sink(bytes) }
                } catch {
                    fail()
                    throw error
                }
                if engine.work.plaintextOutput { wipe(&batch.output) }
                summary.bytes += Int64(batch.input.count)
                engine.recycle(&batch.input)
                engine.recycle(&batch.output)
                if summary.firstChange == nil, let first = batch.firstChange {
                    summary.firstChange = "line \(summary.lines + first.index + 1): \(first.change)"
                }
                summary.changed += batch.changed
                summary.lines += batch.lines
                summary.blank += batch.blank
                summary.failed += batch.failures.count
                summary.rekeyed += batch.rekeyed
                summary.alreadyNew += batch.alreadyNew
                summary.messages += batch.messages
                progress?(Progress(bytes: summary.bytes, lines: summary.lines))
            }
        }
    }
}
