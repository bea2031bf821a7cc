import PNCryptBase
import PNCryptJSON
import PNCryptCore
import PNCryptCompression

/// The POST body of a compressed publish and the headers to send with it (docs/formats.md section 5).
///
/// Made from the prepared message text: after encryption, the `"<b64>"` JSON string, as UTF-8. Text of at least
/// `threshold` bytes is gzip-compressed (one member, PubNub SDK settings) and sent with `Content-Encoding: gzip`;
/// shorter text, and text that does not shrink, is sent as it is, with no `Content-Encoding` header, unless
/// `always` asks for gzip whatever the size (a server inflates any gzip body; it is only larger).
///
/// ```swift
/// let body = try CompressedPublishBody(messageText: "\"\(ciphertextBase64)\"")
/// for (name, value) in body.headers { request.setValue(value, forHTTPHeaderField: name) }
/// request.httpBody = Data(body.bytes)
/// ```
package struct CompressedPublishBody: Hashable, Sendable {
    /// Text shorter than this many bytes is sent uncompressed: 1024.
    ///
    /// Measured with level 6 on `"<b64>"` strings of random ciphertext (the usual encrypted message), averaged
    /// over 50 messages: gzip adds 18 bytes of framing and Base64 compresses to at most ~76%, so a 90-byte
    /// message grows to 110, compression breaks even near 220 bytes, saves 10% at 350, 18% at 690 and 21% at
    /// 1370 (the asymptote is ~24%). Below 1 KiB the body fits in one TCP segment either way, so the few bytes
    /// saved do not save a packet, while every compression costs a zlib stream (about 256 KiB of state) and
    /// about 45 µs (release build, 92- to 4094-byte messages: the cost is mostly setting up the stream).
    /// Plain JSON compresses better; lower the threshold for it if that matters.
    package static let defaultThreshold = 1024

    /// The `Content-Type` of every publish body.
    package static let contentType = "application/json; charset=UTF-8"

    /// The bytes to send: gzip data when `isCompressed`, else the message text itself.
    package let bytes: [UInt8]
    /// Whether `bytes` is gzip-compressed (and `Content-Encoding: gzip` must be sent).
    package let isCompressed: Bool
    /// The length of the message text before compression.
    package let uncompressedLength: Int

    /// Prepares the body for the UTF-8 bytes of the message text. Throws `.invalidValue` for a level outside
    /// 0...9 or a negative threshold.
    ///
    /// - Parameters:
    ///   - messageText: The message text as prepared for publishing (the `"<b64>"` JSON string), as UTF-8.
    ///   - threshold: Text shorter than this many bytes is sent uncompressed.
    ///   - level: The zlib compression level, 0...9.
    ///   - always: Compress every body, even one under `threshold` or one gzip makes larger.
    package init(messageText: some Sequence<UInt8>, threshold: Int = defaultThreshold,
                level: Int = Compressor.defaultLevel, always: Bool = false) throws(PNCryptError) {
        guard threshold >= 0 else {
            throw PNCryptError(.invalidValue, "compression threshold must not be negative, got \(threshold)")
        }
        try DeflateEngine.validate(level: level)
        let text = Array(messageText)
        uncompressedLength = text.count
        if always || text.count >= threshold {
            let compressed = try Compressor.compress(text, level: level)
            if always || compressed.count < text.count {
                bytes = compressed
                isCompressed = true
                return
            }
        }
        bytes = text
        isCompressed = false
    }

    /// Prepares the body for the message text (encoded as UTF-8); the parameters are those of the initializer
    /// that takes the text's bytes.
    package init(messageText: String, threshold: Int = defaultThreshold, level: Int = Compressor.defaultLevel,
                always: Bool = false) throws(PNCryptError) {
        try self.init(messageText: messageText.utf8, threshold: threshold, level: level, always: always)
    }

    /// The value of `Content-Length`: the size of `bytes`.
    package var contentLength: Int { bytes.count }

    /// `"gzip"` when compressed, else `nil` (send no `Content-Encoding` header).
    package var contentEncoding: String? { isCompressed ? "gzip" : nil }

    /// The headers to send, in this order: `Content-Type`, `Content-Encoding` (only when compressed),
    /// `Content-Length`.
    package var headers: [(name: String, value: String)] {
        var result = [(name: "Content-Type", value: Self.contentType)]
        if let contentEncoding { result.append((name: "Content-Encoding", value: contentEncoding)) }
        result.append((name: "Content-Length", value: String(contentLength)))
        return result
    }
}
