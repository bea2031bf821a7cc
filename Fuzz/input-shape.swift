// Fuzz target: binary-input detection (how `decrypt -i`, `inspect -i` and `diagnose -i` tell a raw file from Base64
// text: `InputShape.binaryReason`, in the command).
// fuzz-needs: pncrypt
//
// Input: a selector byte, then bytes. Even selector: the bytes are a file's start as it is. Odd: the bytes are
// ciphertext, written as Base64 text the ways text mode accepts (JSON quotes, white space around, line breaks
// inside, by the selector's bits).
//
// Invariants: detection decides only how the input is encoded, and never takes text that the text reader
// (`Base64.decode`, whose stream form reads `-i` text) accepts for a binary file; what it calls binary has a
// `PNED` header or a byte text never holds, and the reason names the first such byte (its offset inside the
// input) or the header; a file pncrypt writes with a PNED header (acrh) is binary.
@testable import pncrypt
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = input.first else { return 0 }
    let bytes = Array(input.dropFirst())
    let file = selector & 1 == 0 ? bytes : base64Text(bytes, selector)
    let prefix = Array(file.prefix(InputShape.sniffLength))
    let reason = InputShape.binaryReason(prefix)
    let decoded = attempt { () throws(PNCryptError) in try Base64.decode(file) }
    if case .success = decoded, let reason {
        fail("Base64 text the text reader accepts was taken for a binary file: \(reason)", input)
    }
    if selector & 1 == 1, decoded != .success(bytes) {
        fail("the Base64 text written here does not decode to its bytes: \(decoded)", input)
    }
    let firstBinary = prefix.firstIndex { !InputShape.canBeText($0) }
    if let reason {
        if let firstBinary {
            if !reason.hasPrefix("it starts with a PNED header"),
               !reason.hasSuffix("at offset \(firstBinary) cannot be Base64 text") {
                fail("the reason \(reason) does not name the first byte text never holds (\(firstBinary))", input)
            }
        } else if !prefix.starts(with: Array("PNED".utf8)) || !reason.hasPrefix("it starts with a PNED header") {
            fail("binary without a PNED header or a byte text never holds: \(reason)", input)
        }
    } else if firstBinary != nil {
        fail("a byte text never holds, and the input was taken for text", input)
    }
    // A file pncrypt writes with a PNED header (acrh, the IV from the input) is binary.
    let iv = Array((bytes + [UInt8](repeating: 0x33, count: 16)).prefix(16))
    if let sealed = try? fuzzModule.encryptBinary(bytes.isEmpty ? [0] : bytes, scheme: .acrh, iv: iv),
       InputShape.binaryReason(sealed.prefix(InputShape.sniffLength)) == nil {
        fail("an acrh file was taken for text", input)
    }
    return 0
}

/// `bytes` as Base64 text in one of the forms text mode accepts, picked by `selector`'s bits: JSON quotes (bit 1),
/// white space around (bit 2: a space and a tab before, CRLF after), line breaks every 64 or 76 characters (bit 3,
/// bit 4 for CRLF).
func base64Text(_ bytes: [UInt8], _ selector: UInt8) -> [UInt8] {
    var text = Array(Base64.encode(bytes).utf8)
    if selector & 8 != 0 {
        let width = selector & 32 == 0 ? 64 : 76
        var wrapped: [UInt8] = []
        for (index, byte) in text.enumerated() {
            if index > 0 && index % width == 0 { wrapped += selector & 16 == 0 ? [0x0A] : [0x0D, 0x0A] }
            wrapped.append(byte)
        }
        text = wrapped
    }
    if selector & 2 != 0 { text = [0x22] + text + [0x22] }
    if selector & 4 != 0 { text = [0x20, 0x09] + text + [0x0D, 0x0A] }
    return text
}
