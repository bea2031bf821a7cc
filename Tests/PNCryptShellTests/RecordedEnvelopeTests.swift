import Foundation
import Testing
import PNCryptJSON
@testable import PNCrypt
import PNCryptTestSupport

extension EnvelopeVector {
    /// The recorded v3 vectors, one NDJSON archive.
    static var recordedArchive: (vectors: [EnvelopeVector], text: [UInt8]) {
        let vectors = recorded.filter { $0.format == "v3" }
        return (vectors, Array((vectors.map(\.encrypted).joined(separator: "\n") + "\n").utf8))
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

@Suite(.tags(.cli)) struct RecordedEnvelopeTests {
    /// A response with every encrypted field replaced by null: what rekeying must leave as it was.
    static func blanked(_ envelope: Envelope) -> [UInt8] {
        var copy = envelope
        copy.mapMessages { _, _ in .null }
        return copy.json.serialized()
    }

    @Test("the recorded vectors are there: v3 fetch, history with actions, subscribe with presence and objects")
    func present() {
        let vectors = EnvelopeVector.recorded
        #expect(vectors.count == 47)
        #expect(Set(vectors.map(\.format)) == ["v3", "subscribe"])
        #expect(vectors.filter { !$0.failures.isEmpty }.count == 21)
    }

    @Test("each recorded body comes back from its encrypted form; the foreign message is its one status",
          arguments: EnvelopeVector.recorded)
    func decrypt(_ v: EnvelopeVector) throws {
        let envelope = try Envelope(parsing: Array(v.encrypted.utf8))
        #expect(envelope.format.rawValue == v.format)
        let result = try MessageCrypto(cipherKey: v.key).decrypt(envelope: envelope, policy: .passThrough)
        #expect(String(decoding: result.envelope.json.serialized(), as: UTF8.self) == v.decrypted)
        #expect(result.statuses.map(EnvelopeVector.location) == v.failures)
        #expect(result.statuses.allSatisfy { $0.reason == .wrongKeyOrCorrupt })
    }

    @Test("presence events and objects are untouched: only messages are read in the recorded subscribe bodies")
    func untouched() throws {
        func locations(_ id: String) throws -> [Int] {
            let v = try #require(EnvelopeVector.recorded.first { $0.id.hasPrefix("rec-\(id)") })
            return try Envelope(parsing: Array(v.encrypted.utf8)).locations.map(\.index)
        }
        #expect(try locations("rb-subscribe-mixed") == [1, 2, 3, 4])   // 8 presence events around them
        #expect(try locations("rb-subscribe-objects").isEmpty)
        #expect(try locations("py-subscribe-presence").isEmpty)
        // Everything but the messages is what was recorded (compared with the messages blanked).
        for v in EnvelopeVector.recorded {
            let encrypted = try Envelope(parsing: Array(v.encrypted.utf8))
            let decrypted = try Envelope(parsing: Array(v.decrypted.utf8))
            #expect(Self.blanked(encrypted) == Self.blanked(decrypted), "\(v.id)")
        }
    }

    @Test("CLI: each recorded body back through the binary, one status line for the foreign message, exit 1",
          arguments: EnvelopeVector.recorded)
    func cli(_ v: EnvelopeVector) throws {
        let run = try CLI.run(CLIEnvelopeTests.command(v.format) + ["--key", v.key, "--on-error", "passthrough"],
                              stdin: Array(v.encrypted.utf8))
        #expect(run.status == (v.failures.isEmpty ? 0 : 1))
        #expect(run.text == v.decrypted + "\n")
        #expect(CLIEnvelopeTests.statuses(run.stderr).count == v.failures.count)
        #expect(CLIEnvelopeTests.locations(run.stderr) == v.failures)
    }

    @Test("rekey over the recorded v3 bodies moves every message and nothing else", arguments: [false, true])
    func rekey(cli: Bool) throws {
        let (vectors, archive) = EnvelopeVector.recordedArchive
        let rekey = try MessageRekey(from: KeyRing(["enigma"]), to: CipherKey("the new key"))
        let outputs: [String]
        if cli {
            let moved = try CLI.run(["history", "rekey", "-k", "enigma", "--to-key", "the new key", "--lines"],
                                    stdin: archive)
            #expect(moved.status == 1)
            #expect(CLIEnvelopeTests.locations(moved.stderr) == vectors.flatMap(\.failures))
            outputs = moved.text.split(separator: "\n").map(String.init)
        } else {
            outputs = try vectors.map { v in
                let result = rekey.rekey(envelope: try Envelope(parsing: Array(v.encrypted.utf8)))
                #expect(result.statuses.map(EnvelopeVector.location) == v.failures)
                return String(decoding: result.envelope.json.serialized(), as: UTF8.self)
            }
        }
        try #require(outputs.count == vectors.count)
        let newKey = try MessageCrypto(cipherKey: "the new key")
        for (v, output) in zip(vectors, outputs) {
            let before = try Envelope(parsing: Array(v.encrypted.utf8))
            let after = try Envelope(parsing: Array(output.utf8))
            #expect(Self.blanked(before) == Self.blanked(after), "\(v.id)")
            // Every message moved: each one differs from before (the foreign one excepted), and the new key
            // gives the recorded body back.
            let changed = zip(before.fields, after.fields).filter { $0.message != $1.message }.count
            #expect(changed == before.locations.count - v.failures.count, "\(v.id)")
            let back = newKey.decrypt(envelope: after, policy: .passThrough)
            #expect(String(decoding: back.envelope.json.serialized(), as: UTF8.self) == v.decrypted)
            #expect(back.statuses.map(EnvelopeVector.location) == v.failures)
        }
    }
}
