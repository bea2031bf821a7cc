// The buffers the C entry points hand to the caller (`CBuffer`: sized and marked so that `pncrypt_free` knows how
// much to wipe), and the results written straight into them, over the `package` API of the layers. Nothing here
// knows a format: that is PNCrypt's.
import PNCrypt
import PNCryptPlatform

/// Buffers handed to the caller: `[size: Int][magic: Int][bytes...][NUL]`, so that `pncrypt_free` knows how
/// much to wipe. The caller sees the address of the bytes.
enum CBuffer {
    static let headerSize = 16
    static let magic = Int(bitPattern: 0x706E_6372_7970_7421)  // "pncrypt!"

    /// A buffer holding `bytes` and a NUL after them; nil when memory runs out.
    static func make(_ bytes: UnsafeRawBufferPointer) -> UnsafeMutableRawPointer? {
        let size = headerSize + bytes.count + 1
        guard let base = malloc(size) else { return nil }
        base.storeBytes(of: size, as: Int.self)
        base.storeBytes(of: magic, toByteOffset: 8, as: Int.self)
        let body = base + headerSize
        if let source = bytes.baseAddress { body.copyMemory(from: source, byteCount: bytes.count) }
        (body + bytes.count).storeBytes(of: 0, as: UInt8.self)
        return body
    }

    /// A buffer with room for `capacity` bytes and a NUL, for `filled` to fill; throws `PNCRYPT_E_NOMEM`. `free`
    /// wipes all of it, written or not.
    private static func allocate(_ capacity: Int) throws -> UnsafeMutableRawPointer {
        guard capacity >= 0, capacity <= Int.max - headerSize - 1, let base = malloc(headerSize + capacity + 1) else {
            throw CFailure(ErrorCodes.noMemory, "out of memory")
        }
        base.storeBytes(of: headerSize + capacity + 1, as: Int.self)
        base.storeBytes(of: magic, toByteOffset: 8, as: Int.self)
        return base + headerSize
    }

    /// A new buffer with room for `capacity` bytes that `body` writes, returning how many it wrote; a NUL goes
    /// after them. Returns the buffer and that count. If `body` throws, the buffer is wiped and freed and the
    /// error passes on.
    static func filled(capacity: Int, _ body: (UnsafeMutableRawPointer) throws -> Int) throws
        -> (buffer: UnsafeMutableRawPointer, count: Int) {
        let buffer = try allocate(capacity)
        do {
            let count = try body(buffer)
            (buffer + count).storeBytes(of: 0, as: UInt8.self)
            return (buffer, count)
        } catch {
            free(buffer)
            throw error
        }
    }

    /// Copies `bytes` into a new buffer, or throws `PNCRYPT_E_NOMEM`.
    static func copy(_ bytes: [UInt8]) throws -> UnsafeMutableRawPointer {
        guard let buffer = bytes.withUnsafeBytes({ make($0) }) else {
            throw CFailure(ErrorCodes.noMemory, "out of memory")
        }
        return buffer
    }

    /// The JSON text of `value` (compact) in a new buffer, written without an intermediate array (into stack
    /// scratch, wiped afterwards when the text is `secret`, then copied), or throws `PNCRYPT_E_NOMEM`.
    static func copy(serializing value: JSONValue, secret: Bool) throws -> UnsafeMutableRawPointer {
        guard let buffer = value.serializedCompact(secret: secret, { make($0) }) else {
            throw CFailure(ErrorCodes.noMemory, "out of memory")
        }
        return buffer
    }

    /// Wipes and frees a buffer made by `make`; ignores nil and pointers without the magic.
    static func free(_ body: UnsafeMutableRawPointer?) {
        guard let body else { return }
        let base = body - headerSize
        guard base.load(fromByteOffset: 8, as: Int.self) == magic else { return }
        let size = base.load(as: Int.self)
        PNCryptBase.wipe(base, count: size)
        release(base)
    }
}

/// The C library's `free` (the name is taken inside `CBuffer`).
private func release(_ pointer: UnsafeMutableRawPointer) { free(pointer) }

// MARK: Writing in place

// Results written straight into the buffers the C caller gets, so that a call through C costs no intermediate array
// or `String`, over the `package` API of the layers. Every pointer is the caller's, borrowed for one call; scratch
// memory comes from `withScratch` or the stack and never escapes the call; scratch that held plaintext is wiped
// before it is released.

extension CryptoModule {
    /// The length of the Base64 text `encrypt(_:)` makes of `count` bytes in this module's scheme (the C
    /// library sizes its output buffers with it).
    func base64Count(sealing count: Int) -> Int {
        Base64.encodedCount(Cryptor.sealedLength(count, scheme: scheme))
    }

    /// `encrypt(_:)` into the caller's memory: writes the Base64 text of `input` sealed in this module's scheme at
    /// `output`, which has room for `base64Count(sealing: input.count)` bytes, and returns that count.
    func encryptBase64(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer)
        throws(PNCryptError) -> Int {
        let scheme = self.scheme
        return try withScratch(Cryptor.sealedLength(input.count, scheme: scheme)) { (sealed) throws(PNCryptError) in
            let n = try ReadingCipher.seal(input, with: key, scheme: scheme, iv: nil, into: sealed.baseAddress!)
            Base64.encode(UnsafeRawBufferPointer(rebasing: sealed[0..<n]), into: output)
            return Base64.encodedCount(n)
        }
    }
}

extension JSONValue {
    /// Writes this value's compact JSON text (as `serialized()`) into stack scratch and returns what `copy` makes
    /// of it, without an intermediate array. With `secret` (plaintext), the scratch is wiped afterwards.
    func serializedCompact(secret: Bool, _ copy: (UnsafeRawBufferPointer) -> UnsafeMutableRawPointer?)
        -> UnsafeMutableRawPointer? {
        withUnsafeTemporaryAllocation(byteCount: JSONWriter.stackBytes, alignment: 16) { scratch in
            var writer = JSONWriter(style: .compact, output: ByteBuffer(startingIn: scratch, secret: secret))
            writer.write(self)
            return writer.output.withBytes(copy)
        }
    }
}
