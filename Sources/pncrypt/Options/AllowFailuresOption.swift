import ArgumentParser
import PNCrypt
import PNCryptPlatform

/// `--allow-failures`: exit 0 even when some messages were not decrypted (their status lines still print).
struct AllowFailuresOption: ParsableArguments {
    @Flag(name: .customLong("allow-failures"), help: ArgumentHelp("""
        Exit 0 even when messages were not decrypted (each still prints its status line, and the output has \
        what --on-error says). Without it such a run exits 1 after writing its output.
        """))
    var allowFailures = false

    /// Refuses the flag with `--on-error fail`, which ends the run at the first failure.
    func validate(with onError: String) throws {
        if allowFailures && onError == "fail" {
            throw ValidationError("--allow-failures contradicts --on-error fail")
        }
    }

    /// What to run when a message does not decrypt: the one command that says why, locally, with the key.
    static let diagnoseHint = "pncrypt diagnose, given the same key and the encrypted text, says why"

    /// After the output is written: exit 1 with a one-line summary when `failed` of `total` messages (`noun`:
    /// message or line) were not delivered decrypted, unless the flag is given.
    func check(failed: Int, of total: Int, _ noun: String, _ verb: String = "decrypted") throws {
        guard failed > 0, !allowFailures else { return }
        let why = verb == "decrypted" ? Self.diagnoseHint + "; " : ""
        throw CLIFailure(.dataFailure, "\(failed) of \(total.counting(noun)) not \(verb) (see the status lines; "
                         + why + "--allow-failures to exit 0)", decryption: true)
    }
}
