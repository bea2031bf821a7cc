import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt

/// The policy when none is asked for (issue 59, item 5), decided once in the library for every shell: a whole
/// message gets the iOS marker; a record's field that is not decrypted keeps its original value, with a status.
@Suite struct DecryptionPolicyDefaultTests {
    static let crypto = MessageCrypto(keys: try! KeyRing(keys: [try! CipherKey("enigma")]), scheme: .acrh)

    @Test("the default per target: the marker for a message, the field kept for a record")
    func defaults() {
        #expect(DecryptionPolicy.default(for: .message) == .marker)
        #expect(DecryptionPolicy.default(for: .record) == .passThrough)
    }

    @Test("decrypt(field:of:) by default keeps a field never encrypted, damaged or under another key as it was")
    func recordKeepsItsValue() throws {
        let sealed = try Self.crypto.encrypt(jsonText: Array(#"{"text":"hi"}"#.utf8)).serialized()
        var damaged = sealed
        damaged[damaged.count / 2] = damaged[damaged.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B")
            : UInt8(ascii: "A")
        let other = MessageCrypto(keys: try KeyRing(keys: [try CipherKey("another")]), scheme: .acrh)
        let fields = [#""a plain note""#, #"{"text":"never encrypted"}"#, String(decoding: damaged, as: UTF8.self)]
        let pointer = try JSONPointer("/message")
        for field in fields {
            let record = Array(#"{"channel":"c","message":\#(field),"t":1}"#.utf8)
            let kept = try Self.crypto.decrypt(field: pointer, of: record)
            #expect(kept.text == record && kept.status != nil, "\(field)")
            let marked = try Self.crypto.decrypt(field: pointer, of: record, policy: .marker)
            #expect(String(decoding: marked.text, as: UTF8.self).contains("DECRYPTION_ERROR"), "\(field)")
        }
        let record = Array(#"{"message":\#(String(decoding: sealed, as: UTF8.self))}"#.utf8)
        let foreign = try other.decrypt(field: pointer, of: record)
        #expect(foreign.text == record && foreign.status?.error.code == .wrongKeyOrCorrupt)
    }
}
