import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// Decompresses a stream of chunks of gzip, zlib or raw deflate data, in constant memory.
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
/// let decompressor = try GzipDecompressor(format: .gzipOrZlib, outputLimit: .bytes(100 << 20))
/// for chunk in chunks { try decompressor.update(chunk) { try sink.write($0) } }
/// try decompressor.finish()
/// ```
public final class GzipDecompressor {
    package let engine: InflateEngine

    /// The framing this decompressor expects.
    package let format: CompressionFormat
    /// The most output bytes allowed in total.
    package let outputLimit: DecompressionLimit

    /// Creates a decompressor. `outputLimit` caps the total output: 1 GiB (`Gzip.defaultStreamOutputLimit`)
    /// unless told otherwise; `.unlimited` lifts it, for trusted data only.
    /// Throws `.invalidValue` for a negative limit or a chunk size below 1.
    public init(format: CompressionFormat = .gzipOrZlib,
                outputLimit: DecompressionLimit = .bytes(Gzip.defaultStreamOutputLimit),
                chunkSize: Int = Gzip.defaultChunkSize) throws(PNCryptError) {
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
extension GzipDecompressor: Sendable {}
