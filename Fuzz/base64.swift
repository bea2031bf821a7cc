// Fuzz target: Base64 decoding.
//
// Invariants: decode(encode(x)) == x for the input as bytes; decoding the input either fails with notBase64 and an
// offset inside it, or gives bytes whose encoding decodes to the same bytes; String and byte entry points agree.
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let encoded = Base64.encode(input)
    guard encoded.utf8.count == (input.count + 2) / 3 * 4 else { fail("encoded length", input) }
    guard (try? Base64.decode(encoded)) == input else { fail("decode(encode(x)) != x", input) }
    guard (try? Base64.decode("\"" + encoded + "\"\n")) == input else { fail("quoted round trip", input) }

    let fromBytes = attempt { () throws(PNCryptError) in try Base64.decode(input) }
    switch fromBytes {
    case .failure(let error):
        check(error, allowed: [.notBase64], inputCount: input.count, input, context: "decode")
    case .success(let bytes):
        guard (try? Base64.decode(Base64.encode(bytes))) == bytes else { fail("re-encode round trip", input) }
        guard bytes.count <= input.count * 3 / 4 + 2 else { fail("decoded too long", input) }
    }
    // Valid UTF-8 input must decode the same through the String entry point.
    if let text = String(validating: input, as: UTF8.self) {
        let fromString = attempt { () throws(PNCryptError) in try Base64.decode(text) }
        switch (fromBytes, fromString) {
        case (.success(let a), .success(let b)): guard a == b else { fail("string decode differs", input) }
        case (.failure(let a), .failure(let b)): guard a == b else { fail("string error differs", input) }
        default: fail("string outcome differs", input)
        }
    }
    return 0
}
