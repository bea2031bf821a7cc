import Testing
import PNCryptBase

/// `firstRun(of:)`, the shipped code's `firstRange(of:)`: the same answer as the standard library's over random
/// pairs of short byte strings from a small alphabet (where partial matches and overlaps are common). An empty part
/// is found at the start (the standard library says so for short texts and nil for longer ones).
@Suite struct FirstRunTests {
    @Test("firstRun(of:) finds what firstRange(of:) finds")
    func sameAsFirstRange() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 0...2) }
            let part = (0..<Int.random(in: 1...4, using: &generator)).map { _ in UInt8.random(in: 0...2) }
            #expect(text.firstRun(of: part) == text.firstRange(of: part), "\(text) \(part)")
            #expect(text.containsRun(part) == (text.firstRange(of: part) != nil))
        }
        #expect(Array(".a.pncrypt-x.tmp".utf8).containsRun(".pncrypt-".utf8))
        #expect(!Array(".a.pncrypt.tmp".utf8).containsRun(".pncrypt-".utf8))
        #expect(Array("ab".utf8)[1...].firstRun(of: "b".utf8) == 1..<2)
        #expect(Array("ab".utf8).firstRun(of: []) == 0..<0)
    }
}
