import PNCryptJSON
import PNCryptCore

/// Compresses a stream of chunks into one gzip member (RFC 1952), in constant memory.
///
/// Settings are those of the PubNub SDKs: deflate, 32 KiB window (windowBits 31), memLevel 8, default strategy.
/// Feed chunks with `update`, then call `finish` once; output arrives through the closure in pieces of at most
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
    public let level: Int

    /// Creates a compressor. Throws `.invalidValue` for a level outside 0...9 or a chunk size below 1.
    public init(level: Int = Gzip.defaultLevel, chunkSize: Int = Gzip.defaultChunkSize)
        throws(PNCryptError) {
        engine = try DeflateEngine(level: level, chunkSize: chunkSize)
        self.level = level
    }

    /// Uncompressed bytes accepted so far.
    public var bytesIn: UInt64 { engine.bytesIn }

    /// Compressed bytes produced so far.
    public var bytesOut: UInt64 { engine.bytesOut }

    /// Compresses `chunk`, passing any output that is ready to `output` (zlib may hold some back).
    public func update(_ chunk: some Collection<UInt8>, output: ByteSink) throws(PNCryptError) {
        try withBytes(chunk) { (bytes) throws(PNCryptError) in
            try engine.deflate(bytes, flush: .none, output: output)
        }
    }

    /// Compresses `chunk` and returns the output that is ready (often empty for small chunks).
    public func update(_ chunk: some Collection<UInt8>) throws(PNCryptError) -> [UInt8] {
        var result: [UInt8] = []
        try update(chunk, output: { result.append(contentsOf: $0) })
        return result
    }

    /// Emits everything compressed so far, ending on a byte boundary (zlib's `Z_SYNC_FLUSH`), so a reader can
    /// decompress all input given so far. Each flush adds at least 5 bytes; the member stays open.
    public func flush(output: ByteSink) throws(PNCryptError) {
        try engine.end(.sync, output: output)
    }

    /// Ends the member and returns the remaining output and the trailer.
    public func finish() throws(PNCryptError) -> [UInt8] {
        var result: [UInt8] = []
        try engine.end(.finish, output: { result.append(contentsOf: $0) })
        return result
    }
}

@available(*, unavailable, message: "a compressor holds mutable zlib state: use one per task")
extension GzipCompressor: Sendable {}
