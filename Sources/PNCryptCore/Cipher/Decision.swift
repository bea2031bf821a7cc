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
/// | `.json` (messages) | its padding is valid and its plaintext is valid UTF-8 and one JSON text |
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
        /// The plaintext is one JSON text (false when it was not checked: content `.bytes`, or `.text` outside a
        /// legacy pair).
        package var json: Bool
        /// For the fixed-IV reading of a legacy pair (both legacy readings of headerless data tried), what its
        /// first block looks like (`HeaderlessRule`); nil otherwise.
        package var firstBlock: HeaderlessRule.FirstBlock?

        /// A verdict from checks already run (streams gather these as they go).
        package init(keyIndex: Int, scheme: Scheme, padding: Bool, utf8: Bool, json: Bool,
                     firstBlock: HeaderlessRule.FirstBlock? = nil) {
            self.keyIndex = keyIndex
            self.scheme = scheme
            self.padding = padding
            self.utf8 = utf8
            self.json = json
            self.firstBlock = firstBlock
        }
    }

    /// Whether `verdict` qualifies for `content` (see the table above).
    package static func qualifies(_ verdict: Verdict, content: KeyRing.Content) -> Bool {
        switch content {
        case .bytes: verdict.padding
        case .text: verdict.padding && verdict.utf8
        case .json: verdict.padding && verdict.utf8 && verdict.json
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
    /// 1. Text only: the fixed-IV reading is one JSON text and the random-IV reading is not: `legacy` (a decrypted
    ///    IV before a JSON text leaves one JSON text with a chance far below 2^-27; the other way round proves
    ///    nothing, since a text cut after 16 bytes can be JSON, such as a number).
    /// 2. The fixed-IV reading's first block is text (`HeaderlessRule`; noise passes at most 2^-27 of the time):
    ///    `legacy`.
    /// 3. Text and messages: that block is noise (a character text does not hold): `legacy-random-iv`.
    /// 4. Text and messages: otherwise (a first block neither text nor noise) neither.
    /// 5. Bytes (one-shot or files, one rule): noise there (a decrypted IV): `legacy-random-iv`, the SDKs' binary
    ///    format; anything else (text, or ordinary characters too unlikely as text to be called text, as the
    ///    punctuation of a JSON message's first block, `{"foo":{"bar":"f`): `legacy`, the real start of data
    ///    written with the fixed IV (a decrypted IV is that about 4 × 10^-6 of the time, docs/formats.md). Bytes
    ///    carry nothing more that tells the readings apart, and the two readings share their last blocks, so
    ///    their padding is valid for both or for neither: were this left undecided, `ambiguous` against the one
    ///    failure would tell an attacker whether the padding was valid (a padding oracle). Decided here, bytes
    ///    read in auto mode answer as a named scheme does: the plaintext, or the one failure.
    package static func resolve(fixed: Verdict, random: Verdict, content: KeyRing.Content) -> Scheme? {
        let (fixedScheme, randomScheme) = Scheme.headerlessPair
        if content == .text && fixed.json && !random.json { return fixedScheme }
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
    ///   - content: `.bytes` checks nothing more; `.text` checks UTF-8; `.json` UTF-8 and JSON.
    ///   - pair: both legacy readings of headerless data are being tried: the headerless rule's checks run too
    ///     (the first block of the fixed-IV reading; JSON for text), for both readings alike.
    ///
    /// UTF-8 is checked over all of `decrypted`, every byte (`isValidUTF8InFull`): valid padding is ASCII (1 to
    /// 16), so this gives the same answer as checking the plaintext alone, in the same time whether the padding was
    /// valid or not and wherever the first invalid byte is.
    ///   - json: the message check (`JSONCheck`, the messages layer's `isMessageText`; the message path parses
    ///     once here and keeps the value), given the plaintext and the body's length (what may be loaded from its
    ///     start).
    package static func verdict(of decrypted: UnsafeRawBufferPointer, plaintextCount: Int, padding: Bool, keyIndex: Int,
                        scheme: Scheme, content: KeyRing.Content, pair: Bool = false,
                        json jsonCheck: JSONCheck) -> Verdict {
        var utf8 = false
        var json = false
        if content != .bytes {
            utf8 = isValidUTF8InFull(decrypted)
        }
        if content == .json || (pair && content == .text) {
            json = jsonCheck(UnsafeRawBufferPointer(rebasing: decrypted[0..<plaintextCount]), decrypted.count)
        }
        let firstBlock = pair && scheme == Scheme.headerlessPair.fixed
            ? HeaderlessRule.classify(UnsafeRawBufferPointer(rebasing: decrypted[0..<plaintextCount])) : nil
        return Verdict(keyIndex: keyIndex, scheme: scheme, padding: padding, utf8: utf8, json: json,
                       firstBlock: firstBlock)
    }
}

// MARK: UTF-8 over the whole length

extension Decision {
    /// Whether `bytes` are valid UTF-8 (RFC 3629, as `isValidUTF8` decides), reading every byte whatever it finds:
    /// one automaton step per byte and no early exit, so the time taken depends on the length alone, not on where
    /// (or whether) an invalid byte is. The decision uses it so that the time does not tell which check failed, nor
    /// where in a plaintext its first invalid byte is.
    ///
    /// The loop takes 8 bytes a pass, and each step is one shift (`utf8Rows`): the table entry of a byte does not
    /// depend on the state, so the steps overlap and the only chain from byte to byte is the shift. There is no
    /// ASCII shortcut: it would make the time tell whether a plaintext is ASCII.
    package static func isValidUTF8InFull(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return true }
        return utf8Rows.withUnsafeBufferPointer { rows in
            let row = rows.baseAddress!
            var state: UInt64 = 0
            var index = 0
            // Each byte loaded on its own (one instruction with its zero extension), not shifted out of a word:
            // with the shift counts in the one register x86-64 shifts by, extracting 8 bytes from a word spilled.
            while index &+ 8 <= count {
                let p = base + index
                state = row[Int(p.load(as: UInt8.self))] &>> state
                state = row[Int(p.load(fromByteOffset: 1, as: UInt8.self))] &>> state
                state = row[Int(p.load(fromByteOffset: 2, as: UInt8.self))] &>> state
                state = row[Int(p.load(fromByteOffset: 3, as: UInt8.self))] &>> state
                state = row[Int(p.load(fromByteOffset: 4, as: UInt8.self))] &>> state
                state = row[Int(p.load(fromByteOffset: 5, as: UInt8.self))] &>> state
                state = row[Int(p.load(fromByteOffset: 6, as: UInt8.self))] &>> state
                state = row[Int(p.load(fromByteOffset: 7, as: UInt8.self))] &>> state
                index &+= 8
            }
            while index < count {
                state = row[Int(base.load(fromByteOffset: index, as: UInt8.self))] &>> state
                index += 1
            }
            return state & 63 == 0
        }
    }

    /// The UTF-8 automaton of `utf8Table` in shift form: state `s` is the shift `6 * s`, and `utf8Rows[byte]` holds
    /// the next state of every state, 6 bits each: the next state is `utf8Rows[byte] &>> state` (the shift takes
    /// the low 6 bits of `state`; the bits above are left over from the row and never read).
    static let utf8Rows: [UInt64] = (0..<256).map { byte in
        (0..<9).reduce(UInt64(0)) { row, state in
            row | UInt64(Int(utf8Table[state * 256 + byte]) / 256 * 6) << UInt64(state * 6)
        }
    }

    /// The UTF-8 automaton: `utf8Table[state + byte]` is the next state, states stored multiplied by 256. States:
    /// 0 accept; 1, 2, 3 need that many continuation bytes (80-BF); 4 after E0 (A0-BF next); 5 after ED (80-9F
    /// next: no surrogates); 6 after F0 (90-BF next); 7 after F4 (80-8F next: nothing above U+10FFFF); 8 reject,
    /// for good.
    static let utf8Table: [UInt16] = {
        func next(_ state: Int, _ byte: Int) -> Int {
            func within(_ low: Int, _ high: Int, _ then: Int) -> Int { (low...high).contains(byte) ? then : 8 }
            switch state {
            case 0:
                switch byte {
                case 0x00...0x7F: return 0
                case 0xC2...0xDF: return 1
                case 0xE0: return 4
                case 0xED: return 5
                case 0xE1...0xEF: return 2
                case 0xF0: return 6
                case 0xF1...0xF3: return 3
                case 0xF4: return 7
                default: return 8
                }
            case 1: return within(0x80, 0xBF, 0)
            case 2: return within(0x80, 0xBF, 1)
            case 3: return within(0x80, 0xBF, 2)
            case 4: return within(0xA0, 0xBF, 1)
            case 5: return within(0x80, 0x9F, 1)
            case 6: return within(0x90, 0xBF, 2)
            case 7: return within(0x80, 0x8F, 2)
            default: return 8
            }
        }
        var table = [UInt16](repeating: 0, count: 9 * 256)
        for state in 0..<9 {
            for byte in 0..<256 { table[state * 256 + byte] = UInt16(next(state, byte) * 256) }
        }
        return table
    }()
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
                     json: JSONCheck) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        let capacity = input.count + Cryptor.blockSize
        if readings.count * keys.count == 1 {
            // One reading: straight into `output`, then the same checks and the same decision.
            let reading = readings[0]
            let (count, length, padding) = ReadingCipher.openChecked(reading, of: input, with: first, into: output)
            let verdict = Decision.verdict(of: UnsafeRawBufferPointer(start: output, count: length),
                                           plaintextCount: count, padding: padding, keyIndex: 0,
                                           scheme: reading.scheme, content: content, json: json)
            do throws(PNCryptError) {
                _ = try decide(CollectionOfOne(verdict), content: content, namingKeys: false)
            } catch {
                wipe(output, count: capacity)
                throw error
            }
            return (count, 0, reading.scheme, 0)
        }
        return try openEach(input, keys: keys, readings: readings, content: content, into: output, json: json)
    }

    /// `open` with several readings (both legacy readings of headerless data, or several keys), out of line: the
    /// one-reading path above stays small. Both legacy readings of headerless data share one decryption per key
    /// (`openPairs`). Otherwise each reading is decrypted into scratch; a qualifying one is copied to `output`, and
    /// the winner is decrypted again into `output` when it was not the first to qualify. Every check runs for
    /// every reading, so the time taken does not tell which one failed; when both legacy readings are tried, the
    /// headerless rule's checks run too.
    @inline(never)
    private static func openEach(_ input: UnsafeRawBufferPointer, keys: [CipherKey], readings: Cryptor.Readings,
                                 content: KeyRing.Content, into output: UnsafeMutableRawPointer,
                                 json: JSONCheck) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        let capacity = input.count + Cryptor.blockSize
        let pair = readings.isHeaderlessPair
        if pair, let shared = SharedPair(readings) {
            return try openPairs(input, keys: keys, pair: shared, content: content, into: output, json: json)
        }
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
                                                   scheme: reading.scheme, content: content, pair: pair, json: json)
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
        let fixed: Cryptor.Reading
        let random: Cryptor.Reading

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
            self.fixed = fixed
            self.random = random
        }
    }

    /// `openEach` for both legacy readings of headerless data, with each key: the fixed-IV reading is decrypted
    /// once and its padding checked once; the random-IV reading is the same plaintext from byte 16 on (its length
    /// and plaintext length 16 less, its padding the same). Each reading still gets every check of its own:
    /// UTF-8 over its whole length (one pass carrying both readings' states, `isValidUTF8InFull(_:split:)`), the
    /// JSON check of each reading's plaintext when `content` needs it (called in the readings' order, as
    /// `openEach` does), the first block of the fixed-IV reading. The first key with a qualifying reading has its
    /// plaintext copied to `output`; the winner's bytes are moved to its start (a winner of another key, which
    /// the rule never leaves, is decrypted again).
    @inline(never)
    private static func openPairs(_ input: UnsafeRawBufferPointer, keys: [CipherKey], pair: SharedPair,
                                  content: KeyRing.Content, into output: UnsafeMutableRawPointer,
                                  json: JSONCheck) throws(PNCryptError)
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
                                                   fixedFirst: pair.fixedPosition == 0, content: content, json: json)
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

    /// The verdicts of both legacy readings of one key from the fixed-IV reading's decrypted body `whole`
    /// (`count` bytes of plaintext, all of it when the padding is not valid): the random-IV reading's body is
    /// `whole` after its first block. Every check runs for both readings whatever either gave, as
    /// `verdict(of:...)` runs them: UTF-8 over each reading's whole length, JSON on each plaintext when `content`
    /// needs it (in the readings' order: `fixedFirst`), the first block of the fixed-IV reading.
    static func pairVerdicts(_ whole: UnsafeRawBufferPointer, count: Int, padding: Bool, keyIndex: Int,
                             fixedFirst: Bool, content: KeyRing.Content, json jsonCheck: JSONCheck)
        -> (fixed: Verdict, random: Verdict) {
        let block = Cryptor.blockSize
        let (fixedScheme, randomScheme) = Scheme.headerlessPair
        var utf8 = (whole: false, tail: false)
        if content != .bytes {
            utf8 = isValidUTF8InFull(whole, split: block)
        }
        var json = (fixed: false, random: false)
        if content != .bytes {
            let fixedText = UnsafeRawBufferPointer(rebasing: whole[0..<count])
            let randomText = UnsafeRawBufferPointer(rebasing: whole[block..<count])
            if fixedFirst {
                json.fixed = jsonCheck(fixedText, whole.count)
                json.random = jsonCheck(randomText, whole.count - block)
            } else {
                json.random = jsonCheck(randomText, whole.count - block)
                json.fixed = jsonCheck(fixedText, whole.count)
            }
        }
        let firstBlock = HeaderlessRule.classify(UnsafeRawBufferPointer(rebasing: whole[0..<count]))
        return (Verdict(keyIndex: keyIndex, scheme: fixedScheme, padding: padding, utf8: utf8.whole,
                        json: json.fixed, firstBlock: firstBlock),
                Verdict(keyIndex: keyIndex, scheme: randomScheme, padding: padding, utf8: utf8.tail,
                        json: json.random))
    }

    /// `isValidUTF8InFull` of `bytes` and of `bytes` after its first `split` bytes, in one pass: the automaton
    /// runs over the first `split` bytes, then over the rest carrying two states, the one it reached and one
    /// started afresh (one table load a byte, two independent shifts). Every byte is read whatever it holds, as in
    /// `isValidUTF8InFull`: the time depends on the length alone. The same answers as the two calls: the automaton
    /// is deterministic, so its state after `bytes` is its state after the rest started from its state after the
    /// first `split` bytes (which matters when a character spans the split).
    package static func isValidUTF8InFull(_ bytes: UnsafeRawBufferPointer, split: Int)
        -> (whole: Bool, tail: Bool) {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return (true, true) }
        let split = min(max(split, 0), count)
        return utf8Rows.withUnsafeBufferPointer { rows in
            let row = rows.baseAddress!
            var state: UInt64 = 0
            var index = 0
            while index < split {
                state = row[Int(base.load(fromByteOffset: index, as: UInt8.self))] &>> state
                index += 1
            }
            var fresh: UInt64 = 0
            while index &+ 8 <= count {
                let p = base + index
                var r = row[Int(p.load(as: UInt8.self))]
                state = r &>> state; fresh = r &>> fresh
                r = row[Int(p.load(fromByteOffset: 1, as: UInt8.self))]
                state = r &>> state; fresh = r &>> fresh
                r = row[Int(p.load(fromByteOffset: 2, as: UInt8.self))]
                state = r &>> state; fresh = r &>> fresh
                r = row[Int(p.load(fromByteOffset: 3, as: UInt8.self))]
                state = r &>> state; fresh = r &>> fresh
                r = row[Int(p.load(fromByteOffset: 4, as: UInt8.self))]
                state = r &>> state; fresh = r &>> fresh
                r = row[Int(p.load(fromByteOffset: 5, as: UInt8.self))]
                state = r &>> state; fresh = r &>> fresh
                r = row[Int(p.load(fromByteOffset: 6, as: UInt8.self))]
                state = r &>> state; fresh = r &>> fresh
                r = row[Int(p.load(fromByteOffset: 7, as: UInt8.self))]
                state = r &>> state; fresh = r &>> fresh
                index &+= 8
            }
            while index < count {
                let r = row[Int(base.load(fromByteOffset: index, as: UInt8.self))]
                state = r &>> state
                fresh = r &>> fresh
                index += 1
            }
            return (state & 63 == 0, fresh & 63 == 0)
        }
    }
}
