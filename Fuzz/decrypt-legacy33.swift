// Fuzz target: decrypting as `legacy33` (iOS 3.3) under the fixed key `enigma`: the bytes (decryptTarget in
// Common.swift), and, when the input is JSON, the message walk of MessageCrypto with scheme legacy33.
//
// Invariants for messages: decrypt fails only with notBase64, wrongKeyOrCorrupt or notEncrypted, its
// message naming the path ("at $..."); encrypting a message of strings and decrypting it gives it back.
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    decryptTarget(.legacy33, data, size)
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSONValue(parsing: input) else { return 0 }
    let crypto = MessageCrypto(keys: try! KeyRing(keys: [fuzzKey]), scheme: .legacy33)
    if let error = crypto.decrypt(value, policy: .passThrough).status?.error {
        check(error, allowed: [.notBase64, .wrongKeyOrCorrupt, .notEncrypted], inputCount: Int.max,
              input, context: "legacy33 message decrypt")
        guard error.message.contains("$") else { fail("error does not name the path: \(error.message)", input) }
    }
    switch attempt({ () throws(PNCryptError) in try crypto.encrypt(value) }) {
    case .failure(let error):
        check(error, allowed: [.notEncryptable, .emptyPlaintext], inputCount: Int.max, input, context: "encrypt")
    case .success(let sealed):
        let opened = crypto.decrypt(sealed, policy: .passThrough)
        guard opened.status == nil, opened.message == value else {
            fail("legacy33 message decrypt(encrypt(x)) != x", input)
        }
    }
    return 0
}
