// Both legacy readings of headerless data from one decryption per key (`Decision.openEach` hands them here).
//
// Ownership: `openPairs` reads the caller's input and writes the caller's output for the duration of the call;
// its scratch is wiped before it returns.

import PNCryptBase

// MARK: Both legacy readings in one decryption

extension Decision {
    /// Both legacy readings of headerless data, when the random-IV one is the fixed-IV one without its first block:
    /// the IV is the first ciphertext block and the body the blocks after it, to the same end. For CBC its plaintext
    /// is then the fixed-IV reading's plaintext after its first 16 bytes, with the same padding (block i of a CBC
    /// plaintext depends on ciphertext blocks i and i - 1 only, and the IV is block -1). `Cryptor.readings` always
    /// makes the pair this way; anything else is read one reading at a time.
    struct SharedPair {
        /// The position of the fixed-IV reading in the readings (0 or 1); the random-IV one is at the other.
        let fixedPosition: Int
        /// Where the fixed-IV reading's ciphertext is (the random-IV reading's IV is its first block, its body the
        /// rest). Only this is kept: the readings follow from it, and a pair this small is made and passed in
        /// registers on every message read without a scheme named.
        let body: Range<Int>

        /// The fixed-IV reading.
        var fixed: Cryptor.Reading {
            Cryptor.Reading(scheme: Scheme.headerlessPair.fixed, iv: nil, body: body)
        }

        /// The random-IV reading: the first block of `fixed`'s body is its IV, the rest its body.
        var random: Cryptor.Reading {
            let ivEnd = body.lowerBound + Cryptor.blockSize
            return Cryptor.Reading(scheme: Scheme.headerlessPair.random, iv: body.lowerBound..<ivEnd,
                                   body: ivEnd..<body.upperBound)
        }

        /// The pair `readings` are, or nil when they are not exactly both legacy readings made this way.
        @inline(__always)
        init?(_ readings: Cryptor.Readings) {
            guard readings.count == 2 else { return nil }
            let (fixedScheme, randomScheme) = Scheme.headerlessPair
            let position = readings[0].scheme == fixedScheme ? 0 : 1
            let fixed = readings[position]
            let random = readings[1 - position]
            let block = Cryptor.blockSize
            guard fixed.scheme == fixedScheme, fixed.iv == nil, random.scheme == randomScheme,
                  fixed.scheme.row.keyDerivation == random.scheme.row.keyDerivation,
                  random.iv == fixed.body.lowerBound..<(fixed.body.lowerBound + block),
                  random.body == (fixed.body.lowerBound + block)..<fixed.body.upperBound
            else { return nil }
            self.fixedPosition = position
            self.body = fixed.body
        }
    }

