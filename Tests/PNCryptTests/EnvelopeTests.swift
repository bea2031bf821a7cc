import Foundation
import Testing
@testable import PNCrypt
@testable import PNCryptJSON
@testable import PNCryptCore
@testable import PNCryptCompression

/// One vector of Vectors/envelopes/envelopes.json (scripts/gen_envelope_vectors.py): a response whose messages the
/// PubNub Python SDK encrypted in place, one of them with another key.
struct EnvelopeVector: CustomTestStringConvertible, Sendable {
    var id: String
    var format: EnvelopeFormat
    var key: String
    var encrypted: String
    var decrypted: String
    /// The statuses expected, as objects of index, channel and timetoken.
    var failures: [JSONValue]

    var testDescription: String { id }

    static let path = Package.vectors.appendingPathComponent("envelopes/envelopes.json")

    static let all: [EnvelopeVector] = load(path)

    /// The vectors of a file in the format of Vectors/envelopes/envelopes.json (recorded.json has it too).
    static func load(_ path: URL) -> [EnvelopeVector] {
        guard let data = try? Data(contentsOf: path), case .object(let root)? = try? JSONValue(parsing: Array(data)),
              case .array(let vectors)? = root["vectors"] else { return [] }
        return vectors.compactMap { value in
            guard case .object(let v) = value, let id = v["id"]?.stringValue,
                  let format = v["format"]?.stringValue.flatMap(EnvelopeFormat.init(rawValue:)),
                  let key = v["key"]?.stringValue, let encrypted = v["encrypted"]?.stringValue,
                  let decrypted = v["decrypted"]?.stringValue, let failures = v["failures"]?.arrayValue
            else { return nil }
            return EnvelopeVector(id: id, format: format, key: key, encrypted: encrypted, decrypted: decrypted,
                                  failures: failures)
        }
    }

    /// The location fields of a status, as the vectors list them.
    static func location(_ status: MessageStatus) -> JSONValue {
        var object: JSONObject = [:]
        if let index = status.index { object.append(.number(JSONNumber(index)), forKey: "index") }
        if let channel = status.channel { object.append(.string(channel), forKey: "channel") }
        if let timetoken = status.timetoken { object.append(timetoken, forKey: "timetoken") }
        return .object(object)
    }
}

@Suite struct EnvelopeTests {
    @Test("the envelope vectors are there: every format and scheme")
    func vectorsPresent() {
        let vectors = EnvelopeVector.all
        #expect(vectors.count == 12)
        #expect(Set(vectors.map(\.format)) == Set(EnvelopeFormat.allCases))
    }

