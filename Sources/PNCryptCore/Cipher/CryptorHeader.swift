import PNCryptBase

/// The CryptoModule header that starts every `acrh` message and file (docs/formats.md section 2).
///
/// | offset | size | value |
/// |---|---|---|
/// | 0 | 4 | sentinel `PNED` |
/// | 4 | 1 | version, `0x01` |
/// | 5 | 4 | cryptor id, `ACRH` for AES-CBC |
/// | 9 | 1 or 3 | metadata length: one byte if < 255, else `0xFF` and a big-endian `UInt16` |
/// | .. | n | metadata (for `ACRH`: the 16-byte IV) |
///
/// This file owns the header: its bytes and what they mean (which cryptor follows, where the IV is, what data
/// without a header is when only `acrh` is read). Every other file asks it.
package struct CryptorHeader: Hashable, Sendable {
    /// The four bytes every header starts with: ASCII `PNED`.
    package static let sentinel: [UInt8] = Array("PNED".utf8)
    /// The only header version that exists.
    package static let currentVersion: UInt8 = 1
    /// The AES-CBC cryptor's id, ASCII `ACRH`.
    package static let aesCBCCryptorID: [UInt8] = Array("ACRH".utf8)
    /// The longest header this library reads before it knows the metadata length: sentinel, version, id,
    /// and a 3-byte length.
    package static let maximumFixedLength = 12
    /// The id the legacy cryptor has in the Swift and Go SDKs: four zero bytes. They never write it, but read a
    /// header carrying it as "legacy data follows".
    static let legacyCryptorID: [UInt8] = [0, 0, 0, 0]
    /// The `ACRH` metadata: the AES-CBC IV, `Scheme.ivSize` (16) bytes.
    package static let ivLength = Scheme.ivSize
    /// `PNED`, version 1, `ACRH`, metadata length 16: the 10 bytes before the IV in every header pncrypt writes.
    package static let acrhStart: [UInt8] = sentinel + [currentVersion] + aesCBCCryptorID + [UInt8(ivLength)]
    /// The length of that header with its IV: 26 bytes, `acrhStart.count + ivLength` (a literal: the message path
    /// reads it per message; `SchemeTableTests` checks the sum).
    package static let acrhLength = 26

    /// Header version (1).
    package var version: UInt8
    /// The 4-byte cryptor id.
    package var cryptorID: [UInt8]
    /// Cryptor metadata; for `ACRH`, the IV.
    package var metadata: [UInt8]

    /// A version-1 header for `cryptorID` with `metadata`.
    /// - Throws: `invalidValue` for a cryptor id that is not 4 bytes or metadata over 65,535 bytes.
    package init(cryptorID: [UInt8] = CryptorHeader.aesCBCCryptorID, metadata: [UInt8]) throws(PNCryptError) {
        guard cryptorID.count == 4 else {
            throw PNCryptError(.invalidValue, "a cryptor id is 4 bytes, not \(cryptorID.count)")
        }
        guard metadata.count <= Int(UInt16.max) else {
            throw PNCryptError(.invalidValue, "header metadata is at most 65535 bytes, not \(metadata.count)")
        }
        self.version = Self.currentVersion
        self.cryptorID = cryptorID
        self.metadata = metadata
    }

    /// The cryptor id as text when it is printable ASCII, else as hex.
    package var cryptorIDDescription: String {
        if cryptorID.allSatisfy({ $0 >= 0x21 && $0 < 0x7F }) { return String(decoding: cryptorID, as: UTF8.self) }
        return Hex.encode(cryptorID)
    }

    /// Number of bytes `encoded()` produces.
    package var encodedLength: Int { 9 + (metadata.count < 255 ? 1 : 3) + metadata.count }

    /// The header bytes: the 1-byte length form below 255 bytes of metadata, the 3-byte form from 255 on.
    package func encoded() -> [UInt8] {
        var out = Self.sentinel
        out.reserveCapacity(encodedLength)
        out.append(version)
        out += cryptorID
        if metadata.count < 255 {
            out.append(UInt8(metadata.count))
        } else {
            out += [0xFF, UInt8(metadata.count >> 8), UInt8(metadata.count & 0xFF)]
        }
        out += metadata
        return out
    }

    /// Reads a header from the start of `bytes`.
    ///
    /// - Returns: nil when `bytes` does not start with `PNED` (fewer than 4 bytes, or another sentinel): that is
    ///   not a header, and the data is legacy. Otherwise the header and the number of bytes it occupies.
    /// - Throws: `unknownCryptor` for a version other than 1; `malformedHeader` when the header is cut short
    ///   (no version, id or length byte, or less metadata than announced). The cryptor id is not checked here.
    package static func parse(_ bytes: some Collection<UInt8>) throws(PNCryptError)
        -> (header: CryptorHeader, length: Int)? {
        // No header (headerless data, the auto-mode path of every legacy message): answered before any copy.
        guard bytes.prefix(4).elementsEqual(sentinel) else { return nil }
        let b = Array(bytes.prefix(maximumFixedLength))
        guard b.count >= 5 else { throw cutShort("no version byte after PNED", 4) }
        guard b[4] == currentVersion else {
            throw PNCryptError(.unknownCryptor, "unsupported header version \(b[4]) at offset 4 (only 1 exists)",
                               offset: 4)
        }
        guard b.count >= 9 else { throw cutShort("cryptor id needs 4 bytes, only \(b.count - 5) present", b.count) }
        guard b.count >= 10 else { throw cutShort("no metadata length byte", 9) }
        var metadataLength = Int(b[9])
        var start = 10
        if metadataLength == 255 {
            guard b.count >= 12 else {
                throw cutShort("metadata length 0xFF needs 2 more bytes, only \(b.count - 10) present", b.count)
            }
            metadataLength = Int(b[10]) << 8 | Int(b[11])
            start = 12
        }
        let metadata = Array(bytes.dropFirst(start).prefix(metadataLength))
        guard metadata.count == metadataLength else {
            throw cutShort("header announces \(metadataLength) metadata bytes, only \(metadata.count) present",
                           start + metadata.count)
        }
        var header = try CryptorHeader(cryptorID: Array(b[5..<9]), metadata: metadata)
        header.version = b[4]
        return (header, start + metadataLength)
    }

    private static func cutShort(_ what: String, _ offset: Int) -> PNCryptError {
        PNCryptError(.malformedHeader, "PNED header cut short at offset \(offset): \(what)", offset: offset)
    }
}

