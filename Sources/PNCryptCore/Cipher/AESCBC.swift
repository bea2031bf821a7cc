// The AES-CBC core of PNCrypt: the one encrypt path (header or IV, then ciphertext, into one buffer), the
// decryption of one reading with the padding checked in constant time, and the choice between readings.
//
// Ownership: every pointer here is borrowed for the duration of one call. Input buffers belong to the caller.
// Output buffers are the caller's (`into output:` has the documented room) or scratch from `withScratch`, which
// never escapes the call. Scratch and outputs that may hold plaintext of a failed decryption are wiped before
// they are released or returned. Cipher contexts come from the key's `ContextPool`, one caller at a time; the pool
// owns its idle contexts (one in an atomic slot as a +1 `Unmanaged` reference, released in `deinit`, the rest in a
// locked array).

import PNCryptBase
import PNCryptJSON

import Synchronization

extension CryptoModule {
    /// The one encrypt path: writes `scheme`'s output for `input` (the `acrh` header or the random IV, then the
    /// ciphertext) to `output`, which has room for `Cryptor.sealedLength(input.count, scheme:)` bytes; returns
    /// the count written. Random IVs come from the context's reserve of CSPRNG output.
    @inline(__always)
    package func seal(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv explicitIV: [UInt8]?,
                      allowEmpty: Bool = false, into output: UnsafeMutableRawPointer) throws(PNCryptError) -> Int {
        let givenIV = try Cryptor.checkIV(explicitIV, scheme: scheme)
        try Cryptor.checkNotEmpty(input.count, scheme: scheme, allowEmpty: allowEmpty)
        let prefix = Cryptor.prefixLength(scheme)
        let sealedCount = Cryptor.sealedLength(input.count, scheme: scheme)
        let sealed = UnsafeMutableRawBufferPointer(start: output, count: sealedCount)
        if scheme.hasHeader {
            CryptorHeader.acrhStart.withUnsafeBytes { output.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        let n = try key.pool(scheme, encrypting: true).withContext { (context) throws(PNCryptError) -> Int? in
            guard prefix > 0 else {
                // The fixed IV: nothing before the ciphertext.
                return givenIV!.withUnsafeBytes { context.run(iv: $0, input: input, output: sealed, prefix: 0) }
            }
            // The IV ends the prefix (the header's metadata, or the whole prefix of legacy-random-iv).
            let ivStart = output + prefix - Cryptor.blockSize
            if let givenIV {
                givenIV.withUnsafeBytes { ivStart.copyMemory(from: $0.baseAddress!, byteCount: Cryptor.blockSize) }
            } else if !context.randomIV(into: ivStart) {
                throw PNCryptError(.encryptionFailed, "the random number generator failed")
            }
            let iv = UnsafeRawBufferPointer(start: ivStart, count: Cryptor.blockSize)
            return context.run(iv: iv, input: input, output: sealed, prefix: prefix)
        }
        guard let n, n == sealedCount else {
            throw PNCryptError(.encryptionFailed, "the AES cipher failed to encrypt")
        }
        return n
    }

    /// `seal`, returned as the Base64 of the output; with `quoted`, as a JSON string literal. The output goes to
    /// scratch memory (the stack for a message) and is encoded straight into the one array returned.
    package func sealToBase64(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv: [UInt8]?, quoted: Bool,
                      allowEmpty: Bool = false) throws(PNCryptError) -> [UInt8] {
        try withScratch(Cryptor.sealedLength(input.count, scheme: scheme)) { (sealed) throws(PNCryptError) in
            let n = try seal(input, scheme: scheme, iv: iv, allowEmpty: allowEmpty, into: sealed.baseAddress!)
            return Base64.encode(UnsafeRawBufferPointer(rebasing: sealed[0..<n]), quoted: quoted)
        }
    }

    /// `seal`, returned as an array.
    func sealToBytes(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv: [UInt8]?)
        throws(PNCryptError) -> [UInt8] {
        try makeBytes(capacity: Cryptor.sealedLength(input.count, scheme: scheme)) { (output) throws(PNCryptError) in
            try seal(input, scheme: scheme, iv: iv, into: output)
        }
    }

    /// Decrypts `input` (as `decryptBinary(_:scheme:)`) into a new array.
    func openToBytes(_ input: UnsafeRawBufferPointer, scheme explicit: Scheme?)
        throws(PNCryptError) -> [UInt8] {
        try makeBytes(capacity: input.count + Cryptor.blockSize) { (output) throws(PNCryptError) in
            try decrypt(input, scheme: explicit, into: output)
        }
    }

    /// Decrypts `input` (as `decryptBinary(_:scheme:)`; `explicit` nil detects) into `output`, which has room for
    /// `input.count + 16` bytes; returns the plaintext length. The readings are `readings(of:scheme:)`'s, and the
    /// one decision procedure (`Decision`, content `.bytes`) chooses.
    package func decrypt(_ input: UnsafeRawBufferPointer, scheme explicit: Scheme?,
                         into output: UnsafeMutableRawPointer)
        throws(PNCryptError) -> Int {
        let readings = try readings(of: input, scheme: explicit)
        return try Decision.open(input, keys: [key], readings: readings, content: .bytes, into: output).count
    }

    /// The readings `decrypt` tries: with `explicit`, that format alone; with nil, the `PNED` header's cryptor,
    /// and for headerless data `legacyScheme` and the module's own `encryptionScheme` when it is headerless
    /// (`legacy`, `legacy-random-iv`, `legacy33`).
    package func readings<C: Collection<UInt8>>(of input: C, scheme explicit: Scheme?) throws(PNCryptError)
        -> Cryptor.Readings where C.Index == Int {
        try Cryptor.readings(of: input, scheme: explicit, legacyScheme: headerlessReading,
                             also: encryptionScheme.hasHeader ? nil : encryptionScheme)
    }

    /// How headerless data is read: `legacyScheme`, else the module's own scheme when it is headerless, else nil
    /// (both legacy readings, the headerless rule).
    var headerlessReading: Scheme? {
        legacyScheme ?? (encryptionScheme.hasHeader ? nil : encryptionScheme)
    }

    /// `open`, also returning the length of the whole decrypted body (padding included), over which the checks
    /// of `Decision.verdict` run whatever the padding gave.
    func openChecked(_ reading: Cryptor.Reading, of input: UnsafeRawBufferPointer,
                     into output: UnsafeMutableRawPointer) -> (count: Int, length: Int, valid: Bool) {
        let opened = open(reading, of: input, into: output)
        return (opened.count, reading.body.count, opened.valid)
    }

    /// Decrypts one reading of `input` with this key into `output` (room for the body's length + 16) and removes
    /// the padding in constant time. The output holds the whole body when the padding is not valid (to be wiped).
    func open(_ reading: Cryptor.Reading, of input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer)
        -> (count: Int, valid: Bool) {
        let body = UnsafeRawBufferPointer(rebasing: input[reading.body])
        let out = UnsafeMutableRawBufferPointer(start: output, count: body.count + Cryptor.blockSize)
        let pool = key.pool(reading.scheme, encrypting: false)
        let n = if let iv = reading.iv {
            pool.withContext { $0.run(iv: UnsafeRawBufferPointer(rebasing: input[iv]), input: body, output: out,
                                      prefix: 0) }
        } else {
            Cryptor.fixedIV.withUnsafeBytes { fixed in
                pool.withContext { $0.run(iv: fixed, input: body, output: out, prefix: 0) }
            }
        }
        guard let n else { return (body.count, false) }
        return PKCS7.unpad(UnsafeRawBufferPointer(start: output, count: n))
    }
}

// MARK: Keys and contexts

/// Key bytes that are wiped when the last reference goes away.
package final class SecretBytes: Sendable {
    package let bytes: [UInt8]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    deinit {
        // `bytes` is immutable and owned by this object (only tests take copies, through `CipherKey.keyBytes`);
        // wipe its storage in place.
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            wipe(UnsafeMutableRawPointer(mutating: base), count: buffer.count)
        }
    }
}

/// Keyed contexts for one key and direction, reused across calls and shared safely between threads.
package final class ContextPool: Sendable {
    private let aes256: Bool
    private let key: SecretBytes
    private let encrypting: Bool
    private let idle = Locked<[Backend.Context]>([])
    private static let maxIdle = 16
    /// One more idle context, outside the lock (holding a +1 reference): one caller at a time (the usual case)
    /// takes and returns it with one atomic exchange each way, without locking.
    private let spare = Atomic<Unmanaged<Backend.Context>?>(nil)

    package init(aes256: Bool, key: SecretBytes, encrypting: Bool) {
        self.aes256 = aes256
        self.key = key
        self.encrypting = encrypting
    }

    deinit {
        spare.exchange(nil, ordering: .acquiring)?.release()
    }

    /// Runs `body` with a context no other caller is using, returning it to the pool afterwards.
    package func withContext<R, E: Error>(_ body: (Backend.Context) throws(E) -> R) throws(E) -> R {
        if let taken = spare.exchange(nil, ordering: .acquiring) {
            // The slot's reference goes back into the slot as it is (no retain, no release), or to the array.
            defer {
                if !spare.compareExchange(expected: nil, desired: taken, ordering: .releasing).exchanged {
                    let context = taken.takeRetainedValue()
                    idle.withLock { if $0.count < Self.maxIdle { $0.append(context) } }
                }
            }
            return try taken._withUnsafeGuaranteedRef { context in
                Result { () throws(E) -> R in try body(context) }
            }.get()
        }
        let context = idle.withLock { $0.popLast() } ?? makeContext()
        defer {
            let retained = Unmanaged.passRetained(context)
            if !spare.compareExchange(expected: nil, desired: retained, ordering: .releasing).exchanged {
                retained.release()
                idle.withLock { if $0.count < Self.maxIdle { $0.append(context) } }
            }
        }
        return try body(context)
    }

    /// A context for the caller's exclusive, long use (a stream).
    package func makeContext() -> Backend.Context {
        Backend.makeContext(aes256: aes256, key: key, encrypting: encrypting)
    }
}

/// PKCS#7 padding checked in constant time: the time taken does not depend on which byte is wrong, nor on
/// whether any is (a decrypting context leaves the padding in place for this).
package enum PKCS7 {
    /// The plaintext length of `plaintext` (whole blocks, padding included) and whether its padding is valid.
    /// When it is not, the length returned is `plaintext.count`, so later checks run over as many bytes.
    package static func unpad(_ plaintext: UnsafeRawBufferPointer) -> (count: Int, valid: Bool) {
        let count = plaintext.count
        guard count >= 16, count % 16 == 0 else { return (count, false) }
        let pad = Int(plaintext[count - 1])
        // All-ones when the condition holds, zero otherwise; no branch on secret data.
        var bad = mask(pad == 0 ? 1 : 0) | mask(pad > 16 ? 1 : 0)
        for i in 0..<16 {
            let inPad = mask(i < pad ? 1 : 0)
            bad |= inPad & (Int(plaintext[count - 1 - i]) ^ pad)
        }
        let valid = (bad == 0 ? 1 : 0)
        let keep = mask(valid)
        return ((count - pad) & keep | count & ~keep, valid == 1)
    }

    /// `-1` (all bits) for 1, `0` for 0.
    @inline(__always)
    private static func mask(_ bit: Int) -> Int { 0 &- bit }
}

// MARK: Choosing between readings

extension KeyRing {
    /// `decrypt(_:scheme:legacyScheme:content:)` over the caller's bytes, into a new array.
    func decryptToMatch(_ input: UnsafeRawBufferPointer, scheme: Scheme?, legacyScheme: Scheme?,
                                content: Content)
        throws(PNCryptError) -> Match {
        var found: (keyIndex: Int, scheme: Scheme)?
        let plaintext = try makeBytes(capacity: input.count + Cryptor.blockSize) { (output) throws(PNCryptError) in
            let opened = try decrypt(input, scheme: scheme, legacyScheme: legacyScheme, content: content, into: output)
            found = (opened.keyIndex, opened.scheme)
            return opened.count
        }
        return Match(plaintext: plaintext, keyIndex: found!.keyIndex, scheme: found!.scheme)
    }

