import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

// Base64 as stream stages. The streamed forms must give exactly what the one-shot
// `Base64.encode` / `Base64.decode` give (bytes, and for refused text the same message and offset), however the
// stream is cut into chunks.

/// Runs `bytes` through `stage` cut into chunks at `cuts` (sorted offsets); the output, or the error.
func runStage(_ stage: some ByteStreamStage, _ bytes: [UInt8], cuts: [Int]) -> Result<[UInt8], PNCryptError> {
    var out: [UInt8] = []
    let collect: ByteSink = { out.append(contentsOf: $0) }
    var start = 0
    do throws(PNCryptError) {
        for end in cuts + [bytes.count] where end >= start {
            try withBytes(bytes[start..<end]) { (chunk) throws(PNCryptError) in try stage.update(chunk, collect) }
            start = end
        }
        try stage.finish(collect)
        return .success(out)
    } catch {
        return .failure(error)
    }
}

/// Random chunk boundaries for `count` bytes.
func randomCuts(_ count: Int, using generator: inout SeededRandom) -> [Int] {
    guard count > 1 else { return [] }
    return (0..<Int.random(in: 0...6, using: &generator)).map { _ in Int.random(in: 0..<count, using: &generator) }
        .sorted()
}

/// The one-shot decoding of `text`: the bytes or the error.
func oneShotDecode(_ text: [UInt8]) -> Result<[UInt8], PNCryptError> {
    do throws(PNCryptError) {
        return .success(try Base64.decode(text))
    } catch {
        return .failure(error)
    }
}

/// Whether two outcomes are the same: equal bytes, or errors with the same code, message and offset.
func sameOutcome(_ a: Result<[UInt8], PNCryptError>, _ b: Result<[UInt8], PNCryptError>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)): x == y
    case (.failure(let x), .failure(let y)): x.code == y.code && x.message == y.message && x.offset == y.offset
    default: false
    }
}

@Suite struct Base64StreamTests {
    @Test("Base64StreamEncoder gives Base64.encode's text for every length 0-200 and any chunking")
    func encoderMatchesOneShot() {
        var generator = SeededRandom(seed: 1)
        for count in 0...200 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for cuts in [[], Array(0..<count), randomCuts(count, using: &generator)] {
                let streamed = runStage(Base64StreamEncoder(), bytes, cuts: cuts)
                #expect(sameOutcome(streamed, .success(Base64.encodeBytes(bytes))), "length \(count) cuts \(cuts)")
            }
        }
    }

    @Test("Base64StreamDecoder accepts and refuses exactly what Base64.decode does (fixed cases)",
          arguments: [
              "", "   ", "\n", "q/xJqqN6qbiZMXYmiQC1Fw==", " q/xJqqN6qbiZMXYmiQC1Fw== \n",
              "\"q/xJqqN6qbiZMXYmiQC1Fw==\"",
              " \"q/xJqqN6qbiZMXYmiQC1Fw==\"\r\n", "\"\"", "\"", "\"  \"", "\" q/xJ\"", "\"q/xJ \"", "\"q/xJ",
              "q/xJ\"", "q/xJ\"\"", "\"q/xJ\"\"", "q/x J", "q/xJ \n", "q/xJ\n\rqqN6", "q/xJ\tqqN6", "q/xJq", "q/xJqq",
              "q/xJqqN", "q/xJqq=", "q/xJqq==", "q/xJqqN=", "q/xJq===", "q/xJ=", "=", "ab==cd==", "ab===",
              "ab==\n", "ab=\n=", "ab-_", "q/x_", "q/xJ!", "\u{00e9}abc", "abcd\"efgh", "\"abcd\"efgh\"",
              "\"abc d\"x", "abc", "\"abc\" ", "\"ab==\"", "\" \"", "\" ab\" x",
          ])
    func decoderFixedCases(text: String) {
        let bytes = Array(text.utf8)
        let expected = oneShotDecode(bytes)
        for split in 0...bytes.count {
            let cuts = split == 0 ? [] : [split]
            let streamed = runStage(Base64StreamDecoder(), bytes, cuts: cuts)
            #expect(sameOutcome(streamed, expected),
                    "\(text.debugDescription) cut at \(split): \(streamed) vs \(expected)")
        }
        let byteByByte = runStage(Base64StreamDecoder(), bytes, cuts: Array(0..<bytes.count))
        #expect(sameOutcome(byteByByte, expected), "\(text.debugDescription) byte by byte")
    }

    @Test("Base64StreamDecoder matches Base64.decode on 20,000 generated and mutated texts",
          .tags(.slow), .notInQuickRun)
    func decoderMatchesOneShotOnMutations() {
        var generator = SeededRandom(seed: 23)
        let noise: [UInt8] = Array(" \t\r\n\"=-_A/+!".utf8) + [0xFF, 0x00, 0xC3]
        for round in 0..<20_000 {
            let count = Int.random(in: 0...60, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var text = Base64.encodeBytes(bytes)
            if Bool.random(using: &generator) {
                // Wrapped lines, as old JavaScript clients wrote them.
                var wrapped: [UInt8] = []
                let width = [4, 8, 64, 76, 7][Int.random(in: 0..<5, using: &generator)]
                for (index, c) in text.enumerated() {
                    if index > 0 && index % width == 0 { wrapped += Bool.random(using: &generator) ? [10] : [13, 10] }
                    wrapped.append(c)
                }
                text = wrapped
            }
            if Int.random(in: 0..<3, using: &generator) == 0 { text = [0x22] + text + [0x22] }
            if Int.random(in: 0..<3, using: &generator) == 0 { text = [0x20, 0x0A] + text + [0x0D, 0x0A, 0x09] }
            for _ in 0..<Int.random(in: 0...2, using: &generator) where !text.isEmpty {
                let at = Int.random(in: 0...text.count, using: &generator)
                if Bool.random(using: &generator) || at == text.count {
                    text.insert(noise.randomElement(using: &generator)!, at: at)
                } else {
                    text.remove(at: at)
                }
            }
            let expected = oneShotDecode(text)
            let streamed = runStage(Base64StreamDecoder(), text, cuts: randomCuts(text.count, using: &generator))
            #expect(sameOutcome(streamed, expected), "round \(round): \(text) gave \(streamed), expected \(expected)")
        }
    }

    @Test("a stage refuses use after finish (invalidValue)")
    func useAfterFinish() {
        let encoder = Base64StreamEncoder()
        let decoder = Base64StreamDecoder()
        let ignore: ByteSink = { _ in }
        #expect(throws: Never.self) { try encoder.finish(ignore) }
        #expect(throws: Never.self) { try decoder.finish(ignore) }
        expectPNError(.invalidValue) { () throws(PNCryptError) in try encoder.finish(ignore) }
        expectPNError(.invalidValue) { () throws(PNCryptError) in try decoder.finish(ignore) }
        expectPNError(.invalidValue) { () throws(PNCryptError) in
            try withBytes([UInt8(1), 2]) { (b) throws(PNCryptError) in try decoder.update(b, ignore) }
        }
    }
}
