import ArgumentParser
import PNCrypt
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

/// `--channel` of the history commands: the channel of a v2 response, whose body does not name it.
struct V2ChannelOption: ParsableArguments {
    @Option(name: .customLong("channel"), help: ArgumentHelp("""
        With --channel-key-file: the channel a v2 history response ([[messages], start, end]) was fetched from; \
        its body does not name it, and such a response is refused without it. Not for v3, which names its \
        channels.
        """, valueName: "name"))
    var channel: String?

    /// Refuses a v2 response without `--channel` and a v3 one with it (after the format is known).
    func check(_ format: EnvelopeFormat) throws {
        if format == .v2 && channel == nil {
            throw CLIFailure(.usage, "a history (v2) response does not name its channel: give --channel NAME (the"
                             + " channel it was fetched from) to read it with --channel-key-file")
        }
        if format != .v2, channel != nil {
            throw CLIFailure(.usage, "--channel names the channel of a v2 response; this \(format) response names"
                             + " its channels: leave --channel out")
        }
    }
}