    /// As `decrypt(_:scheme:legacyScheme:content:)`, into `output` (room for `input.count + 16` bytes), returning
    /// the plaintext length instead of an array, and the winner's position among the readings tried (in the order
    /// `json` was called, for a caller that keeps what it parsed).
    package func decrypt(_ input: UnsafeRawBufferPointer, scheme: Scheme?, legacyScheme: Scheme?, content: Content,
                 into output: UnsafeMutableRawPointer,
                 json: (UnsafeRawBufferPointer) -> Bool = isMessageText) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        let readings = try Cryptor.readings(of: input, scheme: scheme, legacyScheme: legacyScheme)
        return try Decision.open(input, keys: keys, readings: readings, content: content, into: output, json: json)
    }
}

extension Decision {
    /// Decrypts every reading of `input` with every key, runs every check `content` needs on each (whatever the
    /// padding gave), and decides with `decide`; the one qualifying plaintext goes to `output` (room for
    /// `input.count + 16` bytes), which is wiped when there is none.
    /// - Returns: the plaintext length, the key's index in `keys` and the scheme of the reading.
    /// - Throws: `CryptoModule.decryptionFailed` when no reading qualifies; `ambiguous` when several do.
    static func open(_ input: UnsafeRawBufferPointer, keys: [CipherKey], readings: Cryptor.Readings,
                     content: KeyRing.Content, into output: UnsafeMutableRawPointer,
                     json: (UnsafeRawBufferPointer) -> Bool = isMessageText) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        let capacity = input.count + Cryptor.blockSize
        if readings.count * keys.count == 1 {
            // One reading: straight into `output`, then the same checks and the same decision.
            let reading = readings[0]
            let (count, length, padding) = CryptoModule(key: keys[0]).openChecked(reading, of: input, into: output)
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
    /// one-reading path above stays small. Each reading is decrypted into scratch; a qualifying one is copied to
    /// `output`. Every check runs for every reading, so the time taken does not tell which one failed. When both
    /// legacy readings are tried, the headerless rule's checks run too, and the winner is decrypted again into
    /// `output` when it was not the first to qualify.
    @inline(never)
    private static func openEach(_ input: UnsafeRawBufferPointer, keys: [CipherKey], readings: Cryptor.Readings,
                                 content: KeyRing.Content, into output: UnsafeMutableRawPointer,
                                 json: (UnsafeRawBufferPointer) -> Bool) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        let capacity = input.count + Cryptor.blockSize
        let pair = readings.isHeaderlessPair
        return try withScratch(capacity) { (scratch) throws(PNCryptError) in
            defer { wipe(scratch.baseAddress!, count: capacity) }
            // The usual one key's two readings in inline slots: no arrays per message.
            var verdicts = InlineList<Verdict>()
            var counts = InlineList<Int>()
            var copied = false
            var firstQualifying = -1
            for (keyIndex, key) in keys.enumerated() {
                let module = CryptoModule(key: key)
                for reading in readings {
                    let (count, length, padding) = module.openChecked(reading, of: input, into: scratch.baseAddress!)
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
                    _ = CryptoModule(key: keys[verdicts[winner].keyIndex]).open(reading, of: input, into: output)
                }
                return (counts[winner], verdicts[winner].keyIndex, verdicts[winner].scheme, winner)
            } catch {
                wipe(output, count: capacity)
                throw error
            }
        }
    }
}

