import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

// The option groups every command shares, so that one flag name has one meaning everywhere.

/// Where the cipher keys come from: `-k/--key` and `--key-file` (both repeatable, in that order), else
/// `PNCRYPT_KEY`, else a prompt on the terminal.
struct KeyOptions: ParsableArguments {
    @Option(name: [.customShort("k"), .customLong("key")], help: ArgumentHelp(
        "A cipher key (repeatable). Visible to other users of this machine: prefer --key-file or PNCRYPT_KEY.",
        valueName: "key"))
    var key: [String] = []

    @Option(name: .customLong("key-file"), help: ArgumentHelp("""
        Read a cipher key from a file (repeatable; one line end at the end, LF or CRLF, is ignored): any \
        readable file, - for standard input (when the data is TEXT or a file), /dev/stdin, a named pipe or \
        <(command).
        """, valueName: "path"), completion: .file())
    var keyFile: [String] = []

    /// The longest key file read, in bytes: a key file is a line, not a data file given by mistake.
    static let maximumKeyFileLength = 65536

    /// Every key given, in order: each `--key`, each `--key-file`, else `PNCRYPT_KEY`, else the key typed at a
    /// prompt on the terminal (twice with `confirm`). `input` is the command's data: `--key-file -` cannot read
    /// standard input when the data comes from there too. A key that is not valid UTF-8 is refused (exit 64),
    /// whatever its source; the keys' shape hints are kept for a decryption failure.
    func resolveAll(input: Input, confirm: Bool = false) throws -> [CipherKey] {
        var given = try given(input: input)
        if given == nil, let typed = try KeyPrompt.read(confirm: confirm) {
            given = [GivenKey(bytes: typed, source: "the key typed")]
        }
        guard var given else {
            throw CLIFailure(.usage, "no key: give --key, --key-file or PNCRYPT_KEY")
        }
        defer { for index in given.indices { given[index].wipe() } }
        let keys = try given.map { try $0.cipherKey() }
        if let (first, again) = KeyRing.firstDuplicate(keys) {
            throw CLIFailure(.usage, "\(given[again].source) is the same key as \(given[first].source): give each"
                             + " key once (a key given twice makes every reading ambiguous)")
        }
        KeyShapeHints.record(Array(zip(keys, given.map(\.source))))
        return keys
    }

    /// The one cipher key.
    func resolve(input: Input, confirm: Bool = false) throws -> CipherKey {
        let keys = try resolveAll(input: input, confirm: confirm)
        guard keys.count == 1 else { throw CLIFailure(.usage, "give exactly one key here") }
        return keys[0]
    }

    /// The one cipher key, or nil when none is given (for commands where a key is optional: no prompt).
    func resolveIfGiven(input: Input) throws -> CipherKey? {
        try given(input: input) == nil ? nil : try resolve(input: input)
    }

    /// The keys as a ring, for reading.
    func ring(input: Input) throws -> KeyRing {
        try KeyRing(keys: try resolveAll(input: input))
    }

    /// The keys of the options and the environment, as the bytes given; nil when there are none.
    private func given(input: Input) throws -> [GivenKey]? {
        var keys = try RawArguments.values(key, long: "--key", short: "-k").enumerated().map { index, bytes in
            GivenKey(bytes: bytes, source: key.count == 1 ? "--key" : "--key #\(index + 1)")
        }
        for path in keyFile {
            if path == "-" && input.isStandardInput {
                throw CLIFailure(.usage, "--key-file - reads the key from standard input: give the data as TEXT, "
                                 + "a file or -i PATH")
            }
            keys.append(GivenKey(bytes: try Self.read(keyFile: path), source: "key file '\(path)'"))
        }
        if keys.isEmpty, let environment = RawArguments.environment("PNCRYPT_KEY") {
            keys = [GivenKey(bytes: environment, source: "PNCRYPT_KEY")]
        }
        return keys.isEmpty ? nil : keys
    }