// MARK: What a header means

extension CryptorHeader {
    /// The scheme of the data after this header: `Scheme.withHeader` (`acrh`) for `ACRH`; for the legacy cryptor's
    /// id, when reading with detection (`explicit` nil), the caller's legacy scheme, returned as nil.
    /// - Throws: `unknownCryptor` for any other id (or the legacy id when `acrh` is required); `malformedHeader`
    ///   for `ACRH` metadata that is not a 16-byte IV.
    package func scheme(reading explicit: Scheme?) throws(PNCryptError) -> Scheme? {
        if cryptorID == Self.legacyCryptorID && explicit == nil { return nil }
        guard cryptorID == Self.aesCBCCryptorID else {
            throw PNCryptError(.unknownCryptor, "unknown cryptor id '\(cryptorIDDescription)' in PNED header"
                               + " at offset 5 (known: ACRH)", offset: 5)
        }
        guard metadata.count == Self.ivLength else {
            throw PNCryptError(.malformedHeader, "ACRH header metadata is \(metadata.count.counting("byte"));"
                               + " the IV must be \(Self.ivLength)", offset: 9)
        }
        return Scheme.withHeader
    }

    /// Whether `bytes` start with the header pncrypt and every SDK write (`PNED 01 ACRH 10`) and hold its whole IV:
    /// the fast path that needs no parsing.
    package static func startsWithACRH<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        guard bytes.count >= acrhLength else { return false }
        // Contiguous bytes (every message): two loads against the 10 bytes, as little-endian integers.
        if let contiguous = bytes.withContiguousStorageIfAvailable({ buffer in
            let raw = UnsafeRawBufferPointer(buffer)
            return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) == acrhStartWords.0
                && UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)) == acrhStartWords.1
        }) {
            return contiguous
        }
        var index = bytes.startIndex
        for expected in acrhStart {
            guard bytes[index] == expected else { return false }
            bytes.formIndex(after: &index)
        }
        return true
    }

    /// Whether `bytes` start with `sentinel` (`PNED`): what `parse` asks first, in one load for contiguous bytes.
    package static func startsWithSentinel<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        guard bytes.count >= 4 else { return false }
        if let contiguous = bytes.withContiguousStorageIfAvailable({ buffer in
            // The first 4 bytes of `acrhStartWords.0` are the sentinel.
            UInt32(littleEndian: UnsafeRawBufferPointer(buffer).loadUnaligned(as: UInt32.self))
                == UInt32(truncatingIfNeeded: acrhStartWords.0)
        }) {
            return contiguous
        }
        return bytes.prefix(sentinel.count).elementsEqual(sentinel)
    }

    /// `acrhStart` as two little-endian integers (bytes 0 to 7, then 8 and 9): literals, so the message path
    /// compares and writes them without reading the array (`CryptorHeaderTests` checks them against it).
    static var acrhStartWords: (UInt64, UInt16) { (0x5243_4101_4445_4E50, 0x1048) }

    /// Writes `acrhStart` (10 bytes) to `output`: the header every `acrh` message starts with, before its IV.
    @inline(__always)
    package static func writeACRHStart(to output: UnsafeMutableRawPointer) {
        output.storeBytes(of: acrhStartWords.0.littleEndian, as: UInt64.self)
        output.storeBytes(of: acrhStartWords.1.littleEndian, toByteOffset: 8, as: UInt16.self)
    }

    /// Whether the first bytes of a stream are, or may still become, a header: the sentinel, or (before the end of
    /// the stream) the start of it.
    static func mayStart(_ head: some Collection<UInt8>, final: Bool) -> Bool {
        head.count >= sentinel.count ? head.prefix(sentinel.count).elementsEqual(sentinel)
            : !final && sentinel.starts(with: head)
    }

    /// The error for headerless `bytes` read as `acrh` only: empty is a decryption error; anything else would be
    /// the legacy cryptor's data, and no legacy cryptor is there: an unknown cryptor (PubNub's contract
    /// scenarios). The first bytes of the sentinel alone are a header cut short.
    package static func missing(_ bytes: some Collection<UInt8>) -> PNCryptError {
        if bytes.isEmpty { return PNCryptError(.malformedHeader, "empty input: no PNED header", offset: 0) }
        if bytes.count < sentinel.count && sentinel.starts(with: bytes) {
            return PNCryptError(.malformedHeader, "no PNED header: \(bytes.count.counting("byte")), a header cut short",
                                offset: 0)
        }
        return PNCryptError(.unknownCryptor, "no PNED header: this is legacy data (or not ciphertext), and acrh"
                            + " reads only data with a header", offset: 0)
    }
}
