import Foundation
import Testing
import PNCryptJSON
@testable import PNCrypt
import PNCryptTestSupport

/// Bodies recorded from the network by PubNub SDKs (Vectors/envelopes/recorded.json), read by the messages layer
/// (through the built binary: `CLIRecordedEnvelopeTests` of the shells).
@Suite struct RecordedEnvelopeTests {
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

    @Test("rekey over the recorded v3 bodies moves every message and nothing else")
    func rekey() throws {
        let vectors = EnvelopeVector.recordedArchive.vectors
        let rekey = try MessageRekey(from: KeyRing(["enigma"]), to: CipherKey("the new key"))
        let newKey = try MessageCrypto(cipherKey: "the new key")
        for v in vectors {
            let before = try Envelope(parsing: Array(v.encrypted.utf8))
            let result = rekey.rekey(envelope: before)
            #expect(result.statuses.map(EnvelopeVector.location) == v.failures)
            let after = try Envelope(parsing: result.envelope.json.serialized())
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