/// A list whose first two elements are held inline (the usual one key's one or two readings): building it
/// allocates nothing until a third element.
struct InlineList<Element>: RandomAccessCollection {
    private var first: Element?
    private var second: Element?
    private var rest: [Element] = []
    private(set) var endIndex = 0

    var startIndex: Int { 0 }

    subscript(position: Int) -> Element {
        switch position {
        case 0: first!
        case 1: second!
        default: rest[position - 2]
        }
    }

    mutating func append(_ element: Element) {
        switch endIndex {
        case 0: first = element
        case 1: second = element
        default: appendRest(element)
        }
        endIndex += 1
    }

    @inline(never)
    private mutating func appendRest(_ element: Element) { rest.append(element) }
}

// MARK: Streams

/// One stream's cipher: a context of its own, an output buffer it owns, and (decrypting) the last block, held back
/// until `finish` has checked its padding. Both buffers are allocated here, wiped when replaced and before they are
/// freed in `deinit`; the sink borrows them for one call.
final class StreamCipher {
    private let context: Backend.Context
    private let decrypting: Bool
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private let last = UnsafeMutableRawBufferPointer.allocate(byteCount: Cryptor.blockSize, alignment: 16)
    private var lastCount = 0

    /// A context for `scheme`'s key in one direction, started with `iv`.
    /// - Throws: `encryptionFailed` (encrypting) or `wrongKeyOrCorrupt` when the cipher cannot start.
    package init(key: CipherKey, scheme: Scheme, encrypting: Bool, iv: [UInt8]) throws(PNCryptError) {
        context = key.pool(scheme, encrypting: encrypting).makeContext()
        decrypting = !encrypting
        guard iv.withUnsafeBytes({ context.start(iv: $0) }) else {
            throw PNCryptError(encrypting ? .encryptionFailed : .wrongKeyOrCorrupt,
                               "the AES cipher could not be initialised")
        }
    }

