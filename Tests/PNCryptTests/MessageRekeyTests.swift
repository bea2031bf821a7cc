import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptCompression
@testable import PNCrypt
import PNCryptTestSupport

/// `MessageRekey` and rekey over a stream.
@Suite struct MessageRekeyTests {
    static let oldA = "old-key-A"
    static let oldB = "old-key-B"
    static let new = "new-key"

    /// One line of the mixed archive and what rekey must do with it.
    enum Expect { case rekeyed(JSONValue), alreadyNew, unchanged, blank }

    /// A mixed archive: legacy fixed IV and random IV under two old keys, acrh under an old key, messages already
    /// new, a legacy message under the new key, undecryptable ones, non-JSON lines and blank lines.
    static func archive() throws -> (input: [UInt8], expect: [Expect]) {
        var lines: [(String, Expect)] = []
        func seal(_ message: JSONValue, _ key: String, _ scheme: Scheme) throws -> String {
            let crypto = try MessageCrypto(cipherKey: key, scheme: scheme)
            return String(decoding: try crypto.publishBody(message), as: UTF8.self)
        }
        let values = MessageStreamTests.messages
        for (i, value) in values.enumerated() {
            lines.append((try seal(value, oldA, .legacy), .rekeyed(value)))
            lines.append((try seal(value, oldB, .legacyRandomIV), .rekeyed(value)))
            lines.append((try seal(value, oldA, .acrh), .rekeyed(value)))
            lines.append((try seal(value, new, .acrh), .alreadyNew))
            lines.append((try seal(value, new, .legacy), .rekeyed(value)))
            lines.append((try seal(value, "someone-else", i % 2 == 0 ? .legacy : .acrh), .unchanged))
            if i == 1 {
                lines.append(("", .blank))
                lines.append(("not json at all", .unchanged))
                lines.append(("{\"plain\":\"object\"}", .unchanged))
                lines.append(("\"bm90IGNpcGhlcnRleHQ=\"", .unchanged))
            }
        }
        // Written by the real Python SDK too: legacy under old key A (the SDK's fixed IV).
        let input = Array(lines.map(\.0).joined(separator: "\n").utf8) + [0x0A]
        return (input, lines.map(\.1))
    }

    static func rekey(jobs: Int = 3) throws -> MessageStream {
        let rekey = try MessageRekey(from: KeyRing([oldA, oldB]), to: CipherKey(new), scheme: .acrh)
        return MessageStream(.rekey(rekey), jobs: jobs)
    }

    @Test("rekey over a mixed archive, checked line by line; a rerun changes nothing")
    func mixedArchive() throws {
        let (input, expect) = try Self.archive()
        var stream = try Self.rekey()
        stream.batchBytes = 300
        let result = try stream.run(input)
        let inLines = MessageStreamTests.lines(input)
        let outLines = MessageStreamTests.lines(result.output)
        #expect(outLines.count == expect.count)
        let newModule = try CryptoModule(cipherKey: Self.new)
        var unchangedLines: [Int] = []
        for (i, (expected, (before, after))) in zip(expect, zip(inLines, outLines)).enumerated() {
            switch expected {
            case .rekeyed(let value):
                let text = try #require(try JSONValue(parsing: after).stringValue, "line \(i + 1)")
                let sealed = try Base64.decode(text)
                #expect(CryptorHeader.sentinel.elementsEqual(sealed.prefix(4)), "line \(i + 1) is acrh")
                let plain = try newModule.decryptBinary(sealed, reading: .only(.acrh))
                #expect(try JSONValue(parsing: plain) == value, "line \(i + 1)")
            case .alreadyNew, .blank:
                #expect(after == before, "line \(i + 1)")
            case .unchanged:
                #expect(after == before, "line \(i + 1)")
                unchangedLines.append(i + 1)
            }
        }
        let rekeyed = expect.filter { if case .rekeyed = $0 { true } else { false } }.count
        let alreadyNew = expect.filter { if case .alreadyNew = $0 { true } else { false } }.count
        #expect(result.summary.rekeyed == rekeyed)
        #expect(result.summary.alreadyNew == alreadyNew)
        #expect(result.summary.unchanged == unchangedLines.count)
        #expect(result.statuses.map(\.line) == unchangedLines)
        #expect(result.summary.blank == 1)

        // The rerun: everything is new or unchanged, byte for byte.
        let again = try stream.run(result.output)
        #expect(again.output == result.output)
        #expect(again.summary.rekeyed == 0)
        #expect(again.summary.alreadyNew == rekeyed + alreadyNew)
        #expect(again.summary.unchanged == unchangedLines.count)
    }

