// One line's work in line mode (`LineWork`): what each line of a batch goes through (encrypt, decrypt, rekey, or an
// envelope's messages decrypted or moved), blank lines and CRLF kept, its output and counts written into the batch.
// The batches, the worker threads and the order results are handed back in are `LineEngine`'s (LineEngine.swift); a
// line that is a record whose field holds the message is LineWork+Field.swift.
//
// Ownership: a `LineWork` is a value: the caller's thread has one, and each worker thread a copy with keys of its
// own (`withOwnKeys()`); the run's `LineBudget` is shared by all of them. The batch it handles is lent to it.

import PNCryptBase
import PNCryptJSON
import PNCryptCore

import PNCryptPlatform

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
            // The library's one front: the usual line (a string literal that decrypts) straight to its text, anything
            // else the full way, which writes the same text. Every line not delivered decrypted (a message that is
            // not encrypted included) has a status; passthrough copies the line as it was. Bare Base64 is the JSON
            // string it would be, as for one message (`MessageCrypto.bareBase64`).
            do throws(PNCryptError) {
                if let status = try crypto.deliver(jsonText: line, style: crypto.style, policy: policy,
                                                   original: .asGiven, bareBase64: true, {
                    output.append(contentsOf: $0)
                }) {
                    fail(status)
                }
            } catch {
                fail(error)
                output.append(contentsOf: policy == .marker ? marker : Array(line))
            }
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
