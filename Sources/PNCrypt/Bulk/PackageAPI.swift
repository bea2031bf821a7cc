// What the C library (Sources/CPNCrypt) calls beyond the public API: `package` functions that write results
// straight into memory it allocates, so that a call through C costs no intermediate array or `String`.
//
// Ownership: every pointer is the caller's, borrowed for one call; `output` has the room each function states.
// Scratch memory comes from `withScratch` or the stack and never escapes the call; scratch that held plaintext
// is wiped before it is released.

import PNCryptBase
import PNCryptJSON
import PNCryptCore
import PNCryptCompression


extension CryptoModule {
    /// The length of the Base64 text `encrypt(_:)` makes of `count` bytes in this module's scheme (the C
    /// library sizes its output buffers with it).
    package func base64Count(sealing count: Int) -> Int {
        Base64.encodedCount(Cryptor.sealedLength(count, scheme: scheme))
    }

    /// `encrypt(_:)` into the caller's memory: writes the Base64 text of `input` sealed in this module's scheme at
    /// `output`, which has room for `base64Count(sealing: input.count)` bytes, and returns that count.
    package func encryptBase64(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer)
        throws(PNCryptError) -> Int {
        let scheme = self.scheme
        return try withScratch(Cryptor.sealedLength(input.count, scheme: scheme)) { (sealed) throws(PNCryptError) in
            let n = try seal(input, scheme: scheme, iv: nil, into: sealed.baseAddress!)
            Base64.encode(UnsafeRawBufferPointer(rebasing: sealed[0..<n]), into: output)
            return Base64.encodedCount(n)
        }
    }
}

extension JSONValue {
    /// Writes this value's compact JSON text (as `serialized()`) into stack scratch and returns what `copy` makes
    /// of it, without an intermediate array. With `secret` (plaintext), the scratch is wiped afterwards. Not
    /// generic, so that a call from another module is as fast as one from inside.
    package func serializedCompact(secret: Bool, _ copy: (UnsafeRawBufferPointer) -> UnsafeMutableRawPointer?)
        -> UnsafeMutableRawPointer? {
        withUnsafeTemporaryAllocation(byteCount: JSONWriter.stackBytes, alignment: 16) { scratch in
            var writer = JSONWriter(style: .compact, output: ByteBuffer(startingIn: scratch, secret: secret))
            writer.write(self)
            return writer.output.withBytes(copy)
        }
    }
}
