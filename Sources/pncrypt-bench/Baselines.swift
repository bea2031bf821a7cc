// The baselines `pncrypt bench` compares against: the cipher backend's library (OpenSSL's EVP, or swift-crypto's
// `AES._CBC` where swift-crypto is the backend: Apple platforms, the `SwiftCrypto` trait) and zlib called directly,
// with nothing of PNCrypt in between. Every C call of the executable lives in this file. Each function owns what it
// allocates and frees it before returning.
#if !PNCRYPT_OPENSSL
#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
// Where Package.swift links swift-crypto by platform (through PNCryptAppleCrypto, which re-exports it).
internal import PNCryptAppleCrypto
#endif
internal import Crypto
internal import _CryptoExtras
#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
#else
internal import CLibCrypto
#endif
internal import CZlib

enum Baselines {
#if PNCRYPT_OPENSSL
    /// The message loops' baseline, as the results name it.
    static let messageLabel = "EVP loop, reused context"
    /// The message loops' baseline with Base64, as the results name it.
    static let base64Label = "EVP + Base64 loop"
    /// The bulk baseline, as the results name it.
    static let bulkLabel = "EVP loop, 1 MiB pieces"

    /// A bare EVP loop: one keyed context reused, only the IV reset per message; with `base64`, each ciphertext is
    /// also Base64-encoded into a reused buffer. Returns the bytes produced, so the work cannot be optimised away.
    static func evpMessages(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool, count: Int,
                            base64: Bool = false) -> Int {
        guard let ctx = EVP_CIPHER_CTX_new() else { return 0 }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let cipher = EVP_CIPHER_fetch(nil, "AES-256-CBC", nil)
        defer { EVP_CIPHER_free(cipher) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 32)
        var text = [UInt8](repeating: 0, count: (plaintext.count + 34) / 3 * 4)
        var total = 0
        key.withUnsafeBufferPointer { k in _ = EVP_CipherInit_ex(ctx, cipher, nil, k.baseAddress, nil,
            encrypt ? 1 : 0) }
        plaintext.withUnsafeBufferPointer { input in
            iv.withUnsafeBufferPointer { ivp in
                out.withUnsafeMutableBufferPointer { o in
                    text.withUnsafeMutableBufferPointer { t in
                        for _ in 0..<count {
                            var n: Int32 = 0
                            var m: Int32 = 0
                            EVP_CipherInit_ex(ctx, nil, nil, nil, ivp.baseAddress, -1)
                            EVP_CipherUpdate(ctx, o.baseAddress, &n, input.baseAddress, Int32(input.count))
                            EVP_CipherFinal_ex(ctx, o.baseAddress! + Int(n), &m)
                            total += Int(n + m)
                            if base64 { total += base64Encode(UnsafeBufferPointer(rebasing: o[0..<Int(n + m)]),
                                into: t) }
                        }
                    }
                }
            }
        }
        ERR_clear_error()
        return total
    }

    /// `plaintext` encrypted once (PKCS#7), for the decrypting loops' input.
    static func evpSeal(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8] {
        guard let ctx = EVP_CIPHER_CTX_new() else { return [] }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var n: Int32 = 0
        var m: Int32 = 0
        out.withUnsafeMutableBufferPointer { o in
            _ = EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), nil, key, iv)
            _ = EVP_EncryptUpdate(ctx, o.baseAddress, &n, plaintext, Int32(plaintext.count))
            _ = EVP_EncryptFinal_ex(ctx, o.baseAddress! + Int(n), &m)
        }
        return Array(out.prefix(Int(n + m)))
    }

    /// A bare receive loop: Base64-decode `text` into a reused buffer, then decrypt it with a reused keyed context.
    static func evpMessagesFromBase64(_ text: [UInt8], key: [UInt8], iv: [UInt8], count: Int) -> Int {
        guard let ctx = EVP_CIPHER_CTX_new() else { return 0 }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let cipher = EVP_CIPHER_fetch(nil, "AES-256-CBC", nil)
        defer { EVP_CIPHER_free(cipher) }
        var sealed = [UInt8](repeating: 0, count: text.count)
        var out = [UInt8](repeating: 0, count: text.count + 32)
        var total = 0
        key.withUnsafeBufferPointer { k in _ = EVP_CipherInit_ex(ctx, cipher, nil, k.baseAddress, nil, 0) }
        text.withUnsafeBufferPointer { input in
            iv.withUnsafeBufferPointer { ivp in
                sealed.withUnsafeMutableBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        for _ in 0..<count {
                            let length = base64Decode(input, into: s)
                            var n: Int32 = 0
                            var m: Int32 = 0
                            EVP_CipherInit_ex(ctx, nil, nil, nil, ivp.baseAddress, -1)
                            EVP_CipherUpdate(ctx, o.baseAddress, &n, s.baseAddress, Int32(length))
                            EVP_CipherFinal_ex(ctx, o.baseAddress! + Int(n), &m)
                            total += Int(n + m) + length
                        }
                    }
                }
            }
        }
        ERR_clear_error()
        return total
    }

