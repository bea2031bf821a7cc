import Foundation
import PNCrypt
import PNCryptFiles
import SystemPackage

extension Suite {
    /// The time of the one decision procedure whichever check fails: two keys on headerless text
    /// (`bulkBytes / 2`, 32 MiB by default; both legacy readings with each key), decrypted as text and as a
    /// message. Baseline: every reading fails on padding (made with a third key). Ours: one key's readings pass the
    /// padding and fail on UTF-8 (its last byte is not UTF-8), or, as a message, are UTF-8 and fail on JSON. The
    /// ratio is the baseline's time over ours: 1.0 means the same time.
    func trustFigures() throws -> [Bench.Result] {
        let ring = try KeyRing(["bench-key-a", "bench-key-b"])
        let size = bulkBytes / 2
        let text = [UInt8](repeating: UInt8(ascii: "x"), count: size - 2)
        /// `body + suffix` sealed (fixed IV) with `key`, for the first suffix whose readings give `wanted`.
        func sealed(_ key: String, _ body: [UInt8], _ wanted: (PNCryptError) -> Bool) throws -> [UInt8] {
            for n in 0..<1000 {
                let data = try CryptoModule(cipherKey: key).encryptBinary(body + [UInt8(ascii: "a") + UInt8(n % 26),
                                                                                  0xFF], scheme: Measured.fixedIV)
                do {
                    _ = try ring.decrypt(data, content: .text)
                } catch {
                    if wanted(error) { return data }
                }
            }
            throw PNCryptError(.invalidValue, "no suitable ciphertext")
        }
        // Every reading fails on padding: the third key, and no key of the ring passes (as bytes: failure).
        let paddingFails = try sealed("bench-key-other", text) { _ in true }
        let bytesError = try? ring.decrypt(paddingFails, content: .bytes)
        guard bytesError == nil else { throw PNCryptError(.invalidValue, "a ring key passed the padding") }
        let utf8Fails = try sealed("bench-key-a", text) { $0 == CryptoModule.decryptionFailed }
        // As a message: the same, except that key a's plaintext is UTF-8 text that is not JSON.
        let notJSON = try CryptoModule(cipherKey: "bench-key-a").encryptBinary(text + Array("ab".utf8),
                                                                               scheme: Measured.fixedIV)
        func attempt(_ data: [UInt8], _ content: KeyRing.Content) -> Int {
            (try? ring.decrypt(data, content: content)).map { $0.plaintext.count } ?? 1
        }
        let mb = Double(size) / 1e6
        let utf8 = compare({ rate(1) { attempt(utf8Fails, .text) } * mb },
                           { rate(1) { attempt(paddingFails, .text) } * mb })
        let json = compare({ rate(1) { attempt(notJSON, .message) } * mb },
                           { rate(1) { attempt(paddingFails, .message) } * mb })
        let label = "\(size >> 20) MiB, 2 keys x 2 readings"
        return [
            Bench.Result(name: "trust.text.utf8-fails", unit: "MB/s", value: utf8.0,
                         baseline: "all fail on padding, \(label)", baselineValue: utf8.1),
            Bench.Result(name: "trust.json.json-fails", unit: "MB/s", value: json.0,
                         baseline: "all fail on padding, \(label)", baselineValue: json.1),
        ]
    }

    func bulk() throws -> [Bench.Result] {
        let key = try CipherKey("bench-key")
        var data = [UInt8](repeating: 0, count: bulkBytes)
        for i in stride(from: 0, to: data.count, by: 64) { data[i] = UInt8(truncatingIfNeeded: i >> 6) }
        let sealed = try StreamPipeline.run(data, through: [StreamEncryptor(key: key, scheme: .defaultForWriting)])
        let mb = Double(bulkBytes) / 1e6
        let evpKey = [UInt8](repeating: 7, count: 32)
        let iv = [UInt8](repeating: 1, count: 16)
        let scheme = Scheme.defaultForWriting
        let enc = try compare({ try rate(1) { try discard(data, StreamEncryptor(key: key, scheme: scheme)) } * mb },
                              { rate(1) { Baselines.evpBulk(data, key: evpKey, iv: iv, encrypt: true) } * mb })
        let dec = try compare({ try rate(1) { try discard(sealed, StreamDecryptor(key: key)) } * mb },
                              { rate(1) { Baselines.evpBulk(sealed, key: evpKey, iv: iv, encrypt: false) } * mb })
        return [
            Bench.Result(name: "bulk.encrypt", unit: "MB/s", value: enc.0, baseline: Baselines.bulkLabel,
                baselineValue: enc.1),
            Bench.Result(name: "bulk.decrypt", unit: "MB/s", value: dec.0, baseline: Baselines.bulkLabel,
                baselineValue: dec.1),
        ]
    }

