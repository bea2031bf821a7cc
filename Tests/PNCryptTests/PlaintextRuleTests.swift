import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt

/// `MessageCrypto.plaintext` (issue 59, item 4): `.json` (the default) takes only a JSON plaintext; `.text` also
/// delivers a UTF-8 plaintext that is not JSON (a raw string a client encrypted) as a JSON string, on every path
/// (the value, the text fast path, a record's field, a response), decided for every reading by the text rule.
@Suite struct PlaintextRuleTests {
    static let key = try! CipherKey("enigma")
    static let raws = ["hello raw world", "héllo 漢語 😀 \"q\" \\", "12 monkeys", "true story"]

    /// `raw` encrypted as its bytes (what an SDK's `encrypt(str)` does), as the wire JSON string.
    static func wire(_ raw: String, _ scheme: Scheme) throws -> String {
        "\"" + (try CryptoModule(key: key, scheme: scheme).encrypt(Array(raw.utf8))) + "\""
    }

    static func crypto(_ rule: PlaintextRule, key: CipherKey = key) throws -> MessageCrypto {
        var crypto = MessageCrypto(keys: try KeyRing(keys: [key]), scheme: .acrh)
        crypto.plaintext = rule
        return crypto
    }

    @Test("a raw string: the one failure under json, a JSON string under text, in every scheme")
    func rawStrings() throws {
        for scheme in [Scheme.legacy, .legacyRandomIV, .acrh] {
            for raw in Self.raws {
                let wire = Array(try Self.wire(raw, scheme).utf8)
                let json = try Self.crypto(.json).decrypt(jsonText: wire, policy: .marker)
                #expect(json.status?.error.code == .wrongKeyOrCorrupt, "\(scheme) \(raw)")
                let text = try Self.crypto(.text).decrypt(jsonText: wire, policy: .marker)
                #expect(text.status == nil && text.message == .string(raw), "\(scheme) \(raw)")
                let record = Array(#"{"message":\#(String(decoding: wire, as: UTF8.self)),"t":1}"#.utf8)
                let field = try Self.crypto(.text).decrypt(field: try JSONPointer("/message"), of: record)
                let fieldValue = try JSONValue(parsing: field.text)
                #expect(field.status == nil && fieldValue["message"] == .string(raw))
                let wrong = try Self.crypto(.text, key: try CipherKey("other")).decrypt(jsonText: wire,
                                                                                      policy: .marker)
                #expect(wrong.status?.error.code == .wrongKeyOrCorrupt, "\(scheme) \(raw)")
            }
        }
    }

    @Test("JSON plaintexts are their values under text too; the text fast path gives what the value path does")
    func jsonStaysJSON() throws {
        let crypto = try Self.crypto(.text)
        for message in [#"{"a":[1,"b"]}"#, #""quoted""#, "12", "null"] {
            let wire = try crypto.encrypt(jsonText: Array(message.utf8)).serialized()
            let result = try crypto.decrypt(jsonText: wire, policy: .marker)
            let expected = try JSONValue(parsing: Array(message.utf8))
            #expect(result.status == nil && result.message == expected)
        }
        for raw in Self.raws {
            let wire = Array(try Self.wire(raw, .acrh).utf8)
            let response = Array("[[\(String(decoding: wire, as: UTF8.self))],1,2]".utf8)
            let decrypted = try response.withUnsafeBufferPointer { (text) throws(PNCryptError) in
                try crypto.decrypt(envelopeText: text, policy: .marker)
            }
            #expect(decrypted.statuses.isEmpty, "\(raw)")
            let items = try JSONValue(parsing: decrypted.text)
            #expect(items[0] == .array([.string(raw)]), "\(raw)")
        }
    }

    @Test("diagnosis says when not being JSON is the only reason")
    func diagnosis() throws {
        let wire = try Self.wire("hello raw world", .acrh)
        let diagnosis = Diagnosis(text: Array(wire.dropFirst().dropLast().utf8), keys: [Self.key])
        #expect(diagnosis.findings.contains { $0.contains("is UTF-8 but not JSON: give --plaintext text") })
    }
}
