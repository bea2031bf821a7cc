import ArgumentParser
import PNCrypt
import PNCryptPlatform

/// `--on-error`: what to deliver for a message that is not delivered decrypted (not encrypted, wrong key,
/// corrupt). Under every value each such message prints one status line on standard error, and the run exits 1
/// (after writing the output, unless `fail`) unless `--allow-failures`.
enum OnError: String, ExpressibleByArgument, CaseIterable {
    case marker, passthrough, fail
}

/// `--on-error`, declared once for every command that reads received messages: `message`, `history` and
/// `subscribe` `decrypt` (nil: the library's default for the target, `DecryptionPolicy.default(for:)`) and `rekey`
/// (nil: passthrough; marker is refused there, since rekey keeps a message it cannot move).
struct OnErrorOption: ParsableArguments {
    @Option(name: .customLong("on-error"), help: ArgumentHelp("""
        What to deliver for a message that is not delivered decrypted (not encrypted, wrong key, corrupt): \
        marker: "DECRYPTION_ERROR" in its place (iOS 3.4; decrypt's default for a whole message); passthrough: \
        the original message (current SDKs; the default with --field, where the record keeps its field as it was, \
        and rekey's, which copies it unchanged; rekey takes passthrough or fail); fail: stop at the first one and \
        write nothing. Under each, every such message prints one status line on stderr and the run exits 1 \
        (unless --allow-failures).
        """, valueName: "marker|passthrough|fail"))
    var onError: OnError?
}
