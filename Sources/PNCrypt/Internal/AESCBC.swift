// The AES-CBC core of PNCrypt: the one encrypt path (header or IV, then ciphertext, into one buffer), the
// decryption of one reading with the padding checked in constant time, and the choice between readings.
//
// Ownership: every pointer here is borrowed for the duration of one call. Input buffers belong to the caller.
// Output buffers are the caller's (`into output:` has the documented room) or scratch from `withScratch`, which
// never escapes the call. Scratch and outputs that may hold plaintext of a failed decryption are wiped before
// they are released or returned. Cipher contexts come from the key's `ContextPool`, one caller at a time.

extension CryptoModule {
    /// The one encrypt path: writes `scheme`'s output for `input` (the `acrh` header or the random IV, then the
    /// ciphertext) to `output`, which has room for `Cryptor.sealedLength(input.count, scheme:)` bytes; returns
    /// the count written. Random IVs come from the context's reserve of CSPRNG output.
    func seal(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv explicitIV: [UInt8]?, allowEmpty: Bool = false,
              into output: UnsafeMutableRawPointer) throws(PNCryptError) -> Int {
        let givenIV = try Cryptor.checkIV(explicitIV, scheme: scheme)
        try Cryptor.checkNotEmpty(input.count, scheme: scheme, allowEmpty: allowEmpty)
        let prefix = Cryptor.prefixLength(scheme)
        let sealedCount = Cryptor.sealedLength(input.count, scheme: scheme)
        let sealed = UnsafeMutableRawBufferPointer(start: output, count: sealedCount)
        if scheme == .acrh {
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
                throw PNCryptError(.encryptionFailed, "the random number generator (RAND_bytes) failed")
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
    func sealToBase64(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv: [UInt8]?, quoted: Bool,
                      allowEmpty: Bool = false) throws(PNCryptError) -> [UInt8] {
        try withScratch(Cryptor.sealedLength(input.count, scheme: scheme)) { (sealed) throws(PNCryptError) in
            let n = try seal(input, scheme: scheme, iv: iv, allowEmpty: allowEmpty, into: sealed.baseAddress!)
            return Base64.encode(UnsafeRawBufferPointer(rebasing: sealed[0..<n]), quoted: quoted)
        }
    }

    /// `seal`, returned as an array.
    func sealToBytes(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv: [UInt8]?) throws(PNCryptError) -> [UInt8] {
        var failure: PNCryptError?
        let out = [UInt8](unsafeUninitializedCapacity: Cryptor.sealedLength(input.count, scheme: scheme)) {
            buffer, initialized in
            do throws(PNCryptError) {
                let output = UnsafeMutableRawPointer(buffer.baseAddress!)
                initialized = try seal(input, scheme: scheme, iv: iv, into: output)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return out
    }

    /// Decrypts `input` (as `decryptBinary(_:scheme:)`) into a new array.
    func openToBytes(_ input: UnsafeRawBufferPointer, scheme explicit: Scheme?) throws(PNCryptError) -> [UInt8] {
        var failure: PNCryptError?
        let out = [UInt8](unsafeUninitializedCapacity: input.count + Cryptor.blockSize) { buffer, initialized in
            do throws(PNCryptError) {
                initialized = try decrypt(input, scheme: explicit, into: UnsafeMutableRawPointer(buffer.baseAddress!))
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return out
    }

    /// Decrypts `input` (as `decryptBinary(_:scheme:)`; `explicit` nil detects) into `output`, which has room for
    /// `input.count + 16` bytes; returns the plaintext length. One reading: valid padding is enough.
    func decrypt(_ input: UnsafeRawBufferPointer, scheme explicit: Scheme?, into output: UnsafeMutableRawPointer)
        throws(PNCryptError) -> Int {
        let reading = try Cryptor.readings(of: input, scheme: explicit, legacyScheme: legacyScheme)[0]
        return try openVerified(reading, of: input, into: output)
    }

    /// `open`, for a reading that needs no choice: the plaintext length, or (output wiped) the one failure.
    func openVerified(_ reading: Cryptor.Reading, of input: UnsafeRawBufferPointer,
                      into output: UnsafeMutableRawPointer) throws(PNCryptError) -> Int {
        let opened = open(reading, of: input, into: output)
        guard opened.valid else {
            OpenSSL.cleanse(output, count: reading.body.count + Cryptor.blockSize)
            throw Self.decryptionFailed
        }
        return opened.count
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
