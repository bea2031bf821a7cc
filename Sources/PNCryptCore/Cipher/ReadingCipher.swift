// The reading cipher: one plaintext sealed, or one reading of a ciphertext opened, with one key. The decrypt path
// runs one way down: the facades (`CryptoModule`, `KeyRing`, `MessageCrypto`) → `Decision` (every reading, every
// check, one verdict) → `ReadingCipher.open` (one reading) → `CipherKey.withContext` (the key's `ContextPool`) →
// `Backend` (OpenSSL or swift-crypto); the encrypt path is the facades → `ReadingCipher.seal` → the same seam.
// Nothing here decides between readings or knows what a message is.
//
// Ownership: every pointer here is borrowed for the duration of one call. Input buffers belong to the caller.
// Output buffers are the caller's (`into output:` has the documented room) or scratch from `withScratch`, which
// never escapes the call. Scratch and outputs that may hold plaintext of a failed decryption are wiped before
// they are released or returned. Cipher contexts come from the key's `ContextPool`, one caller at a time.

import PNCryptBase

/// Seals one plaintext or opens one reading with one key (docs/formats.md section 1): the scheme's derived key
/// (`CipherKey`), where its IV lies and what precedes the ciphertext (`Cryptor`, `CryptorHeader`), AES-256-CBC
/// (AES-128-CBC for `legacy33`) through the backend seam, and PKCS#7 padding checked in constant time (`PKCS7`).
///
/// The key is a parameter, borrowed for the call: a message path that holds its key never copies it into a
/// `CryptoModule` (a retain and a release per message).
package enum ReadingCipher {
    // MARK: Seal

    /// The one encrypt path: writes `scheme`'s output for `input` (the `acrh` header or the random IV, then the
    /// ciphertext) with `key` to `output`, which has room for `Cryptor.sealedLength(input.count, scheme:)` bytes;
    /// returns the count written. Random IVs come from the context's reserve of CSPRNG output.
    @inline(__always)
    package static func seal(_ input: UnsafeRawBufferPointer, with key: CipherKey, scheme: Scheme,
                             iv explicitIV: [UInt8]?, allowEmpty: Bool = false,
                             into output: UnsafeMutableRawPointer) throws(PNCryptError) -> Int {
        let prefix = Cryptor.prefixLength(scheme)
        // The fixed IV is read in place below: a copy of it (`checkIV`'s result) is a retain and a release.
        let givenIV: [UInt8]?
        if prefix == 0 {
            try Cryptor.checkFixedIV(explicitIV, scheme: scheme)
            givenIV = nil
        } else {
            givenIV = try Cryptor.checkIV(explicitIV, scheme: scheme)
        }
        try Cryptor.checkNotEmpty(input.count, scheme: scheme, allowEmpty: allowEmpty)
        let sealedCount = Cryptor.sealedLength(input.count, scheme: scheme)
        let sealed = UnsafeMutableRawBufferPointer(start: output, count: sealedCount)
        if scheme.hasHeader { CryptorHeader.writeACRHStart(to: output) }
        let n = try key.withContext(scheme, encrypting: true) { (context) throws(PNCryptError) -> Int? in
            guard prefix > 0 else {
                // The fixed IV: nothing before the ciphertext.
                return Cryptor.fixedIV.withUnsafeBytes {
                    context.run(iv: $0, input: input, output: sealed, prefix: 0)
                }
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
    package static func sealToBase64(_ input: UnsafeRawBufferPointer, with key: CipherKey, scheme: Scheme,
                                     iv: [UInt8]?, quoted: Bool, allowEmpty: Bool = false)
        throws(PNCryptError) -> [UInt8] {
        try withScratch(Cryptor.sealedLength(input.count, scheme: scheme)) { (sealed) throws(PNCryptError) in
            let n = try seal(input, with: key, scheme: scheme, iv: iv, allowEmpty: allowEmpty,
                             into: sealed.baseAddress!)
            return Base64.encode(UnsafeRawBufferPointer(rebasing: sealed[0..<n]), quoted: quoted)
        }
    }

    /// `seal`, returned as an array.
    static func sealToBytes(_ input: UnsafeRawBufferPointer, with key: CipherKey, scheme: Scheme, iv: [UInt8]?)
        throws(PNCryptError) -> [UInt8] {
        try makeBytes(capacity: Cryptor.sealedLength(input.count, scheme: scheme)) { (output) throws(PNCryptError) in
            try seal(input, with: key, scheme: scheme, iv: iv, into: output)
        }
    }

    // MARK: Open

    /// `open`, also returning the length of the whole decrypted body (padding included), over which the checks
    /// of `Decision.verdict` run whatever the padding gave.
    package static func openChecked(_ reading: Cryptor.Reading, of input: UnsafeRawBufferPointer,
                                    with key: CipherKey, into output: UnsafeMutableRawPointer)
        -> (count: Int, length: Int, valid: Bool) {
        let opened = open(reading, of: input, with: key, into: output)
        return (opened.count, reading.body.count, opened.valid)
    }

    /// Decrypts one reading of `input` with `key` into `output` (room for the body's length + 16) and removes the
    /// padding in constant time. The output holds the whole body when the padding is not valid (to be wiped).
    static func open(_ reading: Cryptor.Reading, of input: UnsafeRawBufferPointer, with key: CipherKey,
                     into output: UnsafeMutableRawPointer) -> (count: Int, valid: Bool) {
        let body = UnsafeRawBufferPointer(rebasing: input[reading.body])
        let out = UnsafeMutableRawBufferPointer(start: output, count: body.count + Cryptor.blockSize)
        let n = if let iv = reading.iv {
            key.withContext(reading.scheme, encrypting: false) {
                $0.run(iv: UnsafeRawBufferPointer(rebasing: input[iv]), input: body, output: out, prefix: 0)
            }
        } else {
            Cryptor.fixedIV.withUnsafeBytes { fixed in
                key.withContext(reading.scheme, encrypting: false) {
                    $0.run(iv: fixed, input: body, output: out, prefix: 0)
                }
            }
        }
        guard let n else { return (body.count, false) }
        return PKCS7.unpad(UnsafeRawBufferPointer(start: output, count: n))
    }
}
