// Fuzz target: decompression (Decompressor.decompress, Decompressor) of gzip, zlib and raw deflate data.
//
// The first byte picks the format. Invariants: errors are PNCryptError corruptCompressedData or
// outputLimitExceeded with a one-line message and an offset inside the input; no more than the output limit is
// ever handed out; streamed decompression in pieces agrees with one-shot; compress -> decompress is the identity
// (for the input itself and for what decompressed).
import PNCrypt

let limit = 1 << 20

func decompressStreamed(_ bytes: [UInt8], _ format: CompressionFormat, cuts: [Int]) throws -> [UInt8] {
    let decompressor = try Decompressor(format: format, outputLimit: .bytes(limit), chunkSize: 4096)
    var out: [UInt8] = []
    let sink: ByteSink = { (piece: UnsafeRawBufferPointer) throws(PNCryptError) in
        out.append(contentsOf: piece)
        if out.count > limit { fail("more than the output limit was handed out", bytes) }
    }
    var start = 0
    for cut in cuts.sorted() + [bytes.count] where cut >= start && cut <= bytes.count {
        try Array(bytes[start..<cut]).withUnsafeBytes { (piece) throws(PNCryptError) in
            try decompressor.update(piece, sink)
        }
        start = cut
    }
    try decompressor.finish(sink)
    return out
}

func outcome(_ body: () throws -> [UInt8], _ input: [UInt8], _ what: String) -> Result<[UInt8], PNCryptError> {
    do { return .success(try body()) } catch let error as PNCryptError {
        check(error, allowed: [.corruptCompressedData, .outputLimitExceeded], inputCount: input.count, input,
              context: what)
        return .failure(error)
    } catch {
        fail("\(what): not a PNCryptError: \(error)", input)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let all = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = all.first else { return 0 }
    let input = Array(all.dropFirst())
    let format = CompressionFormat.allCases[Int(selector) % CompressionFormat.allCases.count]

    let oneShot = outcome({ try Decompressor.decompress(input, format: format, outputLimit: .bytes(limit)) }, input,
                          "one-shot \(format)")
    let streamed = outcome({ try decompressStreamed(input, format, cuts: cuts(for: input)) }, input,
        "streamed \(format)")
    same(oneShot, streamed, input, "streamed \(format)")
    if case .success(let out) = oneShot, out.count > limit { fail("one-shot output above the limit", input) }

    // Round trips: the input itself, and what it decompressed to.
    var originals = [input]
    if case .success(let out) = oneShot { originals.append(out) }
    for original in originals {
        guard let packed = try? Compressor.compress(original, level: Int(selector >> 4) % 10) else {
            fail("compress failed", input)
        }
        for readFormat in [CompressionFormat.gzip, .gzipOrZlib] {
            guard (try? Decompressor.decompress(packed, format: readFormat, outputLimit: .unlimited)) == original else {
                fail("decompress(compress(x)) != x reading \(readFormat)", input)
            }
        }
    }
    return 0
}
