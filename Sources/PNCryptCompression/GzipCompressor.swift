import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// Compresses a stream of chunks into one gzip member (RFC 1952), in constant memory.
///
/// Settings are those of the PubNub SDKs: deflate, 32 KiB window (windowBits 31), memLevel 8, default strategy.
/// A `ByteStreamStage`, the one streaming shape: feed chunks with `update`, then call `finish` once (each also
/// returns an array: `update(_:)`, `finish()`); output arrives through the closure in pieces of at most
/// `chunkSize` bytes, each valid only during the call (a borrowed buffer pointer, as for `ByteSink`: no copy per
/// piece; it must not escape the closure). Not thread-safe: use one compressor per stream.
///
/// ```swift
/// let compressor = try GzipCompressor(level: 6)
/// for chunk in chunks { try compressor.update(chunk) { try sink.write($0) } }
/// try compressor.finish { try sink.write($0) }
/// ```
///
/// zlib's state (about 256 KiB) is freed by `finish`, by an error, or when the compressor is released.
public final class GzipCompressor {
    package let engine: DeflateEngine

    /// The compression level, 0 (store) through 9 (smallest).
    package let level: Int

    /// Creates a compressor. Throws `.invalidValue` for a level outside 0...9 or a chunk size below 1.
    public init(level: Int = Gzip.defaultLevel, chunkSize: Int = Gzip.defaultChunkSize)
        throws(PNCryptError) {
        engine = try DeflateEngine(level: level, chunkSize: chunkSize)
        self.level = level
    }

    /// Uncompressed bytes accepted so far.
    package var bytesIn: UInt64 { engine.bytesIn }

    /// Compressed bytes produced so far.
    package var bytesOut: UInt64 { engine.bytesOut }

    /// Emits everything compressed so far, ending on a byte boundary (zlib's `Z_SYNC_FLUSH`), so a reader can
    /// decompress all input given so far. Each flush adds at least 5 bytes; the member stays open.
    /// - Parameter sink: called with each produced piece, valid only during that call.
    public func flush(_ sink: ByteSink) throws(PNCryptError) {
        try engine.end(.sync, output: sink)
    }
}

@available(*, unavailable, message: "a compressor holds mutable zlib state: use one per task")
extension GzipCompressor: Sendable {}