    deinit {
        wipe(buffer)
        buffer.deallocate()
        wipe(last)
        last.deallocate()
    }

    private func wipe(_ bytes: UnsafeMutableRawBufferPointer) {
        if let base = bytes.baseAddress { PNCryptBase.wipe(base, count: bytes.count) }
    }

    /// Makes the output buffer at least `count` bytes, wiping and freeing the one it replaces.
    private func reserve(_ count: Int) {
        guard buffer.count < count else { return }
        wipe(buffer)
        buffer.deallocate()
        buffer = .allocate(byteCount: count, alignment: 16)
    }

    /// What a cipher failure is: the one decryption failure, or an encryption failure.
    private var failure: PNCryptError {
        decrypting ? CryptoModule.decryptionFailed : PNCryptError(.encryptionFailed, "the AES cipher failed")
    }

    /// Runs `input` through the cipher in pieces of 1 MiB, writing the output to `sink`.
    package func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        let piece = 1 << 20
        var offset = 0
        while offset < input.count {
            let n = min(piece, input.count - offset)
            if buffer.count < n + 2 * Cryptor.blockSize { reserve(max(n, 64 * 1024) + 2 * Cryptor.blockSize) }
            let chunk = UnsafeRawBufferPointer(rebasing: input[offset..<offset + n])
            guard let written = context.update(chunk, into: buffer.baseAddress!) else { throw failure }
            if written > 0 { try emit(written, sink) }
            offset += n
        }
    }

    /// Ends the stream: encrypting, writes the padded last block; decrypting, checks the padding of the block held
    /// back and writes its plaintext.
    /// - Throws: `CryptoModule.decryptionFailed` for bad padding (the held block wiped first).
    package func finish(_ sink: ByteSink) throws(PNCryptError) {
        reserve(2 * Cryptor.blockSize)
        guard let written = context.finish(into: buffer.baseAddress!) else { throw failure }
        if written > 0 { try emit(written, sink) }
        wipe(buffer)
        guard decrypting else { return }
        let opened = PKCS7.unpad(UnsafeRawBufferPointer(start: last.baseAddress, count: lastCount))
        defer { wipe(last) }
        guard opened.valid else { throw CryptoModule.decryptionFailed }
        if opened.count > 0 { try sink(UnsafeRawBufferPointer(start: last.baseAddress, count: opened.count)) }
    }

    /// Writes the first `count` bytes of the buffer; decrypting, all but the last block, which replaces the block
    /// held back so far.
    private func emit(_ count: Int, _ sink: ByteSink) throws(PNCryptError) {
        let output = UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)
        guard decrypting else { return try sink(output) }
        let block = Cryptor.blockSize
        guard count >= block else { return }
        if lastCount > 0 { try sink(UnsafeRawBufferPointer(start: last.baseAddress, count: lastCount)) }
        if count > block { try sink(UnsafeRawBufferPointer(rebasing: output[0..<(count - block)])) }
        last.baseAddress!.copyMemory(from: buffer.baseAddress! + (count - block), byteCount: block)
        lastCount = block
    }

    /// Whether `lastBlock`, decrypted with `iv` (the block before it, or the file's IV), has valid padding.
    static func lastBlockIsPadded(key: CipherKey, scheme: Scheme, iv: [UInt8], lastBlock: [UInt8]) -> Bool {
        let context = key.pool(scheme, encrypting: false).makeContext()
        var block = [UInt8](repeating: 0, count: 2 * Cryptor.blockSize)
        defer { PNCryptBase.wipe(&block) }
        let written = iv.withUnsafeBytes { ivBytes in
            guard context.start(iv: ivBytes) else { return Int?.none }
            return lastBlock.withUnsafeBytes { input in
                block.withUnsafeMutableBytes { context.update(input, into: $0.baseAddress!) }
            }
        }
        guard written == Cryptor.blockSize else { return false }
        return block.withUnsafeBytes {
            PKCS7.unpad(UnsafeRawBufferPointer(rebasing: $0[0..<Cryptor.blockSize])).valid
        }
    }

    /// What the fixed-IV reading's first block of headerless data looks like (`HeaderlessRule.classify`): `block`
    /// is the first 16 bytes of ciphertext, decrypted with the fixed IV into a wiped scratch block.
    static func fixedIVFirstBlock(key: CipherKey, block: some Collection<UInt8>) -> HeaderlessRule.FirstBlock {
        let scheme = Scheme.headerlessPair.fixed
        let context = key.pool(scheme, encrypting: false).makeContext()
        var plain = [UInt8](repeating: 0, count: 2 * Cryptor.blockSize)
        defer { PNCryptBase.wipe(&plain) }
        let input = Array(block.prefix(Cryptor.blockSize)) + [UInt8](repeating: 0, count: Cryptor.blockSize)
        let written = Cryptor.fixedIV.withUnsafeBytes { ivBytes in
            guard context.start(iv: ivBytes) else { return Int?.none }
            return input.withUnsafeBytes { bytes in
                plain.withUnsafeMutableBytes { context.update(bytes, into: $0.baseAddress!) }
            }
        }
        guard let written, written >= Cryptor.blockSize else { return .noise }
        return plain.withUnsafeBytes {
            HeaderlessRule.classify(UnsafeRawBufferPointer(rebasing: $0[0..<Cryptor.blockSize]))
        }
    }

    /// The headerless rule for a file (`Decision.resolve` with `file`): of two blocks or more, both readings have
    /// valid padding or neither (the same last two blocks), and the rule takes `legacy` when the fixed-IV reading's
    /// first block is text, else `legacy-random-iv`, the SDKs' file format; one block can only be `legacy` (a
    /// random-IV file holds an IV and at least one block).
    static func headerlessFileScheme(key: CipherKey, firstBlock: some Collection<UInt8>, blocks: Int) -> Scheme {
        let (fixed, random) = Scheme.headerlessPair
        guard blocks >= 2 else { return fixed }
        let first = fixedIVFirstBlock(key: key, block: firstBlock)
        func verdict(_ scheme: Scheme, _ firstBlock: HeaderlessRule.FirstBlock?) -> Decision.Verdict {
            Decision.Verdict(keyIndex: 0, scheme: scheme, padding: true, utf8: false, json: false,
                             firstBlock: firstBlock)
        }
        return Decision.resolve(fixed: verdict(fixed, first), random: verdict(random, nil), content: .bytes,
                                file: true) ?? random
    }

    /// As `finish` when decrypting, for a reading that is only checked, never output: instead of throwing on bad
    /// padding, writes the whole held block to `sink` (so later checks run over as many bytes whatever the
    /// padding) and returns false.
    func finishReportingPadding(_ sink: ByteSink) throws(PNCryptError) -> Bool {
        reserve(2 * Cryptor.blockSize)
        guard let written = context.finish(into: buffer.baseAddress!) else { throw failure }
        if written > 0 { try emit(written, sink) }
        wipe(buffer)
        let opened = PKCS7.unpad(UnsafeRawBufferPointer(start: last.baseAddress, count: lastCount))
        defer { wipe(last) }
        let count = opened.valid ? opened.count : lastCount
        if count > 0 { try sink(UnsafeRawBufferPointer(start: last.baseAddress, count: count)) }
        return opened.valid && lastCount > 0
    }
}
