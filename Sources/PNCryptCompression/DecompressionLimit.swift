import PNCryptBase
import PNCryptCore

/// The most bytes a decompression may produce (the decompression-bomb guard), or no limit at all.
///
/// Every decompression API takes one, with a finite default: `Decompressor.defaultOutputLimit` (64 MiB) for the
/// one-shot `Decompressor.decompress(_:format:outputLimit:)`, `Decompressor.defaultStreamOutputLimit` (1 GiB) for a
/// streaming `Decompressor` (files and streams). Output beyond the limit throws `.outputLimitExceeded` before it is
/// handed out. Lift the limit only for trusted data, by saying so: `.unlimited`. An integer literal is a byte count:
/// `Decompressor(outputLimit: 10 << 20)`.
public enum DecompressionLimit: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// At most this many bytes of output. A negative count is refused (`.invalidValue`) where it is used.
    case bytes(Int)
    /// No limit: for trusted data only (a 10 MB gzip bomb decompresses to 10 GiB).
    case unlimited

    /// A limit of `value` bytes.
    public init(integerLiteral value: Int) {
        self = .bytes(value)
    }

    /// The byte count, or `nil` for `.unlimited`.
    public var byteCount: Int? {
        switch self {
        case .bytes(let count): return count
        case .unlimited: return nil
        }
    }

    /// `"N bytes"` or `"unlimited"`.
    public var description: String {
        switch self {
        case .bytes(let count): return count.counting("byte")
        case .unlimited: return "unlimited"
        }
    }

    /// The byte count as zlib's counters see it (`nil`: unlimited); throws `.invalidValue` for a negative count.
    package func validated() throws(PNCryptError) -> UInt64? {
        guard let count = byteCount else { return nil }
        guard count >= 0 else {
            throw PNCryptError(.invalidValue, "output limit must not be negative, got \(count)")
        }
        return UInt64(count)
    }
}
