// `pncrypt conformance --peer CMD`: every vector file run against another SDK through an adapter process, both
// ways (docs/conformance.md has the protocol). The peer decrypts pncrypt's ciphertexts and pncrypt decrypts the
// peer's; bytes are compared where the IV is fixed; publish bodies are compared with the style the peer claims;
// what must fail must fail. Only the public API of the library is used for pncrypt's side.
//
// This file holds the run's result (the checks are ConformanceCheck.swift, the peer's card
// ConformancePeerInfo.swift); the runner is ConformanceRunner.swift.

import PNCrypt

/// The result of a conformance run.
package struct ConformanceReport: Sendable {
    /// The peer command.
    package var command: String
    /// What the peer said of itself; nil when it never answered `hello`.
    package var peer: ConformancePeerInfo?
    /// Every check, in the order run.
    package var checks: [ConformanceCheck]
    /// Why the run stopped early (the peer could not be started, or kept dying), when it did.
    package var fatal: String?
    /// How often the peer was started again after it died, hung or wrote garbage.
    package var restarts: Int
    /// The peer's last words on standard error when it died or hung (untrusted text).
    package var peerStderr: String

    /// Checks that passed.
    package var passed: Int { checks.count { $0.outcome == .passed } }
    /// Checks that failed.
    package var failed: Int { checks.count { $0.outcome == .failed } }
    /// Checks that were skipped.
    package var skipped: Int { checks.count { $0.outcome == .skipped } }
    /// Checks that disagreed where the peer declared a difference.
    package var known: Int { checks.count { $0.outcome == .known } }
    /// Whether everything that ran agreed (and the run was not cut short): no failure, something passed, and the
    /// declared differences excused no more checks than agreed (a peer cannot excuse its way to agreement).
    package var agreed: Bool { failed == 0 && fatal == nil && passed > 0 && !excusesOutweigh }
    /// Whether the declared differences excused more checks than agreed (then the run has not agreed).
    package var excusesOutweigh: Bool { known > passed }

    /// Passed, failed and skipped counts per family, families in the order first seen.
    package var families: [(family: String, passed: Int, failed: Int, skipped: Int, known: Int)] {
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
