import ArgumentParser
import PNCrypt

/// `--max-input SIZE|none`: the most input a command that holds its input whole reads (one message, one history
/// response, one diagnosis). Such input is parsed into JSON values, which take up to about 40 times its size (an
/// array of small numbers, measured), so the default keeps a run near 100 MiB whatever the input; `--lines` reads
/// input of any size instead, line by line.
struct MaxInputOption: ParsableArguments {
    /// The default limit: 2 MiB (a PubNub message is at most 32 KiB).
    static let defaultLimit = 2 << 20

    @Option(name: .customLong("max-input"), help: ArgumentHelp("""
        Refuse input larger than SIZE bytes: it is held in memory whole (parsed as JSON, up to about 40 times its \
        size). A number with an optional K, M or G suffix (binary: 2M = 2097152 bytes), or none for no limit. \
        Default: 2M.
        """, valueName: "size"), transform: LimitOptions.parse)
    var maxInput: DecompressionLimit?

    /// Refuses `--max-input` with `--lines`, which reads input of any size, line by line.
    func check(_ lines: LineOptions) throws {
        if maxInput != nil && lines.lines {
            throw ValidationError("--max-input is for input held whole; --lines reads lines of at most 4 MiB each")
        }
    }

    /// The limit in force, in bytes.
    var limit: Int {
        switch maxInput ?? .bytes(Self.defaultLimit) {
        case .bytes(let count): count
        case .unlimited: Int.max
        }
    }
}
