// The one file-decrypt routine of the shells (the CLI's `decrypt --binary`, the C library's
// `pncrypt_decrypt_file_scheme`): the key is chosen on the file's head and last blocks before anything is decrypted,
// then the file is streamed once through the decryptor of the reading that qualified. No memory is owned here
// beyond the head and tail arrays (ciphertext); the stream's buffer is `FileDescriptor.pump`'s.

import PNCryptCore
import PNCryptBase

/// Decrypting a file: choosing its one (key, scheme) reading, then streaming it.
package enum FileDecryption {
    /// The reading of a file that qualified, and the stage that decrypts it.
    package struct Choice {
        /// Index of the key in the ring (0 is the first).
        package let keyIndex: Int
        /// The file format that read it.
        package let scheme: Scheme
        /// The decryptor of that reading, not yet fed.
        package let decryptor: StreamDecryptor
    }

    /// Chooses the reading of the file in `source` on its head and its last two blocks (`KeyRing.fileMatch`: a key
    /// qualifies when its padding is valid, and exactly one key must), and makes the decryptor of that reading:
    /// with a header, `reading` as given; headerless, the file format that qualified.
    /// - Parameters:
    ///   - source: the file, read by offset (its snapshot length is the file's length).
    ///   - ring: the keys to try.
    ///   - reading: how the file is read (`ReadPolicy`; `.rule` applies the headerless rule for files).
    /// - Throws: `FileError` when the file cannot be read; `PNCryptError` as `KeyRing.fileMatch` (format errors,
    ///   `CryptoModule.decryptionFailed` when no key qualifies, `ambiguous` when several do).
    package static func choose(_ source: InputSource, ring: KeyRing, reading: ReadPolicy) throws -> Choice {
        let head = try source.read(at: 0, count: StreamDecryptor.headLength)
        let tail = try source.read(at: max(0, source.length - 32), count: 32)
        let match = try ring.fileMatch(head: head, tail: tail, length: source.length, reading: reading)
        let chosen = match.scheme.hasHeader ? reading : ReadPolicy(scheme: reading.scheme, legacyScheme: match.scheme)
        let decryptor = try StreamDecryptor(key: ring.keys[match.keyIndex], reading: chosen)
        return Choice(keyIndex: match.keyIndex, scheme: match.scheme, decryptor: decryptor)
    }
}
