import Foundation

/// One-shot and file-to-file gzip compression and decompression (SPEC section 5).
///
/// Compression writes one gzip member with the PubNub SDKs' settings: deflate, windowBits 31, memLevel 8,
/// default strategy, level 6 unless told otherwise. Decompression reads any `CompressionFormat`.
///
/// ```swift
/// let packed = try Gzip.compress(Array("hello".utf8))
/// let text = try Gzip.decompress(packed)                     // at most 64 MiB of output
/// try Gzip.decompress(from: input, to: output)               // constant memory, at most 1 GiB of output
/// try Gzip.decompress(from: input, to: output, outputLimit: .unlimited)   // trusted files of any size
/// ```
public enum Gzip: Sendable {
    /// The level PubNub SDKs use (`Z_DEFAULT_COMPRESSION`, which zlib maps to 6).
    public static let defaultLevel = 6

    /// The output limit of the one-shot `decompress`: 64 MiB. Larger output throws `.outputLimitExceeded`.
    public static let defaultOutputLimit = 64 << 20

    /// The output limit of `GzipDecompressor` and the file functions, which do not hold their output: 1 GiB.
    /// Larger output throws `.outputLimitExceeded`; pass a larger limit or `.unlimited` for trusted data.
    public static let defaultStreamOutputLimit = 1 << 30

    /// The most a one-shot decompression reserves up front from a gzip trailer's ISIZE with no limit: 1 MiB.
    /// ISIZE is not checked until the end, so it cannot be trusted to size memory.
    static let unlimitedReservation = 1 << 20

    /// The size of the pieces the streaming types produce and the file functions read: 256 KiB.
    ///
    /// inflate copies the last 32 KiB of every output piece into its window: with 64 KiB pieces that copy made
    /// decompression about 1.1x slower than zlib's own loop with 1 MiB pieces; at 256 KiB it is within noise.
    public static let defaultChunkSize = 256 << 10

    /// Compresses `bytes` into one gzip member. Throws `.invalidValue` for a level outside 0...9.
    /// Empty input gives a valid 20-byte gzip member.
    public static func compress(_ bytes: some Sequence<UInt8>, level: Int = defaultLevel) throws -> [UInt8] {
        try withBytes(bytes) { try DeflateEngine.compressOneShot($0, level: level) }
    }

    /// Decompresses `bytes` in the given format, refusing output larger than `outputLimit` (64 MiB unless told
    /// otherwise; `.unlimited` for trusted data). The whole input must be consumed: see `GzipDecompressor` for
    /// the errors.
    ///
    /// Output is inflated in 256 KiB pieces and the limit is checked before each is appended, so memory stays
    /// near the limit: a 10 GiB-of-zeros gzip bomb (10 MB) is refused at the default limit in about 0.15 s with
    /// a peak RSS of about 65 MiB above the input. For output that need not be held, use `GzipDecompressor`.
    public static func decompress(_ bytes: some Sequence<UInt8>, format: CompressionFormat = .gzipOrZlib,
                                  outputLimit: DecompressionLimit = .bytes(defaultOutputLimit)) throws -> [UInt8] {
        let decompressor = try GzipDecompressor(format: format, outputLimit: outputLimit)
        var result: [UInt8] = []
        try withBytes(bytes) { input in
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
    static func expectedSize(of input: UnsafeRawBufferPointer, format: CompressionFormat,
                             outputLimit: DecompressionLimit) -> Int {
        guard format == .gzip || format == .gzipOrZlib, input.count >= 20, input[0] == 0x1f, input[1] == 0x8b
        else { return 0 }
        let trailer = input.count - 4
        let isize = (0..<4).reduce(0) { $0 | Int(input[trailer + $1]) << (8 * $1) }
        let ceiling = input.count.multipliedReportingOverflow(by: 1032)
        let cap = outputLimit.byteCount.map { min(max($0, 0), defaultOutputLimit) } ?? unlimitedReservation
        return min(isize, cap, ceiling.overflow ? .max : ceiling.partialValue)
    }

    /// Byte counts of a file-to-file transfer.
    public struct Transfer: Hashable, Sendable {
        /// Bytes read from the input.
        public let bytesRead: UInt64
        /// Bytes written to the output.
        public let bytesWritten: UInt64
    }

    /// Compresses everything readable from `input` into one gzip member written to `output`, reading
    /// `chunkSize` bytes at a time: memory use does not depend on the file size. Neither handle is closed.
    /// Read and write failures throw `.io`.
    @discardableResult
    public static func compress(from input: FileHandle, to output: FileHandle, level: Int = defaultLevel,
                                chunkSize: Int = defaultChunkSize) throws -> Transfer {
        try compress(fromDescriptor: input.fileDescriptor, toDescriptor: output.fileDescriptor,
                     level: level, chunkSize: chunkSize)
    }

    /// Compresses from one file descriptor to another; see `compress(from:to:level:chunkSize:)`.
    @discardableResult
    public static func compress(fromDescriptor input: Int32, toDescriptor output: Int32,
                                level: Int = defaultLevel, chunkSize: Int = defaultChunkSize) throws -> Transfer {
        let compressor = try GzipCompressor(level: level, chunkSize: chunkSize)
        let write = { (bytes: UnsafeRawBufferPointer) in try FileDescriptorPump.writeAll(bytes, to: output) }
        try FileDescriptorPump.readChunks(from: input, chunkSize: chunkSize) { chunk in
            try compressor.update(chunk, output: write)
        }
        try compressor.finish(output: write)
        return Transfer(bytesRead: compressor.bytesIn, bytesWritten: compressor.bytesOut)
    }

    /// Decompresses everything readable from `input` to `output`, reading `chunkSize` bytes at a time: memory
    /// use does not depend on the file size. `outputLimit` caps the bytes written: 1 GiB
    /// (`defaultStreamOutputLimit`) unless told otherwise, `.unlimited` for trusted files. Neither handle is
    /// closed; on error, `output` holds the bytes written before it.
    @discardableResult
    public static func decompress(from input: FileHandle, to output: FileHandle,
                                  format: CompressionFormat = .gzipOrZlib,
                                  outputLimit: DecompressionLimit = .bytes(defaultStreamOutputLimit),
                                  chunkSize: Int = defaultChunkSize) throws -> Transfer {
        try decompress(fromDescriptor: input.fileDescriptor, toDescriptor: output.fileDescriptor,
                       format: format, outputLimit: outputLimit, chunkSize: chunkSize)
    }

    /// Decompresses from one file descriptor to another; see `decompress(from:to:format:outputLimit:chunkSize:)`.
    @discardableResult
    public static func decompress(fromDescriptor input: Int32, toDescriptor output: Int32,
                                  format: CompressionFormat = .gzipOrZlib,
                                  outputLimit: DecompressionLimit = .bytes(defaultStreamOutputLimit),
                                  chunkSize: Int = defaultChunkSize) throws -> Transfer {
        let decompressor = try GzipDecompressor(format: format, outputLimit: outputLimit, chunkSize: chunkSize)
        var bytesRead: UInt64 = 0
        try FileDescriptorPump.readChunks(from: input, chunkSize: chunkSize) { chunk in
            bytesRead += UInt64(chunk.count)
            try decompressor.update(chunk) { try FileDescriptorPump.writeAll($0, to: output) }
        }
        try decompressor.finish()
        return Transfer(bytesRead: bytesRead, bytesWritten: decompressor.bytesOut)
    }
}
