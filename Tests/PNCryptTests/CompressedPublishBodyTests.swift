import Testing
import PNCryptCompression
import PNCrypt
import PNCryptTestSupport

/// `CompressedPublishBody`: threshold, headers, and the body a PubNub server inflates.
@Suite("CompressedPublishBody (Gzip)")
struct CompressedPublishBodyTests {
    typealias Support = CompressionTestSupport

    /// A `"<b64>"` JSON string of `count` Base64 characters of deterministic noise, as an encrypted message is.
    static func encryptedMessageText(base64Count count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let noise = Support.noise(count: count)
        return "\"" + String(decoding: noise.map { alphabet[Int($0 & 63)] }, as: UTF8.self) + "\""
    }

    @Test("a message at or above the threshold is gzip-compressed with the gzip headers")
    func compressed() throws {
        let text = Self.encryptedMessageText(base64Count: 4000)
        let body = try CompressedPublishBody(messageText: text)
        #expect(body.isCompressed)
        #expect(body.contentEncoding == "gzip")
        #expect(body.uncompressedLength == text.utf8.count)
        #expect(body.bytes.count < text.utf8.count * 8 / 10)
        #expect(body.contentLength == body.bytes.count)
        #expect(try Decompressor.decompress(body.bytes, format: .gzip) == Array(text.utf8))
        #expect(try Support.run("gzip", ["-dc"], input: body.bytes).stdout == Array(text.utf8))
        let headers = body.headers.map { "\($0.name): \($0.value)" }
        #expect(headers == [
            "Content-Type: application/json; charset=UTF-8",
            "Content-Encoding: gzip",
            "Content-Length: \(body.bytes.count)",
        ])
    }

    @Test("a ~90-byte message is sent as it is, with no Content-Encoding")
    func smallMessageSkipped() throws {
        let text = Self.encryptedMessageText(base64Count: 88)
        let body = try CompressedPublishBody(messageText: text)
        #expect(!body.isCompressed)
        #expect(body.contentEncoding == nil)
        #expect(body.bytes == Array(text.utf8))
        #expect(body.headers.map(\.name) == ["Content-Type", "Content-Length"])
        #expect(body.headers.last?.value == "90")
        // Why: compressed, it would grow.
        #expect(try Compressor.compress(Array(text.utf8)).count > 90)
    }

    @Test("the threshold is inclusive and adjustable", arguments: [0, 100, 1024])
    func thresholdBoundary(threshold: Int) throws {
        let text = Array(String(repeating: "{\"a\":1}", count: 200).utf8)  // compresses well
        #expect(try CompressedPublishBody(messageText: text.prefix(threshold), threshold: threshold)
            .isCompressed == (threshold > 50))
        if threshold > 0 {
            #expect(try !CompressedPublishBody(messageText: text.prefix(threshold - 1), threshold: threshold)
                .isCompressed)
        }
        #expect(CompressedPublishBody.defaultThreshold == 1024)
    }

    @Test("text that does not shrink is sent uncompressed even above the threshold")
    func incompressibleSkipped() throws {
        let noise = Support.noise(count: 3000)
        let body = try CompressedPublishBody(messageText: noise, threshold: 0)
        #expect(!body.isCompressed)
        #expect(body.bytes == noise)
    }

    @Test("always: compressed whatever the size, even when gzip makes it larger")
    func always() throws {
        for text in [Array("\"06UDjczkvAAYcqWfNwkOiQ==\"".utf8), Support.noise(count: 3000), []] {
            let body = try CompressedPublishBody(messageText: text, always: true)
            #expect(body.isCompressed && body.contentEncoding == "gzip" && body.bytes.count > text.count)
            #expect(try Decompressor.decompress(body.bytes) == text)
            #expect(body.uncompressedLength == text.count)
        }
    }

    @Test("empty text is sent as it is")
    func empty() throws {
        let body = try CompressedPublishBody(messageText: "", threshold: 0)
        #expect(!body.isCompressed)
        #expect(body.bytes.isEmpty)
        #expect(body.headers.last?.value == "0")
    }

    @Test("the level is honoured and checked")
    func levels() throws {
        let text = String(repeating: "{\"text\":\"hello world\"}", count: 100)
        let fast = try CompressedPublishBody(messageText: text, level: 1)
        let small = try CompressedPublishBody(messageText: text, level: 9)
        #expect(fast.isCompressed && small.isCompressed)
        #expect(try Decompressor.decompress(fast.bytes) == Decompressor.decompress(small.bytes))
        #expect(fast.bytes != small.bytes)
        expectPNError(.invalidValue, "gzip compression level must be 0 through 9, got 10") {
            _ = try CompressedPublishBody(messageText: text, level: 10)
        }
        expectPNError(.invalidValue, "compression threshold must not be negative, got -1") {
            _ = try CompressedPublishBody(messageText: text, threshold: -1)
        }
    }
}