    /// `openEach` for both legacy readings of headerless data, with several keys (one key: `openPair`), each in
    /// turn: the fixed-IV reading is decrypted once and its padding checked once; the random-IV reading is the
    /// same plaintext from byte 16 on (its length and plaintext length 16 less, its padding the same). Each reading
    /// still gets every check of its own: UTF-8 over its whole length (one pass carrying both readings' states,
    /// `isValidUTF8InFull(_:split:)`), the content check of each reading's plaintext when `content` needs it (called
    /// in the readings' order, as `openEach` does), the first block of the fixed-IV reading. The first key with a
    /// qualifying reading has its plaintext copied to `output`; the winner's bytes are moved to its start (a winner
    /// of another key, which the rule never leaves, is decrypted again).
    @inline(never)
    static func openPairs(_ input: UnsafeRawBufferPointer, keys: [CipherKey], pair: SharedPair,
                          content: KeyRing.Content, into output: UnsafeMutableRawPointer,
                          check: ContentCheck) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        let capacity = input.count + Cryptor.blockSize
        let block = Cryptor.blockSize
        return try withScratch(capacity) { (scratch) throws(PNCryptError) in
            let base = scratch.baseAddress!
            defer { wipe(base, count: capacity) }
            var verdicts = InlineList<Verdict>()
            var counts = InlineList<Int>()
            var copiedKey = -1
            var copiedLength = 0
            for (keyIndex, key) in keys.enumerated() {
                // The fixed-IV reading: `count` is its plaintext length (all of `length` when the padding is not
                // valid); the random-IV reading's are both 16 less, whatever the padding gave (`count` is at least
                // 16: the pair is only made for two blocks or more).
                let (count, length, padding) = ReadingCipher.openChecked(pair.fixed, of: input, with: key, into: base)
                let whole = UnsafeRawBufferPointer(start: base, count: length)
                let (fixed, random) = pairVerdicts(whole, count: count, padding: padding, keyIndex: keyIndex,
                                                   fixedFirst: pair.fixedPosition == 0, content: content, check: check)
                if pair.fixedPosition == 0 {
                    verdicts.append(fixed)
                    counts.append(count)
                    verdicts.append(random)
                    counts.append(count - block)
                } else {
                    verdicts.append(random)
                    counts.append(count - block)
                    verdicts.append(fixed)
                    counts.append(count)
                }
                if copiedKey < 0 && (qualifies(fixed, content: content) || qualifies(random, content: content)) {
                    output.copyMemory(from: base, byteCount: length)
                    copiedKey = keyIndex
                    copiedLength = length
                }
            }
            do throws(PNCryptError) {
                let winner = try decide(verdicts, content: content, namingKeys: keys.count > 1)
                let verdict = verdicts[winner]
                let count = counts[winner]
                if verdict.keyIndex == copiedKey {
                    if verdict.scheme == pair.random.scheme {
                        // The random-IV reading: the same bytes from the second block on (regions overlap).
                        UnsafeMutableRawPointer(output).copyMemory(from: output + block, byteCount: count)
                    }
                    // Nothing of the copy is left past the plaintext.
                    wipe(output + count, count: copiedLength - count)
                } else {
                    let reading = verdict.scheme == pair.fixed.scheme ? pair.fixed : pair.random
                    _ = ReadingCipher.open(reading, of: input, with: keys[verdict.keyIndex], into: output)
                }
                return (count, verdict.keyIndex, verdict.scheme, winner)
            } catch {
                wipe(output, count: capacity)
                throw error
            }
        }
    }

    /// `openPairs` for one key (every message read without a scheme named; `Decision.open` passes the ring's
    /// `first`, borrowed, not retained out of the array): the fixed-IV reading is decrypted straight into
    /// `output`, and `decide`'s answer for the two verdicts is worked out here, without gathering them: one
    /// qualifying is the winner, none is the one failure, both go to the headerless rule (`resolve`), which keeps
    /// one or leaves the same `ambiguous` failure. The random-IV reading's plaintext is moved to the start of
    /// `output` when it wins; nothing is left past the plaintext, and `output` is wiped on failure.
    static func openPair(_ input: UnsafeRawBufferPointer, key: CipherKey, pair: SharedPair,
                         content: KeyRing.Content, into output: UnsafeMutableRawPointer,
                         check: ContentCheck) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        let block = Cryptor.blockSize
        let (count, length, padding) = ReadingCipher.openChecked(pair.fixed, of: input, with: key, into: output)
        let (fixed, random) = pairVerdicts(UnsafeRawBufferPointer(start: output, count: length), count: count,
                                           padding: padding, keyIndex: 0, fixedFirst: pair.fixedPosition == 0,
                                           content: content, check: check)
        let fixedWins: Bool
        switch (qualifies(fixed, content: content), qualifies(random, content: content)) {
        case (true, false): fixedWins = true
        case (false, true): fixedWins = false
        case (true, true):
            let (fixedScheme, randomScheme) = (pair.fixed.scheme, pair.random.scheme)
            switch resolve(fixed: fixed, random: random, content: content) {
            case fixedScheme?: fixedWins = true
            case randomScheme?: fixedWins = false
            default:
                wipe(output, count: input.count + block)
                throw failure([fixed, random], namingKeys: false, headerlessPair: content)
            }
        case (false, false):
            wipe(output, count: input.count + block)
            throw PNCryptError.decryptionFailed
        }
        let delivered = fixedWins ? count : count - block
        if !fixedWins {
            // The random-IV reading: the same bytes from the second block on (regions overlap).
            output.copyMemory(from: output + block, byteCount: delivered)
        }
        // Nothing of the decrypted body is left past the plaintext.
        wipe(output + delivered, count: length - delivered)
        let position = fixedWins ? pair.fixedPosition : 1 - pair.fixedPosition
        return (delivered, 0, fixedWins ? pair.fixed.scheme : pair.random.scheme, position)
    }

    /// The verdicts of both legacy readings of one key from the fixed-IV reading's decrypted body `whole`
    /// (`count` bytes of plaintext, all of it when the padding is not valid): the random-IV reading's body is
    /// `whole` after its first block. Every check runs for both readings whatever either gave, as
    /// `verdict(of:...)` runs them: UTF-8 over each reading's whole length, the content check on each plaintext
    /// when `content` needs it (in the readings' order: `fixedFirst`), the first block of the fixed-IV reading.
    static func pairVerdicts(_ whole: UnsafeRawBufferPointer, count: Int, padding: Bool, keyIndex: Int,
                             fixedFirst: Bool, content: KeyRing.Content, check contentCheck: ContentCheck)
        -> (fixed: Verdict, random: Verdict) {
        let block = Cryptor.blockSize
        let (fixedScheme, randomScheme) = Scheme.headerlessPair
        var utf8 = (whole: false, tail: false)
        if content != .bytes {
            utf8 = isValidUTF8InFull(whole, split: block)
        }
        var message = (fixed: false, random: false)
        if content != .bytes {
            let fixedText = UnsafeRawBufferPointer(rebasing: whole[0..<count])
            let randomText = UnsafeRawBufferPointer(rebasing: whole[block..<count])
            if fixedFirst {
                message.fixed = contentCheck(fixedText, whole.count)
                message.random = contentCheck(randomText, whole.count - block)
            } else {
                message.random = contentCheck(randomText, whole.count - block)
                message.fixed = contentCheck(fixedText, whole.count)
            }
        }
        let firstBlock = HeaderlessRule.classify(UnsafeRawBufferPointer(rebasing: whole[0..<count]))
        return (Verdict(keyIndex: keyIndex, scheme: fixedScheme, padding: padding, utf8: utf8.whole,
                        message: message.fixed, firstBlock: firstBlock),
                Verdict(keyIndex: keyIndex, scheme: randomScheme, padding: padding, utf8: utf8.tail,
                        message: message.random))
    }
}
