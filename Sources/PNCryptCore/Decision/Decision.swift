// The one decision procedure: which (key, scheme) reading of some ciphertext is certainly right. Every decrypting
// path of the library (one-shot bytes, text and messages, files, streams, rekeying, diagnosis) gathers one
// `Verdict` per reading and asks `Decision.decide`; nothing else decides.
//
// Ownership: `verdict(of:...)` reads the caller's plaintext buffer for the duration of the call and keeps
// nothing; everything else here works on values.

import PNCryptBase


/// Decides which reading of a ciphertext qualifies, with the same rules wherever the readings come from.
///
/// CBC has no integrity check: a wrong key, or a wrong reading of headerless data, passes the PKCS#7 padding check
/// about once in 256 tries. So every possible reading is checked, and a plaintext is delivered only when exactly
/// one reading qualifies for the kind of content asked for:
///
/// | content | a reading qualifies when |
/// |---|---|
/// | `.bytes` | its padding is valid |
/// | `.text` | its padding is valid and its plaintext is valid UTF-8 |
/// | `.message` | its padding is valid, its plaintext is valid UTF-8 and the caller's content check calls it a
/// message (`ContentCheck`; a `legacy33` reading's: valid UTF-8, an iOS 3.3 message's string leaf being raw text) |
///
/// The rules are the same whether one reading was possible or several. None qualifying is the one public
/// failure, `PNCryptError.decryptionFailed` (public as `CryptoModule.decryptionFailed`); several is `ambiguous`,
/// naming them (callers that reflect a status to a sender turn that into the public failure too).
///
/// Callers compute every check of every reading whatever the others gave (`verdict(of:...)` does so), so the time
/// taken does not tell which check failed. One-shot decryption (`KeyRing`, `CryptoModule`, `MessageCrypto`,
/// `MessageRekey`), files (`KeyRing.fileMatch`: padding of the final blocks), streams of text (verdicts gathered
/// while streaming, then this function), `Diagnosis` and `Inspection` all call it.
package enum Decision {
    /// What the checks of one (key, scheme) reading gave. Every field is computed whatever the others are.
    package struct Verdict: Hashable, Sendable {
        /// The key's index in the caller's key list (0 for a single key).
        package var keyIndex: Int
        /// The scheme of the reading.
        package var scheme: Scheme
        /// The PKCS#7 padding is valid.
        package var padding: Bool
        /// The plaintext is valid UTF-8 (false when the content is `.bytes` and it was not checked).
        package var utf8: Bool
        /// The content check calls the plaintext a message (false when it was not run: content `.bytes`, or
        /// `.text` outside a legacy pair).
        package var message: Bool
        /// For the fixed-IV reading of a legacy pair (both legacy readings of headerless data tried), what its
        /// first block looks like (`HeaderlessRule`); nil otherwise.
        package var firstBlock: HeaderlessRule.FirstBlock?

        /// A verdict from checks already run (streams gather these as they go).
        package init(keyIndex: Int, scheme: Scheme, padding: Bool, utf8: Bool, message: Bool,
                     firstBlock: HeaderlessRule.FirstBlock? = nil) {
            self.keyIndex = keyIndex
            self.scheme = scheme
            self.padding = padding
            self.utf8 = utf8
            self.message = message
            self.firstBlock = firstBlock
        }
    }

    /// Whether `verdict` qualifies for `content` (see the table above).
    package static func qualifies(_ verdict: Verdict, content: KeyRing.Content) -> Bool {
        switch content {
        case .bytes: verdict.padding
        case .text: verdict.padding && verdict.utf8
        case .message:
            verdict.padding && verdict.utf8 && (verdict.message || verdict.scheme.row.message == .stringLeaves)
        }
    }

    /// The position in `verdicts` of the one reading that qualifies for `content`.
    ///
    /// When both legacy readings of one key qualify (headerless data of two blocks or more), the headerless rule
    /// keeps one of them or neither (`resolve`); the rest must then leave exactly one.
    ///
    /// - Parameters:
    ///   - verdicts: one per reading tried, each with every check run.
    ///   - content: what a plaintext must be.
    ///   - namingKeys: name the key of each reading in an `ambiguous` error (there were several keys).
    /// - Throws: `PNCryptError.decryptionFailed` when none qualifies; `ambiguous`, naming the readings and what
    ///   to do, when more than one does.
    package static func decide(_ verdicts: some Collection<Verdict>, content: KeyRing.Content, namingKeys: Bool)
        throws(PNCryptError) -> Int {
        var winner = -1
        var count = 0
        for (position, verdict) in verdicts.enumerated() where qualifies(verdict, content: content) {
            winner = position
            count += 1
        }
        if count == 1 { return winner }
        guard count > 1 else { throw PNCryptError.decryptionFailed }
        if verdicts.count == 2 {
            let first = verdicts[verdicts.startIndex]
            let second = verdicts[verdicts.index(after: verdicts.startIndex)]
            if let decided = try decidePair(first, second, content: content, namingKeys: namingKeys) {
                return decided
            }
        }
        return try decideAmong(Array(verdicts), content: content, namingKeys: namingKeys)
    }

    /// `decideAmong` for the usual case, without its array: two verdicts, both qualifying, that are one key's two
    /// legacy readings. The same answer: the position of the reading the headerless rule keeps, or, when it keeps
    /// both, the same `ambiguous` failure. Nil when the two are not such a pair (`decideAmong` decides).
    private static func decidePair(_ first: Verdict, _ second: Verdict, content: KeyRing.Content, namingKeys: Bool)
        throws(PNCryptError) -> Int? {
        let (fixed, random) = Scheme.headerlessPair
        guard first.keyIndex == second.keyIndex,
              (first.scheme, second.scheme) == (fixed, random) || (first.scheme, second.scheme) == (random, fixed)
        else { return nil }
        let fixedFirst = first.scheme == fixed
        switch resolve(fixed: fixedFirst ? first : second, random: fixedFirst ? second : first, content: content) {
        case fixed?: return fixedFirst ? 0 : 1
        case random?: return fixedFirst ? 1 : 0
        default: throw failure([first, second], namingKeys: namingKeys, headerlessPair: content)
        }
    }

    /// Several readings qualify: the headerless rule resolves each key's legacy pair, then exactly one must remain.
    @inline(never)
    private static func decideAmong(_ verdicts: [Verdict], content: KeyRing.Content, namingKeys: Bool)
        throws(PNCryptError) -> Int {
        let (fixed, random) = Scheme.headerlessPair
        var kept: [Int] = []
        var undecidedPair = false
        for (position, verdict) in verdicts.enumerated() where qualifies(verdict, content: content) {
            let partnerScheme = verdict.scheme == fixed ? random : verdict.scheme == random ? fixed : nil
            guard let partnerScheme, let partner = verdicts.firstIndex(where: {
                $0.keyIndex == verdict.keyIndex && $0.scheme == partnerScheme && qualifies($0, content: content)
            }) else {
                kept.append(position)
                continue
            }
            let (fixedVerdict, randomVerdict) = verdict.scheme == fixed ? (verdict, verdicts[partner])
                : (verdicts[partner], verdict)
            switch resolve(fixed: fixedVerdict, random: randomVerdict, content: content) {
            case fixed?: if verdict.scheme == fixed { kept.append(position) }
            case random?: if verdict.scheme == random { kept.append(position) }
            default:
                kept.append(position)
                undecidedPair = true
            }
        }
        guard kept.count == 1 else {
            throw failure(kept.map { verdicts[$0] }, namingKeys: namingKeys,
                          headerlessPair: undecidedPair && kept.count == 2 ? content : nil)
        }
        return kept[0]
    }

    /// The headerless rule (docs/formats.md section 1): which of the two legacy readings of one key, both
    /// qualifying, is the data's; nil when the rule cannot tell.
    ///
    /// 1. Text only: the content check calls the fixed-IV reading a message and not the random-IV reading:
    ///    `legacy` (for the messages layer's check, one JSON text: a decrypted IV before one leaves one with a
    ///    chance far below 2^-27; the other way round proves nothing, since a text cut after 16 bytes can be one,
    ///    such as a number).
    /// 2. The fixed-IV reading's first block is text (`HeaderlessRule`; noise passes at most 2^-27 of the time):
    ///    `legacy`.
    /// 3. Text and messages: that block is noise (a character text does not hold): `legacy-random-iv`.
    /// 4. Text and messages: otherwise (a first block neither text nor noise) neither.
    /// 5. Bytes (one-shot or files, one rule): noise there (a decrypted IV): `legacy-random-iv`, the SDKs' binary
    ///    format; anything else (text, or ordinary characters too unlikely as text to be called text, as the
    ///    punctuation of a message's first block, `{"foo":{"bar":"f`): `legacy`, the real start of data
    ///    written with the fixed IV (a decrypted IV is that about 7 × 10^-6 of the time, docs/formats.md). Bytes
    ///    carry nothing more that tells the readings apart, and the two readings share their last blocks, so
    ///    their padding is valid for both or for neither: were this left undecided, `ambiguous` against the one
    ///    failure would tell an attacker whether the padding was valid (a padding oracle). Decided here, bytes
    ///    read in auto mode answer as a named scheme does: the plaintext, or the one failure.
    package static func resolve(fixed: Verdict, random: Verdict, content: KeyRing.Content) -> Scheme? {
        let (fixedScheme, randomScheme) = Scheme.headerlessPair
        if content == .text && fixed.message && !random.message { return fixedScheme }
        if fixed.firstBlock == .text { return fixedScheme }
        if fixed.firstBlock == .noise { return randomScheme }
        if content == .bytes { return fixedScheme }
        return nil
    }

    /// How an `ambiguous` error between one key's two legacy readings starts (`isHeaderlessPairAmbiguity`).
    static let headerlessPairAmbiguity = "ambiguous: headerless data that reads both as legacy and as"
        + " legacy-random-iv; "

    /// Whether `error` is the ambiguity of one key's two legacy readings that the headerless rule could not resolve
    /// (shells add their own way to name the scheme, or to read text or a message).
    package static func isHeaderlessPairAmbiguity(_ error: PNCryptError) -> Bool {
        error.code == .ambiguous && error.message.hasPrefix(headerlessPairAmbiguity)
    }

    /// The failure for no qualifying reading (the one decryption failure) or several (`ambiguous`, naming them).
    ///
    /// - Parameter headerlessPair: the two left are one key's legacy pair that the headerless rule could not
    ///   resolve, for this content: the message says why and what to do.
    package static func failure(_ winners: [Verdict], namingKeys: Bool, headerlessPair: KeyRing.Content? = nil)
        -> PNCryptError {
        guard winners.count > 1 else { return PNCryptError.decryptionFailed }
        if headerlessPair != nil {
            return PNCryptError(.ambiguous, headerlessPairAmbiguity + "its first block, read with the fixed IV, is"
                                + " neither clearly text nor a decrypted IV: name the scheme")
        }
        let names = winners.map { namingKeys ? "key #\($0.keyIndex + 1) \($0.scheme)" : "\($0.scheme)" }
        return PNCryptError(.ambiguous, "ambiguous: \(winners.count) readings decrypt this ("
                            + names.joined(separator: ", ") + "); say which scheme (or key) to use")
    }

    /// Runs every check `content` needs on one decrypted reading, whatever the padding gave.
    ///
    /// - Parameters:
    ///   - decrypted: the whole decrypted body, padding included (the same length whatever the key).
    ///   - plaintextCount: the length without the padding when it is valid (`decrypted.count` otherwise).
    ///   - padding: whether the padding is valid.
    ///   - content: `.bytes` checks nothing more; `.text` checks UTF-8; `.message` UTF-8 and the content check.
    ///   - pair: both legacy readings of headerless data are being tried: the headerless rule's checks run too
    ///     (the first block of the fixed-IV reading; the content check for text), for both readings alike.
    ///
    /// UTF-8 is checked over all of `decrypted`, every byte (`isValidUTF8InFull`): valid padding is ASCII (1 to
    /// 16), so this gives the same answer as checking the plaintext alone, in the same time whether the padding was
    /// valid or not and wherever the first invalid byte is.
    ///   - check: the content check (`ContentCheck`, the messages layer's `isMessageText`; the message path parses
    ///     once here and keeps the value), given the plaintext and the body's length (what may be loaded from its
    ///     start).
    package static func verdict(of decrypted: UnsafeRawBufferPointer, plaintextCount: Int, padding: Bool, keyIndex: Int,
                        scheme: Scheme, content: KeyRing.Content, pair: Bool = false,
                        check contentCheck: ContentCheck) -> Verdict {
        var utf8 = false
        var message = false
        if content != .bytes {
            utf8 = isValidUTF8InFull(decrypted)
        }
        if content == .message || (pair && content == .text) {
            message = contentCheck(UnsafeRawBufferPointer(rebasing: decrypted[0..<plaintextCount]), decrypted.count)
        }
        let firstBlock = pair && scheme == Scheme.headerlessPair.fixed
            ? HeaderlessRule.classify(UnsafeRawBufferPointer(rebasing: decrypted[0..<plaintextCount])) : nil
        return Verdict(keyIndex: keyIndex, scheme: scheme, padding: padding, utf8: utf8, message: message,
                       firstBlock: firstBlock)
    }
}

