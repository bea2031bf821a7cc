import PNCryptCore

/// The framing of deflate-compressed data to expect when decompressing (docs/formats.md section 5).
///
/// | format | zlib windowBits | use for |
/// |---|---|---|
/// | `gzipOrZlib` | 47 | `Content-Encoding: gzip` responses, files (what PubNub SDKs inflate with) |
/// | `gzip` | 31 | strict RFC 1952 gzip, as `gzip -d` reads it |
/// | `zlib` | 15 | strict RFC 1950 zlib |
/// | `rawDeflate` | -15 | `Content-Encoding: deflate` responses: raw RFC 1951 deflate, no header or trailer |
///
/// Gzip members may be concatenated, as `gzip -d` accepts; a zlib or raw deflate stream is single.
/// Bytes after the last member that do not start another gzip member are an error, including the zero
/// padding `gzip -d` ignores with a warning: an HTTP body or a message has no reason to carry any.
public enum CompressionFormat: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// Gzip (`1f 8b`) or zlib, told apart by the first bytes of the data. Gzip input may hold several members.
    case gzipOrZlib = "gzip-or-zlib"
    /// Gzip only (RFC 1952), one member or several concatenated.
    case gzip
    /// zlib only (RFC 1950): a two-byte header, deflate data, an Adler-32 trailer.
    case zlib
    /// Raw deflate (RFC 1951) with no header or trailer, as PubNub SDKs read `Content-Encoding: deflate`.
    case rawDeflate = "raw-deflate"

    /// The raw value, as used on the command line: `gzip-or-zlib`, `gzip`, `zlib`, `raw-deflate`.
    public var description: String { rawValue }

    /// Says whether `bytes` start like gzip or zlib data, or `nil` when they look like neither.
    ///
    /// Gzip: `1f 8b 08` (magic and the deflate method). zlib: a first byte with method 8 and a window of at most
    /// 32 KiB (`CMF & 0x0f == 8`, `CMF >> 4 <= 7`) and a first two bytes that are a multiple of 31 as a big-endian
    /// number (the FCHECK rule). Raw deflate has no signature and is never reported. A match is a strong hint,
    /// not proof: about one random byte pair in 250 passes the zlib test.
    public static func detect(_ bytes: some Sequence<UInt8>) -> CompressionFormat? {
        var iterator = bytes.makeIterator()
        guard let first = iterator.next(), let second = iterator.next() else { return nil }
        if first == gzipMagic.0 && second == gzipMagic.1 {
            return iterator.next() == 0x08 ? .gzip : nil
        }
        let isDeflate = first & 0x0f == 8 && first >> 4 <= 7
        let checks = (UInt16(first) << 8 | UInt16(second)) % 31 == 0
        return isDeflate && checks ? .zlib : nil
    }

    /// The first two bytes of every gzip member (`ID1`, `ID2`).
    static let gzipMagic: (UInt8, UInt8) = (0x1f, 0x8b)

    /// zlib's `windowBits` for inflating this format: 47 (gzip or zlib, told apart by zlib), 31, 15, -15 (raw).
    package var windowBits: Int32 {
        switch self {
        case .gzipOrZlib: 47
        case .gzip: 31
        case .zlib: 15
        case .rawDeflate: -15
        }
    }

    /// The format as error messages name it: `gzip or zlib`, `gzip`, `zlib`, `deflate`.
    var dataName: String {
        switch self {
        case .gzipOrZlib: "gzip or zlib"
        case .gzip: "gzip"
        case .zlib: "zlib"
        case .rawDeflate: "deflate"
        }
    }
}