#endif

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// Plain table-driven Base64 (padded), the textbook loop.
    private static func base64Encode(_ input: UnsafeBufferPointer<UInt8>,
        into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { table in
            var i = 0
            var o = 0
            while i + 3 <= input.count {
                let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                out[o] = table[Int(v >> 18)]
                out[o + 1] = table[Int(v >> 12 & 63)]
                out[o + 2] = table[Int(v >> 6 & 63)]
                out[o + 3] = table[Int(v & 63)]
                i += 3
                o += 4
            }
            if i < input.count {
                let rest = input.count - i
                let v = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                out[o] = table[Int(v >> 18)]
                out[o + 1] = table[Int(v >> 12 & 63)]
                out[o + 2] = rest == 2 ? table[Int(v >> 6 & 63)] : UInt8(ascii: "=")
                out[o + 3] = UInt8(ascii: "=")
                o += 4
            }
            return o
        }
    }

    /// Decodes well-formed padded Base64 (no validation beyond skipping `=`), the textbook loop.
    private static func base64Decode(_ input: UnsafeBufferPointer<UInt8>,
        into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        decodeTable.withUnsafeBufferPointer { table in
            var quad: UInt32 = 0
            var k = 0
            var o = 0
            for c in input {
                let v = table[Int(c)]
                if v == 0xFF { continue }
                quad = quad << 6 | UInt32(v)
                k += 1
                if k == 4 {
                    out[o] = UInt8(quad >> 16)
                    out[o + 1] = UInt8(quad >> 8 & 0xFF)
                    out[o + 2] = UInt8(quad & 0xFF)
                    o += 3
                    k = 0
                    quad = 0
                }
            }
            // A padded text's last group has 2 or 3 characters: 1 or 2 more bytes (without them the ciphertext is
            // not whole blocks, and every decryption fails in EVP_CipherFinal_ex, pushing an OpenSSL error).
            if k == 2 {
                out[o] = UInt8(quad >> 4 & 0xFF)
                o += 1
            } else if k == 3 {
                out[o] = UInt8(quad >> 10 & 0xFF)
                out[o + 1] = UInt8(quad >> 2 & 0xFF)
                o += 2
            }
            return o
        }
    }

#if PNCRYPT_OPENSSL
    /// A bare EVP loop over a large buffer in 1 MiB pieces (no padding work but the last block).
    static func evpBulk(_ input: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool) -> Int {
        guard let ctx = EVP_CIPHER_CTX_new() else { return 0 }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let cipher = EVP_CIPHER_fetch(nil, "AES-256-CBC", nil)
        defer { EVP_CIPHER_free(cipher) }
        let piece = 1 << 20
        var out = [UInt8](repeating: 0, count: piece + 32)
        var total = 0
        key.withUnsafeBufferPointer { k in
            iv.withUnsafeBufferPointer { v in _ = EVP_CipherInit_ex(ctx, cipher, nil, k.baseAddress, v.baseAddress,
                encrypt ? 1 : 0) }
        }
        input.withUnsafeBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                var offset = 0
                while offset < inp.count {
                    let n = min(piece, inp.count - offset)
                    var w: Int32 = 0
                    EVP_CipherUpdate(ctx, o.baseAddress, &w, inp.baseAddress! + offset, Int32(n))
                    total += Int(w)
                    offset += n
                }
                var w: Int32 = 0
                EVP_CipherFinal_ex(ctx, o.baseAddress, &w)
                total += Int(w)
            }
        }
        return total
    }
#endif

    /// zlib's own loop: gzip framing (windowBits 31, memLevel 8) at `level`, 1 MiB in, output discarded.
    static func zlibCompress(_ input: [UInt8], level: Int32) -> Int {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { deflateEnd(stream); stream.deinitialize(count: 1); stream.deallocate() }
        guard pncrypt_deflateInit2(stream, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK else { return 0 }
        return run(stream, input, piece: 1 << 20, output: 1 << 20) { deflate($0, $1) }
    }

    /// zlib's own loop: inflate with windowBits 47 (gzip or zlib), 1 MiB out at a time, output discarded.
    static func zlibDecompress(_ input: [UInt8]) -> Int {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { inflateEnd(stream); stream.deinitialize(count: 1); stream.deallocate() }
        guard pncrypt_inflateInit2(stream, 47) == Z_OK else { return 0 }
        return run(stream, input, piece: input.count, output: 1 << 20) { z, _ in inflate(z, Z_NO_FLUSH) }
    }

    private static func run(_ stream: UnsafeMutablePointer<z_stream>, _ input: [UInt8], piece: Int, output: Int,
                            _ step: (UnsafeMutablePointer<z_stream>, Int32) -> Int32) -> Int {
        var out = [UInt8](repeating: 0, count: output)
        var total = 0
        input.withUnsafeBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                var offset = 0
                var status = Z_OK
                repeat {
                    let n = min(piece, inp.count - offset)
                    stream.pointee.next_in = UnsafeMutablePointer(mutating: inp.baseAddress! + offset)
                    stream.pointee.avail_in = UInt32(n)
                    offset += n
                    let flush = offset == inp.count ? Z_FINISH : Z_NO_FLUSH
                    repeat {
                        stream.pointee.next_out = o.baseAddress
                        stream.pointee.avail_out = UInt32(o.count)
                        status = step(stream, flush)
                        total += o.count - Int(stream.pointee.avail_out)
                    } while stream.pointee.avail_out == 0 && status == Z_OK
                } while offset < inp.count && status == Z_OK
                while status == Z_OK {
                    stream.pointee.next_out = o.baseAddress
                    stream.pointee.avail_out = UInt32(o.count)
                    status = step(stream, Z_FINISH)
                    total += o.count - Int(stream.pointee.avail_out)
                }
            }
        }
        return total
    }
}

