import PNCryptBase
import PNCryptCore

/// Compresses into one gzip member (RFC 1952, docs/formats.md section 5): a stream of chunks in constant memory, or
/// bytes at once with `compress(_:level:)`. `Decompressor` reads it back.
///
/// Settings are those of the PubNub SDKs: deflate, 32 KiB window (windowBits 31), memLevel 8, default strategy.
/// A `ByteStreamStage`, the one streaming shape: feed chunks with `update`, then call `finish` once (each also
/// returns an array: `update(_:)`, `finish()`); output arrives through the closure in pieces of at most
/// `chunkSize` bytes, each valid only during the call (a borrowed buffer pointer, as for `ByteSink`: no copy per
/// piece; it must not escape the closure). Not thread-safe: use one compressor per stream.
///
/// ```swift
/// let packed = try Compressor.compress(Array("hello".utf8))   // one-shot
/// let compressor = try Compressor(level: 6)
/// for chunk in chunks { try compressor.update(chunk) { try sink.write($0) } }
/// try compressor.finish { try sink.write($0) }
/// ```
///
/// zlib's state (about 256 KiB) is freed by `finish`, by an error, or when the compressor is released.
public final class Compressor {
    package let engine: DeflateEngine

    /// The level PubNub SDKs use (`Z_DEFAULT_COMPRESSION`, which zlib maps to 6).
    @usableFromInline package static let defaultLevel = 6

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

    /// The compression level, 0 (store) through 9 (smallest).
    package let level: Int

    /// Creates a compressor. Throws `.invalidValue` for a level outside 0...9 or a chunk size below 1.
    public init(level: Int = defaultLevel, chunkSize: Int = defaultChunkSize)
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
    public func flush(_ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        try engine.end(.sync, output: sink)
    }
}

@available(*, unavailable, message: "a compressor holds mutable zlib state: use one per task")
extension Compressor: Sendable {}
