// Fuzz target: decrypting as `legacy33` (iOS 3.3) under the fixed key `enigma`: the bytes (decryptTarget in
// Common.swift), and, when the input is JSON, the message walk of Legacy33Message.
//
// Invariants for messages: decrypt fails only with notBase64, wrongKeyOrCorrupt or notEncrypted, its
// message naming the path ("at $..."); encrypting a message of strings and decrypting it gives it back.
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    decryptTarget(.legacy33, data, size)
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSONValue(parsing: input) else { return 0 }
    let ring = try! KeyRing(keys: [fuzzKey])
    do throws(PNCryptError) {
        _ = try Legacy33Message.decrypt(value, keys: ring)
    } catch {
        check(error, allowed: [.notBase64, .wrongKeyOrCorrupt, .notEncrypted], inputCount: Int.max,
              input, context: "Legacy33Message.decrypt")
        guard error.message.contains("$") else { fail("error does not name the path: \(error.message)", input) }
    }
    switch attempt({ () throws(PNCryptError) in try Legacy33Message.encrypt(value, key: fuzzKey) }) {
    case .failure(let error):
        check(error, allowed: [.notEncryptable, .emptyPlaintext], inputCount: Int.max, input, context: "encrypt")
    case .success(let sealed):
        guard (try? Legacy33Message.decrypt(sealed, keys: ring)) == value else {
            fail("Legacy33Message decrypt(encrypt(x)) != x", input)
        }
    }
    return 0
}
