// The baselines `pncrypt bench` compares against: OpenSSL's EVP and zlib called directly, with nothing of
// PNCrypt in between. Every C call of the executable lives in this file. Each function owns what it allocates
// and frees it before returning.
internal import CLibCrypto
internal import CZlib

enum Baselines {
    /// A bare EVP loop: one keyed context reused, only the IV reset per message. Returns the bytes produced, so the
    /// work cannot be optimised away.
    static func evpMessages(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool, count: Int) -> Int {
        guard let ctx = EVP_CIPHER_CTX_new() else { return 0 }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let cipher = EVP_CIPHER_fetch(nil, "AES-256-CBC", nil)
        defer { EVP_CIPHER_free(cipher) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 32)
        var total = 0
        key.withUnsafeBufferPointer { k in _ = EVP_CipherInit_ex(ctx, cipher, nil, k.baseAddress, nil, encrypt ? 1 : 0) }
        plaintext.withUnsafeBufferPointer { input in
            iv.withUnsafeBufferPointer { ivp in
                out.withUnsafeMutableBufferPointer { o in
                    for _ in 0..<count {
                        var n: Int32 = 0
                        var m: Int32 = 0
                        EVP_CipherInit_ex(ctx, nil, nil, nil, ivp.baseAddress, -1)
                        EVP_CipherUpdate(ctx, o.baseAddress, &n, input.baseAddress, Int32(input.count))
                        EVP_CipherFinal_ex(ctx, o.baseAddress! + Int(n), &m)
                        total += Int(n + m)
                    }
                }
            }
        }
        return total
    }

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
            iv.withUnsafeBufferPointer { v in _ = EVP_CipherInit_ex(ctx, cipher, nil, k.baseAddress, v.baseAddress, encrypt ? 1 : 0) }
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
