import ArgumentParser
import PNCrypt

/// `--legacy-scheme`: how `auto` reads data without a `PNED` header, as a client's legacy cryptor is set.
struct LegacyScheme: ExpressibleByArgument, CustomStringConvertible {
    let scheme: Scheme

    /// The schemes a module's legacy cryptor can have: those with a file format and no header.
    static let choices = Scheme.allCases.filter(\.isLegacyCryptor)

    init?(argument: String) {
        guard let scheme = Scheme(argument: argument), Self.choices.contains(scheme) else { return nil }
        self.scheme = scheme
    }

    static var allValueStrings: [String] { choices.map(\.rawValue) }

    /// Shell completion offers the values.
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    var description: String { scheme.rawValue }
}

/// `--legacy-scheme`, declared once for every command that reads headerless data: the decrypting commands (with
/// `--scheme auto`, `ReadSchemeOptions`) and rekey (`RekeyOptions`).
struct LegacySchemeOption: ParsableArguments {
    @Option(name: .customLong("legacy-scheme"), help: ArgumentHelp("""
        Read data without a PNED header as legacy (fixed IV) or legacy-random-iv only, as the sending clients are \
        set (with --scheme auto where a command has --scheme). Without it both are tried, and the headerless rule \
        tells them apart by the fixed-IV reading's first 16 bytes (text: legacy; a decrypted IV: \
        legacy-random-iv; see docs/formats.md): a message is taken only when exactly one reading qualifies.
        """, valueName: "scheme"))
    var legacyScheme: LegacyScheme?
}
