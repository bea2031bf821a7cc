import ArgumentParser
import PNCrypt

/// `--scheme` for reading: `auto`, or one scheme.
enum ReadScheme: ExpressibleByArgument, Equatable, CustomStringConvertible {
    case auto
    case only(Scheme)

    init?(argument: String) {
        if argument == "auto" {
            self = .auto
        } else if let scheme = Scheme(argument: argument) {
            self = .only(scheme)
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { ["auto"] + Scheme.allValueStrings }

    /// Shell completion offers the values (ArgumentParser does so by itself only for `CaseIterable` types).
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    var description: String { scheme?.rawValue ?? "auto" }

    /// The scheme, nil for `auto`.
    var scheme: Scheme? {
        if case .only(let scheme) = self { return scheme }
        return nil
    }
}
