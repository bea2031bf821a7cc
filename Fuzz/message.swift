// Fuzz target: received-message decryption (MessageCrypto) under the fixed key `enigma`.
//
// The first byte picks the scheme read and the policy. Invariants: decrypt(jsonText:) throws only JSON errors;
// a failure has a status with a decryption-category reason, and the delivered message is the marker
// (`DECRYPTION_ERROR`) or the original, as the policy says; the input as Base64 ciphertext in a JSON string
// decrypts the same as the bytes; a parsed message round-trips through encrypt and decrypt.
import PNCrypt

let reasons: [PNCryptError.Code] = [.notBase64, .wrongKeyOrCorrupt, .unknownCryptor, .malformedHeader,
                                    .notEncrypted]

func checkResult(_ result: DecryptedMessage, original: JSONValue, policy: DecryptionPolicy, _ input: [UInt8]) {
    guard let status = result.status else {
        guard result.keyIndex == 0 || (policy == .passThrough && result.message == original)
            || result.scheme == .legacy33
        else { fail("success without key index", input) }
        return
    }
    check(status.error, allowed: reasons, inputCount: Int.max, input, context: "status")
    guard status.original == original else { fail("status original differs", input) }
    let expected: JSONValue = policy == .marker ? .string(DecryptionPolicy.markerText) : original
    guard result.message == expected else { fail("delivered message does not follow the policy", input) }
    _ = status.json.serialized()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let all = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = all.first else { return 0 }
    let input = Array(all.dropFirst())
    let readSchemes: [Scheme?] = [nil, .legacy, .legacyRandomIV, .acrh, .legacy33]
    let readScheme = readSchemes[Int(selector & 0x7) % readSchemes.count]
    let policy: DecryptionPolicy = selector & 0x8 == 0 ? .marker : .passThrough
    // The styles that keep every value: the round trip below compares the message exactly.
    let styles = JSONStyle.allCases.filter(\.isExact)
    let style = styles[Int(selector >> 4) % styles.count]
    let crypto = MessageCrypto(keys: try! KeyRing(keys: [fuzzKey]), scheme: readScheme ?? .acrh,
                               reading: readScheme.map(ReadPolicy.only) ?? .rule, style: style)

    // 1. The input as a received message's JSON text.
    switch attempt({ () throws(PNCryptError) in try crypto.decrypt(jsonText: input, policy: policy) }) {
    case .failure(let error):
        check(error, allowed: [.invalidJSON, .jsonTooDeep], inputCount: input.count, input, context: "jsonText")
    case .success(let result):
        let original = try! JSONValue(parsing: input)
        checkResult(result, original: original, policy: policy, input)
        // 2. A parsed message round-trips (legacy33 only for messages of strings).
        switch attempt({ () throws(PNCryptError) in try crypto.encrypt(original) }) {
        case .failure(let error):
            check(error, allowed: [.notEncryptable], inputCount: Int.max, input, context: "encrypt")
        case .success(let sealed):
            let opened = crypto.decrypt(sealed, policy: policy)
            guard opened.status == nil, opened.message == original else {
                fail("decrypt(encrypt(m)) != m: \(opened.status?.error.message ?? "")", input)
            }
            guard let body = try? crypto.publishBody(original), (try? JSONValue(parsing: body)) != nil else {
                fail("publish body does not parse", input)
            }
        }
    }
    // 3. The input as ciphertext carried in a JSON string.
    let wire = JSONValue.string(Base64.encode(input))
    let result = crypto.decrypt(wire, policy: policy)
    checkResult(result, original: wire, policy: policy, input)
    return 0
}
