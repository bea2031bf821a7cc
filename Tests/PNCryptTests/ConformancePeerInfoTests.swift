import Testing
@testable import PNCryptVectors

/// The differences a conformance peer declares (`ConformancePeerInfo`), on patterns the `peer-answers` fuzz target
/// found.
@Suite struct ConformancePeerInfoTests {
    /// Found by the `peer-answers` fuzz target: patterns were compared as Swift characters, so a `*` followed by a
    /// combining mark was one character with it, not a `*`, and the pattern did not match the id it spells.
    @Test("a declared pattern's * is a * whatever follows it; ids compare as Unicode scalars")
    func starsAreScalars() {
        let info = ConformancePeerInfo(name: "peer", version: "1", ops: nil, schemes: nil, style: nil,
                                       differences: [("gen-a*\u{301}b/peer-encrypts", "random IV")])
        #expect(info.declaredDifference("gen-a\u{301}b/peer-encrypts") == "random IV")
        #expect(info.declaredDifference("gen-axyz\u{301}b/peer-encrypts") == "random IV")
        #expect(info.declaredDifference("gen-\u{E1}b/peer-encrypts") == nil)
        #expect(ConformancePeerInfo.matches("ab", "a*b"))
        #expect(ConformancePeerInfo.matches("a-x-b", "a*-*b"))
        #expect(!ConformancePeerInfo.matches("a", "a*a"))
        #expect(!ConformancePeerInfo.matches("caf\u{E9}", "cafe\u{301}"))
        #expect(ConformancePeerInfo.matches("anything", "*"))
    }
}
