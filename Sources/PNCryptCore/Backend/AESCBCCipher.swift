// The seam's context (CipherBackend.swift is the seam): one keyed AES-CBC context of a backend. Every backend's
// context keeps the rules there: it owns its library state and frees it in `deinit`; every pointer passed in is
// borrowed for the duration of one call and never stored.

import PNCryptBase

/// One keyed AES-CBC context for one direction; per message only the IV is reset. Not thread-safe: one caller at a
/// time (`ContextPool` hands contexts out exclusively).
package protocol AESCBCCipher: AnyObject {
    /// Writes 16 fresh CSPRNG bytes to `output`, each handed out once (even across `fork()`); false on failure.
    func randomIV(into output: UnsafeMutableRawPointer) -> Bool
    /// Starts a new message with `iv` (16 bytes), keeping the key schedule.
    func start(iv: UnsafeRawBufferPointer) -> Bool
    /// Processes `input` (at most 1 GiB), writing at most `input.count + 16` bytes to `output`; the count written.
    func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) -> Int?
    /// Ends the message, writing at most 16 bytes to `output`: encrypting adds the PKCS#7 padding; decrypting writes
    /// nothing and fails only on an incomplete last block. nil on failure.
    func finish(into output: UnsafeMutableRawPointer) -> Int?
    /// Encrypts or decrypts one whole message with `iv`, appending the result after `prefix` bytes of `output`,
    /// which has room for `prefix + input.count + 16` bytes. Returns the total length, or nil on failure.
    /// Decrypting returns every block, padding included: `PKCS7.unpad` checks and removes it. The default restarts
    /// the context (`runRestarting`); a backend may do the same work more cheaply.
    func run(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer,
             prefix: Int) -> Int?
}

extension AESCBCCipher {
    /// `run` by default.
    package func run(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer,
             prefix: Int) -> Int? {
        runRestarting(iv: iv, input: input, output: output, prefix: prefix)
    }

    /// `run` as `start`, `update`s and `finish`.
    func runRestarting(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer,
                       output: UnsafeMutableRawBufferPointer, prefix: Int) -> Int? {
        guard start(iv: iv), let base = output.baseAddress else { return nil }
        // Feed very large inputs in pieces (`update` takes at most 1 GiB).
        var consumed = 0
        var produced = prefix
        let piece = 1 << 30
        while consumed < input.count {
            let n = min(piece, input.count - consumed)
            guard let w = update(UnsafeRawBufferPointer(rebasing: input[consumed..<consumed + n]),
                                 into: base + produced) else { return nil }
            consumed += n
            produced += w
        }
        guard let w = finish(into: base + produced) else { return nil }
        return produced + w
    }
}
