// One stream's AES-CBC cipher, for the file formats (`StreamEncryptor.swift`, `StreamDecryptor.swift`). Ownership:
// see the type's comment; the context is the stream's own, its buffers are allocated, wiped and freed here.

import PNCryptBase

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
        decrypting ? PNCryptError.decryptionFailed : PNCryptError(.encryptionFailed, "the AES cipher failed")
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
        guard opened.valid else { throw PNCryptError.decryptionFailed }
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

    /// The headerless rule for a file (`Decision.resolve` for bytes): of two blocks or more, both readings have
    /// valid padding or neither (the same last two blocks), and the rule takes `legacy-random-iv`, the SDKs' file
    /// format, when the fixed-IV reading's first block is noise (a decrypted IV), else `legacy`; one block can only
    /// be `legacy` (a random-IV file holds an IV and at least one block).
    static func headerlessFileScheme(key: CipherKey, firstBlock: some Collection<UInt8>, blocks: Int) -> Scheme {
        let (fixed, random) = Scheme.headerlessPair
        guard blocks >= 2 else { return fixed }
        let first = fixedIVFirstBlock(key: key, block: firstBlock)
        func verdict(_ scheme: Scheme, _ firstBlock: HeaderlessRule.FirstBlock?) -> Decision.Verdict {
            Decision.Verdict(keyIndex: 0, scheme: scheme, padding: true, utf8: false, message: false,
                             firstBlock: firstBlock)
        }
        return Decision.resolve(fixed: verdict(fixed, first), random: verdict(random, nil), content: .bytes)
            ?? random
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
