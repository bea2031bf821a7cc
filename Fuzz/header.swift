// Fuzz target: PNED header parsing (CryptorHeader.parse) and Inspection.
//
// Invariants: parse returns nil exactly when the input does not start with "PNED"; errors are malformedHeader or
// unknownCryptor with an offset inside the input; a parsed header re-encodes to the bytes it was read from (or,
// for a non-canonical 0xFF length, to bytes that parse to the same header); parsing a slice with a non-zero start
// index gives the same result as parsing a copy.
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let startsWithSentinel = input.count >= 4 && input[0..<4].elementsEqual(CryptorHeader.sentinel)
    let parsed = attempt { () throws(PNCryptError) in try CryptorHeader.parse(input) }
    // The same bytes as a slice of a larger array (non-zero startIndex) and as an unsafe buffer.
    let padded = [0x41, 0x42] + input
    let sliced = attempt { () throws(PNCryptError) in try CryptorHeader.parse(padded[2...]) }
    let buffered = input.withUnsafeBufferPointer { b in
        attempt { () throws(PNCryptError) in try CryptorHeader.parse(b) }
    }
    for other in [sliced, buffered] {
        switch (parsed, other) {
        case (.success(let a), .success(let b)):
            guard a?.header == b?.header, a?.length == b?.length else { fail("slice parse differs", input) }
        case (.failure(let a), .failure(let b)):
            guard a == b else { fail("slice error differs: \(a) vs \(b)", input) }
        default: fail("slice parse outcome differs", input)
        }
    }
    switch parsed {
    case .failure(let error):
        guard startsWithSentinel else { fail("error for data without a sentinel: \(error)", input) }
        check(error, allowed: [.malformedHeader, .unknownCryptor], inputCount: input.count, input, context: "parse")
    case .success(nil):
        guard !startsWithSentinel else { fail("PNED data not read as a header", input) }
    case .success(let (header, length)?):
        guard startsWithSentinel else { fail("header without a sentinel", input) }
        guard length <= input.count, length == header.encodedLength || input[9] == 0xFF else {
            fail("length \(length) vs encodedLength \(header.encodedLength)", input)
        }
        let encoded = header.encoded()
        if input[9] != 0xFF || header.metadata.count >= 255 {
            guard encoded.elementsEqual(input[0..<length]) else { fail("re-encoding differs", input) }
        }
        guard let (again, againLength) = try? CryptorHeader.parse(encoded), again == header,
              againLength == encoded.count else { fail("re-parse differs", input) }
    }
    // Inspection never traps and throws only format errors.
    do throws(PNCryptError) {
        let inspection = try Inspection(input)
        guard inspection.headerLength + inspection.ciphertextLength == input.count, inspection.blocks >= 1 else {
            fail("inspection lengths", input)
        }
        _ = inspection.lines
    } catch {
        check(error, allowed: [.malformedHeader, .unknownCryptor, .wrongKeyOrCorrupt], inputCount: input.count,
              input, context: "inspection")
    }
    return 0
}
