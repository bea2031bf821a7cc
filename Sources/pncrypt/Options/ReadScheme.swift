import ArgumentParser
import PNCrypt

/// `--scheme` for reading: `auto`, one scheme, or a list of them (`auto,legacy33`).
enum ReadScheme: ExpressibleByArgument, Equatable, CustomStringConvertible {
    case auto
    case only(Scheme)
    /// Several readings, as named: the library's parser (`ReadPolicy(naming:legacyScheme:)`) reads the list and
    /// says what is wrong with it (`ReadSchemeOptions.validate`).
    case list(String)

    init?(argument: String) {
        if argument.contains(",") {
            self = .list(argument)
        } else if argument == "auto" {
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

    var description: String {
        switch self {
        case .auto: "auto"
        case .only(let scheme): scheme.rawValue
        case .list(let names): names
        }
    }

    /// The scheme, nil for `auto` and a list.
    var scheme: Scheme? {
        if case .only(let scheme) = self { return scheme }
        return nil
    }
}
