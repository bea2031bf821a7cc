import ArgumentParser
import PNCrypt

/// `--scheme` and `--legacy-scheme` of the commands that decrypt.
struct ReadSchemeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("""
        auto reads a PNED header when there is one, else data without one as --legacy-scheme says; another \
        value reads only that scheme. A list joined by commas reads every reading it names at once, and exactly \
        one must qualify: auto,legacy33 reads iOS 3.3 messages beside later ones in one pass.
        """, valueName: "scheme"))
    var scheme: ReadScheme = .auto

    @OptionGroup var legacy: LegacySchemeOption

    /// `--legacy-scheme`, nil for both readings.
    var legacyScheme: LegacyScheme? { legacy.legacyScheme }

    /// The scheme to read, nil for `auto`.
    var explicit: Scheme? { scheme.scheme }

    /// How `auto` reads headerless data (`--legacy-scheme`), nil for both readings.
    var headerless: Scheme? { legacyScheme?.scheme }

    /// The library's one value for the two options (`ReadPolicy`), by the mapping the C library uses too; a list
    /// by the library's one parser of lists (checked by `validate`).
    var policy: ReadPolicy {
        get throws(PNCryptError) {
            guard case .list(let names) = scheme else { return ReadPolicy(scheme: explicit, legacyScheme: headerless) }
            return try ReadPolicy(naming: names, legacyScheme: headerless)
        }
    }

    func validate() throws {
        if case .list = scheme {
            do {
                _ = try policy
            } catch {
                throw ValidationError("--scheme: \(error.message)")
            }
        } else if legacyScheme != nil && scheme != .auto {
            throw ValidationError("--legacy-scheme goes with --scheme auto (it says how headerless data is read)")
        }
    }
}