    @Test("each vector decrypts to its body: the foreign message is its one status", arguments: EnvelopeVector.all)
    func vector(_ v: EnvelopeVector) throws {
        let envelope = try Envelope(parsing: Array(v.encrypted.utf8))
        #expect(envelope.format == v.format)
        let crypto = try MessageCrypto(cipherKey: v.key)
        let result = crypto.decrypt(envelope: envelope, policy: .passThrough)
        #expect(String(decoding: result.envelope.json.serialized(), as: UTF8.self) == v.decrypted)
        #expect(result.statuses.map(EnvelopeVector.location) == v.failures)
        #expect(result.statuses.allSatisfy { $0.reason == .wrongKeyOrCorrupt })
        #expect(result.messages == envelope.locations.count)
        // The marker policy puts the marker in the foreign message's place, and nowhere else.
        let marked = crypto.decrypt(envelope: envelope, policy: .marker).envelope.json.serialized()
        let foreign = try #require(result.statuses.first?.original?.serialized())
        let expected = v.decrypted.replacingOccurrences(of: String(decoding: foreign, as: UTF8.self),
                                                        with: #""DECRYPTION_ERROR""#)
        #expect(String(decoding: marked, as: UTF8.self) == expected)
    }

    @Test("subscribe: only messages (no e, e 0) and file messages (e 4) are read, not presence, signals, actions")
    func subscribeLocations() throws {
        let v = try #require(EnvelopeVector.all.first { $0.format == .subscribe })
        let envelope = try Envelope(parsing: Array(v.encrypted.utf8))
        #expect(envelope.locations.map(\.index) == [0, 5, 6, 7])
        #expect(envelope.locations.map(\.channel) == ["demo", "demo", "demo", "demo"])
        #expect(envelope.locations[1].timetoken == .string("17000000000000006"))
    }

    @Test("a file message decrypts whole: {message, file: {id, name}}")
    func fileMessage() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma")
        let payload = FileMessage.payload("Look", id: "abc", name: "cat.jpg")
        #expect(payload.serializedString() == #"{"message":"Look","file":{"id":"abc","name":"cat.jpg"}}"#)
        let wire = try crypto.encrypt(payload)
        let body = #"{"t":{"t":"1","r":1},"m":[{"c":"ch","e":4,"p":{"t":"2","r":1},"d":"# + wire.serializedString()
            + "}]}"
        let result = crypto.decrypt(envelope: try Envelope(parsing: Array(body.utf8)), policy: .marker)
        #expect(result.statuses.isEmpty)
        #expect(result.envelope.json.serializedString()
                == #"{"t":{"t":"1","r":1},"m":[{"c":"ch","e":4,"p":{"t":"2","r":1},"d":"#
                + payload.serializedString() + "}]}")
    }

    @Test("formats are told by structure; forced or refused formats name what is wrong")
    func detection() {
        func error(_ text: String, _ formats: [EnvelopeFormat] = EnvelopeFormat.allCases) -> String? {
            expectPNError(.invalidJSON) { () throws(PNCryptError) in
                try Envelope(parsing: Array(text.utf8), formats: formats)
            }?.message
        }
        #expect(error(#"{"channels":{"ch":12}}"#) == #"v3 response: channel "ch" is not a list"#)
        #expect(error(#"{"channels":{"ch":[{"timetoken":"1"}]}}"#)
                == #"v3 response: item 0 of channel "ch" is not an object with a message"#)
        #expect(error(#"{"t":{"t":"1","r":1},"m":[]}"#, EnvelopeFormat.history)
                == "a subscribe response, not a history response (v2 or v3)")
        #expect(error(#"{"channels":{}}"#, [.v2]) == "not a history response: expected [[messages], start, end]")
        #expect(error(#"{"t":{},"m":[1]}"#) == "subscribe response: item 0 of m is not an object")
        #expect(error("[]", EnvelopeFormat.history)?.hasPrefix("not a history response (v2 or v3): expected") == true)
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        expectPNError(.jsonTooDeep) { () throws(PNCryptError) in try Envelope(parsing: Array(deep.utf8)) }
    }

    @Test("docs/formats.md section 6's worked examples are what decryption gives")
    func documentedExamples() throws {
        let text = try String(contentsOf: Package.root.appendingPathComponent("docs/formats.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## 6. ").dropFirst().first)
            .components(separatedBy: "## 7. ")[0]
        let blocks = section.components(separatedBy: "```\n").enumerated().filter { $0.offset % 2 == 1 }
            .map { $0.element.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(blocks.count == 3)
        let crypto = try MessageCrypto(cipherKey: "enigma")
        let v3 = crypto.decrypt(envelope: try Envelope(parsing: Array(blocks[0].utf8)), policy: .passThrough)
        #expect(v3.envelope.json.serializedString() == blocks[1])
        #expect(v3.statuses.map(EnvelopeVector.location) == [["index": 1, "channel": "demo-2",
                                                               "timetoken": "17000000000000005"]])
        let subscribe = crypto.decrypt(envelope: try Envelope(parsing: Array(blocks[2].utf8)), policy: .marker)
        #expect(subscribe.statuses.isEmpty && subscribe.messages == 1)
        let file = #"{"message":"Look at this","file":{"id":"d9515cb7-48a7-41a4-9284-f4bf331bc770","name":"cat.jpg"}}"#
        #expect(subscribe.envelope.json.serializedString().contains(#""d":"# + file + "}]}"))
    }

    @Test("v2 history statuses carry the item's timetoken")
    func historyTimetoken() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma")
        let history = try HistoryResponse([[["message": "AAAAAAAAAAAAAAAAAAAAAA==", "timetoken": 17]], 1, 2])
        let result = crypto.decrypt(history: history, policy: .marker)
        #expect(result.statuses.map(\.index) == [0])
        #expect(result.statuses.first?.timetoken == 17)
        #expect(result.response.items == [["message": "DECRYPTION_ERROR", "timetoken": 17]])
    }

    @Test("rekey moves every message of a v3 archive and nothing else; a rerun changes nothing",
          arguments: EnvelopeVector.all.filter { $0.format == .v3 })
    func rekey(_ v: EnvelopeVector) throws {
        let envelope = try Envelope(parsing: Array(v.encrypted.utf8))
        let rekey = try MessageRekey(from: KeyRing([v.key]), to: CipherKey("the new key"))
        let moved = rekey.rekey(envelope: envelope)
        #expect(moved.rekeyed == envelope.locations.count - 1 && moved.alreadyNew == 0)
        #expect(moved.statuses.map(EnvelopeVector.location) == v.failures)
        // Everything but the messages is the same: blank every message and compare.
        var before = envelope
        var after = moved.envelope
        before.mapMessages { _, _ in .null }
        after.mapMessages { _, _ in .null }
        #expect(before.json.serialized() == after.json.serialized())
        let decrypted = try MessageCrypto(cipherKey: "the new key").decrypt(envelope: moved.envelope,
                                                                            policy: .passThrough)
        #expect(String(decoding: decrypted.envelope.json.serialized(), as: UTF8.self) == v.decrypted)
        let again = rekey.rekey(envelope: moved.envelope)
        #expect(again.rekeyed == 0 && again.alreadyNew == envelope.locations.count - 1)
        #expect(again.envelope == moved.envelope)
    }

    @Test("a message stream of responses: one output line each, statuses with line, index, channel and timetoken")
    func stream() throws {
        let vectors = EnvelopeVector.all.filter { EnvelopeFormat.history.contains($0.format) && $0.scheme == "acrh" }
        let input = vectors.map(\.encrypted).joined(separator: "\n") + "\n\nnot json\n"
        let crypto = try MessageCrypto(cipherKey: "enigma")
        for jobs in [1, 3] {
            let stream = MessageStream(.decryptEnvelopes(crypto, formats: EnvelopeFormat.history,
                                                         policy: .passThrough), jobs: jobs)
            let result = try stream.run(Array(input.utf8))
            #expect(String(decoding: result.output, as: UTF8.self)
                    == vectors.map(\.decrypted).joined(separator: "\n") + "\n\nnot json\n")
            #expect(result.statuses.map(\.line) == Array(1...vectors.count + 2).filter { $0 != vectors.count + 1 })
            #expect(result.statuses.dropLast().map(EnvelopeVector.location) == vectors.flatMap(\.failures))
            #expect(result.statuses.last?.reason == .invalidJSON)
            #expect(result.summary.failed == vectors.count + 1)
            #expect(result.summary.messages == vectors.map {
                (try? Envelope(parsing: Array($0.encrypted.utf8)).locations.count) ?? 0 }.reduce(1, +))
        }
    }
}

extension EnvelopeVector {
    /// The scheme the SDK encrypted with (the id's last part).
    var scheme: String { String(id.split(separator: "-", maxSplits: 3).last ?? "") }
}
