import PNCrypt
import PNCryptFiles
import SystemPackage

/// The input of a line-mode run read from a descriptor (`-i PATH` or standard input), as what it holds: gzip data
/// (its first two bytes the gzip magic, `1f 8b`: a `.gz` export) goes through a `Decompressor` bounded by
/// `--max-size` (1 GiB unless told otherwise: the decompression-bomb guard of `gunzip`), anything else as it is
/// (issue 59, item 6). Nothing is read ahead: the first chunk says which.
final class GzipInput {
    private let fd: FileDescriptor
    private let limit: DecompressionLimit
    private var decompressor: Decompressor?
    private var compressedBytes: Int64 = 0

    init(_ fd: FileDescriptor, limit: DecompressionLimit) {
        self.fd = fd
        self.limit = limit
    }

    /// Compressed bytes read so far when the input is gzip (what a progress line counts against the file's
    /// length), else nil.
    var consumed: Int64? { decompressor == nil ? nil : compressedBytes }

    /// The reader of `MessageStream.run(reading:...)`: the descriptor to its end (a regular file as the snapshot of
    /// its length), decompressed when it starts as gzip.
    func read(_ chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void)
        throws(PNCryptError) {
        var first = true
        try fd.pump(chunkSize: chunkSize) { (chunk) throws(PNCryptError) in
            if first {
                first = false
                // `pump` fills its buffer as far as the source gives: the first chunk has both bytes of the magic.
                if chunk.count >= 2 && chunk[0] == 0x1f && chunk[1] == 0x8b {
                    decompressor = try Decompressor(format: .gzip, outputLimit: limit)
                }
            }
            guard let decompressor else { return try body(chunk) }
            compressedBytes += Int64(chunk.count)
            try decompressor.update(chunk, body)
        }
        try decompressor?.finish(body)
    }
}
