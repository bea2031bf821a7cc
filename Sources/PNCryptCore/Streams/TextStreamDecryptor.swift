import PNCryptBase

/// Decrypts ciphertext of any length (Base64-decoded text, for instance by `Base64StreamDecoder` into a temporary
/// file) in bounded memory, under the rules of `KeyRing.decrypt(_:reading:content:)` for text: the
/// plaintext is given only when exactly one (key, scheme) reading qualifies, with valid padding and valid UTF-8.
///
/// Two steps, so that no plaintext is released before the verdict: `choose` runs every reading over the whole
/// ciphertext (each to the end of its checks, whatever failed first), keeping no plaintext; `write` then
/// decrypts the chosen reading again and hands its plaintext to a sink. The ciphertext must not change between
/// the two: keep it in a file no one else can write (an unlinked temporary file). Memory: one chunk
/// (`chunkSize`) and one cipher buffer of the same size per reading, whatever the length.
///
/// ```swift
/// let reader = TextStreamDecryptor(ring: try KeyRing(["new-key", "old-key"]))
/// let choice = try reader.choose(ciphertext: readAt, length: length)   // throws unless exactly one qualifies
/// try reader.write(choice, ciphertext: readAt) { plaintext in /* write it */ }
/// ```
/// The ciphertext is read by offset through a `ReadAt` (the files layer reads a file descriptor with `pread`);
/// nothing here does I/O of its own.
/// ```swift
/// ```
package struct TextStreamDecryptor: Sendable {
    /// Fills the buffer with the ciphertext's bytes from the offset on, or throws (`io` when the source ends
    /// first).
    package typealias ReadAt = (UnsafeMutableRawBufferPointer, Int) throws(PNCryptError) -> Void

    /// The keys tried.
    package let ring: KeyRing
    /// How the ciphertext is read (`ReadPolicy`).
    package let reading: ReadPolicy
    /// Whether a plaintext is a message (the headerless rule's first step, for a legacy pair): the messages
    /// layer's `isMessageText`, which its `init(ring:reading:)` passes.
    package let isMessage: @Sendable (UnsafeRawBufferPointer) -> Bool

    /// How many bytes of ciphertext are read at a time.
    package static let chunkSize = 256 << 10

    /// The reading that qualified.
    package struct Choice: Sendable {
        /// Index of the key in the ring (0 is the first, newest).
        package let keyIndex: Int
        /// The scheme that read the data.
        package var scheme: Scheme { reading.scheme }
        package let reading: Cryptor.Reading
        package let iv: [UInt8]
    }

    /// A reader with the keys of `ring`.
    /// - Parameters:
    ///   - ring: the keys to try.
    ///   - reading: how the ciphertext is read; `.rule` reads a `PNED` header when there is one, else both legacy
    ///     readings.
    ///   - isMessage: whether a plaintext is a message (`isMessageText`).
    package init(ring: KeyRing, reading: ReadPolicy = .rule,
                 isMessage: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) {
        self.ring = ring
        self.reading = reading
        self.isMessage = isMessage
    }

    /// Runs every (key, scheme) reading of the ciphertext `read` gives over all of it and returns the one that
    /// qualifies. Nothing is decrypted for output.
    /// - Parameters:
    ///   - read: reads the ciphertext by offset (a regular file: the files layer's
    ///     `FileDescriptor.readFully(at:into:)`).
    ///   - length: the ciphertext's length in bytes.
    /// - Throws: the format errors of `KeyRing.decrypt` (`malformedHeader`, `unknownCryptor`, a length no reading
    ///   accepts); `CryptoModule.decryptionFailed` when no reading qualifies; `ambiguous`, naming the readings,
    ///   when more than one does; `io` when reading fails.
    package func choose(ciphertext read: ReadAt, length: Int) throws(PNCryptError) -> Choice {
        let headCount = min(length, StreamDecryptor.headLength)
        let head = headCount == 0 ? [] : try makeBytes(capacity: headCount) { (out) throws(PNCryptError) in
            try read(UnsafeMutableRawBufferPointer(start: out, count: headCount), 0)
            return headCount
        }
        let readings = try Cryptor.readings(of: HeadView(head: head, count: length), reading: reading)
        var candidates: [Candidate] = []
        // Both legacy readings: the headerless rule looks at the fixed-IV reading's first block and, for text
        // of at most `pairCheckLimit` bytes, whether the content check calls each reading a message; both keep their
        // plaintext for that (wiped after), so the work does not depend on which one is right.
        let pair = readings.holdsHeaderlessPair
        // Both legacy readings in one decryption (`Decision.SharedPair`): the random-IV reading's plaintext is the
        // fixed-IV reading's after its first 16 bytes, with the same padding, so each key's fixed-IV stream feeds
        // both readings' checks.
        let shared = readings.isHeaderlessPair ? Decision.SharedPair(readings) : nil
        for (keyIndex, key) in ring.keys.enumerated() {
            var leader: Candidate?
            var follower: Candidate?
            for reading in readings {
                let iv = reading.iv.map { Array(head[$0]) } ?? Cryptor.fixedIV
                let follows = shared != nil && reading.scheme == shared!.random.scheme
                let cipher = follows ? nil
                    : try StreamCipher(key: key, scheme: reading.scheme, encrypting: false, iv: iv)
                let keep = !pair ? 0 : reading.body.count <= Self.pairCheckLimit ? reading.body.count
                    : HeaderlessRule.blockLength
                let candidate = Candidate(keyIndex: keyIndex, reading: reading, iv: iv, cipher: cipher, keep: keep,
                                          skip: follows ? Cryptor.blockSize : 0)
                if follows { follower = candidate } else if shared != nil { leader = candidate }
                candidates.append(candidate)
            }
            leader?.follower = follower
        }
        let start = readings.map(\.body.lowerBound).min() ?? length
        try Self.pump(read, from: start, to: length) {
            (chunk, offset) throws(PNCryptError) in
            for candidate in candidates {
                guard let cipher = candidate.cipher else { continue }
                let from = max(offset, candidate.reading.body.lowerBound) - offset
                guard from < chunk.count else { continue }
                try cipher.update(UnsafeRawBufferPointer(rebasing: chunk[from...])) {
                    (plain) throws(PNCryptError) in candidate.take(plain)
                }
            }
        }
        // Every reading runs to the end of its checks, whatever the padding gave; the one decision procedure
        // chooses, as for one-shot text. A follower's padding is its leader's (the same last block).
        var paddings: [Bool] = []
        for candidate in candidates {
            guard let cipher = candidate.cipher else {
                paddings.append(false)
                continue
            }
            let padded = try cipher.finishReportingPadding { (plain) throws(PNCryptError) in candidate.take(plain) }
            paddings.append(padded)
            candidate.follower?.leaderPadding = padded
        }
        var verdicts: [Decision.Verdict] = []
        for (candidate, padded) in zip(candidates, paddings) {
            let padding = candidate.cipher == nil ? candidate.leaderPadding : padded
            verdicts.append(candidate.verdict(padding: padding, pair: pair, isMessage: isMessage))
        }
        let winner = candidates[try Decision.decide(verdicts, content: .text, namingKeys: ring.keys.count > 1)]
        return Choice(keyIndex: winner.keyIndex, reading: winner.reading, iv: winner.iv)
    }

    /// Decrypts the chosen reading of the ciphertext `read` gives (the same ciphertext `choose` read, unchanged)
    /// and hands the plaintext to `sink`, chunk by chunk.
    /// - Parameters:
    ///   - choice: what `choose` returned for this ciphertext.
    ///   - read: reads the ciphertext `choose` read, by offset.
    ///   - sink: receives the plaintext.
    /// - Throws: `CryptoModule.decryptionFailed` if the file changed since `choose`; `io`; what `sink` throws.
    package func write(_ choice: Choice, ciphertext read: ReadAt, to sink: ByteSink) throws(PNCryptError) {
        let key = ring.keys[choice.keyIndex]
        let cipher = try StreamCipher(key: key, scheme: choice.reading.scheme, encrypting: false, iv: choice.iv)
        let body = choice.reading.body
        try Self.pump(read, from: body.lowerBound, to: body.upperBound) {
            (chunk, _) throws(PNCryptError) in try cipher.update(chunk, sink)
        }
        try cipher.finish(sink)
    }

    /// Reads the ciphertext from `start` to `end` through `read` in chunks of at most `chunkSize`, handing each
    /// chunk and its offset to `body`. The buffer is wiped and freed on return.
    private static func pump(_ read: ReadAt, from start: Int, to end: Int,
                             _ body: (UnsafeRawBufferPointer, Int) throws(PNCryptError) -> Void) throws(PNCryptError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, chunkSize), alignment: 16)
        defer {
            wipe(buffer.baseAddress!, count: buffer.count)
            buffer.deallocate()
        }
        var offset = start
        while offset < end {
            let count = min(chunkSize, end - offset)
            try read(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), offset)
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), offset)
            offset += count
        }
    }

    /// The most plaintext a reading of a legacy pair keeps for the headerless rule's content check (longer text is
    /// judged by its first block alone): 1 MiB.
    package static let pairCheckLimit = 1 << 20

    /// One (key, scheme) reading being checked.
    private final class Candidate {
        package let keyIndex: Int
        package let reading: Cryptor.Reading
        package let iv: [UInt8]
        /// The reading's own cipher; nil for a follower, fed by its leader's.
        package let cipher: StreamCipher?
        package var utf8 = UTF8StreamValidator()
        /// The random-IV reading of the same key, fed this reading's plaintext after its first `skip` bytes.
        package var follower: Candidate?
        /// For a follower: the padding its leader's cipher found.
        package var leaderPadding = false
        /// The plaintext kept for the headerless rule (at most `keep` bytes), wiped when released.
        private var kept: [UInt8] = []
        private let keep: Int
        /// Bytes of the leader's plaintext still to pass over before this reading's starts.
        private var skip: Int

        package init(keyIndex: Int, reading: Cryptor.Reading, iv: [UInt8], cipher: StreamCipher?, keep: Int,
                     skip: Int) {
            self.keyIndex = keyIndex
            self.reading = reading
            self.iv = iv
            self.cipher = cipher
            self.keep = keep
            self.skip = skip
            kept.reserveCapacity(keep)
        }

        deinit { wipe(&kept) }

        func take(_ plain: UnsafeRawBufferPointer) {
            var plain = plain
            if skip > 0 {
                let passed = min(skip, plain.count)
                skip -= passed
                plain = UnsafeRawBufferPointer(rebasing: plain[passed...])
            }
            utf8.update(plain)
            let room = keep - kept.count
            if room > 0 { kept.append(contentsOf: plain.prefix(room)) }
            follower?.take(plain)
        }

        /// The verdict once every byte went through `take` (a valid padding is not passed on, so what is kept of a
        /// short reading is its plaintext); a legacy pair's with the headerless rule's checks.
        func verdict(padding: Bool, pair: Bool, isMessage: (UnsafeRawBufferPointer) -> Bool) -> Decision.Verdict {
            let utf8 = utf8.finish()
            var verdict = Decision.Verdict(keyIndex: keyIndex, scheme: reading.scheme, padding: padding, utf8: utf8,
                                           message: false)
            guard pair else { return verdict }
            kept.withUnsafeBytes { plaintext in
                if reading.body.count <= TextStreamDecryptor.pairCheckLimit { verdict.message = isMessage(plaintext) }
                if reading.scheme == Scheme.headerlessPair.fixed {
                    verdict.firstBlock = HeaderlessRule.classify(plaintext)
                }
            }
            return verdict
        }
    }

    /// The first bytes of a ciphertext with the length of all of it: what `Cryptor.readings` looks at (the header
    /// and the length; the header is within `StreamDecryptor.headLength` bytes).
    private struct HeadView: RandomAccessCollection {
        package let head: [UInt8]
        package let count: Int
        package var startIndex: Int { 0 }
        package var endIndex: Int { count }
        package subscript(position: Int) -> UInt8 {
            precondition(position < head.count, "a reading looked past the head of the ciphertext")
            return head[position]
        }
    }
}