    /// The key in a file, read to its end (a pipe or a FIFO too), without one trailing newline (LF or CRLF), as
    /// bytes: `GivenKey.cipherKey` refuses them when they are not UTF-8.
    static func read(keyFile path: String) throws -> [UInt8] {
        let fd = path == "-" ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { wipe(&chunk) }
        while bytes.count <= maximumKeyFileLength {
            guard let n = try? chunk.withUnsafeMutableBytes({ buffer throws(SystemError) in
                try SystemIO.read(fd, into: buffer)
            }) else { throw failure(path) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        guard bytes.count <= maximumKeyFileLength else {
            throw CLIFailure(.usage, "key file '\(path)' is longer than \(maximumKeyFileLength) bytes: not a key")
        }
        if bytes.last == 0x0A {
            bytes.removeLast()
            if bytes.last == 0x0D { bytes.removeLast() }
        }
        return bytes
    }

    /// A key file that cannot be opened or read: missing or unreadable is a missing input (66), the rest I/O (74).
    private static func failure(_ path: String) -> CLIFailure {
        let code: ExitCode = [ENOENT, EACCES, ENOTDIR, EISDIR, ELOOP].contains(errno) ? .noInput : .ioError
        return CLIFailure(code, "cannot read key file '\(path)': \(POSIXIO.lastError())")
    }
}

// MARK: - Schemes

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

/// `--scheme` and `--legacy-scheme` of the commands that decrypt.
struct ReadSchemeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("""
        auto reads a PNED header when there is one, else data without one as --legacy-scheme says; another \
        value reads only that scheme.
        """, valueName: "scheme"))
    var scheme: ReadScheme = .auto

    @Option(name: .customLong("legacy-scheme"), help: ArgumentHelp("""
        With auto: read data without a PNED header as legacy (fixed IV) or legacy-random-iv, as the sending \
        clients are set. Without it both are tried, and the headerless rule tells them apart by the fixed-IV \
        reading's first 16 bytes (text: legacy; a decrypted IV: legacy-random-iv; see docs/formats.md).
        """, valueName: "scheme"))
    var legacyScheme: LegacyScheme?

    /// The scheme to read, nil for `auto`.
    var explicit: Scheme? { scheme.scheme }

    /// How `auto` reads headerless data (`--legacy-scheme`), nil for both readings.
    var headerless: Scheme? { legacyScheme?.scheme }

    /// The library's one value for the two options (`ReadPolicy`), by the mapping the C library uses too.
    var policy: ReadPolicy { ReadPolicy(scheme: explicit, legacyScheme: headerless) }

    func validate() throws {
        if legacyScheme != nil && scheme != .auto {
            throw ValidationError("--legacy-scheme goes with --scheme auto (it says how headerless data is read)")
        }
    }
}

