import Testing
import PNCryptJSON
import PNCryptCore
@testable import PNCrypt
import PNCryptTestSupport

/// `JSONPointer` (RFC 6901): parsing, the byte range of the value it names, and the field-wise calls of
/// `MessageCrypto`, `MessageRekey` and `MessageStream` (every byte but the field's kept).
@Suite struct JSONPointerTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The text of the value `pointer` names in `text`.
    static func found(_ pointer: String, in text: String) throws -> String {
        let range = try JSONPointer(pointer).range(in: bytes(text))
        return String(decoding: bytes(text)[range], as: UTF8.self)
    }

    @Test("pointers parse with ~0 and ~1 unescaped, in that order")
    func parsing() throws {
        #expect(try JSONPointer("").tokens == [])
        #expect(try JSONPointer("").isWholeDocument)
        #expect(try JSONPointer("/message").tokens == ["message"])
        #expect(try JSONPointer("/").tokens == [""])
        #expect(try JSONPointer("/a~1b/c~0d/~01").tokens == ["a/b", "c~d", "~1"])
        #expect(try JSONPointer("/items/0//x").tokens == ["items", "0", "", "x"])
        #expect(try JSONPointer("/m").description == "/m")
    }

    @Test("an invalid pointer is refused saying what a pointer looks like",
          arguments: ["message", "/a~2", "/a~", "~0", String(repeating: "/a", count: 65),
                      "/" + String(repeating: "x", count: JSONPointer.maxLength)])
    func invalid(pointer: String) {
        let error = expectPNError(.invalidValue) { try JSONPointer(pointer) }
        #expect(error?.message.contains("a JSON Pointer (RFC 6901) is") == true)
    }

    @Test("the range of a value: odd spacing, nesting, arrays, escaped keys, every kind of value")
    func ranges() throws {
        let text = #"  { "a" :  "x\"y" , "n":-12 ,"f":1.10,"big":1e400, "t" : true,"z":null,"o":false,"#
            + #" "arr" : [ 1 , [ ] , { "k" : [ "v" , 2 ] } , "last" ], "e\u0041":"escaped key","#
            + #" "a/b":{"c~d":{}},"empty":"", "é":"ü"  }  "#
        #expect(try Self.found("/a", in: text) == #""x\"y""#)
        #expect(try Self.found("/n", in: text) == "-12")
        #expect(try Self.found("/f", in: text) == "1.10")
        #expect(try Self.found("/big", in: text) == "1e400")
        #expect(try Self.found("/t", in: text) == "true")
        #expect(try Self.found("/z", in: text) == "null")
        #expect(try Self.found("/o", in: text) == "false")
        #expect(try Self.found("/arr", in: text) == #"[ 1 , [ ] , { "k" : [ "v" , 2 ] } , "last" ]"#)
        #expect(try Self.found("/arr/0", in: text) == "1")
        #expect(try Self.found("/arr/1", in: text) == "[ ]")
        #expect(try Self.found("/arr/2", in: text) == #"{ "k" : [ "v" , 2 ] }"#)
        #expect(try Self.found("/arr/2/k/1", in: text) == "2")
        #expect(try Self.found("/arr/3", in: text) == #""last""#)
        #expect(try Self.found("/eA", in: text) == #""escaped key""#)
        #expect(try Self.found("/a~1b", in: text) == #"{"c~d":{}}"#)
        #expect(try Self.found("/a~1b/c~0d", in: text) == "{}")
        #expect(try Self.found("/empty", in: text) == #""""#)
        #expect(try Self.found("/é", in: text) == #""ü""#)
        #expect(try Self.found("", in: text) == text.trimmingSpaces)
    }

    @Test("a key repeated in one object: the last member counts, as JSONObject reads it")
    func duplicateKeys() throws {
        let text = #"{"m":"first","x":{"m":1},"m":"last"}"#
        #expect(try Self.found("/m", in: text) == #""last""#)
        #expect(try JSONValue(parsing: text)["m"] == "last")
    }

    @Test("a value that is not there names the pointer and where the walk stopped")
    func missing() throws {
        let cases: [(String, String, String)] = [
            (#"{"a":1}"#, "/b", #"no field "/b": at the record, no member "b""#),
            (#"{"a":1}"#, "/a/b", #"no field "/a/b": at "/a", it is not an object or array"#),
            (#"{"a":[1]}"#, "/a/1", #"no field "/a/1": at "/a", the array has 1 element"#),
            (#"{"a":[1]}"#, "/a/01", #"no field "/a/01": at "/a", "01" is not an array index"#),
            (#"{"a":[1]}"#, "/a/-", #"no field "/a/-": at "/a", "-" is not an array index"#),
            (#""text""#, "/a", #"no field "/a": at the record, the record is not a JSON object"#),
            (#"{"a/b":{"c":1}}"#, "/a~1b/d", #"no field "/a~1b/d": at "/a~1b", no member "d""#),
        ]
        for (text, pointer, message) in cases {
            let error = expectPNError(.invalidValue) { try Self.found(pointer, in: text) }
            #expect(error?.message == message)
        }
        expectPNError(.invalidJSON) { try Self.found("/a", in: #"{"a":1"#) }
    }

    static let crypto = try! MessageCrypto(cipherKey: "enigma", scheme: .legacy)
    static let wire = #""06UDjczkvAAYcqWfNwkOiQ==""#

    @Test("decrypt(field:): the field becomes the message, every other byte is kept")
    func decryptField() throws {
        let record = #"{"timetoken" : "17000000000000000","message":  "# + Self.wire
            + #" ,"n":1.10,"s":"\u00e9\/"}"#
        let result = try Self.crypto.decrypt(field: JSONPointer("/message"), of: Self.bytes(record),
                                             policy: .marker)
        #expect(result.status == nil)
        #expect(String(decoding: result.text, as: UTF8.self)
                == #"{"timetoken" : "17000000000000000","message":  "Hello World" ,"n":1.10,"s":"\u00e9\/"}"#)
    }

    @Test("decrypt(field:): a field that is not a string or does not decrypt has a status; the policy decides")
    func decryptFieldFailures() throws {
        let record = #"{"message": {"a":1}, "n":1}"#
        let marked = try Self.crypto.decrypt(field: JSONPointer("/message"), of: Self.bytes(record), policy: .marker)
        #expect(marked.status?.error.code == .notEncrypted)
        #expect(marked.status?.error.message.contains(#""/message""#) == true)
        #expect(String(decoding: marked.text, as: UTF8.self) == #"{"message": "DECRYPTION_ERROR", "n":1}"#)
        let passed = try Self.crypto.decrypt(field: JSONPointer("/message"), of: Self.bytes(record),
                                             policy: .passThrough)
        #expect(passed.text == Self.bytes(record))
        let wrong = try MessageCrypto(cipherKey: "other", scheme: .legacy)
        let failed = try wrong.decrypt(field: JSONPointer("/m"), of: Self.bytes(#"{"m":"# + Self.wire + "}"),
                                       policy: .marker)
        #expect(failed.status?.error == CryptoModule.decryptionFailed)
        let missing = expectPNError(.invalidValue) {
            try Self.crypto.decrypt(field: JSONPointer("/x"), of: Self.bytes(record), policy: .marker)
        }
        #expect(missing?.message.contains(#""/x""#) == true)
    }

    @Test("encrypt(field:) then decrypt(field:) gives the record back; raw keeps the field's bytes")
    func encryptField() throws {
        let record = #"{ "ch":"c", "payload" : {"text" : "héllo", "n" : 1.10 }, "tt":17000000000000000 }"#
        let pointer = try JSONPointer("/payload")
        for scheme in [Scheme.legacy, .legacyRandomIV, .acrh] {
            let crypto = try MessageCrypto(cipherKey: "k", scheme: scheme)
            let sealed = try crypto.encrypt(field: pointer, of: Self.bytes(record))
            let text = String(decoding: sealed, as: UTF8.self)
            #expect(text.hasPrefix(#"{ "ch":"c", "payload" : ""#))
            #expect(text.hasSuffix(#"", "tt":17000000000000000 }"#))
            let back = try crypto.decrypt(field: pointer, of: sealed, policy: .marker)
            #expect(String(decoding: back.text, as: UTF8.self)
                    == #"{ "ch":"c", "payload" : {"text":"héllo","n":1.10}, "tt":17000000000000000 }"#)
            let raw = try crypto.encrypt(field: pointer, of: Self.bytes(record), raw: true)
            let range = try pointer.range(in: raw)
            let opened = crypto.decrypt(try JSONValue(parsing: raw[range]), policy: .marker)
            #expect(opened.status == nil)
        }
        // The raw plaintext is the field's bytes exactly: under legacy (fixed IV) the same as encrypting them.
        let legacy = try MessageCrypto(cipherKey: "k", scheme: .legacy)
        let raw = try legacy.encrypt(field: pointer, of: Self.bytes(record), raw: true)
        let expected = try legacy.encrypt(jsonText: Self.bytes(#"{"text" : "héllo", "n" : 1.10 }"#))
        #expect(try JSONValue(parsing: raw[try pointer.range(in: raw)]) == expected)
    }

    @Test("rekey(field:): the field moves, the rest is kept; again it is already new; a missing field is unchanged")
    func rekeyField() throws {
        let rekey = try MessageRekey(from: KeyRing(["enigma"]), to: CipherKey("new"), scheme: .acrh)
        let record = #"{"a":[0, {"m" :"# + Self.wire + #" }], "z":1e400}"#
        let pointer = try JSONPointer("/a/1/m")
        guard case .rekeyed(let moved) = rekey.rekey(field: pointer, of: Self.bytes(record)) else {
            Issue.record("not rekeyed")
            return
        }
        let text = String(decoding: moved, as: UTF8.self)
        #expect(text.hasPrefix(#"{"a":[0, {"m" :"UE5FRA"#) && text.hasSuffix(#"" }], "z":1e400}"#))
        #expect(rekey.rekey(field: pointer, of: moved) == .alreadyNew)
        let newCrypto = try MessageCrypto(cipherKey: "new", scheme: .acrh)
        #expect(try newCrypto.decrypt(field: pointer, of: moved, policy: .marker).text
                == Self.bytes(#"{"a":[0, {"m" :"Hello World" }], "z":1e400}"#))
        guard case .unchanged(let error) = rekey.rekey(field: try JSONPointer("/a/0"), of: Self.bytes(record)) else {
            Issue.record("a number was rekeyed")
            return
        }
        #expect(error.code == .notEncrypted)
        guard case .unchanged(let missing) = rekey.rekey(field: try JSONPointer("/b"), of: Self.bytes(record)) else {
            Issue.record("a missing field was rekeyed")
            return
        }
        #expect(missing.code == .invalidValue && missing.message.contains(#""/b""#))
    }

    @Test("MessageStream with a field: each record's field, statuses naming the line and the pointer")
    func stream() throws {
        let input = #"{"channel":"ch", "message":"# + Self.wire + #","timetoken":"17000000000000000"}"# + "\n"
            + #"{"channel":"ch"}"# + "\r\n\n" + #"{"message":7}"# + "\n" + "not json\n"
        for jobs in [1, 3] {
            let stream = MessageStream(.decrypt(Self.crypto, policy: .marker), jobs: jobs,
                                       field: try JSONPointer("/message"))
            let result = try stream.run(Self.bytes(input))
            #expect(String(decoding: result.output, as: UTF8.self)
                    == #"{"channel":"ch", "message":"Hello World","timetoken":"17000000000000000"}"# + "\n"
                    + #"{"channel":"ch"}"# + "\r\n\n" + #"{"message":"DECRYPTION_ERROR"}"# + "\n" + "not json\n")
            #expect(result.statuses.map(\.line) == [2, 4, 5])
            #expect(result.statuses[0].error.message.contains(#""/message""#))
            #expect(result.statuses[1].error.code == .notEncrypted)
            #expect(result.statuses[2].error.code == .invalidJSON)
            #expect(result.summary.failed == 3 && result.summary.lines == 5)
        }
        // Encrypt writes an empty line for a record without the field; rekey copies it.
        let encrypt = MessageStream(.encrypt(Self.crypto, raw: false), jobs: 1, field: try JSONPointer("/m"))
        let sealed = try encrypt.run(Self.bytes(#"{"m":"Hello World", "k":1}"# + "\n" + #"{"k":2}"# + "\n"))
        #expect(String(decoding: sealed.output, as: UTF8.self) == #"{"m":"# + Self.wire + #", "k":1}"# + "\n\n")
        #expect(sealed.statuses.map(\.line) == [2])
        // The empty pointer is the whole line, as without a field.
        let whole = MessageStream(.decrypt(Self.crypto, policy: .marker), jobs: 1, field: try JSONPointer(""))
        #expect(try whole.run(Self.bytes(Self.wire + "\n")).output == Self.bytes(#""Hello World""# + "\n"))
        // Envelopes take no field.
        let envelopes = MessageStream(.decryptEnvelopes(Self.crypto, formats: [], policy: .marker), jobs: 1,
                                      field: try JSONPointer("/m"))
        expectPNError(.invalidValue) { try envelopes.run(Self.bytes("{}\n")) }
    }
}

private extension String {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
