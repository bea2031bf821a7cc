import ArgumentParser
import PNCrypt
import PNCryptPlatform

/// `--format` of the history commands: v2 or v3, detected by default.
struct HistoryFormatOption: ParsableArguments {
    @Option(help: ArgumentHelp("""
        Read the response as v2 ([[messages], start, end]) or v3 (fetch messages: {"channels": {...}}) only. \
        Without it the format is told by the response's structure.
        """, valueName: "v2|v3"))
    var format: EnvelopeFormat?

    func validate() throws {
        if let format, !EnvelopeFormat.history.contains(format) {
            throw ValidationError("--format is v2 or v3 (a subscribe response: pncrypt subscribe decrypt)")
        }
    }

    var formats: [EnvelopeFormat] { format.map { [$0] } ?? EnvelopeFormat.history }
}
