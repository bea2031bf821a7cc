import PNCryptBase

/// The layout of each scheme's ciphertext (docs/formats.md sections 1 to 3): where its IV is, what comes before the
/// ciphertext, and which lengths can be ciphertext at all. This file owns those facts for the one-shot calls,
/// the streams and the tools that explain data; the `PNED` header itself is `CryptorHeader`'s.
///
/// | scheme | before the ciphertext | IV |
/// |---|---|---|
/// | `legacy`, `legacy33` | nothing | fixed, `0123456789012345` |
/// | `legacy-random-iv` | the 16-byte IV | random |
/// | `acrh` | a `PNED` header whose metadata is the 16-byte IV | random |
///
/// The ciphertext is AES-CBC with PKCS#7 padding: whole 16-byte blocks, at least one.
package enum Cryptor {
    /// The AES block size; the length of every IV (`Scheme.ivSize`).
    package static let blockSize = Scheme.ivSize

    /// The fixed IV of `legacy` and `legacy33`: ASCII `0123456789012345`.
    package static let fixedIV: [UInt8] = Array("0123456789012345".utf8)

    /// The bytes written before the ciphertext: the `acrh` header with its IV, the random IV, or nothing.
    @inline(__always)
    package static func prefixLength(_ scheme: Scheme) -> Int {
        switch scheme.row.iv {
        case .header: CryptorHeader.acrhLength
        case .prefix: blockSize
        case .fixed: 0
        }
    }

    /// The length of `scheme`'s output for `count` bytes of plaintext (PKCS#7 always adds 1 to 16 bytes).
    @inline(__always)
    package static func sealedLength(_ count: Int, scheme: Scheme) -> Int {
        prefixLength(scheme) + (count / blockSize + 1) * blockSize
    }

    /// The bytes before the ciphertext for `iv`: the `acrh` header, the IV itself, or nothing.
    package static func prefix(iv: [UInt8], scheme: Scheme) -> [UInt8] {
        switch scheme.row.iv {
        case .header: CryptorHeader.acrhStart + iv
        case .prefix: iv
        case .fixed: []
        }
    }

    /// The IV to encrypt with: the fixed IV, the caller's, or nil for a fresh random one.
    /// - Throws: `invalidIV` for an IV that is not 16 bytes, or other than the fixed IV where a scheme has one.
    @inline(__always)
    static func checkIV(_ iv: [UInt8]?, scheme: Scheme) throws(PNCryptError) -> [UInt8]? {
        switch scheme.row.iv {
        case .fixed:
            try checkFixedIV(iv, scheme: scheme)
            return fixedIV
        case .prefix, .header:
            guard let iv else { return nil }
            guard iv.count == blockSize else {
                throw PNCryptError(.invalidIV, "the IV must be \(blockSize) bytes, not \(iv.count)")
            }
            return iv
        }
    }

    /// Throws `invalidIV` unless `iv` is nil or the fixed IV (for a scheme that has one).
    @inline(__always)
    static func checkFixedIV(_ iv: [UInt8]?, scheme: Scheme) throws(PNCryptError) {
        if let iv, iv != fixedIV {
            throw PNCryptError(.invalidIV, "\(scheme) always uses the fixed IV 0123456789012345")
        }
    }

    /// Empty data cannot be encrypted, in any scheme (docs/formats.md section 3: PubNub's contract expects an
    /// encryption
    /// error). `allowEmpty` is for the string leaves of `legacy33` messages, where iOS 3.3 encrypted `""` too.
    @inline(__always)
    static func checkNotEmpty(_ count: Int, scheme: Scheme, allowEmpty: Bool) throws(PNCryptError) {
        guard count == 0 && !allowEmpty else { return }
        throw PNCryptError(.emptyPlaintext, "cannot encrypt empty data with \(scheme) (nothing to encrypt)")
    }

    // MARK: Reading

    /// One way to read some bytes: the scheme, where its IV is (nil: the fixed IV) and where the ciphertext is.
    package struct Reading: Hashable, Sendable {
        package var scheme: Scheme
        package var iv: Range<Int>?
        package var body: Range<Int>
    }

    /// The readings of `input` that `policy` allows (`.only`: that scheme; otherwise a `PNED` header picks the
    /// cryptor and headerless data is read as `.headerlessAs` says, or by `.rule` in both `Scheme.headerlessPair`;
    /// `also`, a headerless scheme, is tried as well under `.headerlessAs`: a module's own scheme). Whatever the
    /// key, these are the only ones: a header, a length or a block count rules the others out.
    /// - Throws: the format errors (`malformedHeader`, `unknownCryptor`, a length that no reading accepts).
    package static func readings<C: Collection<UInt8>>(of input: C, reading policy: ReadPolicy,
                                                       also: Scheme? = nil) throws(PNCryptError) -> Readings
        where C.Index == Int {
        if case .anyOf(let list) = policy { return try listReadings(of: input, list: list) }
        let explicit = policy.scheme
        // The usual cases first, in a small body: a headerless scheme named, or the header pncrypt and every SDK
        // write. The rest (other headers, detection, both legacy readings, errors) is out of line.
        let count = input.count
        if let explicit, !explicit.hasHeader {
            let reading = legacyReading(explicit, count: count, from: 0)
            try checkBlocks(reading)
            return Readings(reading)
        }
        if CryptorHeader.startsWithACRH(input) {
            let ivStart = CryptorHeader.acrhStart.count
            let reading = Reading(scheme: Scheme.withHeader, iv: ivStart..<CryptorHeader.acrhLength,
                                  body: CryptorHeader.acrhLength..<count)
            try checkBlocks(reading)
            return Readings(reading)
        }
        // Headerless data read by the rule (auto mode on a legacy message): both legacy readings, when both have
        // whole blocks, as `detectedReadings` makes them.
        if explicit == nil, policy.legacyScheme == nil, count >= 2 * blockSize, count % blockSize == 0,
           !CryptorHeader.startsWithSentinel(input) {
            let (fixed, random) = Scheme.headerlessPair
            return Readings(legacyReading(fixed, count: count, from: 0), legacyReading(random, count: count, from: 0))
        }
        return try detectedReadings(of: input, scheme: explicit, legacyScheme: policy.legacyScheme, also: also)
    }

    /// The readings of a list (`ReadPolicy.anyOf`): every reading each item allows, once each. An item the data's
    /// format rules out (a header missing, a length that is not whole blocks for it) adds none; when every item is
    /// ruled out, the first item's reason is the error.
    @inline(never)
    private static func listReadings<C: Collection<UInt8>>(of input: C, list: ReadList) throws(PNCryptError)
        -> Readings where C.Index == Int {
        var all: [Reading] = []
        var firstError: PNCryptError?
        for policy in list.policies {
            do throws(PNCryptError) {
                for reading in try readings(of: input, reading: policy) where !all.contains(reading) {
                    all.append(reading)
                }
            } catch {
                firstError = firstError ?? error
            }
        }
        guard !all.isEmpty else { throw firstError! }
        // At most three: a header rules out every headerless reading (26 + 16n bytes is never whole blocks), and
        // headerless data has three readings at most (legacy, legacy-random-iv, legacy33).
        return Readings(all[0], all.count > 1 ? all[1] : nil, all.count > 2 ? all[2] : nil)
    }

    /// `readings` for input that is neither read as a named headerless scheme nor starts with the `acrh` header.
    @inline(never)
    private static func detectedReadings<C: Collection<UInt8>>(of input: C, scheme explicit: Scheme?,
                                                               legacyScheme: Scheme?, also: Scheme?)
        throws(PNCryptError) -> Readings where C.Index == Int {
        let candidates: Readings
        let count = input.count
        if let (header, length) = try CryptorHeader.parse(input) {
            if let scheme = try header.scheme(reading: explicit) {
                // A longer encoding of the metadata length (0xFF, 0x00, 0x10): the IV ends the header.
                candidates = Readings(Reading(scheme: scheme, iv: (length - blockSize)..<length,
                                              body: length..<count))
            } else {
                // The legacy cryptor's id: what follows the header is legacy data.
                candidates = try legacyReadings(legacyScheme, also: also, of: input, from: length)
            }
        } else if explicit != nil {
            throw CryptorHeader.missing(input)
        } else {
            candidates = try legacyReadings(legacyScheme, also: also, of: input, from: 0)
        }
        // A reading whose ciphertext is empty or not whole blocks cannot be right, whatever the key. When none is
        // left, the first one's reason is the error.
        if candidates.count == 1 {
            try checkBlocks(candidates[0])
            return candidates
        }
        var firstError: PNCryptError?
        var usable: Readings?
        for reading in candidates {
            do throws(PNCryptError) {
                try checkBlocks(reading)
                usable = usable.map { Readings($0[0], reading) } ?? Readings(reading)
            } catch {
                firstError = firstError ?? error
            }
        }
        guard let usable else { throw firstError! }
        return usable
    }

    /// One to three readings (headerless data may be read both ways; a list of readings adds a third), held
    /// inline: working out how to read a message allocates nothing.
    package struct Readings: RandomAccessCollection {
        private let first: Reading
        private let second: Reading?
        private let third: Reading?

        package init(_ first: Reading, _ second: Reading? = nil, _ third: Reading? = nil) {
            self.first = first
            self.second = second
            self.third = second == nil ? nil : third
        }

        package var startIndex: Int { 0 }
        package var endIndex: Int { second == nil ? 1 : third == nil ? 2 : 3 }
        package subscript(position: Int) -> Reading {
            switch position {
            case 0: first
            case 1: second!
            default: third!
            }
        }

        /// Both legacy readings of headerless data (`Scheme.headerlessPair`), and nothing else: the headerless
        /// rule may be needed, and they share one decryption per key (`Decision.SharedPair`).
        package var isHeaderlessPair: Bool {
            guard let second, third == nil else { return false }
            return first.scheme.partner == second.scheme
        }

        /// Both legacy readings of headerless data are among these (alone, or beside another reading in a list):
        /// the headerless rule's checks run on them.
        package var holdsHeaderlessPair: Bool {
            let (fixed, random) = Scheme.headerlessPair
            return contains { $0.scheme == fixed } && contains { $0.scheme == random }
        }
    }

    private static func legacyReadings<C: Collection<UInt8>>(_ legacyScheme: Scheme?, also: Scheme?, of input: C,
                                                             from start: Int) throws(PNCryptError) -> Readings
        where C.Index == Int {
        let count = input.count
        guard let legacyScheme else {
            let (first, second) = Scheme.headerlessPair
            return Readings(legacyReading(first, count: count, from: start),
                            legacyReading(second, count: count, from: start))
        }
        let extra = also.flatMap { !$0.hasHeader && $0 != legacyScheme ? $0 : nil }
        if legacyScheme.hasHeader {
            guard let extra else { throw CryptorHeader.missing(input.dropFirst(start)) }
            return Readings(legacyReading(extra, count: count, from: start))
        }
        return Readings(legacyReading(legacyScheme, count: count, from: start),
                        extra.map { legacyReading($0, count: count, from: start) })
    }

    private static func legacyReading(_ scheme: Scheme, count: Int, from start: Int) -> Reading {
        guard scheme.row.iv == .prefix else { return Reading(scheme: scheme, iv: nil, body: start..<count) }
        // Shorter than an IV: an empty body (refused by `checkBlocks` with the reason).
        let ivEnd = min(start + blockSize, count)
        return Reading(scheme: scheme, iv: start..<ivEnd, body: ivEnd..<count)
    }

    /// Checks that a reading has ciphertext in whole blocks (an IV written before the ciphertext included).
    static func checkBlocks(_ reading: Reading) throws(PNCryptError) {
        if reading.scheme.row.iv == .prefix, let iv = reading.iv, iv.count < blockSize {
            throw ivTooShort(iv.count, scheme: reading.scheme)
        }
        try checkBlocks(reading.body.count, after: reading.scheme.row.iv)
    }

    @inline(never)
    private static func ivTooShort(_ count: Int, scheme: Scheme) -> PNCryptError {
        PNCryptError(.wrongKeyOrCorrupt,
                     "\(count.counting("byte")) is too short for \(scheme) (\(blockSize)-byte IV, then ciphertext)")
    }

    /// Checks that `count` bytes of ciphertext (after a header or IV placed as `iv` says) are whole blocks, at
    /// least one.
    @inline(__always)
    static func checkBlocks(_ count: Int, after iv: Scheme.IVPlacement) throws(PNCryptError) {
        guard count > 0, count % blockSize == 0 else { throw blocksError(count, after: iv) }
    }

    /// Why `count` bytes of ciphertext are not whole blocks (`checkBlocks`); out of line, as errors are rare.
    @inline(never)
    private static func blocksError(_ count: Int, after iv: Scheme.IVPlacement) -> PNCryptError {
        guard count > 0 else {
            let reason = switch iv {
            case .header: "empty ciphertext after the PNED header"
            case .prefix: "no ciphertext after the \(blockSize)-byte IV"
            case .fixed: "empty ciphertext"
            }
            return PNCryptError(.wrongKeyOrCorrupt, reason)
        }
        return PNCryptError(.wrongKeyOrCorrupt, "ciphertext is \(count.counting("byte")), not a whole number of"
                            + " \(blockSize)-byte AES blocks (truncated or corrupt)")
    }

    // MARK: Reading a stream

    /// Where a file's ciphertext starts, read from its first bytes `head` (the file formats of docs/formats.md section
    /// 3): the
    /// scheme, the IV (nil: the fixed IV) and the offset of the ciphertext; nil when more bytes are needed.
    ///
    /// - Parameters:
    ///   - final: `head` is the whole file: nothing more will come.
    ///   - policy: `.only`: the format required; otherwise a header is detected and headerless data read as
    ///     `.headerlessAs` says, or by `.rule` as `headerless` says, given the first ciphertext block and where the
    ///     ciphertext starts (the headerless rule for files; nil is returned until 32 bytes of ciphertext or the
    ///     end of the input are there).
    /// - Throws: the format errors: a header cut short (only when `final`), an unknown cryptor, a file shorter than
    ///   its IV, headerless data where only `acrh` is read.
    static func streamStart(of head: [UInt8], final: Bool, reading policy: ReadPolicy,
                            headerless: (ArraySlice<UInt8>, Int) -> Scheme)
        throws(PNCryptError) -> (scheme: Scheme, iv: Range<Int>?, bodyStart: Int)? {
        let (expected, legacyScheme) = (policy.scheme, policy.legacyScheme)
        guard expected?.hasHeader ?? CryptorHeader.mayStart(head, final: final) else {
            if expected == nil && legacyScheme?.hasHeader == true { throw CryptorHeader.missing(head) }
            return try streamLegacyStart(of: head, expected ?? legacyScheme, final: final, headerless: headerless)
        }
        let parsed: (header: CryptorHeader, length: Int)?
        do {
            parsed = try CryptorHeader.parse(head)
        } catch where error.code == .malformedHeader && !final {
            return nil
        }
        guard let (header, length) = parsed else {
            if head.count < CryptorHeader.sentinel.count && !final { return nil }
            if expected?.hasHeader == true || legacyScheme?.hasHeader == true { throw CryptorHeader.missing(head) }
            return try streamLegacyStart(of: head, legacyScheme, final: final, headerless: headerless)
        }
        guard let scheme = try header.scheme(reading: expected) else {
            // The legacy cryptor's id: the legacy file format follows the header.
            return try streamLegacyStart(of: head, legacyScheme, final: final, after: length, headerless: headerless)
        }
        return (scheme, (length - blockSize)..<length, length)
    }

    private static func streamLegacyStart(of head: [UInt8], _ told: Scheme?, final: Bool, after offset: Int = 0,
                                          headerless: (ArraySlice<UInt8>, Int) -> Scheme)
        throws(PNCryptError) -> (scheme: Scheme, iv: Range<Int>?, bodyStart: Int)? {
        let legacy: Scheme
        if let told {
            legacy = told
        } else if head.count >= offset + 2 * blockSize || (final && head.count >= offset + blockSize) {
            legacy = headerless(head[offset..<(offset + blockSize)], offset)
        } else if final {
            // Less than two blocks: one block can only be the fixed-IV format; less than one, neither (the
            // random-IV format's reason names the IV).
            legacy = head.count >= offset + blockSize ? Scheme.headerlessPair.fixed : Scheme.headerlessPair.random
        } else {
            return nil
        }
        // The fixed IV: the ciphertext starts right away.
        guard legacy.row.iv == .prefix else { return (legacy, nil, offset) }
        guard head.count >= offset + blockSize else {
            if final {
                throw PNCryptError(.wrongKeyOrCorrupt, "\((head.count - offset).counting("byte")) is too short for"
                                   + " the legacy random-IV file format (\(blockSize)-byte IV, then ciphertext)")
            }
            return nil
        }
        return (legacy, offset..<(offset + blockSize), offset + blockSize)
    }
}
