import ArgumentParser
import PNCrypt

/// `--max-size SIZE|none`, the decompression-bomb guard of `gunzip`, `decrypt --binary --gunzip` and line mode's
/// gzip input (`GzipInput`): a byte count
/// with an optional binary suffix K, M or G (`10M` is 10 * 2^20 bytes), or `none` for no limit.
struct LimitOptions: ParsableArguments {
    @Option(name: .customLong("max-size"), help: ArgumentHelp("""
        Refuse more than SIZE bytes of decompressed data (decompression-bomb guard; with --lines, of gzip input \
        read as what it holds): a number with an optional K, M or G suffix (binary: 10M = 10485760 bytes), or \
        none for no limit. Default: 1G (1 GiB).
        """, valueName: "size"), transform: Self.parse)
    var maxSize: DecompressionLimit?

    /// The limit in force: `--max-size`, else 1 GiB (`Decompressor.defaultStreamOutputLimit`).
    var limit: DecompressionLimit { maxSize ?? .bytes(Decompressor.defaultStreamOutputLimit) }

    /// Parses SIZE or `none`: the one way `--max-size` is read.
    static func parse(_ text: String) throws -> DecompressionLimit {
        if text.lowercased() == "none" { return .unlimited }
        var digits = Substring(text)
        var shift = 0
        switch digits.last {
        case "K", "k": shift = 10
        case "M", "m": shift = 20
        case "G", "g": shift = 30
        default: break
        }
        if shift > 0 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(digits),
              count <= Int.max >> shift else {
            throw ValidationError("expected a number of bytes with an optional K, M or G suffix "
                                  + "(10M = 10485760 bytes), or none")
        }
        return .bytes(count << shift)
    }
}