/// `--scheme` and `--iv` of the commands that encrypt.
struct WriteSchemeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The scheme to write (acrh is recommended for new data).", valueName: "scheme"))
    var scheme: Scheme = .defaultForWriting

    @Option(help: ArgumentHelp("A fixed IV as 32 hex digits, for reproducible test vectors. Never for real data.",
                               valueName: "hex"), transform: Self.parseIV)
    var iv: [UInt8]?

    /// 32 hex digits as 16 bytes.
    static func parseIV(_ text: String) throws -> [UInt8] {
        guard let iv = Hex.decode(text), iv.count == Scheme.ivSize else {
            throw ValidationError("--iv must be \(2 * Scheme.ivSize) hex digits (\(Scheme.ivSize) bytes)")
        }
        return iv
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

    /// The limit in force: `--max-size`, else 1 GiB (`Decompressor.defaultStreamOutputLimit`).
    var limit: DecompressionLimit { maxSize ?? .bytes(Decompressor.defaultStreamOutputLimit) }

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

/// `--max-input SIZE|none`: the most input a command that holds its input whole reads (one message, one history
/// response, one diagnosis). Such input is parsed into JSON values, which take up to about 40 times its size (an
/// array of small numbers, measured), so the default keeps a run near 100 MiB whatever the input; `--lines` reads
/// input of any size instead, line by line.
struct MaxInputOption: ParsableArguments {
    /// The default limit: 2 MiB (a PubNub message is at most 32 KiB).
    static let defaultLimit = 2 << 20

    @Option(name: .customLong("max-input"), help: ArgumentHelp("""
        Refuse input larger than SIZE bytes: it is held in memory whole (parsed as JSON, up to about 40 times its \
        size). A number with an optional K, M or G suffix (binary: 2M = 2097152 bytes), or none for no limit. \
        Default: 2M.
        """, valueName: "size"), transform: LimitOptions.parse)
    var maxInput: DecompressionLimit?

    /// Refuses `--max-input` with `--lines`, which reads input of any size, line by line.
    func check(_ lines: LineOptions) throws {
        if maxInput != nil && lines.lines {
            throw ValidationError("--max-input is for input held whole; --lines reads lines of at most 4 MiB each")
        }
    }

    /// The limit in force, in bytes.
    var limit: Int {
        switch maxInput ?? .bytes(Self.defaultLimit) {
        case .bytes(let count): count
        case .unlimited: Int.max
        }
    }
}

// MARK: - Input and output

/// Where a command's input comes from, once its arguments are read: TEXT, a file (`-` is standard input), or
/// standard input.
struct Input {
    var text: String?
    var path: String?

    /// The input is standard input.
    var isStandardInput: Bool { text == nil && filePath == nil }

    /// The file named, nil for TEXT and standard input.
    var filePath: String? { path == "-" ? nil : path }

    /// What the input is called in messages.
    var describe: String { filePath.map { "'\($0)'" } ?? "standard input" }

    /// The whole input in memory, at most `limit` bytes (`--max-input`): larger input is refused (exit 64) having
    /// read no more than `limit` bytes of it. A regular file is read as it was when it was opened (a snapshot).
    func readAll(limit: Int) throws -> [UInt8] {
        let refusal = refusal(limit: limit)
        if let text {
            guard text.utf8.count <= limit else { throw CLIFailure(.usage, refusal) }
            return Array(text.utf8)
        }
        return try withDescriptor { fd in
            if let length = FileIO.snapshotLength(fd), length > limit { throw CLIFailure(.usage, refusal) }
            var out: [UInt8] = []
            do throws(PNCryptError) {
                try FileIO.pump(fd, chunkSize: 1 << 16) { (chunk) throws(PNCryptError) in
                    guard chunk.count <= limit - out.count else { throw PNCryptError(.invalidValue, refusal) }
                    out.append(contentsOf: chunk)
                }
            } catch where error.code == .invalidValue {
                throw CLIFailure(.usage, refusal)
            } catch {
                throw CLIFailure(.ioError, "cannot read \(describe): \(error.message)")
            }
            return out
        }
    }

    /// The refusal of input larger than `limit` bytes (`--max-input`).
    func refusal(limit: Int) -> String {
        "\(text == nil ? describe : "the text given") is larger than \(limit.counting("byte")), the "
            + "limit for input held in memory whole (--max-input SIZE raises it; --lines, where a command has it, "
            + "reads any size)"
    }

    /// Runs `body` with a descriptor reading the input file or standard input (not for TEXT).
    func withDescriptor<R>(_ body: (Int32) throws -> R) throws -> R {
        guard let path = filePath else { return try body(STDIN_FILENO) }
        let fd = try Self.open(path)
        defer { close(fd) }
        return try body(fd)
    }

    /// Opens an input file for reading (the files layer's `InputFiles.open`).
    static func open(_ path: String) throws -> Int32 {
        try InputFiles.open(path)
    }
}

/// `-i PATH`, shared by the input groups.
struct InputFileOption: ParsableArguments {
    @Option(name: [.customShort("i"), .customLong("input")], help: ArgumentHelp(
        "Read input from a file (- for standard input).", valueName: "path"), completion: .file())
    var input: String?
}

/// Input of the commands that read text (messages, history, diagnose): a TEXT argument, else `-i PATH`, else
/// standard input.
struct InputOptions: ParsableArguments {
    @Argument(help: "The input text. Without it, -i PATH, else standard input.")
    var text: String?

    @OptionGroup var file: InputFileOption

    /// `-i PATH`.
    var input: String? { file.input }

    func validate() throws {
        if text != nil && input != nil { throw ValidationError("give either TEXT or -i PATH, not both") }
    }

    var resolved: Input { Input(text: text, path: input) }
}

/// Input of `encrypt`, `decrypt` and `inspect`: the positional argument is TEXT, or with `--binary` a file path
/// (as `openssl enc -in` and `gzip FILE`); else `-i PATH`, else standard input.
struct DataInputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("""
        The input: text, or with --binary, a file path (- for standard input). Without it, -i PATH, else \
        standard input.
        """, valueName: "text-or-path"), completion: .file())
    var argument: String?

    @OptionGroup var file: InputFileOption

    func validate() throws {
        if argument != nil && file.input != nil {
            throw ValidationError("give the input once: as an argument or with -i PATH")
        }
    }

    /// The input: with `binary`, the argument is a path.
    func resolved(binary: Bool) -> Input {
        Self.resolve(argument: argument, file: file.input, binary: binary)
    }

    /// The input of a positional `argument` and `-i` `file`: with `binary`, the argument is a path.
    static func resolve(argument: String?, file: String?, binary: Bool) -> Input {
        binary ? Input(text: nil, path: argument ?? file) : Input(text: argument, path: file)
    }
}

