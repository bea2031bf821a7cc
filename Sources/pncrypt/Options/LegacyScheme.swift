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
