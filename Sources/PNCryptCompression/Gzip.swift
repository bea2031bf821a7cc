import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// One-shot gzip compression and decompression (docs/formats.md section 5); files stream through `GzipCompressor` and
/// `GzipDecompressor` as stages (an array of stages runs as one: `update(_:)`, `finish()`).
///
/// Compression writes one gzip member with the PubNub SDKs' settings: deflate, windowBits 31, memLevel 8,
/// default strategy, level 6 unless told otherwise. Decompression reads any `CompressionFormat`.
///
/// ```swift
/// let packed = try Gzip.compress(Array("hello".utf8))
/// let text = try Gzip.decompress(packed)                     // at most 64 MiB of output
/// let stages: [any ByteStreamStage] = [try GzipDecompressor()]   // at most 1 GiB of output; .unlimited lifts it
/// let plain = try stages.update(chunk) + stages.finish()
/// ```
public enum Gzip: Sendable {
    /// The level PubNub SDKs use (`Z_DEFAULT_COMPRESSION`, which zlib maps to 6).
    @usableFromInline package static let defaultLevel = 6

    /// The output limit of the one-shot `decompress`: 64 MiB. Larger output throws `.outputLimitExceeded`.
    @usableFromInline package static let defaultOutputLimit = 64 << 20

    /// The output limit of `GzipDecompressor`, which does not hold its output: 1 GiB.
    /// Larger output throws `.outputLimitExceeded`; pass a larger limit or `.unlimited` for trusted data.
    @usableFromInline package static let defaultStreamOutputLimit = 1 << 30

    /// The most a one-shot decompression reserves up front from a gzip trailer's ISIZE with no limit: 1 MiB.
    /// ISIZE is not checked until the end, so it cannot be trusted to size memory.
    static let unlimitedReservation = 1 << 20

    /// The size of the pieces the streaming types produce: 256 KiB.
    ///
    /// inflate copies the last 32 KiB of every output piece into its window: with 64 KiB pieces that copy made
    /// decompression about 1.1x slower than zlib's own loop with 1 MiB pieces; at 256 KiB it is within noise.
    @usableFromInline package static let defaultChunkSize = 256 << 10

    /// Compresses `bytes` into one gzip member. Throws `.invalidValue` for a level outside 0...9.
    /// Empty input gives a valid 20-byte gzip member.
    public static func compress(_ bytes: some Sequence<UInt8>, level: Int = defaultLevel)
        throws(PNCryptError) -> [UInt8] {
        try withBytes(bytes) { (input) throws(PNCryptError) in try DeflateEngine.compressOneShot(input, level: level) }
    }

    /// Decompresses `bytes` in the given format, refusing output larger than `outputLimit` (64 MiB unless told
    /// otherwise; `.unlimited` for trusted data). The whole input must be consumed: see `GzipDecompressor` for
    /// the errors.
    ///
    /// Output is inflated in 256 KiB pieces and the limit is checked before each is appended, so memory stays
    /// near the limit: a 10 GiB-of-zeros gzip bomb (10 MB) is refused at the default limit in about 0.15 s with
    /// a peak RSS of about 65 MiB above the input. For output that need not be held, use `GzipDecompressor`.
    public static func decompress(_ bytes: some Sequence<UInt8>, format: CompressionFormat = .gzipOrZlib,
                                  outputLimit: DecompressionLimit = .bytes(defaultOutputLimit))
        throws(PNCryptError) -> [UInt8] {
        let decompressor = try GzipDecompressor(format: format, outputLimit: outputLimit)
        var result: [UInt8] = []
        try withBytes(bytes) { (input) throws(PNCryptError) in
            result.reserveCapacity(expectedSize(of: input, format: format, outputLimit: outputLimit))
            try decompressor.update(input) { result.append(contentsOf: $0) }
        }
        try decompressor.finish()
        return result
    }

    /// A capacity hint for one-shot gzip output: the last member's ISIZE trailer (the size modulo 2^32), kept
    /// within the output limit, deflate's maximum ratio (1032:1) and `defaultOutputLimit` (1 MiB with no limit),
    /// so a lying trailer cannot reserve more than the data could legitimately produce nor a large block.
    /// Reserved pages are not touched until written. Saves the copies of repeated array growth (measured:
    /// one-shot inflate of 64 MiB went from 1.31x to ~1.1x a direct zlib call).
    /// `input` is indexed from 0 (an array or a buffer).
    package static func expectedSize<C: Collection<UInt8>>(of input: C, format: CompressionFormat,
                                                   outputLimit: DecompressionLimit) -> Int where C.Index == Int {
        guard format == .gzip || format == .gzipOrZlib, input.count >= 20,
              input[0] == CompressionFormat.gzipMagic.0, input[1] == CompressionFormat.gzipMagic.1
        else { return 0 }
        let trailer = input.count - 4
        let isize = (0..<4).reduce(0) { $0 | Int(input[trailer + $1]) << (8 * $1) }
        let ceiling = input.count.multipliedReportingOverflow(by: 1032)
        let cap = outputLimit.byteCount.map { min(max($0, 0), defaultOutputLimit) } ?? unlimitedReservation
        return min(isize, cap, ceiling.overflow ? .max : ceiling.partialValue)
    }
}
