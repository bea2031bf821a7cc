// `pncrypt conformance --peer CMD` (docs/conformance.md): what the peer says of itself, and the differences it
// declares (each names a family, the checks, and the one outcome it excuses).

import PNCrypt

/// What the peer said of itself (`hello`).
package struct ConformancePeerInfo: Sendable {
    /// The SDK's name.
    package var name: String
    /// The SDK's version.
    package var version: String
    /// The ops it supports; nil when it did not say (all are tried).
    package var ops: [String]?
    /// The schemes it supports; nil when it did not say (all are tried).
    package var schemes: [String]?
    /// The publish style it claims (a `--style` name), when it names one.
    package var style: String?
    /// The differences from pncrypt the adapter declares.
    package var differences: [ConformanceDifference]

    /// The declared difference that excuses a disagreement of check `id` in `family` whose shape is one of
    /// `shapes`; nil when none does.
    package func excuse(_ id: String, family: String, shapes: Set<ConformanceDifference.Outcome>)
        -> ConformanceDifference? {
        differences.first { $0.covers(id, family: family) && shapes.contains($0.outcome) }
    }

    /// The declared differences whose checks take in `id` (of `family`), whatever the outcome they excuse.
    package func declarations(for id: String, family: String) -> [ConformanceDifference] {
        differences.filter { $0.covers(id, family: family) }
    }
}

/// A difference from pncrypt that a peer declares in `hello` (docs/conformance.md, "Known differences"): the
/// checks it covers, named within one family, and the one outcome it excuses. A check it covers that disagrees in
/// another way is a failure.
package struct ConformanceDifference: Sendable, Hashable {
    /// The shape of a disagreement that a declared difference can excuse. A disagreement that has none of these
    /// shapes (a corrupted plaintext, other bytes, a wrong-key message read as a value, a dead or hung peer) is
    /// never excused.
    package enum Outcome: String, CaseIterable, Hashable, Sendable {
        /// The peer accepts what must fail: a `decryption_error`, `unknown_cryptor` or `encryption_error` vector
        /// was answered with a value. (Never a message under the wrong key: that must fail in every SDK.)
        case accepts
        /// The peer rejects what must succeed: an error answer, or a message marked as not decrypted.
        case rejects
        /// A string whose text is JSON came back as that JSON's value.
        case jsonValue = "json-value"
        /// Text came back as `null` (an SDK that parses its plaintexts as JSON and gives null when they are not).
        case null
        /// The value is the expected one with every number as a Double (integers beyond 2^53 rounded).
        case numbersAsDoubles = "numbers-as-doubles"
        /// A number, boolean or null came back as a string.
        case scalarsAsText = "scalars-as-text"
        /// The message came back as it was received (its ciphertext), not decrypted, with no error.
        case asReceived = "as-received"
        /// A publish body holds the expected value, in other bytes (another member order, other number spellings).
        case sameValue = "same-value"

        /// The outcomes' names, for error messages.
        static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    /// Why a peer's declaration was refused.
    package struct Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// One line saying what is wrong (the peer's text in it is not escaped: the caller escapes for terminals).
        package var description: String
    }

    /// The family of the checks (a vector file's name, `publish`, `messages` or `envelopes`).
    package var family: String
    /// The check id pattern within the family (`*` matches any run of characters).
    package var pattern: String
    /// The one outcome it excuses.
    package var outcome: Outcome
    /// Why the SDK differs (the SDK code behind it).
    package var reason: String

    /// A declaration: `checks` entry `FAMILY/PATTERN`, where FAMILY is literal (no `*`) and PATTERN not empty, and
    /// `outcome` one of `Outcome`'s names.
    /// - Throws: `Refusal` for a pattern that names no family (`*`, `**`, `*-*`, `*/must-fail`), no checks, or an
    ///   outcome that is missing or not known.
    package init(check: String, outcome: String?, reason: String) throws(Refusal) {
        guard let outcome else {
            throw Refusal(description: "the declared difference for \"\(check)\" names no outcome it excuses "
                          + "(\"outcome\": one of \(Outcome.names))")
        }
        guard let known = Outcome(rawValue: outcome) else {
            throw Refusal(description: "the declared difference for \"\(check)\" has the outcome \"\(outcome)\", "
                          + "which is not one of \(Outcome.names)")
        }
        // On Unicode scalars, as `matches`: a `/` or `*` followed by a combining mark is still one.
        let scalars = check.unicodeScalars
        guard let slash = scalars.firstIndex(of: "/"), slash != scalars.startIndex,
              !scalars[..<slash].contains("*") else {
            throw Refusal(description: "the declared difference \"\(check)\" names no family: a pattern is "
                          + "FAMILY/CHECKS, with the family written out (spec, generated, negative, publish, "
                          + "messages, envelopes, ...) and no \"*\" before the first \"/\"")
        }
        let rest = scalars[scalars.index(after: slash)...]
        guard !rest.isEmpty else {
            throw Refusal(description: "the declared difference \"\(check)\" names no checks after its family")
        }
        family = String(scalars[..<slash])
        pattern = String(rest)
        self.outcome = known
        self.reason = reason
    }

    /// Whether the declaration's checks take in check `id` of `family`.
    package func covers(_ id: String, family: String) -> Bool {
        family.unicodeScalars.elementsEqual(self.family.unicodeScalars) && Self.matches(id, pattern)
    }

    /// Whether `id` matches `pattern`, in which `*` stands for any run of characters. Compared as Unicode scalars,
    /// not as Swift characters: a `*` followed by a combining mark is still a `*`, and spellings that Unicode calls
    /// equivalent are different ids.
    static func matches(_ id: String, _ pattern: String) -> Bool {
        let parts = Array(pattern.unicodeScalars).split(separator: "*", omittingEmptySubsequences: false)
        var rest = Array(id.unicodeScalars)[...]
        for (index, part) in parts.enumerated() {
            if index == 0 {
                guard rest.starts(with: part) else { return false }
                rest = rest.dropFirst(part.count)
            } else if index == parts.count - 1 {
                return rest.count >= part.count && rest.suffix(part.count).elementsEqual(part)
            } else {
                guard let found = rest.firstRun(of: part) else { return false }
                rest = rest[found.upperBound...]
            }
        }
        return rest.isEmpty
    }
}
