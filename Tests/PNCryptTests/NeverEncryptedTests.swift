import Testing
import PNCryptJSON
import PNCryptCore
@testable import PNCrypt
import PNCryptTestSupport

/// One rule in the library (issue 55, item 2): a message that was not decrypted always has a status. A message that
/// is not a JSON string (an object, a number: anyone who can publish to a channel can publish one) was never
/// encrypted: `passThrough` delivers it as it was, and reports why (`notEncrypted`), as `marker` does. Every entry
/// point of the messages layer that decrypts, under every policy, for a module of every scheme.
@Suite struct NeverEncryptedTests {
    /// Messages that were never encrypted.
    static let plain: [JSONValue] = [["cmd": "transfer"], 42, true, .null, [1, 2]]

    /// A reader of every scheme (legacy33 reads string leaves: an object's leaf fails as what it is, still a status).
    static func readers() throws -> [(String, MessageCrypto)] {
        try [("auto", MessageCrypto(cipherKey: "k")),
             ("legacy", MessageCrypto(cipherKey: "k", scheme: .legacy, reading: .only(.legacy))),
             ("legacy-random-iv", MessageCrypto(cipherKey: "k", scheme: .legacyRandomIV,
                                                reading: .headerlessAs(.legacyRandomIV))),
             ("acrh", MessageCrypto(cipherKey: "k", scheme: .acrh, reading: .only(.acrh))),
             ("legacy33", MessageCrypto(cipherKey: "k", scheme: .legacy33, reading: .only(.legacy33)))]
    }

    /// The status says the message was not encrypted (a legacy33 reader: any decryption failure of its leaves).
    static func expectReason(_ status: MessageStatus?, _ reader: String, _ what: String) {
        #expect(status != nil, "\(reader): \(what) has no status")
        if reader != "legacy33" {
            #expect(status?.reason == .notEncrypted, "\(reader): \(what): \(String(describing: status))")
        }
    }

    @Test("decrypt(_:policy:) and decrypt(jsonText:policy:): a status under every policy, the original kept")
    func messages() throws {
        for (name, crypto) in try Self.readers() {
            for policy in DecryptionPolicy.allCases {
                for message in Self.plain {
                    let value = crypto.decrypt(message, policy: policy)
                    Self.expectReason(value.status, name, "\(message) under \(policy)")
                    #expect(value.message == (policy == .passThrough ? message : .string(DecryptionPolicy.markerText)))
                    #expect(value.keyIndex == nil && value.scheme == nil)
                    let text = try crypto.decrypt(jsonText: message.serialized(), policy: policy)
                    #expect(text == value, "\(name) \(message) \(policy)")
                }
            }
        }
    }

    @Test("envelopes (tree and text paths), history, channel keys: one status per plain message, every policy")
    func envelopes() throws {
        let history = Array(#"[[{"cmd":"transfer"},42],1,2]"#.utf8)
        let subscribe = Array(
            #"{"t":{"t":"1","r":1},"m":[{"c":"ch","d":{"cmd":"transfer"}},{"c":"ch","d":42}]}"#.utf8)
        for (name, crypto) in try Self.readers() {
            for policy in DecryptionPolicy.allCases {
                for body in [history, subscribe] {
                    let envelope = try Envelope(parsing: body)
                    let tree = crypto.decrypt(envelope: envelope, policy: policy)
                    #expect(tree.statuses.count == 2, "\(name) \(policy)")
                    tree.statuses.forEach { Self.expectReason($0, name, "an envelope's message under \(policy)") }
                    let text = try body.withUnsafeBufferPointer { (buffer) throws(PNCryptError) in
                        try crypto.decrypt(envelopeText: buffer, policy: policy)
                    }
                    #expect(text.statuses == tree.statuses, "\(name) \(policy)")
                    if policy == .passThrough { #expect(text.text == body, "\(name)") }
                    let keys = try ChannelKeys(["*": crypto.keys])
                    let byChannel = keys.decrypt(envelope: envelope, channel: "ch", reading: crypto.reading,
                                                 policy: policy)
                    #expect(byChannel.statuses.count == 2, "\(name) \(policy)")
                }
                let parsed = try HistoryResponse(parsing: history)
                #expect(crypto.decrypt(history: parsed, policy: policy).statuses.count == 2, "\(name) \(policy)")
            }
        }
    }

    @Test("a record's field, line mode (messages, records, envelopes) and rekey: every plain message has a status")
    func recordsLinesAndRekey() throws {
        let records = [#"{"channel":"ch","message":{"cmd":"transfer"},"timetoken":"1"}"#,
                       #"{"channel":"ch","message":42}"#]
        let pointer = try JSONPointer("/message")
        for (name, crypto) in try Self.readers() {
            for policy in DecryptionPolicy.allCases {
                for record in records {
                    let result = try crypto.decrypt(field: pointer, of: Array(record.utf8), policy: policy)
                    Self.expectReason(result.status, name, "\(record) under \(policy)")
                    if policy == .passThrough { #expect(result.text == Array(record.utf8)) }
                }
                let lines = Array(#"{"cmd":"transfer"}"#.utf8) + [0x0A] + Array("42\n".utf8)
                let stream = try MessageStream(.decrypt(crypto, policy: policy)).run(lines)
                #expect(stream.statuses.map(\.line) == [1, 2], "\(name) \(policy)")
                let fields = try MessageStream(.decrypt(crypto, policy: policy), field: pointer)
                    .run(Array(records.joined(separator: "\n").utf8))
                #expect(fields.statuses.map(\.line) == [1, 2], "\(name) \(policy)")
                let envelopes = try MessageStream(.decryptEnvelopes(crypto, formats: EnvelopeFormat.allCases,
                                                                    policy: policy))
                    .run(Array(#"[[{"cmd":"transfer"},42],1,2]"#.utf8))
                #expect(envelopes.statuses.count == 2, "\(name) \(policy)")
            }
        }
        let rekey = try MessageRekey(from: KeyRing(["k"]), to: try CipherKey("k2"))
        for message in Self.plain {
            guard case .unchanged(let error) = rekey.rekey(message) else {
                Issue.record("\(message) was not left unchanged with a reason")
                continue
            }
            #expect(error.code == .notEncrypted)
        }
        for record in records {
            guard case .unchanged(let error) = rekey.rekey(field: pointer, of: Array(record.utf8)) else {
                Issue.record("\(record) was not left unchanged with a reason")
                continue
            }
            #expect(error.code == .notEncrypted)
        }
        let moved = rekey.rekey(envelope: try Envelope(parsing: Array(#"[[{"cmd":"transfer"},42],1,2]"#.utf8)))
        #expect(moved.statuses.map(\.reason) == [.notEncrypted, .notEncrypted])
    }
}