    /// Text mode as the CLI runs it, against the one-shot calls on the whole text in memory: streamed encryption
    /// to Base64 (`TextStreamEncryptor`), and streamed decryption (Base64 decoded into a temporary file, every
    /// reading checked over it, then the winner decrypted again: `TextStreamDecryptor`). Per MB of plaintext.
    func textFigures() throws -> [Bench.Result] {
        let key = try CipherKey("bench-key")
        let data = Self.asciiText(bulkBytes)
        let text = try CryptoModule(key: key).encrypt(data, scheme: .defaultForWriting)
        let base64 = Array(text.utf8)
        let ring = try KeyRing(keys: [key])
        let mb = Double(bulkBytes) / 1e6
        let module = CryptoModule(key: key)
        let scheme = Scheme.defaultForWriting
        let enc = try compare({ try rate(1) { try discard(data, TextStreamEncryptor(key: key, scheme: scheme)) } * mb },
                              { try rate(1) { try module.encrypt(data, scheme: .defaultForWriting).utf8.count } * mb })
        let scratch = try ScratchFile("text")
        let reader = TextStreamDecryptor(ring: ring, reading: .only(.defaultForWriting))
        func streamed() throws -> Int { try scratch.decryptText(base64, with: reader).count }
        let dec = try compare({ try rate(1) { try streamed() } * mb },
                              { try rate(1) {
                                  try ring.decrypt(try Base64.decode(base64), reading: .only(scheme), content: .text)
                                      .plaintext.count
                              } * mb })
        return [
            Bench.Result(name: "text.encrypt", unit: "MB/s", value: enc.0, baseline: "one-shot encrypt",
                         baselineValue: enc.1),
            Bench.Result(name: "text.decrypt", unit: "MB/s", value: dec.0, baseline: "one-shot decrypt",
                         baselineValue: dec.1),
        ]
    }

    /// Streams `data` through `stage` in 1 MiB chunks, discarding the output, as a file would go.
    func discard(_ data: [UInt8], _ stage: any ByteStreamStage) throws -> Int {
        var total = 0
        let piece = 1 << 20
        try data.withUnsafeBytes { (all: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < all.count {
                let n = min(piece, all.count - offset)
                try stage.update(UnsafeRawBufferPointer(rebasing: all[offset..<offset + n])) { total += $0.count }
                offset += n
            }
            try stage.finish { total += $0.count }
        }
        return total
    }

    /// `size` bytes of text (lines of ASCII), as the text and auto figures read it.
    static func asciiText(_ size: Int) -> [UInt8] {
        let line = Array("The quick brown fox jumps over the lazy dog, 0123456789\n".utf8)
        var data: [UInt8] = []
        data.reserveCapacity(size + line.count)
        while data.count < size { data += line }
        return Array(data.prefix(size))
    }
}

/// An unlinked 0600 temporary file, as the CLI's `decrypt` of text decodes its Base64 into one.
final class ScratchFile {
    let fd: FileDescriptor

    init(_ name: String) throws {
        let path = NSTemporaryDirectory() + "pncrypt-bench-\(name)-\(getpid()).bin"
        fd = try FileDescriptor.open(FilePath(path), .readWrite, options: [.create, .truncate],
                                     permissions: [.ownerReadWrite])
        unlink(path)
    }

    deinit { try? fd.close() }

    /// `decrypt` of Base64 text as the CLI runs it: decoded into this file, every reading checked over all of it,
    /// the winner written (and discarded); returns the scheme read and the plaintext's length.
    func decryptText(_ base64: [UInt8], with reader: TextStreamDecryptor) throws -> (scheme: Scheme, count: Int) {
        _ = ftruncate(fd.rawValue, 0)
        let decoded = try StreamPipeline.run(base64, through: [Base64StreamDecoder()])
        try fd.writeAll(toAbsoluteOffset: 0, decoded)
        let choice = try reader.choose(ciphertext: fd, length: decoded.count)
        var total = 0
        try reader.write(choice, ciphertext: fd) { total += $0.count }
        return (choice.scheme, total)
    }
}
