import Foundation
import Testing

// The tags of the tests (docs/testing.md). Every test tagged `.slow`, `.stress` or `.interop` also carries
// `.notInQuickRun` (LayerTests checks it), so the quick run (`PNCRYPT_QUICK=1`) leaves it out; CI runs everything.
extension Tag {
    /// Takes seconds rather than milliseconds on a warm debug build: big inputs, many processes or many cases.
    @Tag package static var slow: Self
    /// Pushes a limit on purpose: memory or time bounds, decompression bombs, every signal, many tasks on one value.
    @Tag package static var stress: Self
    /// Runs the built `pncrypt` as a user runs it.
    @Tag package static var cli: Self
    /// Talks to the PubNub Python SDK (`.venv`, `PNCRYPT_SKIP_INTEROP`).
    @Tag package static var interop: Self
}

/// The quick run: `PNCRYPT_QUICK=1` (docs/testing.md), ignored when `CI` is set, as `PNCRYPT_SKIP_INTEROP` is.
package enum QuickRun {
    package static var requested: Bool { ProcessInfo.processInfo.environment["PNCRYPT_QUICK"] == "1" }
    package static var active: Bool { requested && !InteropSwitch.inCI }
}

extension Trait where Self == ConditionTrait {
    /// Leaves a slow, stress or interop test out of the quick run (`PNCRYPT_QUICK=1`).
    package static var notInQuickRun: Self {
        .disabled(if: QuickRun.active, "slow, stress or interop: left out of the quick run (PNCRYPT_QUICK=1)")
    }

    /// Leaves a test of a run's peak memory out under a sanitizer (`runningUnderSanitizer`).
    package static var notUnderSanitizer: Self {
        .enabled(if: !runningUnderSanitizer, "a sanitizer's shadow memory is not the program's")
    }
}