extension Decision {
    /// Decrypts every reading of `input` with every key, runs every check `content` needs on each (whatever the
    /// padding gave), and decides with `decide`; the one qualifying plaintext goes to `output` (room for
    /// `input.count + 16` bytes), which is wiped when there is none.
    /// `first` is `keys[0]`, passed on its own so that the one-reading path borrows it instead of retaining it.
    /// - Returns: the plaintext length, the key's index in `keys` and the scheme of the reading.
    /// - Throws: `PNCryptError.decryptionFailed` when no reading qualifies; `ambiguous` when several do.
    static func open(_ input: UnsafeRawBufferPointer, keys: [CipherKey], first: CipherKey,
                     readings: Cryptor.Readings,
                     content: KeyRing.Content, into output: UnsafeMutableRawPointer,
                     check: ContentCheck) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        let capacity = input.count + Cryptor.blockSize
        if readings.count * keys.count == 1 {
            // One reading: straight into `output`, then the same checks and the same decision.
            let reading = readings[0]
            let (count, length, padding) = ReadingCipher.openChecked(reading, of: input, with: first, into: output)
            let verdict = Decision.verdict(of: UnsafeRawBufferPointer(start: output, count: length),
                                           plaintextCount: count, padding: padding, keyIndex: 0,
                                           scheme: reading.scheme, content: content, check: check)
            do throws(PNCryptError) {
                _ = try decide(CollectionOfOne(verdict), content: content, namingKeys: false)
            } catch {
                wipe(output, count: capacity)
                throw error
            }
            return (count, 0, reading.scheme, 0)
        }
        // One key's two legacy readings (every message read without a scheme named): straight to `openPair`,
        // borrowing `first`, without `openEach`'s frame.
        if keys.count == 1, let pair = SharedPair(readings) {
            return try openPair(input, key: first, pair: pair, content: content, into: output, check: check)
        }
        return try openEach(input, keys: keys, readings: readings, content: content, into: output, check: check)
    }

    /// `open` with several readings (both legacy readings of headerless data with several keys, or other readings),
    /// out of line: the one-reading path above stays small. Both legacy readings of headerless data share one
    /// decryption per key (`openPairs`; with one key `open` calls `openPair` itself). Otherwise each reading is
    /// decrypted into scratch; a qualifying one is copied to `output`, and the winner is decrypted again into
    /// `output` when it was not the first to qualify. Every check runs for every reading, so the time taken does
    /// not tell which one failed; when both legacy readings are tried, the headerless rule's checks run too.
    @inline(never)
    private static func openEach(_ input: UnsafeRawBufferPointer, keys: [CipherKey], readings: Cryptor.Readings,
                                 content: KeyRing.Content, into output: UnsafeMutableRawPointer,
                                 check: ContentCheck) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        // Both legacy readings and nothing else (`SharedPair` makes sure of it: `Readings.isHeaderlessPair`, and
        // the two laid out as `Cryptor.readings` lays them out), with several keys (one: `open` took them).
        if let shared = SharedPair(readings) {
            return try openPairs(input, keys: keys, pair: shared, content: content, into: output, check: check)
        }
        let capacity = input.count + Cryptor.blockSize
        let pair = readings.holdsHeaderlessPair
        return try withScratch(capacity) { (scratch) throws(PNCryptError) in
            defer { wipe(scratch.baseAddress!, count: capacity) }
            // The usual one key's two readings in inline slots: no arrays per message.
            var verdicts = InlineList<Verdict>()
            var counts = InlineList<Int>()
            var copied = false
            var firstQualifying = -1
            for (keyIndex, key) in keys.enumerated() {
                for reading in readings {
                    let (count, length, padding) = ReadingCipher.openChecked(reading, of: input, with: key,
                                                                             into: scratch.baseAddress!)
                    let verdict = Decision.verdict(of: UnsafeRawBufferPointer(start: scratch.baseAddress!,
                                                                              count: length),
                                                   plaintextCount: count, padding: padding, keyIndex: keyIndex,
                                                   scheme: reading.scheme, content: content, pair: pair, check: check)
                    if !copied && qualifies(verdict, content: content) {
                        output.copyMemory(from: scratch.baseAddress!, byteCount: count)
                        copied = true
                        firstQualifying = verdicts.count
                    }
                    verdicts.append(verdict)
                    counts.append(count)
                }
            }
            do throws(PNCryptError) {
                let winner = try decide(verdicts, content: content, namingKeys: keys.count > 1)
                if winner != firstQualifying {
                    let reading = readings[winner % readings.count]
                    _ = ReadingCipher.open(reading, of: input, with: keys[verdicts[winner].keyIndex], into: output)
                }
                return (counts[winner], verdicts[winner].keyIndex, verdicts[winner].scheme, winner)
            } catch {
                wipe(output, count: capacity)
                throw error
            }
        }
    }
}
