import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
@testable import PNCrypt
import PNCryptTestSupport

/// Records read with their channel's keys (`RecordChannels`, `ChannelKeys.decrypt(field:of:...)`,
/// `MessageStream.channels`) on Vectors/channel-keys/records.json: a two-channel export whose messages the real
/// PubNub Python SDK encrypted, each channel under its own key, one record of ch-a under ch-b's key.
@Suite struct ChannelRecordTests {
    typealias Vectors = ChannelRecordVectors

    static let message = try! JSONPointer("/message")  // swiftlint:disable:this force_try

    static func channelKeys(_ keys: [String: String]) throws -> ChannelKeys {
        try ChannelKeys(keys.mapValues { try KeyRing([$0]) })
    }

    @Test("SDK export: each record decrypts with its channel's key; ch-a's record under ch-b's key is the failure")
    func sdkExport() throws {
        let vectors = try Vectors.load()
        let keys = try Self.channelKeys(vectors.keys)
        for (index, line) in vectors.export.enumerated() {
            let record = try keys.decrypt(field: Self.message, of: Array(line.utf8), policy: .passThrough)
            #expect(String(decoding: record.text, as: UTF8.self) == vectors.decrypted[index])
            let failed = vectors.statuses.contains { $0["line"] == .number(JSONNumber(index + 1)) }
            #expect((record.status != nil) == failed, "line \(index + 1)")
            if let status = record.status {
                #expect(status.error == CryptoModule.decryptionFailed)
                #expect(status.channel == "ch-a")
            }
        }
        // Both keys in one ring (no channel map) read ch-a's record under ch-b's key: the map is what refuses it.
        let ring = MessageCrypto(keys: try KeyRing(Array(vectors.keys.values)))
        let wrong = try ring.decrypt(field: Self.message, of: Array(vectors.export[2].utf8), policy: .passThrough)
        #expect(wrong.status == nil)
    }

    @Test("line mode: MessageStream with channels writes the decrypted export and one status with line and channel")
    func stream() throws {
        let vectors = try Vectors.load()
        let channels = RecordChannels(try Self.channelKeys(vectors.keys))
        let crypto = MessageCrypto(keys: try KeyRing(["unused"]))
        for jobs in [1, 3] {
            let stream = MessageStream(.decrypt(crypto, policy: .passThrough), jobs: jobs, field: Self.message,
                                       channels: channels)
            let result = try stream.run(vectors.exportText)
            #expect(result.output == vectors.decryptedText)
            #expect(result.statuses.map { [$0.line, $0.channel, $0.error.code.name] as [AnyHashable?] }
                    == [[3, "ch-a", "wrongKeyOrCorrupt"]])
        }
        // Rekey: every record but the foreign one moves; the new key alone then reads them.
        let rekey = try MessageRekey(from: KeyRing(["unused"]), to: CipherKey("the new key"))
        let moved = try MessageStream(.rekey(rekey), field: Self.message, channels: channels).run(vectors.exportText)
        #expect(moved.summary.rekeyed == 4 && moved.summary.failed == 1)
        #expect(moved.statuses.map(\.line) == [3])
        let after = RecordChannels(try Self.channelKeys(["*": "the new key"]))
        let read = try MessageStream(.decrypt(crypto, policy: .passThrough), field: Self.message, channels: after)
            .run(moved.output)
        #expect(read.output == vectors.decryptedText)
        #expect(read.statuses.map(\.line) == [3])
        // Channels without a field, or with encrypt, are refused.
        #expect(throws: PNCryptError.self) {
            try MessageStream(.decrypt(crypto, policy: .marker), channels: channels).run(vectors.exportText)
        }
        #expect(throws: PNCryptError.self) {
            try MessageStream(.encrypt(crypto, raw: true), field: Self.message, channels: channels).run([])
        }
    }

    @Test("no channel field, a channel that is not a string, a channel with no key: failures naming each")
    func refusals() throws {
        let vectors = try Vectors.load()
        let keys = try Self.channelKeys(["ch-a": try #require(vectors.keys["ch-a"])])
        let message = vectors.export[0].split(separator: ",")[1]   // ` "message": "<Base64>"`
        for (record, pointer) in [("{\(message)}", "/channel"), ("{\"channel\":7,\(message)}", "/channel"),
                                  ("{\"c\":{\"n\":[\"ch-a\"]},\(message)}", "/c/n")] {
            let channelField = try JSONPointer(pointer)
            #expect {
                _ = try keys.decrypt(field: Self.message, of: Array(record.utf8), channelField: channelField,
                                     policy: .marker)
            } throws: { error in
                (error as? PNCryptError)?.code == .invalidValue
                    && (error as? PNCryptError)?.message.contains("\"\(pointer)\"") == true
            }
        }
        // Another pointer: the record's channel where it says.
        let nested = "{\"c\":{\"n\":\"ch-a\"},\(message)}"
        let read = try keys.decrypt(field: Self.message, of: Array(nested.utf8), channelField: JSONPointer("/c/n"),
                                    policy: .marker)
        #expect(read.status == nil)
        // ch-b has no key: invalidKey naming it, the field delivered as the policy says.
        let other = try keys.decrypt(field: Self.message, of: Array(vectors.export[1].utf8), policy: .marker)
        #expect(other.status?.error.code == .invalidKey && other.status?.channel == "ch-b")
        #expect(String(decoding: other.text, as: UTF8.self).contains("\"message\": \"DECRYPTION_ERROR\""))
        let kept = try keys.decrypt(field: Self.message, of: Array(vectors.export[1].utf8), policy: .passThrough)
        #expect(String(decoding: kept.text, as: UTF8.self) == vectors.export[1])
        switch try keys.rekey(field: Self.message, of: Array(vectors.export[1].utf8), to: CipherKey("new")) {
        case .unchanged(let error): #expect(error.code == .invalidKey)
        default: Issue.record("a record of a channel with no key was moved")
        }
    }
}
