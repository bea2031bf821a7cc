import PNCryptBase
import PNCryptCore

/// Decompresses gzip, zlib or raw deflate data (`CompressionFormat`, docs/formats.md section 5): a stream of chunks
/// in constant memory, or bytes at once with `decompress(_:format:outputLimit:)`.
///
/// A `ByteStreamStage`, the one streaming shape: feed chunks with `update`, then call `finish` once to check that
/// the data ended where a stream ends (each also returns an array: `update(_:)`, `finish()`).
/// Output arrives through the closure in pieces of at most `chunkSize` bytes, each valid only during the call (a
/// borrowed buffer pointer, as for `ByteSink`: no copy per piece; it must not escape the closure).
/// Not thread-safe: use one decompressor per stream.
///
/// Errors (`PNCryptError`, each with the input `offset` where it was found):
/// - `.corruptCompressedData`: a bad header ("not gzip data: incorrect header check"), corrupt deflate data,
///   "gzip CRC mismatch", "gzip ISIZE (length) mismatch", "zlib Adler-32 checksum mismatch",
///   "trailing garbage after gzip member at offset N", "gzip data is truncated" (from `finish`),
///   "gzip data is empty" (from `finish`, when no byte was given).
/// - `.outputLimitExceeded`: the output would pass `outputLimit` (1 GiB unless told otherwise). Thrown before the
///   piece that would cross the limit is passed on, so at most `outputLimit` bytes are ever handed out
///   (decompression-bomb guard), and as soon as the limit is reached: the input after that point is not read.
///
/// After an error, every call throws the same error. zlib's state is freed by `finish`, by an error, or when the
/// decompressor is released.
///
/// ```swift
/// let text = try Decompressor.decompress(packed)                  // one-shot: at most 64 MiB of output
/// let decompressor = try Decompressor(format: .gzipOrZlib, outputLimit: .bytes(100 << 20))
/// for chunk in chunks { try decompressor.update(chunk) { try sink.write($0) } }
/// try decompressor.finish()
/// ```
public final class Decompressor {
    package let engine: InflateEngine

    /// The output limit of the one-shot `decompress`: 64 MiB. Larger output throws `.outputLimitExceeded`.
    @usableFromInline package static let defaultOutputLimit = 64 << 20

    /// The output limit of a streaming decompressor, which does not hold its output: 1 GiB.
    /// Larger output throws `.outputLimitExceeded`; pass a larger limit or `.unlimited` for trusted data.
    @usableFromInline package static let defaultStreamOutputLimit = 1 << 30

    /// The most a one-shot decompression reserves up front from a gzip trailer's ISIZE with no limit: 1 MiB.
    /// ISIZE is not checked until the end, so it cannot be trusted to size memory.
    static let unlimitedReservation = 1 << 20

    /// Decompresses `bytes` in the given format, refusing output larger than `outputLimit` (64 MiB unless told
    /// otherwise; `.unlimited` for trusted data). The whole input must be consumed: see `Decompressor` for
    /// the errors.
    ///
    /// Output is inflated in 256 KiB pieces and the limit is checked before each is appended, so memory stays
    /// near the limit: a 10 GiB-of-zeros gzip bomb (10 MB) is refused at the default limit in about 0.15 s with
    /// a peak RSS of about 65 MiB above the input. For output that need not be held, stream through a decompressor.
    public static func decompress(_ bytes: some Sequence<UInt8>, format: CompressionFormat = .gzipOrZlib,
                                  outputLimit: DecompressionLimit = .bytes(defaultOutputLimit))
        throws(PNCryptError) -> [UInt8] {
        let decompressor = try Decompressor(format: format, outputLimit: outputLimit)
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

    /// The framing this decompressor expects.
    package let format: CompressionFormat
    /// The most output bytes allowed in total.
    package let outputLimit: DecompressionLimit

    /// Creates a decompressor. `outputLimit` caps the total output: 1 GiB (`defaultStreamOutputLimit`)
    /// unless told otherwise; `.unlimited` lifts it, for trusted data only.
    /// Throws `.invalidValue` for a negative limit or a chunk size below 1.
    public init(format: CompressionFormat = .gzipOrZlib,
                outputLimit: DecompressionLimit = .bytes(defaultStreamOutputLimit),
                chunkSize: Int = Compressor.defaultChunkSize) throws(PNCryptError) {
        engine = try InflateEngine(format: format, outputLimit: outputLimit, chunkSize: chunkSize)
        self.format = format
        self.outputLimit = outputLimit
    }

    /// Compressed bytes consumed so far.
    package var bytesIn: UInt64 { engine.bytesIn }

    /// Decompressed bytes produced so far.
    package var bytesOut: UInt64 { engine.bytesOut }
}

@available(*, unavailable, message: "a decompressor holds mutable zlib state: use one per task")
extension Decompressor: Sendable {}