/// Input of `decrypt`: as `DataInputOptions`, and several TEXT arguments, decrypted one per line.
struct DecryptInputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("""
        The input: text (several: one plaintext per line), or with --binary, a file path (- for standard input). \
        Without it, -i PATH, else standard input.
        """, valueName: "text-or-path"), completion: .file())
    var arguments: [String] = []

    @OptionGroup var file: InputFileOption

    func validate() throws {
        if !arguments.isEmpty && file.input != nil {
            throw ValidationError("give the input once: as an argument or with -i PATH")
        }
    }

    /// The input of one argument (or none): with `binary`, the argument is a path.
    func resolved(binary: Bool) -> Input {
        DataInputOptions.resolve(argument: arguments.first, file: file.input, binary: binary)
    }
}

/// Input of `gzip` and `gunzip`: a file path (as `gzip -c FILE`), else `-i PATH`, else standard input.
struct FileInputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The input file (- for standard input). Without it, -i PATH, else standard input.",
                                 valueName: "path"), completion: .file())
    var path: String?

    @OptionGroup var file: InputFileOption

    func validate() throws {
        if path != nil && file.input != nil { throw ValidationError("give the input file once: PATH or -i PATH") }
    }

    var resolved: Input { Input(text: nil, path: path ?? file.input) }
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
        valueName: "path"), completion: .file())
    var output: String?

    @Flag(name: .customLong("sync"), help: ArgumentHelp(
        "With -o: flush the output to disk (fsync the file, then its directory after the rename) before exiting, "
        + "so it survives a power loss. Without it the output is still all-or-nothing if the process dies, as "
        + "with gzip and openssl, but the kernel writes it back later."))
    var sync = false

    func validate() throws {
        if sync && output == nil {
            throw ValidationError("--sync goes with -o PATH (it flushes the output file to disk)")
        }
    }
}

/// `-f/--force` of the commands that write binary data: without it, binary data never goes to a terminal (as
/// gzip refuses), where it would garble the screen and could be taken for commands.
struct ForceOption: ParsableArguments {
    @Flag(name: [.customShort("f"), .customLong("force")], help: "Write binary output even to a terminal.")
    var force = false

    static let refusal = "refusing to write binary data to a terminal: redirect it, give -o PATH, or -f to force"

    /// Refuses binary output for standard output when it is a terminal (before any work, in `validate`).
    func check(_ output: OutputOptions) throws {
        if output.output == nil && !force && isatty(STDOUT_FILENO) == 1 { throw ValidationError(Self.refusal) }
    }

    /// Refuses binary output for `fd` when it is a terminal (`-o /dev/tty`).
    func check(descriptor fd: Int32) throws {
        if !force && isatty(fd) == 1 { throw CLIFailure(.usage, Self.refusal) }
    }
}
