import ArgumentParser
import Foundation
import PNCrypt
#if canImport(Glibc)
import Glibc
#endif

// The option groups every command shares, so that one flag name has one meaning everywhere.

/// Where the cipher keys come from: `--key` (repeatable), `--key-file`, or `PNCRYPT_KEY`.
struct KeyOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The cipher key. Visible to other users of this machine: prefer --key-file or PNCRYPT_KEY.",
        valueName: "key"))
    var key: [String] = []

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "Read the cipher key from a file (one trailing newline is ignored).", valueName: "path"))
    var keyFile: String?

    /// The one cipher key, from the first source given.
    func resolve() throws -> CipherKey {
        let keys = try resolveAll()
        guard keys.count == 1 else { throw ValidationError("give exactly one --key here") }
        return keys[0]
    }

    /// The one cipher key, or nil when no source gives one (for commands where a key is optional).
    func resolveIfGiven() throws -> CipherKey? {
        let environment = ProcessInfo.processInfo.environment["PNCRYPT_KEY"]
        guard !key.isEmpty || keyFile != nil || environment != nil else { return nil }
        return try resolve()
    }

    /// Every key given, in order (`--key` may repeat).
    func resolveAll() throws -> [CipherKey] {
        var strings = key
        if let keyFile {
            guard let data = FileManager.default.contents(atPath: keyFile) else {
                throw CLIFailure(FileManager.default.fileExists(atPath: keyFile) ? .ioError : .noInput,
                                 "cannot read key file '\(keyFile)'")
            }
            // Decoded strictly: a lossy decoding would give different key files the same key.
            guard var text = String(validating: data, as: UTF8.self) else {
                throw CLIFailure(.usage, "key file '\(keyFile)' is not valid UTF-8")
            }
            if text.hasSuffix("\r\n") { text.removeLast(1) } else if text.hasSuffix("\n") { text.removeLast() }
            strings.append(text)
        }
        if strings.isEmpty, let env = ProcessInfo.processInfo.environment["PNCRYPT_KEY"] { strings = [env] }
        guard !strings.isEmpty else {
            throw ValidationError("no cipher key: give --key, --key-file, or set PNCRYPT_KEY")
        }
        return try strings.map { string in
            do {
                return try CipherKey(string)
            } catch let error as PNCryptError {
                throw CLIFailure(.usage, error.message)
            }
        }
    }

    /// The keys as a ring, for reading.
    func ring() throws -> KeyRing {
        try KeyRing(keys: try resolveAll())
    }
}

// MARK: - Schemes

/// A scheme name on the command line: the values are `Scheme`'s own.
extension Scheme: ExpressibleByArgument {
    /// Whether data in the scheme has a file format (`--binary`): every scheme but legacy33, whose messages
    /// exist only as text. The one place that says so.
    var hasFileFormat: Bool { self != .legacy33 }

    /// Whether data in the scheme starts with a `PNED` header.
    var hasHeader: Bool { self == .acrh }

    /// Refuses a scheme that has no file format, for the commands that read or write files.
    static func requireFileFormat(_ scheme: Scheme?) throws {
        if let scheme, !scheme.hasFileFormat {
            let formats = allCases.filter(\.hasFileFormat).map(\.rawValue).joined(separator: ", ")
            throw ValidationError("\(scheme) has no file format (files are \(formats)); use --scheme acrh")
        }
    }
}

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

    var description: String { scheme?.rawValue ?? "auto" }

    /// The scheme, nil for `auto`.
    var scheme: Scheme? {
        if case .only(let scheme) = self { return scheme }
        return nil
    }
}

/// `--legacy-scheme`: how `auto` reads data without a `PNED` header, as a client's legacy cryptor is set.
struct LegacyScheme: ExpressibleByArgument, CustomStringConvertible {
    let scheme: Scheme

    /// The schemes a module's legacy cryptor can have: those with a file format and no header.
    static let choices = Scheme.allCases.filter { $0.hasFileFormat && !$0.hasHeader }

    init?(argument: String) {
        guard let scheme = Scheme(argument: argument), Self.choices.contains(scheme) else { return nil }
        self.scheme = scheme
    }

    static var allValueStrings: [String] { choices.map(\.rawValue) }

    var description: String { scheme.rawValue }
}

/// `--scheme` and `--legacy-scheme` of the commands that decrypt.
struct ReadSchemeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("""
        auto reads a PNED header when there is one, else data without one as --legacy-scheme says; another \
        value reads only that scheme.
        """, valueName: "scheme"))
    var scheme: ReadScheme = .auto

    @Option(name: .customLong("legacy-scheme"), help: ArgumentHelp("""
        With auto: read data without a PNED header as legacy (fixed IV) or legacy-random-iv, as the sending \
        clients are set. Without it both are tried, and the data is taken only when exactly one reading qualifies.
        """, valueName: "scheme"))
    var legacyScheme: LegacyScheme?

    /// The scheme to read, nil for `auto`.
    var explicit: Scheme? { scheme.scheme }

    /// How `auto` reads headerless data, nil for both readings.
    var legacy: Scheme? { legacyScheme?.scheme }

    func validate() throws {
        if legacyScheme != nil && scheme != .auto {
            throw ValidationError("--legacy-scheme goes with --scheme auto (it says how headerless data is read)")
        }
    }
}