#if !PNCRYPT_OPENSSL
extension Baselines {
    /// The message loops' baseline, as the results name it.
    static let messageLabel = "AES._CBC loop, one SymmetricKey"
    /// The message loops' baseline with Base64, as the results name it.
    static let base64Label = "AES._CBC + Base64 loop"
    /// The bulk baseline, as the results name it.
    static let bulkLabel = "AES._CBC loop, 1 MiB pieces"

    /// A bare swift-crypto loop (the API has no keyed context: one `SymmetricKey`, one IV, one call per message);
    /// with `base64`, each ciphertext is also Base64-encoded into a reused buffer. Returns the bytes produced.
    static func evpMessages(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool, count: Int,
                            base64: Bool = false) -> Int {
        let symmetricKey = SymmetricKey(data: key)
        guard let civ = try? AES._CBC.IV(ivBytes: iv) else { return 0 }
        var text = [UInt8](repeating: 0, count: (plaintext.count + 34) / 3 * 4)
        var total = 0
        plaintext.withUnsafeBytes { input in
            text.withUnsafeMutableBufferPointer { t in
                for _ in 0..<count {
                    guard let out = try? (encrypt ? AES._CBC.encrypt(input, using: symmetricKey, iv: civ)
                                                  : AES._CBC.decrypt(input, using: symmetricKey, iv: civ)) else {
                        continue
                    }
                    total += out.count
                    if base64 {
                        total += out.withUnsafeBytes { base64Encode($0.bindMemory(to: UInt8.self), into: t) }
                    }
                }
            }
        }
        return total
    }

    /// `plaintext` encrypted once (PKCS#7), for the decrypting loops' input.
    static func evpSeal(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8] {
        guard let civ = try? AES._CBC.IV(ivBytes: iv),
              let out = try? AES._CBC.encrypt(plaintext, using: SymmetricKey(data: key), iv: civ) else { return [] }
        return Array(out)
    }

    /// A bare receive loop: Base64-decode `text` into a reused buffer, then decrypt it (one call per message).
    static func evpMessagesFromBase64(_ text: [UInt8], key: [UInt8], iv: [UInt8], count: Int) -> Int {
        let symmetricKey = SymmetricKey(data: key)
        guard let civ = try? AES._CBC.IV(ivBytes: iv) else { return 0 }
        var sealed = [UInt8](repeating: 0, count: text.count)
        var total = 0
        text.withUnsafeBufferPointer { input in
            sealed.withUnsafeMutableBufferPointer { s in
                for _ in 0..<count {
                    let length = base64Decode(input, into: s)
                    let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(s)[0..<length])
                    if let out = try? AES._CBC.decrypt(bytes, using: symmetricKey, iv: civ) { total += out.count }
                    total += length
                }
            }
        }
        return total
    }

    /// A bare swift-crypto loop over a large buffer in 1 MiB pieces (whole blocks, no padding; the IV carried
    /// from piece to piece; encrypting, the last piece padded).
    static func evpBulk(_ input: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool) -> Int {
        let symmetricKey = SymmetricKey(data: key)
        let piece = 1 << 20
        var chain = iv
        var total = 0
        input.withUnsafeBytes { inp in
            var offset = 0
            while offset < inp.count {
                let last = inp.count - offset <= piece
                let n = last && !encrypt ? (inp.count - offset) / 16 * 16 : min(piece, inp.count - offset)
                let bytes = UnsafeRawBufferPointer(rebasing: inp[offset..<offset + n])
                guard n > 0, let civ = try? AES._CBC.IV(ivBytes: chain),
                      let out = try? (encrypt
                        ? AES._CBC.encrypt(bytes, using: symmetricKey, iv: civ, noPadding: !last)
                        : AES._CBC.decrypt(bytes, using: symmetricKey, iv: civ, noPadding: true)) else { break }
                chain = encrypt ? Array(out.suffix(16)) : Array(bytes.suffix(16))
                total += out.count
                offset += piece
            }
        }
        return total
    }
}
#endif
