import ArgumentParser
import PNCrypt

// The library's types that are option values, spelled as the library spells them.

extension EnvelopeFormat: ExpressibleByArgument {}
extension JSONStyle: ExpressibleByArgument {}
extension PlaintextRule: ExpressibleByArgument {}

/// A scheme name on the command line: the values are `Scheme`'s own (its table says what each one is).
extension Scheme: ExpressibleByArgument {
    /// Refuses a scheme that has no file format (`Scheme.Row.hasFileFormat`), for the commands that read or
    /// write files.
    static func requireFileFormat(_ scheme: Scheme?) throws {
        if let scheme, !scheme.row.hasFileFormat {
            let formats = allCases.filter(\.row.hasFileFormat).map(\.rawValue).joined(separator: ", ")
            throw ValidationError("\(scheme) has no file format (files are \(formats)); use --scheme"
                                  + " \(Scheme.defaultForWriting)")
        }
    }
}
