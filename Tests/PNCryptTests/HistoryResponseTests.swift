import Testing
import PNCryptJSON
import PNCrypt
import PNCryptTestSupport

@Suite struct HistoryResponseTests {
    @Test("docs/formats.md section 6's example round-trips with exact timetokens")
    func specExample() throws {
        let text = #"[["Pub1","Pub2","Pub3"],13406746729185766,13406746780720711]"#
        let history = try HistoryResponse(parsing: Array(text.utf8))
        #expect(history.items == ["Pub1", "Pub2", "Pub3"])
        #expect(history.start.numberValue?.int64Value == 13406746729185766)
        #expect(history.json.serializedString() == text)
    }

    @Test("decrypts every message in one call, one status per failure with its index")
    func decryptAll() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy)
        let good = try crypto.encrypt(["text": "hi"])
        let hello = try Package.specCiphertext("spec-legacy-hello-world")
        let text = #"[[\#(good.serializedString()),"AAAAAAAAAAAAAAAAAAAAAA==",{"x":1},"\#(hello)"],"#
            + "13406746729185766,13406746780720711]"
        let history = try HistoryResponse(parsing: Array(text.utf8))
        let marked = crypto.decrypt(history: history, policy: .marker)
        #expect(marked.response.json.serializedString()
            == #"[[{"text":"hi"},"DECRYPTION_ERROR","DECRYPTION_ERROR","Hello World"],"#
                + #"13406746729185766,13406746780720711]"#)
        #expect(marked.statuses.map(\.index) == [1, 2])
        #expect(marked.statuses.map(\.reason) == [.wrongKeyOrCorrupt, .notEncrypted])
        #expect(marked.statuses.map(\.category) == [.decryption, .decryption])
        #expect(marked.statuses.map { $0.json["category"] } == ["decryption", "decryption"])
        let kept = crypto.decrypt(history: history, policy: .passThrough)
        #expect(kept.response.items[1] == "AAAAAAAAAAAAAAAAAAAAAA==")
        #expect(kept.response.items[2] == ["x": 1])
        // The object was never encrypted: kept as it was, and reported (issue 55), as under the marker.
        #expect(kept.statuses.map(\.index) == [1, 2])
        #expect(kept.statuses.map(\.reason) == [.wrongKeyOrCorrupt, .notEncrypted])
    }

    @Test("decrypts the message inside timetoken objects and keeps the timetoken exact")
    func withTimetokens() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy)
        let hello = try Package.specCiphertext("spec-legacy-hello-world")
        let text = #"[[{"message":"\#(hello)","timetoken":14523786181828541}],14523786181828541,"#
            + "14523786181828541]"
        let result = crypto.decrypt(history: try HistoryResponse(parsing: Array(text.utf8)), policy: .marker)
        #expect(result.statuses.isEmpty)
        #expect(result.response.json.serializedString()
            == #"[[{"message":"Hello World","timetoken":14523786181828541}],14523786181828541,14523786181828541]"#)
    }

    @Test("refuses what is not a history response")
    func notHistory() {
        for text in [#"{"a":1}"#, "[[],1]", "[1,2,3]", "[["] {
            let error = expectPNError { () throws(PNCryptError) in try HistoryResponse(parsing: Array(text.utf8)) }
            #expect(error?.category == .json, "\(text)")
        }
    }

    @Test("message counts keep exact integers")
    func counts() throws {
        let text = #"{"channels":{"ch1":12,"ch2":13406746729185766}}"#
        let counts = try MessageCounts(parsing: Array(text.utf8))
        #expect(counts.channels.map(\.name) == ["ch1", "ch2"])
        #expect(counts.channels[1].count.int64Value == 13406746729185766)
        #expect(counts.json.serializedString() == text)
        #expect(expectPNError { () throws(PNCryptError) in
            try MessageCounts(parsing: Array(#"{"channels":{"a":1.5}}"#.utf8))
        }?
            .code == .invalidJSON)
    }
}
