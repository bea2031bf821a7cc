import ArgumentParser
import PNCrypt

/// `--scheme` and `--iv` of the commands that encrypt.
struct WriteSchemeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The scheme to write (acrh is recommended for new data).", valueName: "scheme"))
    var scheme: Scheme = .defaultForWriting

    @Option(help: ArgumentHelp("A fixed IV as 32 hex digits, for reproducible test vectors. Never for real data.",
                               valueName: "hex"), transform: Self.parseIV)
    var iv: [UInt8]?

    /// 32 hex digits as 16 bytes.
    static func parseIV(_ text: String) throws -> [UInt8] {
        guard let iv = Hex.decode(text), iv.count == Scheme.ivSize else {
            throw ValidationError("--iv must be \(2 * Scheme.ivSize) hex digits (\(Scheme.ivSize) bytes)")
        }
        return iv
    }
}
