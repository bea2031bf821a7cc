import Testing
@testable import PNCryptVectors

/// The differences a conformance peer declares (`ConformanceDifference`), on declarations the `peer-answers` fuzz
/// target's invariants catch.
@Suite struct ConformancePeerInfoTests {
    /// Patterns were compared as Swift characters: a `*` followed by a combining mark was one character with it, not
    /// a `*`, and the pattern did not cover the id it spells; an id spelled in another Unicode normalization matched.
    @Test("a declared pattern's * is a * whatever follows it; ids compare as Unicode scalars")
    func starsAreScalars() throws {
        let difference = try ConformanceDifference(check: "generated/gen-a*\u{301}b/peer-encrypts",
                                                   outcome: "rejects", reason: "random IV")
        #expect(difference.covers("gen-a\u{301}b/peer-encrypts", family: "generated"))
        #expect(difference.covers("gen-axyz\u{301}b/peer-encrypts", family: "generated"))
        #expect(!difference.covers("gen-\u{E1}b/peer-encrypts", family: "generated"))
        #expect(ConformanceDifference.matches("ab", "a*b"))
        #expect(ConformanceDifference.matches("a-x-b", "a*-*b"))
        #expect(!ConformanceDifference.matches("a", "a*a"))
        #expect(!ConformanceDifference.matches("caf\u{E9}", "cafe\u{301}"))
        #expect(ConformanceDifference.matches("anything", "*"))
    }

}
