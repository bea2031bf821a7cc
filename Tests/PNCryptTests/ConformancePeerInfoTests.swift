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

    /// The family of a declaration was cut at the first `/` character: a `/` followed by a combining mark was not
    /// found (a refusal), and a `*` followed by one passed as a family written out.
    @Test("a declaration's family ends at the first / scalar and holds no * scalar; it compares as Unicode scalars")
    func familiesAreScalars() throws {
        let slash = try ConformanceDifference(check: "spec/\u{301}x", outcome: "rejects", reason: "r")
        #expect(Array(slash.family.unicodeScalars) == Array("spec".unicodeScalars))
        #expect(Array(slash.pattern.unicodeScalars) == Array("\u{301}x".unicodeScalars))
        #expect(throws: ConformanceDifference.Refusal.self) {
            try ConformanceDifference(check: "spec*\u{301}/x", outcome: "rejects", reason: "r")
        }
        let composed = try ConformanceDifference(check: "caf\u{E9}/x", outcome: "rejects", reason: "r")
        #expect(composed.covers("x", family: "caf\u{E9}"))
        #expect(!composed.covers("x", family: "cafe\u{301}"))
    }
}
