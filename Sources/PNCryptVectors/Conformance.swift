// `pncrypt conformance --peer CMD`: every vector file run against another SDK through an adapter process, both
// ways (docs/conformance.md has the protocol). The peer decrypts pncrypt's ciphertexts and pncrypt decrypts the
// peer's; bytes are compared where the IV is fixed; publish bodies are compared with the style the peer claims;
// what must fail must fail. Only the public API of the library is used for pncrypt's side.
//
// This file holds the run's results (a check, the peer's card, the report); the runner is Conformance+Runner.swift.
import PNCrypt

/// One check of a conformance run.
public struct ConformanceCheck: Hashable, Sendable {
    /// How a check ended.
    public enum Outcome: String, Hashable, Sendable {
        /// The peer and pncrypt agreed.
        case passed
        /// They disagreed, or the peer failed to answer.
        case failed
        /// Not run: the peer does not support it, or the vector does not apply (`detail` says why).
        case skipped
        /// They disagreed where the peer's adapter declared it (`hello`'s `differences`, with the reason in
        /// `detail`): reported, not counted as a failure.
        case known
    }

    /// The vector id (or message id) and what was checked, e.g. `gen-legacy-k-0017-text/peer-decrypts`.
    public var id: String
    /// The family: the vector file's name (`generated`, `negative`, ...), or `publish`, `messages`, `envelopes`.
    public var family: String
    /// Which way: `peer-decrypts`, `pncrypt-decrypts`, `peer-encrypts` (bytes compared), `must-fail`, ...
    public var direction: String
    /// How it ended.
    public var outcome: Outcome
    /// For a failure or a skip: why. Holds text from the peer: escape it for a terminal.
    public var detail: String
    /// What was sent to the peer (the request line, cut), when it was.
    public var sent: String
    /// What came back (the answer line, cut), when something did.
    public var got: String
}

/// What the peer said of itself (`hello`).
public struct ConformancePeerInfo: Sendable {
    /// The SDK's name.
    public var name: String
    /// The SDK's version.
    public var version: String
    /// The ops it supports; nil when it did not say (all are tried).
    public var ops: [String]?
    /// The schemes it supports; nil when it did not say (all are tried).
    public var schemes: [String]?
    /// The publish style it claims (a `--style` name), when it names one.
    public var style: String?
    /// The differences from pncrypt the adapter declares: check id patterns (`*` matches any run of characters)
    /// and the reason for each.
    public var differences: [(pattern: String, reason: String)]

    /// The reason declared for check `id`, if one of the patterns matches it.
    public func declaredDifference(_ id: String) -> String? {
        differences.first { Self.matches(id, $0.pattern) }?.reason
    }

    /// Whether `id` matches `pattern`, in which `*` stands for any run of characters.
    static func matches(_ id: String, _ pattern: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
        var rest = Substring(id)
        for (index, part) in parts.enumerated() {
            if index == 0 {
                guard rest.hasPrefix(part) else { return false }
                rest = rest.dropFirst(part.count)
            } else if index == parts.count - 1 {
                return rest.hasSuffix(part)
            } else {
                guard let found = rest.firstRange(of: part) else { return false }
                rest = rest[found.upperBound...]
            }
        }
        return rest.isEmpty
    }
}

/// The result of a conformance run.
public struct ConformanceReport: Sendable {
    /// The peer command.
    public var command: String
    /// What the peer said of itself; nil when it never answered `hello`.
    public var peer: ConformancePeerInfo?
    /// Every check, in the order run.
    public var checks: [ConformanceCheck]
    /// Why the run stopped early (the peer could not be started, or kept dying), when it did.
    public var fatal: String?
    /// How often the peer was started again after it died, hung or wrote garbage.
    public var restarts: Int
    /// The peer's last words on standard error when it died or hung (untrusted text).
    public var peerStderr: String

    /// Checks that passed.
    public var passed: Int { checks.count { $0.outcome == .passed } }
    /// Checks that failed.
    public var failed: Int { checks.count { $0.outcome == .failed } }
    /// Checks that were skipped.
    public var skipped: Int { checks.count { $0.outcome == .skipped } }
    /// Checks that disagreed where the peer declared a difference.
    public var known: Int { checks.count { $0.outcome == .known } }
    /// Whether everything that ran agreed (and the run was not cut short).
    public var agreed: Bool { failed == 0 && fatal == nil && passed > 0 }

    /// Passed, failed and skipped counts per family, families in the order first seen.
    public var families: [(family: String, passed: Int, failed: Int, skipped: Int, known: Int)] {
        var order: [String] = []
        var counts: [String: (Int, Int, Int, Int)] = [:]
        for check in checks {
            if counts[check.family] == nil { order.append(check.family); counts[check.family] = (0, 0, 0, 0) }
            switch check.outcome {
            case .passed: counts[check.family]!.0 += 1
            case .failed: counts[check.family]!.1 += 1
            case .skipped: counts[check.family]!.2 += 1
            case .known: counts[check.family]!.3 += 1
            }
        }
        return order.map { ($0, counts[$0]!.0, counts[$0]!.1, counts[$0]!.2, counts[$0]!.3) }
    }
}
