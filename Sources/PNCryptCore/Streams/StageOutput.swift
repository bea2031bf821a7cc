// A stream stage's output buffer and its end, as the Base64 stages (Base64StreamEncoder.swift,
// Base64StreamDecoder.swift) keep them.
//
// Ownership: a `StageOutput` owns its buffer: grown (the old one freed) when a call needs more, freed in `deinit`,
// with the stage that holds it. A sink borrows it for one call. It is not wiped: the stages that use it hold
// nothing secret (Base64 text and ciphertext).
import PNCryptBase

/// A stage's output buffer, grown to what the next call writes, and whether the stage has finished.
struct StageOutput: ~Copyable {
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var finished = false
    /// The stage, as the error of a call after `finish` names it ("the Base64 encoder").
    private let stage: String

    /// The output of a new stage, named `stage` in its errors.
    init(stage: String) { self.stage = stage }

    deinit { buffer.deallocate() }

    /// Throws `invalidValue` once the stage has finished.
    func checkOpen() throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "\(stage) has already finished") }
    }

    /// `checkOpen`, then the stage is finished: for its `finish`, which runs once.
    mutating func close() throws(PNCryptError) {
        try checkOpen()
        finished = true
    }

    /// The buffer, at least `count` bytes (what it held is not kept when it grows).
    mutating func reserve(_ count: Int) -> UnsafeMutableRawPointer {
        if buffer.count < count {
            buffer.deallocate()
            buffer = .allocate(byteCount: count, alignment: 16)
        }
        return buffer.baseAddress!
    }

    /// Hands the buffer's first `count` bytes to `sink`; nothing when `count` is 0.
    func write(_ count: Int, to sink: ByteSink) throws(PNCryptError) {
        if count > 0 { try sink(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)) }
    }
}
