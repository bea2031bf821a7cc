import PNCrypt
import PNCryptFiles
import PNCryptPlatform

// Keys are exact: every key source hands over the bytes it was given, and `CipherKey(bytes:)` refuses those that
// are not valid UTF-8. Swift's `CommandLine.arguments` and `ProcessInfo.environment` decode lossily (a byte that is
// not UTF-8 becomes U+FFFD, so `\xff` and `\xfe` would be one key): the values are read here from the process's
// own argv and environ instead.

/// One key as given: its bytes and where it came from (named in messages; the key itself never is).
struct GivenKey {
    var bytes: [UInt8]
    var source: String
    /// Read from a file (its contents are the key), not given as text.
    var fromFile = false

    /// The key as `FailureHint` takes it, for the hint after a decryption failure: a key given as text that also
    /// names an existing file is said to (`InputFiles.namesRegularFile`).
    func hintKey(_ key: CipherKey) -> FailureHint.Key {
        FailureHint.Key(key, source: source, namesFile: !fromFile && InputFiles.namesRegularFile(bytes))
    }

    /// The cipher key, or a usage failure (exit 64) naming the source when the bytes are not a key (not UTF-8,
    /// empty).
    func cipherKey() throws -> CipherKey {
        do {
            return try CipherKey(bytes: bytes)
        } catch {
            throw CLIFailure(.usage, "\(source): \(error.message)")
        }
    }

    /// Overwrites the bytes (the key is secret).
    mutating func wipe() {
        PNCryptBase.wipe(&bytes)
    }
}

enum RawArguments {
    /// The raw bytes of each value of the option `long` (and `short`) as the command line gave them, in order,
    /// for the values ArgumentParser parsed (`parsed`, decoded lossily): each is matched with the next argument
    /// that decodes to it. A value given as valid UTF-8 comes back as its own bytes.
    static func values(_ parsed: [String], long: String, short: String? = nil,
                       arguments: [[UInt8]] = commandLine) throws -> [[UInt8]] {
        let candidates = Self.candidates(long: long, short: short, in: arguments)
        var next = 0
        return try parsed.enumerated().map { number, value in
            let wanted = Array(value.utf8)
            while next < candidates.count {
                let candidate = candidates[next]
                next += 1
                if Array(String(decoding: candidate, as: UTF8.self).utf8) == wanted { return candidate }
            }
            // Not found (an unusual spelling): the parsed value is exact unless it holds a replaced byte.
            guard !value.unicodeScalars.contains("\u{FFFD}") else {
                throw CLIFailure(.usage, "\(long) #\(number + 1): cannot read the key's bytes from the command "
                                 + "line; give it with a key file or the environment")
            }
            return wanted
        }
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

/// The keys used for reading in this run and what their shape suggests (the library's `FailureHint`, as every
/// shell words it), for the one-line hint that follows a decryption failure (`PNCryptCommand.report`). Written
/// once, before any work, on the main thread.
enum KeyShapeHints {
    nonisolated(unsafe) static var hints: [String] = []
    nonisolated(unsafe) static var keys: [FailureHint.Key] = []

    /// Records the hint of each key that has one.
    static func record(_ keys: [FailureHint.Key]) {
        self.keys = keys
        hints = keys.compactMap { key in
            FailureHint.shape(of: key.key, namesFile: key.namesFile).map { "\(key.source): \($0)" }
        }
    }

    /// The hint line, nil when no key has an unusual shape.
    static var line: String? {
        FailureHint.keys(keys).map { "hint: " + $0 }
    }
}
