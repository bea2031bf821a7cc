// Streaming inflate over a `ZlibStream` (ZlibStream.swift).
//
// Ownership:
// - `InflateEngine` owns its `ZlibStream` and one output scratch buffer of `chunkSize` bytes, wiped and freed in
//   `deinit`. Output is handed to the caller's closure as a pointer into that scratch buffer, valid only during
//   the call.
// - Input pointers are borrowed from the caller for the duration of one call and never stored.

import PNCryptBase
import PNCryptCore
internal import CZlib
import PNCryptPlatform

// MARK: - Inflate

/// Streaming inflate with member handling, trailing-garbage detection and an output limit.
///
/// Gzip members may be concatenated (as `gzip -d` accepts): after one ends, input that starts with the gzip
/// magic `1f 8b` begins the next member; any other byte, zero padding included, is trailing garbage. zlib and
/// raw deflate streams are single: any byte after their end is trailing garbage.
package final class InflateEngine {
    private enum State {
        /// Inside a member (or before the first byte of input).
        case inMember
        /// A gzip member ended; more gzip members may follow.
        case betweenMembers
        /// A zlib or raw deflate stream ended; nothing may follow.
        case ended
        /// An error was thrown or the engine finished; every further call repeats this error.
        case closed(PNCryptError)
    }

    private let format: CompressionFormat
    private let outputLimit: UInt64?
    private let stream: ZlibStream
    private let scratch: UnsafeMutableRawBufferPointer
    private var state = State.inMember
    /// Bytes of input consumed so far, over all members.
    package private(set) var bytesIn: UInt64 = 0
    /// Bytes of output handed out so far, over all members.
    package private(set) var bytesOut: UInt64 = 0
    /// Offset of the first byte of the current member.
    private var memberStart: UInt64 = 0
    /// First byte of the current member, once seen (0x1f for gzip).
    private var memberFirstByte: UInt8?
    /// Between members: the input so far ended on a lone 0x1f that may start the next member.
    private var pendingMagicByte = false

    package init(format: CompressionFormat, outputLimit: DecompressionLimit, chunkSize: Int)
        throws(PNCryptError) {
        guard chunkSize > 0 else {
            throw PNCryptError(.invalidValue, "chunk size must be positive, got \(chunkSize)")
        }
        self.outputLimit = try outputLimit.validated()
        self.format = format
        stream = try ZlibStream.inflating(windowBits: format.windowBits)
        scratch = .allocate(byteCount: chunkSize, alignment: 16)
    }

    deinit {
        stream.end()
        PNCryptBase.wipe(scratch.baseAddress!, count: scratch.count)
        scratch.deallocate()
    }

    /// Decompresses `input`, handing every produced piece to `output`.
    package func inflate(_ input: UnsafeRawBufferPointer, output: ByteSink) throws(PNCryptError) {
        // Even with no input: a finished or failed engine says so.
        if case .closed(let error) = state { throw error }
        do throws(PNCryptError) {
            // An error of zlib's or of the caller's sink: the stream cannot resume where it stopped.
            try inflateOrThrow(input, output: output)
        } catch {
            close(error)
            throw error
        }
    }

    /// Checks that the input ended at the end of a stream; the engine cannot be used afterwards.
    package func finish() throws(PNCryptError) {
        switch state {
        case .closed(let error):
            throw error
        case .betweenMembers where !pendingMagicByte, .ended:
            close(PNCryptError(.invalidValue, "the decompressor has already finished"))
        case .inMember where bytesIn == 0:
            let error = PNCryptError(.corruptCompressedData, "\(format.dataName) data is empty", offset: 0)
            close(error)
            throw error
        case .inMember, .betweenMembers:
            let end = Int(bytesIn) + (pendingMagicByte ? 1 : 0)
            let error = PNCryptError(.corruptCompressedData, "\(memberName) data is truncated", offset: end)
            close(error)
            throw error
        }
    }

    private func close(_ error: PNCryptError) {
        state = .closed(error)
        stream.end()
    }

    private func inflateOrThrow(_ input: UnsafeRawBufferPointer,
                                output: ByteSink) throws(PNCryptError) {
        let magic = CompressionFormat.gzipMagic
        var rest = input
        while !rest.isEmpty {
            switch state {
            case .closed(let error):
                throw error
            case .ended:
                throw trailingGarbage(at: bytesIn)
            case .betweenMembers:
                if pendingMagicByte {
                    // The held-back 0x1f is at offset `bytesIn`: it is counted when it is replayed.
                    guard rest[0] == magic.1 else { throw trailingGarbage(at: bytesIn) }
                    try startNextMember(at: bytesIn)
                    pendingMagicByte = false
                    // Replay the 0x1f held back from the previous call.
                    let first = magic.0
                    try withBytes(CollectionOfOne(first)) { (first) throws(PNCryptError) in
                        _ = try inflateMember(first, output: output)
                    }
                } else if rest.count == 1 {
                    guard rest[0] == magic.0 else { throw trailingGarbage(at: bytesIn) }
                    pendingMagicByte = true
                    return
                } else {
                    guard rest[0] == magic.0, rest[1] == magic.1 else { throw trailingGarbage(at: bytesIn) }
                    try startNextMember(at: bytesIn)
                }
            case .inMember:
                if memberFirstByte == nil { memberFirstByte = rest[0] }
                let consumed = try inflateMember(rest, output: output)
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(consumed))
            }
        }
    }

    private func startNextMember(at offset: UInt64) throws(PNCryptError) {
        let rc = inflateReset(stream.pointer)
        guard rc == Z_OK else { throw PNCryptError(.invalidValue, "zlib inflateReset failed with code \(rc)") }
        state = .inMember
        memberStart = offset
        memberFirstByte = CompressionFormat.gzipMagic.0
    }

    /// Runs inflate over `input` until the member ends or the input is used up. Returns the bytes consumed.
    @discardableResult
    private func inflateMember(_ input: UnsafeRawBufferPointer,
                               output: ByteSink) throws(PNCryptError) -> Int {
        let z = stream.pointer
        let slice = UnsafeRawBufferPointer(rebasing: input.prefix(maxZlibSlice))
        z.pointee.next_in = UnsafeMutablePointer(mutating: slice.baseAddress!.assumingMemoryBound(to: Bytef.self))
        z.pointee.avail_in = uInt(slice.count)
        defer {
            z.pointee.next_in = nil
            z.pointee.avail_in = 0
        }
        while true {
            let availBefore = Int(z.pointee.avail_in)
            z.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            z.pointee.avail_out = uInt(scratch.count)
            let rc = CZlib.inflate(z, Z_NO_FLUSH)
            bytesIn += UInt64(availBefore - Int(z.pointee.avail_in))
            let produced = scratch.count - Int(z.pointee.avail_out)
            if produced > 0 {
                if let outputLimit, bytesOut + UInt64(produced) > outputLimit {
                    throw PNCryptError(.outputLimitExceeded,
                                       "decompressed data is larger than the limit of "
                                        + Int(clamping: outputLimit).counting("byte"),
                                       offset: Int(bytesIn))
                }
                bytesOut += UInt64(produced)
                try output(UnsafeRawBufferPointer(rebasing: scratch.prefix(produced)))
            }
            switch rc {
            case Z_STREAM_END:
                state = isGzipMember ? .betweenMembers : .ended
                return slice.count - Int(z.pointee.avail_in)
            case Z_OK, Z_BUF_ERROR:
                // Keep going while zlib filled the scratch buffer (more output may be pending) or has input left.
                if z.pointee.avail_out == 0 || (z.pointee.avail_in > 0 && rc == Z_OK) { continue }
                return slice.count - Int(z.pointee.avail_in)
            case Z_NEED_DICT:
                throw PNCryptError(.corruptCompressedData,
                                   "zlib data needs a preset dictionary, which is not supported", offset: Int(bytesIn))
            case Z_DATA_ERROR:
                throw dataError(message: z.pointee.msg.map { String(cString: $0) } ?? "invalid data")
            case Z_MEM_ERROR:
                throw PNCryptError(.io, "zlib could not allocate memory while decompressing")
            default:
                // Z_STREAM_ERROR: an inconsistent stream, a bug; reported as an error rather than a trap.
                throw PNCryptError(.invalidValue, "zlib inflate failed with code \(rc)", offset: Int(bytesIn))
            }
        }
    }

    private var isGzipMember: Bool {
        switch format {
        case .gzip: return true
        case .gzipOrZlib: return memberFirstByte == CompressionFormat.gzipMagic.0
        case .zlib, .rawDeflate: return false
        }
    }

    /// "gzip", "zlib" or "deflate": the kind of the current member, for messages.
    private var memberName: String {
        guard format == .gzipOrZlib, memberFirstByte != nil else { return format.dataName }
        return isGzipMember ? CompressionFormat.gzip.dataName : CompressionFormat.zlib.dataName
    }

    private func trailingGarbage(at offset: UInt64) -> PNCryptError {
        let what = isGzipMember ? "gzip member" : "\(memberName) stream"
        return PNCryptError(.corruptCompressedData, "trailing garbage after \(what) at offset \(offset)",
                            offset: Int(offset))
    }

    /// Names zlib's Z_DATA_ERROR causes in the terms of the format.
    private func dataError(message: String) -> PNCryptError {
        var text: String
        switch message {
        case "incorrect header check":
            text = "not \(format.dataName) data: incorrect header check"
        case "incorrect data check":
            text = isGzipMember ? "gzip CRC mismatch" : "zlib Adler-32 checksum mismatch"
        case "incorrect length check":
            text = "gzip ISIZE (length) mismatch"
        case "header crc mismatch":
            text = "gzip header CRC mismatch"
        default:
            text = "corrupt \(memberName) data: \(message)"
        }
        if memberStart > 0 { text += " in the member at offset \(memberStart)" }
        return PNCryptError(.corruptCompressedData, text, offset: Int(bytesIn))
    }
}
