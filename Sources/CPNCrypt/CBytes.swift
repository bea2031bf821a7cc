// The header's "Bytes <-> Base64" section: encrypt, decrypt and decrypt as text, one item each.
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

@_cdecl("pncrypt_encrypt")
public func pncrypt_encrypt(_ module: CModuleHandle, _ data: UnsafePointer<UInt8>?, _ len: Int, _ base64Out: CTextOut,
                            _ err: CErrorOut) -> Int32 {
    guarded(err, holding: module) {
        let out = try outputArgument(base64Out, "base64_out")
        let module = try CModule.from(module)
        let input = try bytesArgument(data, len, "data")
        // Encrypted straight into the buffer returned, sized exactly (as each item of pncrypt_encrypt_many).
        let sealed = try CBuffer.filled(capacity: module.crypto.base64Count(sealing: input.count)) {
            try module.crypto.encryptBase64(input, into: $0)
        }
        out.pointee = sealed.buffer.assumingMemoryBound(to: CChar.self)
    }
}

@_cdecl("pncrypt_decrypt")
public func pncrypt_decrypt(_ module: CModuleHandle, _ scheme: CText, _ base64: CText, _ len: Int, _ out: CBytesOut,
                            _ outLen: UnsafeMutablePointer<Int>?, _ err: CErrorOut) -> Int32 {
    decryptOne(module, scheme, base64, len, out, outLen, err, content: .bytes)
}

@_cdecl("pncrypt_decrypt_text")
public func pncrypt_decrypt_text(_ module: CModuleHandle, _ scheme: CText, _ base64: CText, _ len: Int,
                                 _ out: CBytesOut, _ outLen: UnsafeMutablePointer<Int>?, _ err: CErrorOut) -> Int32 {
    decryptOne(module, scheme, base64, len, out, outLen, err, content: .text)
}

/// pncrypt_decrypt and pncrypt_decrypt_text: what a plaintext must be to qualify is `content`.
func decryptOne(_ module: CModuleHandle, _ scheme: CText, _ base64: CText, _ len: Int, _ out: CBytesOut,
                _ outLen: UnsafeMutablePointer<Int>?, _ err: CErrorOut, content: KeyRing.Content) -> Int32 {
    outLen?.pointee = 0
    return guarded(err, holding: module) {
        let out = try outputArgument(out, "out")
        guard let outLen else { throw CFailure.argument("out_len is NULL") }
        let module = try CModule.from(module)
        let reading = try readingArgument(scheme, legacy: module.legacy)
        var plaintext = try module.decrypt(text: try textArgument(base64, len, "base64"), reading: reading,
                                           content: content)
        defer { wipe(&plaintext) }
        out.pointee = try CBuffer.copy(plaintext).assumingMemoryBound(to: UInt8.self)
        outLen.pointee = plaintext.count
    }
}

extension CModule {
    /// Base64, then the library's one decision procedure (`KeyRing.decrypt`) over every key of the module and the
    /// readings `reading` allows (`readingArgument`): for `auto`, every reading of the data: a PNED header, else both
    /// legacy readings (legacy33 for a legacy33 module); for a list, every reading of its items. The plaintext comes
    /// back only when exactly one reading qualifies as `content`. The caller wipes it.
    /// As text, the one key-dependent failure also says that a binary plaintext is read as bytes when the library's
    /// rule finds one plausible (`FailureHint.binaryPlaintextPlausible`: longer than any message, and no key of an
    /// unusual shape; the same words for every such failure, so it tells nothing about which check failed).
    func decrypt(text: UnsafeRawBufferPointer, reading: ReadPolicy, content: KeyRing.Content) throws(PNCryptError)
        -> [UInt8] {
        // The raw-buffer decoder and the raw-buffer decision: the `some Collection` ones are generic across the
        // module boundary (their contiguous buffer and `Result` looked metadata up at run time on every item).
        let ciphertext = try Base64.decode(text)
        do {
            return try withBytes(ciphertext) { (input) throws(PNCryptError) in
                try ring.decrypt(bytes: input, reading: reading, content: content)
            }.plaintext
        } catch where content == .text && error == CryptoModule.decryptionFailed
                    && FailureHint.binaryPlaintextPlausible(raw: false, ciphertextCount: ciphertext.count,
                                                            keyHint: keyHint) {
            throw PNCryptError(error.code, error.message + CFailure.binaryPlaintextHint, offset: error.offset)
        }
    }
}
