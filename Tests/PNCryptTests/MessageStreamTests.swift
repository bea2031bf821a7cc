import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptCompression
@testable import PNCrypt
import PNCryptTestSupport

/// Line mode through the library: `MessageStream` and `MessageRekey`.
@Suite struct MessageStreamTests {
    /// Messages with unicode, escapes, numbers kept as written and nesting.
    static let messages: [JSONValue] = [
        "Hello World",
        ["text": "héllo 漢語 😀 \"quoted\" / \\ \n", "tt": .number(JSONNumber(literal: "13406746729185766")!)],
        [1, 2.5, true, nil, ["nested": [], "e": -7]],
        "\u{2028}\u{7F}ß",
        ["a": ["b": ["c": "d"]]],
    ]

    /// Messages whose leaves are all strings (what `legacy33` can hold).
    static let stringLeafMessages: [JSONValue] = [
        "Hello World", ["seven", ["food": "Cheeseburger", "drink": "漢語 😀"]], ["", "x"],
    ]

    static func text(_ values: [JSONValue], style: JSONStyle = .compact) -> [UInt8] {
        values.flatMap { $0.serialized(style: style) + [0x0A] }
    }

    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        if lines.last == [] { lines.removeLast() }
        return lines
    }

    @Test("round trips in every scheme and exact style (SDKStyleTests: the SDK styles), on 1 and 4 jobs")
    func roundTrips() throws {
        for scheme in Scheme.allCases {
            let messages = scheme == .legacy33 ? Self.stringLeafMessages : Self.messages
            for style in JSONStyle.exactStyles {
                for jobs in [1, 4] {
                    let crypto = try MessageCrypto(cipherKey: "ключ", scheme: scheme, reading: .only(scheme),
                                                   style: style)
                    let input = Self.text(messages, style: style)
                    let encrypted = try MessageStream(.encrypt(crypto, raw: false), jobs: jobs).run(input)
                    #expect(encrypted.statuses.isEmpty)
                    #expect(encrypted.summary.lines == messages.count)
                    let decrypted = try MessageStream(.decrypt(crypto, policy: .marker), jobs: jobs)
                        .run(encrypted.output)
                    #expect(decrypted.statuses.isEmpty, "\(scheme) \(style)")
                    #expect(decrypted.output == input, "\(scheme) \(style) \(jobs)")
                    #expect(decrypted.summary.succeeded == messages.count)
                    // Each output line is exactly the library's own wire form of the message.
                    for (line, message) in zip(Self.lines(encrypted.output), messages) {
                        let single = crypto.decrypt(try JSONValue(parsing: line), policy: .marker)
                        #expect(single.message == message)
                    }
                }
            }
        }
    }

    @Test("a message that is not encrypted has a status under both policies; passthrough copies its line")
    func notEncryptedLines() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", reading: .headerlessAs(.legacy))
        let input = Array("{\"not\": \"encrypted\"}\n\"06UDjczkvAAYcqWfNwkOiQ==\"\n".utf8)
        for policy in DecryptionPolicy.allCases {
            let result = try MessageStream(.decrypt(crypto, policy: policy)).run(input)
            #expect(result.statuses.map(\.line) == [1], "\(policy)")
            #expect(result.statuses.first?.error.code == .notEncrypted, "\(policy)")
            let first = policy == .marker ? "\"DECRYPTION_ERROR\"" : "{\"not\": \"encrypted\"}"
            #expect(String(decoding: result.output, as: UTF8.self) == first + "\n\"Hello World\"\n", "\(policy)")
        }
    }

    @Test("raw encryption keeps the line's bytes; publish encryption rewrites them in the style")
    func rawEncryption() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy, reading: .only(.legacy))
        let input = Array(#"{ "a" : 1 }"#.utf8) + [0x0A]
        let raw = try MessageStream(.encrypt(crypto, raw: true)).run(input)
        let rewritten = try MessageStream(.encrypt(crypto, raw: false)).run(input)
        #expect(raw.output != rewritten.output)
        let key = try CryptoModule(cipherKey: "enigma")
        let rawWire = try #require(try JSONValue(parsing: Self.lines(raw.output)[0]).stringValue)
        let rawPlain = try key.decrypt(rawWire, reading: .only(.legacy))
        #expect(rawPlain == #"{ "a" : 1 }"#)
        let plain = try key.decrypt(try #require(try JSONValue(parsing: Self.lines(rewritten.output)[0])
            .stringValue), reading: .only(.legacy))
        #expect(plain == #"{"a":1}"#)
    }

    @Test("blank lines, lines that are not JSON, CRLF and a last line without a newline")
    func framing() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy, reading: .only(.legacy))
        let hello = #""06UDjczkvAAYcqWfNwkOiQ==""#
        let input = Array((hello + "\r\n\n  \t\r\nnot json\r\n" + hello + "\n{\"a\":\n" + hello).utf8)
        let marker = try MessageStream(.decrypt(crypto, policy: .marker), jobs: 2).run(input)
        #expect(String(decoding: marker.output, as: UTF8.self)
                == "\"Hello World\"\r\n\n  \t\r\n\"DECRYPTION_ERROR\"\r\n"
                + "\"Hello World\"\n\"DECRYPTION_ERROR\"\n\"Hello World\"\n")
        #expect(marker.statuses.map(\.line) == [4, 6])
        #expect(marker.statuses.allSatisfy { $0.error.code == .invalidJSON && $0.original == nil })
        #expect(marker.summary == {
            var s = MessageStream.Summary()
            (s.lines, s.blank, s.failed, s.bytes) = (7, 2, 2, Int64(input.count))
            return s
        }())
        let passthrough = try MessageStream(.decrypt(crypto, policy: .passThrough)).run(input)
        #expect(String(decoding: passthrough.output, as: UTF8.self)
                == "\"Hello World\"\r\n\n  \t\r\nnot json\r\n\"Hello World\"\n{\"a\":\n\"Hello World\"\n")
        let json = marker.statuses[0].json.serializedString()
        #expect(json.hasPrefix(#"{"line":4,"category":"json","reason":"invalidJSON","#
                               + #""message":"invalid JSON at offset 1: expected 'null'"#))

        // Encryption: the same framing; a line that is not JSON becomes an empty line and its status echoes nothing.
        let encrypted = try MessageStream(.encrypt(crypto, raw: false)).run(Array("\"a\"\r\n\nsecret!\n\"b\"".utf8))
        let lines = Self.lines(encrypted.output)
        #expect(lines.count == 4)
        #expect(lines[0].last == 0x0D && lines[1].isEmpty && lines[2].isEmpty)
        #expect(encrypted.output.last == 0x0A)
        #expect(encrypted.statuses.map(\.line) == [3])
        #expect(!encrypted.statuses[0].json.serializedString().contains("secret"))
        #expect(try MessageStream(.decrypt(crypto, policy: .marker)).run(encrypted.output).output
                == Array("\"a\"\r\n\n\n\"b\"\n".utf8))

        // Nothing in, nothing out; a lone newline is one blank line.
        #expect(try MessageStream(.decrypt(crypto, policy: .marker)).run([UInt8]()).output.isEmpty)
        #expect(try MessageStream(.decrypt(crypto, policy: .marker)).run([0x0A]).summary.blank == 1)
    }

    @Test("decryption failures are statuses with the line number and the original message")
    func decryptionStatuses() throws {
        let crypto = try MessageCrypto(cipherKey: "wrong", scheme: .legacy, reading: .only(.legacy))
        let input = Array("\"06UDjczkvAAYcqWfNwkOiQ==\"\n42\n".utf8)
        let result = try MessageStream(.decrypt(crypto, policy: .marker)).run(input)
        #expect(result.statuses.count == 2)
        #expect(result.statuses[0].line == 1 && result.statuses[0].error == CryptoModule.decryptionFailed)
        #expect(result.statuses[0].original == "06UDjczkvAAYcqWfNwkOiQ==")
        #expect(result.statuses[1].line == 2 && result.statuses[1].error.code == .notEncrypted)
        #expect(result.output == Array("\"DECRYPTION_ERROR\"\n\"DECRYPTION_ERROR\"\n".utf8))
    }

    @Test("order is kept under 8 jobs with many small batches", .tags(.stress), .notInQuickRun)
    func orderUnderEightJobs() throws {
        let crypto = try MessageCrypto(cipherKey: "order", scheme: .acrh)
        let count = 20_000
        let plain: [UInt8] = (0..<count).flatMap { i -> [UInt8] in
            JSONValue.object(["n": .number(JSONNumber(i)), "pad": .string(String(repeating: "x", count: i % 37))])
                .serialized() + [0x0A]
        }
        var encrypt = MessageStream(.encrypt(crypto, raw: false), jobs: 8)
        encrypt.batchBytes = 512
        let encrypted = try encrypt.run(plain)
        var decrypt = MessageStream(.decrypt(crypto, policy: .marker), jobs: 8)
        decrypt.batchBytes = 700
        let decrypted = try decrypt.run(encrypted.output)
        #expect(decrypted.summary.lines == count)
        #expect(decrypted.output == plain)
        // Statuses come in line order too.
        var mixed = encrypted.output
        for i in stride(from: 0, to: count, by: 997) {
            let lineStart = Self.lineStarts(mixed)[i]
            mixed[lineStart + 1] = UInt8(ascii: "!")    // not Base64 any more
        }
        let failing = try decrypt.run(mixed)
        #expect(failing.statuses.map(\.line) == Array(stride(from: 1, through: count, by: 997)))
    }

    static func lineStarts(_ bytes: [UInt8]) -> [Int] {
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A && i + 1 < bytes.count { starts.append(i + 1) }
        return starts
    }

    @Test("stop on failure: the first failed line's status, then its error naming the line")
    func stopOnFailure() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy, reading: .only(.legacy))
        var stream = MessageStream(.decrypt(crypto, policy: .marker), jobs: 3, stopOnFailure: true)
        stream.batchBytes = 64
        let good = "\"06UDjczkvAAYcqWfNwkOiQ==\"\n"
        let input = Array((String(repeating: good, count: 50) + "nope\n" + good + "[\n").utf8)
        var statuses: [MessageStatus] = []
        let session = try stream.makeSession { statuses.append($0) }
        var written: [UInt8] = []
        let error = expectPNError { () throws(PNCryptError) in
            try withBytes(input) { (b) throws(PNCryptError) in try session.update(b) { written += $0 } }
            try session.finish { written += $0 }
        }
        #expect(error?.code == .invalidJSON)
        #expect(error?.message.hasPrefix("line 51: invalid JSON") == true)
        #expect(statuses.map(\.line) == [51])
        #expect(Self.lines(written).count <= 50)
        #expect(expectPNError { () throws(PNCryptError) in try session.finish { _ in } }?.code == .invalidValue)
    }

    @Test("a line longer than the limit stops the run, naming it; bad settings are refused")
    func limits() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy, reading: .only(.legacy))
        var stream = MessageStream(.decrypt(crypto, policy: .marker), jobs: 2, maxLineLength: 1000)
        stream.batchBytes = 256
        let input = Array((String(repeating: "\"06UDjczkvAAYcqWfNwkOiQ==\"\n", count: 30)
                           + String(repeating: "x", count: 5000) + "\n").utf8)
        var written: [UInt8] = []
        let fd = try Descriptors.pipe(input)
        defer { close(fd) }
        let read: MessageStream.Reader = { (size, body) throws(PNCryptError) in
            try Descriptors.chunks(of: fd, chunkSize: size, body)
        }
        let error = expectPNError { () throws(PNCryptError) in try stream.run(reading: read, to: { written += $0 }) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message == "line 31 is longer than 1000 bytes (the line length limit)")
        #expect(Self.lines(written).count == 30)
        #expect(expectPNError { () throws(PNCryptError) in try MessageStream(.decrypt(crypto, policy: .marker), jobs: 0)
            .run([UInt8]()) }?.code == .invalidValue)
        #expect(expectPNError { () throws(PNCryptError) in
            try MessageStream(.decrypt(crypto, policy: .marker), maxLineLength: 0).run([UInt8]())
        }?.code == .invalidValue)
    }


    @Test("a 100 MB input goes through in bounded memory and in order (and 30 MB on 64 jobs)",
          .tags(.stress), .notInQuickRun,
          arguments: zip([100_000_000, 30_000_000], [4, 64]))
    func largeInput(size: Int, jobs: Int) throws {
        // Wire messages of about 11 KB, made and checked a chunk at a time: the input is never held whole.
        let crypto = try MessageCrypto(cipherKey: "big", scheme: .legacy, reading: .only(.legacy))
        let payload = JSONValue.string(String(repeating: "0123456789abcdef", count: 512))   // ~8 KB of text
        let wire = try crypto.publishBody(payload) + [0x0A]
        let plain = payload.serialized() + [0x0A]
        let count = size / wire.count + 1
        let stream = MessageStream(.decrypt(crypto, policy: .marker), jobs: jobs)
        let session = try stream.makeSession()
        var lines = 0
        var pending = 0
        var mismatch = false
        let sink: ByteSink = { bytes in
            // Every output line must be the plaintext line: compare as they come.
            var offset = 0
            while offset < bytes.count {
                let n = min(plain.count - pending, bytes.count - offset)
                if !plain.withUnsafeBytes({ memcmp($0.baseAddress! + pending, bytes.baseAddress! + offset, n) == 0 }) {
                    mismatch = true
                }
                pending += n
                offset += n
                if pending == plain.count { pending = 0; lines += 1 }
            }
        }
        var chunk: [UInt8] = []
        for _ in 0..<count {
            chunk += wire
            if chunk.count >= 1 << 20 {
                try withBytes(chunk) { (b) throws(PNCryptError) in try session.update(b, sink) }
                chunk.removeAll(keepingCapacity: true)
            }
        }
        try withBytes(chunk) { (b) throws(PNCryptError) in try session.update(b, sink) }
        try session.finish(sink)
        #expect(!mismatch)
        #expect(lines == count)
        #expect(session.summary.bytes >= Int64(size))
        // In flight at once, whatever the length: at most 8 x jobs batches of at most twice the batch size, and
        // past the 8 MiB byte bound at most one more batch.
        let batch = 2 * stream.batchBytes + wire.count
        #expect(session.peakBytesInFlight <= min(8 * jobs * batch, (8 << 20) + batch))
        #expect(session.peakBytesInFlight > 0)
    }

    @Test("async code: chunks from an AsyncSequence, output in order, the same as the synchronous run")
    func asyncRun() async throws {
        let crypto = try MessageCrypto(cipherKey: "async", scheme: .acrh)
        let plain = Self.text(Array(repeating: Self.messages, count: 400).flatMap { $0 })
        let encrypted = try MessageStream(.encrypt(crypto, raw: false), jobs: 2).run(plain).output
        var stream = MessageStream(.decrypt(crypto, policy: .marker), jobs: 3)
        stream.batchBytes = 1000
        let chunks = AsyncStream<[UInt8]> { continuation in
            var offset = 0
            var size = 1
            while offset < encrypted.count {
                let n = min(size, encrypted.count - offset)
                continuation.yield(Array(encrypted[offset..<offset + n]))
                offset += n
                size = size * 3 % 5000 + 1
            }
            continuation.finish()
        }
        var output: [UInt8] = []
        var statuses: [MessageStatus] = []
        let summary = try await stream.run(chunks, output: { output += $0 }, statuses: { statuses.append($0) })
        #expect(output == plain)
        #expect(statuses.isEmpty)
        #expect(summary.lines == 2000)
        // One job in async code: still on a worker thread of its own, awaited.
        var single: [UInt8] = []
        _ = try await MessageStream(.decrypt(crypto, policy: .marker), jobs: 1)
            .run(AsyncStream { $0.yield(encrypted + Array("oops\n".utf8)); $0.finish() },
                 output: { single += $0 }, statuses: { statuses.append($0) })
        #expect(single == plain + Array("\"DECRYPTION_ERROR\"\n".utf8))
        #expect(statuses.map(\.line) == [2001])
    }

    @Test("a session is a stream stage: gunzip, then decrypt lines, in one pipeline")
    func sessionInPipeline() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .acrh)
        let plain = Self.text(Self.messages)
        let encrypted = try MessageStream(.encrypt(crypto, raw: false)).run(plain).output
        let packed = try Compressor.compress(encrypted)
        let session = try MessageStream(.decrypt(crypto, policy: .marker)).makeSession()
        #expect(try StreamPipeline.run(packed, through: [Decompressor(), session]) == plain)
    }
}
