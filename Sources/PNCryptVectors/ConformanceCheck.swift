// `pncrypt conformance --peer CMD` (docs/conformance.md): one check of a run. The runner is ConformanceRunner.swift.

import PNCrypt

/// One check of a conformance run.
package struct ConformanceCheck: Hashable, Sendable {
    /// How a check ended.
    package enum Outcome: String, Hashable, Sendable {
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
    package var id: String
    /// The family: the vector file's name (`generated`, `negative`, ...), or `publish`, `messages`, `envelopes`.
    package var family: String
    /// Which way: `peer-decrypts`, `pncrypt-decrypts`, `peer-encrypts` (bytes compared), `must-fail`, ...
    package var direction: String
    /// How it ended.
    package var outcome: Outcome
    /// For a failure or a skip: why. Holds text from the peer: escape it for a terminal.
    package var detail: String
    /// What was sent to the peer (the request line, cut), when it was.
    package var sent: String
    /// What came back (the answer line, cut), when something did.
    package var got: String
}