    @Test("rekeyed messages are read by the real PubNub Python SDK", .tags(.interop), .notInQuickRun,
          .enabled(if: InteropSwitch.enabled, "interop skipped because PNCRYPT_SKIP_INTEROP=1"))
    func pythonReadsRekeyed() throws {
        let peer = try PythonPeer.shared()
        // Old messages written by the SDK itself (legacy fixed IV and random IV), next to pncrypt's archive.
        var sdkLines: [String] = []
        var sdkValues: [JSONValue] = []
        for (i, value) in MessageStreamTests.messages.enumerated() {
            let scheme = i % 2 == 0 ? "legacy" : "legacy-random-iv"
            let reply = try peer.request(["op": "encrypt", "scheme": .string(scheme), "key": .string(Self.oldB),
                                          "text": .string(value.serializedString())])
            sdkLines.append(JSONValue.string(try #require(reply["data_b64"]?.stringValue, "\(reply)"))
                .serializedString())
            sdkValues.append(value)
        }
        let (archive, expect) = try Self.archive()
        let input = archive + Array((sdkLines.joined(separator: "\n") + "\n").utf8)
        let expected = expect + sdkValues.map { Expect.rekeyed($0) }
        let result = try Self.rekey().run(input)
        var requests: [JSONValue] = []
        var values: [JSONValue] = []
        for (line, expectation) in zip(MessageStreamTests.lines(result.output), expected) {
            guard case .rekeyed(let value) = expectation else { continue }
            requests.append(["op": "decrypt_message", "scheme": "acrh", "key": .string(Self.new),
                             "message": .string(try #require(try JSONValue(parsing: line).stringValue))])
            values.append(value)
        }
        #expect(requests.count == MessageStreamTests.messages.count * 4 + sdkValues.count)
        let replies = try peer.batch(requests)
        for (reply, value) in zip(replies, values) {
            #expect(reply["ok"] == true, "\(reply)")
            #expect(reply["value"]?.serializedString() == value.serializedString())
        }
    }

    @Test("the trust rules: an ambiguous message is left unchanged; bad settings are refused")
    func trustAndSettings() throws {
        // The same key as old and new: a legacy message under it is rekeyed once, then already new.
        let same = try MessageRekey(from: KeyRing([Self.new, Self.oldA]), to: CipherKey(Self.new))
        let legacy = try MessageCrypto(cipherKey: Self.new, scheme: .legacy).publishBody("hi")
        guard case .rekeyed(let wire) = same.rekey(jsonText: legacy) else {
            Issue.record("not rekeyed")
            return
        }
        #expect(same.rekey(jsonText: wire) == .alreadyNew)
        // Both legacy readings give JSON (a 16-byte first block that is JSON whitespace, then text): the headerless
        // rule takes the fixed-IV reading, whose first block is text, and moves the whole message.
        let module = try CryptoModule(cipherKey: Self.oldA)
        let plaintext = Array("                \"ambiguous!\"".utf8)
        let fixed = try module.encryptBinary(plaintext, scheme: .legacy)
        #expect(try module.decryptBinary(fixed, reading: .only(.legacyRandomIV)) == Array("\"ambiguous!\"".utf8))
        let line = Array(JSONValue.string(Base64.encode(fixed)).serialized())
        guard case .rekeyed(let moved) = same.rekey(jsonText: line) else {
            Issue.record("not rekeyed")
            return
        }
        let back = try MessageCrypto(cipherKey: Self.new).decrypt(jsonText: moved, policy: .passThrough)
        #expect(back.status == nil && back.message == JSONValue.string("ambiguous!"))
        #expect(same.rekey(jsonText: Array("[1".utf8)) != .alreadyNew)
        #expect(expectPNError { () throws(PNCryptError) in
            try MessageRekey(from: KeyRing(["a"]), to: CipherKey("b"), scheme: .legacy33)
        }?.code == .invalidValue)
        #expect(expectPNError { () throws(PNCryptError) in
            try MessageRekey(from: KeyRing(["a"]), reading: .headerlessAs(.legacy), to: CipherKey("b"),
                             scheme: .legacyRandomIV)
        }?.code == .invalidValue)
        // A reading rekey cannot take: the error names it and the readings it can take, in the API's terms.
        for reading in [ReadPolicy.only(.acrh), .only(.legacy), .headerlessAs(.acrh), .headerlessAs(.legacy33),
                        try ReadPolicy(naming: "auto,legacy33")] {
            let error = expectPNError { () throws(PNCryptError) in
                try MessageRekey(from: KeyRing(["a"]), reading: reading, to: CipherKey("b"))
            }
            #expect(error?.code == .invalidValue)
            let text = error?.message ?? ""
            #expect(text.contains(".rule") && text.contains(".headerlessAs(legacy)")
                    && text.contains(".headerlessAs(legacy-random-iv)"), "\(text)")
            switch reading {
            case .only(let scheme): #expect(text.contains("cannot read with .only(\(scheme))"), "\(text)")
            case .headerlessAs(let scheme): #expect(text.contains("with .headerlessAs(\(scheme))"), "\(text)")
            case .anyOf(let list): #expect(text.contains("cannot read with the list \(list)"), "\(text)")
            case .rule: Issue.record(".rule is accepted")
            }
        }
    }
}