/// `--scheme` and `--iv` of the commands that encrypt.
struct WriteSchemeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The scheme to write (acrh is recommended for new data).", valueName: "scheme"))
    var scheme: Scheme = .acrh

    @Option(help: ArgumentHelp("A fixed IV as 32 hex digits, for reproducible test vectors. Never for real data.",
                               valueName: "hex"), transform: Self.parseIV)
    var iv: [UInt8]?

    /// 32 hex digits as 16 bytes.
    static func parseIV(_ text: String) throws -> [UInt8] {
        let digits = Array(text.utf8)
        let values = digits.compactMap { byte -> UInt8? in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        guard digits.count == 32, values.count == 32 else {
            throw ValidationError("--iv must be 32 hex digits (16 bytes)")
        }
        return (0..<16).map { values[2 * $0] << 4 | values[2 * $0 + 1] }
    }
}

// MARK: - Limits

/// `--max-size SIZE|none`, the decompression-bomb guard of `gunzip` and `decrypt --binary --gunzip`: a byte count
/// with an optional binary suffix K, M or G (`10M` is 10 * 2^20 bytes), or `none` for no limit.
struct LimitOptions: ParsableArguments {
    @Option(name: .customLong("max-size"), help: ArgumentHelp("""
        Refuse decompressed output larger than SIZE bytes (decompression-bomb guard): a number with an optional \
        K, M or G suffix (binary: 10M = 10485760 bytes), or none for no limit. Default: 1G (1 GiB).
        """, valueName: "size"), transform: Self.parse)
    var maxSize: DecompressionLimit?

    /// The limit in force: `--max-size`, else 1 GiB (`Gzip.defaultStreamOutputLimit`).
    var limit: DecompressionLimit { maxSize ?? .bytes(Gzip.defaultStreamOutputLimit) }

    /// Parses SIZE or `none`: the one way `--max-size` is read.
    static func parse(_ text: String) throws -> DecompressionLimit {
        if text.lowercased() == "none" { return .unlimited }
        var digits = Substring(text)
        var shift = 0
        switch digits.last {
        case "K", "k": shift = 10
        case "M", "m": shift = 20
        case "G", "g": shift = 30
        default: break
        }
        if shift > 0 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(digits),
              count <= Int.max >> shift else {
            throw ValidationError("expected a number of bytes with an optional K, M or G suffix "
                                  + "(10M = 10485760 bytes), or none")
        }
        return .bytes(count << shift)
    }
}

// MARK: - Input and output

/// Input: a TEXT argument, else `-i PATH`, else standard input.
struct InputOptions: ParsableArguments {
    @Argument(help: "The input text. Without it, -i PATH, else standard input.")
    var text: String?

    @Option(name: [.customShort("i"), .customLong("input")], help: ArgumentHelp("Read input from a file.",
                                                                                   valueName: "path"))
    var input: String?

    func validate() throws {
        if text != nil && input != nil { throw ValidationError("give either TEXT or -i PATH, not both") }
    }

    /// The whole input in memory.
    func readAll() throws -> [UInt8] {
        if let text { return Array(text.utf8) }
        return try withDescriptor { try POSIXIO.readToEnd($0, describe) }
    }

    /// What the input is called in messages.
    var describe: String { input.map { "'\($0)'" } ?? "standard input" }

    /// Runs `body` with a descriptor reading the input file or standard input (not for TEXT).
    func withDescriptor<R>(_ body: (Int32) throws -> R) throws -> R {
        guard let input else { return try body(STDIN_FILENO) }
        let fd = try Self.open(input)
        defer { close(fd) }
        return try body(fd)
    }

    /// Opens an input file for reading.
    static func open(_ path: String) throws -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw CLIFailure(.noInput, "input file '\(path)' does not exist") }
            throw CLIFailure(.ioError, "cannot open input file '\(path)': \(POSIXIO.lastError())")
        }
        return fd
    }
}

/// Output: `-o PATH`, else standard output.
struct OutputOptions: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
        "Write output to a file. It is written to a new temporary file beside it (mode 0600, removed on failure, "
        + "Ctrl-C, SIGTERM or SIGHUP) and renamed into place only on success; an existing file keeps its "
        + "permissions (and owner where allowed), a new one gets the umask default. A symbolic link is followed: "
        + "its target is replaced, the link kept. A device or FIFO (/dev/null, /dev/stdout, a named pipe) is "
        + "written directly, never replaced; decrypt and gunzip hold output for it until verified, as for "
        + "standard output.",
        valueName: "path"))
    var output: String?

    @Flag(name: .customLong("sync"), help: ArgumentHelp(
        "With -o: flush the output to disk (fsync the file, then its directory after the rename) before exiting, "
        + "so it survives a power loss. Without it the output is still all-or-nothing if the process dies, as "
        + "with gzip and openssl, but the kernel writes it back later."))
    var sync = false
}
