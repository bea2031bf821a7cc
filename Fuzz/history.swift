// Fuzz target: history (v2) and message-counts envelopes, decrypted under the fixed key `enigma`.
//
// Invariants: parsing throws only JSON errors; decrypting a history keeps its shape, timetokens and item count;
// statuses carry increasing indices inside the item list; with the pass-through policy a failed item is unchanged;
// a history whose messages were encrypted first decrypts back to the original with no status; counts round-trip.
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let crypto = MessageCrypto(keys: try! KeyRing(keys: [fuzzKey]), scheme: .acrh)
    switch attempt({ () throws(PNCryptError) in try HistoryResponse(parsing: input) }) {
    case .failure(let error):
        check(error, allowed: [.invalidJSON, .jsonTooDeep], inputCount: input.count, input, context: "history")
    case .success(let history):
        for policy in DecryptionPolicy.allCases {
            let result = crypto.decrypt(history: history, policy: policy)
            guard result.response.items.count == history.items.count, result.response.start == history.start,
                  result.response.end == history.end else { fail("history shape changed", input) }
            var last = -1
            for status in result.statuses {
                guard let index = status.index, index > last, index < history.items.count else {
                    fail("status index out of order", input)
                }
                last = index
                if policy == .passThrough && result.response.items[index] != history.items[index] {
                    fail("pass-through changed a failed item", input)
                }
            }
            guard result.statuses.allSatisfy({ $0.json["category"] == .string($0.category.rawValue) }) else {
                fail("category", input)
            }
            guard (try? HistoryResponse(result.response.json)) == result.response else { fail("json round trip",
                input) }
        }
        // Encrypt every message, then decrypt the whole response.
        var sealed = history
        for (index, item) in history.items.enumerated() {
            if case .object(var object) = item, object.contains(key: "message"), object.contains(key: "timetoken") {
                guard let message = object["message"], let e = try? crypto.encrypt(message) else { fail("encrypt",
                    input) }
                object["message"] = e
                sealed.items[index] = .object(object)
            } else {
                guard let e = try? crypto.encrypt(item) else { fail("encrypt", input) }
                sealed.items[index] = e
            }
        }
        let opened = crypto.decrypt(history: sealed, policy: .marker)
        guard opened.statuses.isEmpty, opened.response == history else {
            fail("decrypt(encrypt(history)) != history: \(opened.statuses.first?.error.message ?? "")", input)
        }
    }
    switch attempt({ () throws(PNCryptError) in try MessageCounts(parsing: input) }) {
    case .failure(let error):
        check(error, allowed: [.invalidJSON, .jsonTooDeep], inputCount: input.count, input, context: "counts")
    case .success(let counts):
        guard (try? MessageCounts(parsing: counts.json.serialized())) == counts else { fail("counts round trip",
            input) }
    }
    return 0
}
