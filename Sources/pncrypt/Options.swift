import ArgumentParser
import Foundation
import PNCrypt

/// Where the cipher key comes from: `--key`, `--key-file`, or `PNCRYPT_KEY`.
struct KeyOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The cipher key. Visible to other users of this machine: prefer --key-file or PNCRYPT_KEY.",
        valueName: "key"))
    var key: [String] = []

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "Read the cipher key from a file (one trailing newline is ignored); may repeat, as --key.", valueName: "path"))
    var keyFile: [String] = []

    /// The one cipher key, from the first source given.
    func resolve() throws -> CipherKey {
        let keys = try resolveAll()
        guard keys.count == 1 else { throw ValidationError("give exactly one --key here") }
        return keys[0]
    }

    /// The one cipher key, or nil when no source gives one (for commands where a key is optional).
    func resolveIfGiven() throws -> CipherKey? {
        let environment = ProcessInfo.processInfo.environment["PNCRYPT_KEY"]
        guard !key.isEmpty || !keyFile.isEmpty || environment != nil else { return nil }
        return try resolve()
    }

    /// Every key given, in order (`--key` may repeat).
    func resolveAll() throws -> [CipherKey] {
        var strings = key
        for keyFile in keyFile {
            guard let data = FileManager.default.contents(atPath: keyFile) else {
                throw CLIFailure(FileManager.default.fileExists(atPath: keyFile) ? 74 : 66,
                                 "cannot read key file '\(keyFile)'")
            }
            // Decoded strictly: a lossy decoding would give different key files the same key.
            guard var text = String(validating: data, as: UTF8.self) else {
                throw CLIFailure(64, "key file '\(keyFile)' is not valid UTF-8")
            }
            if text.hasSuffix("\r\n") { text.removeLast(1) } else if text.hasSuffix("\n") { text.removeLast() }
            strings.append(text)
        }
        if strings.isEmpty, let env = ProcessInfo.processInfo.environment["PNCRYPT_KEY"] { strings = [env] }
        guard !strings.isEmpty else {
            throw ValidationError("no cipher key: give --key, --key-file, or set PNCRYPT_KEY")
        }
        return try strings.map { string in
            do { return try CipherKey(string) } catch let error as PNCryptError { throw ValidationError(error.message) }
        }
    }
}

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
        return try withHandle { handle in
            do { return Array(try handle.readToEnd() ?? Data()) } catch {
                throw CLIFailure(74, "cannot read \(input.map { "'\($0)'" } ?? "standard input"): \(error)")
            }
        }
    }

    /// Runs `body` with a handle on the input file or standard input (not for TEXT).
    func withHandle<R>(_ body: (FileHandle) throws -> R) throws -> R {
        guard let input else { return try body(FileHandle.standardInput) }
        guard FileManager.default.fileExists(atPath: input) else {
            throw CLIFailure(66, "input file '\(input)' does not exist")
        }
        guard let handle = FileHandle(forReadingAtPath: input) else {
            throw CLIFailure(74, "cannot open input file '\(input)'")
        }
        defer { try? handle.close() }
        return try body(handle)
    }
}

/// `--max-size SIZE|none`, the decompression-bomb guard of `gunzip` and `decrypt --binary --gunzip`: a byte count
/// with an optional binary suffix K, M or G (`10M` is 10 * 2^20 bytes), or `none` for no limit.
struct MaxSize: ExpressibleByArgument {
    /// The limit it sets.
    var limit: DecompressionLimit

    /// The default: 1 GiB (`Gzip.defaultStreamOutputLimit`).
    static let standard = MaxSize(limit: .bytes(Gzip.defaultStreamOutputLimit))

    /// The help text of the option, naming the default, after `lead` ("Refuse").
    static func help(_ lead: String) -> String {
        lead + " output larger than SIZE bytes (decompression-bomb guard): a number with an optional K, M or G "
            + "suffix (binary: 10M = 10485760 bytes), or none for no limit. Default: 1G (1 GiB)."
    }

    init(limit: DecompressionLimit) {
        self.limit = limit
    }

    init?(argument: String) {
        guard let parsed = try? Self.parse(argument) else { return nil }
        self = parsed
    }

    /// Parses SIZE or `none`; throws a one-line `ValidationError` saying what is accepted.
    static func parse(_ text: String) throws -> MaxSize {
        if text.lowercased() == "none" { return MaxSize(limit: .unlimited) }
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
        return MaxSize(limit: .bytes(count << shift))
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

/// A deliberate failure of the CLI: an exit status and one line for standard error.
struct CLIFailure: Error {
    var status: Int32
    var message: String
    init(_ status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }
}

enum CLI {
    /// Runs a command body, turning failures into one line on standard error and the documented exit status.
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as PNCryptError {
            fail(status(for: error), message(for: error))
        } catch let failure as CLIFailure {
            fail(failure.status, failure.message)
        }
    }

    /// The one-line message of a library error: its SDK category first (as PubNub's contract scenarios name the
    /// outcomes), then what was wrong, and for an ambiguous reading the flags that decide.
    static func message(for error: PNCryptError) -> String {
        let prefix = switch error.category {
        case .encryption: "encryption error: "
        case .decryption: "decryption error: "
        case .unknownCryptor: "unknown cryptor: "
        default: ""
        }
        let hint = error.code == .ambiguous ? " (choose with --scheme, --legacy-scheme or one --key)" : ""
        return prefix + error.message + hint
    }

    /// One line on standard error that is not a failure: `pncrypt: note: ...`.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data("pncrypt: note: \(text)\n".utf8))
    }

    static func status(for error: PNCryptError) -> Int32 {
        switch error.category {
        case .encryption, .decryption, .unknownCryptor, .compression: 1
        case .json: 65
        case .invalidArgument: 64
        case .io: error.code == .fileNotFound ? 66 : 74
        }
    }

    static func fail(_ status: Int32, _ message: String) -> Never {
        FileHandle.standardError.write(Data("pncrypt: \(message)\n".utf8))
        Foundation.exit(status)
    }

    static func parseIV(_ hex: String?) throws -> [UInt8]? {
        guard let hex else { return nil }
        guard let bytes = Hex.decode(hex), bytes.count == 16 else {
            throw ValidationError("--iv must be 32 hex digits (16 bytes)")
        }
        return bytes
    }
}
