import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

// Keys and paths are exact bytes. swift-argument-parser parses `CommandLine.arguments`, which Swift decodes
// lossily (a byte that is not UTF-8 becomes U+FFFD, so `\xff` and `\xfe` would be one key, and a path would name
// another file): the one place that gives back the bytes is here. Each value the parser returned is matched with
// the argument of the process's own argv (`CommandLine.unsafeArgv`) it came from:
//
// - an option's values (`RawArguments.values`) with the arguments after `--long` or `-s`, or attached (`--long=V`,
//   `-sV`, `-s=V`), in order: the first that decodes to the value is its bytes;
// - a positional argument's values (`RawArguments.positionals`) with the arguments that no option token precedes,
//   in order; failing that, with any argument that decodes to it, when all such arguments are the same bytes.
//
// A value given as valid UTF-8 is its own bytes. A value holding U+FFFD that matches two arguments of different
// bytes and no position tells which (`decrypt --binary $'a\xfe' -o $'a\xff'`: `--binary` could take a value as
// far as the bytes show) is refused (exit 64), naming both: the only case the command line cannot answer.

enum RawArguments {
    /// The raw bytes of each value of the option `long` (and `short`) as the command line gave them, in order,
    /// for the values ArgumentParser parsed (`parsed`, decoded lossily): each is matched with the next argument
    /// that decodes to it. A value given as valid UTF-8 comes back as its own bytes. `what` names the values in a
    /// refusal (`the key`, `the path`).
    static func values(_ parsed: [String], long: String, short: String? = nil, what: String = "the key",
                       arguments: [[UInt8]] = commandLine) throws -> [[UInt8]] {
        let candidates = Self.candidates(long: long, short: short, in: arguments)
        var next = 0
        return try parsed.enumerated().map { number, value in
            let wanted = Array(value.utf8)
            while next < candidates.count {
                let candidate = candidates[next]
                next += 1
                if decoded(candidate) == wanted { return candidate }
            }
            // Not found (an unusual spelling): the parsed value is exact unless it holds a replaced byte.
            guard !value.unicodeScalars.contains("\u{FFFD}") else {
                throw CLIFailure(.usage, "\(long) #\(number + 1): cannot read \(what)'s bytes from the command "
                                 + "line" + (what == "the key" ? "; give it with a key file or the environment" : ""))
            }
            return wanted
        }
    }

    /// The exact paths of the option `long` (and `short`): `values`, as paths.
    static func paths(_ parsed: [String], long: String, short: String? = nil) throws -> [FilePath] {
        try values(parsed, long: long, short: short, what: "the path").map { FilePath(bytes: $0) }
    }

    /// The exact path of the option `long` (and `short`), nil when it was not given.
    static func path(_ parsed: String?, long: String, short: String? = nil) throws -> FilePath? {
        guard let parsed else { return nil }
        return try paths([parsed], long: long, short: short)[0]
    }

    /// The raw bytes of the positional arguments ArgumentParser parsed (`parsed`), in order: each is matched with
    /// the next argument no option token precedes that decodes to it; else with the one set of bytes every argument
    /// that decodes to it has. Two such arguments of different bytes are refused (exit 64), naming both.
    static func positionals(_ parsed: [String], arguments: [[UInt8]] = commandLine) throws -> [[UInt8]] {
        let dash = UInt8(ascii: "-")
        var unpreceded: [[UInt8]] = []
        var afterTerminator = false
        for (index, argument) in arguments.enumerated() {
            if !afterTerminator && argument == [dash, dash] {
                afterTerminator = true
                continue
            }
            let option = !afterTerminator && argument.count > 1 && argument.first == dash
            let previous = index > 0 ? arguments[index - 1] : []
            let follows = !afterTerminator && previous.count > 1 && previous.first == dash && previous != [dash, dash]
            if !option && !follows { unpreceded.append(argument) }
        }
        var next = 0
        return try parsed.map { value in
            let wanted = Array(value.utf8)
            guard value.unicodeScalars.contains("\u{FFFD}") else { return wanted }
            while next < unpreceded.count {
                let candidate = unpreceded[next]
                next += 1
                if decoded(candidate) == wanted { return candidate }
            }
            var found: [[UInt8]] = []
            for argument in arguments where decoded(argument) == wanted && !found.contains(argument) {
                found.append(argument)
            }
            guard found.count == 1 else {
                let names = found.map { "'\(FilePath(bytes: $0).shown)'" }.joined(separator: " and ")
                throw CLIFailure(.usage, found.isEmpty
                                 ? "cannot read a path argument's bytes from the command line"
                                 : "cannot tell which of \(names) is the path argument (they differ only in bytes "
                                 + "that are not UTF-8): give it first after the command, or spell one otherwise "
                                 + "(./NAME)")
            }
            return found[0]
        }
    }

    /// The exact paths of positional arguments: `positionals`, as paths.
    static func positionalPaths(_ parsed: [String]) throws -> [FilePath] {
        try positionals(parsed).map { FilePath(bytes: $0) }
    }

    /// `bytes` as ArgumentParser sees them: decoded lossily, as `CommandLine.arguments` are.
    private static func decoded(_ bytes: [UInt8]) -> [UInt8] {
        Array(String(decoding: bytes, as: UTF8.self).utf8)
    }

    /// The arguments that may be values of the option: after `--long` or `-s`, or attached (`--long=V`, `-sV`,
    /// `-s=V`); none after `--`.
    static func candidates(long: String, short: String?, in arguments: [[UInt8]]) -> [[UInt8]] {
        let longName = Array(long.utf8)
        let shortName = short.map { Array($0.utf8) }
        var found: [[UInt8]] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == Array("--".utf8) { break }
            if argument == longName || argument == shortName {
                if index < arguments.count { found.append(arguments[index]) }
                index += 1
            } else if argument.starts(with: longName + [UInt8(ascii: "=")]) {
                found.append(Array(argument.dropFirst(longName.count + 1)))
            } else if let shortName, argument.count > shortName.count, argument.starts(with: shortName) {
                let rest = argument.dropFirst(shortName.count)
                found.append(Array(rest.first == UInt8(ascii: "=") ? rest.dropFirst() : rest))
            }
        }
        return found
    }

    /// The command line's arguments after the program name, as bytes.
    static var commandLine: [[UInt8]] {
        (1..<Int(CommandLine.argc)).compactMap { index in
            CommandLine.unsafeArgv[index].map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        }
    }

    /// The raw bytes of an environment variable, nil when it is not set.
    static func environment(_ name: String) -> [UInt8]? {
        getenv(name).map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    }
}
