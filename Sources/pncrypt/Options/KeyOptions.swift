import ArgumentParser
import PNCrypt
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

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
        KeyShapeHints.record(zip(keys, given).map { key, given in given.hintKey(key) })
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
        for path in try RawArguments.paths(keyFile, long: "--key-file") {
            if path == "-" && input.isStandardInput {
                throw CLIFailure(.usage, "--key-file - reads the key from standard input: give the data as TEXT, "
                                 + "a file or -i PATH")
            }
            keys.append(GivenKey(bytes: try Self.read(keyFile: path), source: "key file '\(path.shown)'",
                                 fromFile: true))
        }
        if keys.isEmpty, let environment = RawArguments.environment("PNCRYPT_KEY") {
            keys = [GivenKey(bytes: environment, source: "PNCRYPT_KEY")]
        }
        return keys.isEmpty ? nil : keys
    }

    /// The key in a file, read to its end (a pipe or a FIFO too), without one trailing newline (LF or CRLF), as
    /// bytes: `GivenKey.cipherKey` refuses them when they are not UTF-8.
    static func read(keyFile path: FilePath) throws -> [UInt8] {
        let fd: FileDescriptor
        do {
            fd = path == "-" ? try FileDescriptor.standardInput.duplicate()
                : try FileDescriptor.open(path, .readOnly, options: .closeOnExec, retryOnInterrupt: true)
        } catch let error as Errno {
            throw failure(path, error)
        }
        defer { try? fd.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { wipe(&chunk) }
        while bytes.count <= maximumKeyFileLength {
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            } catch let error as Errno {
                throw failure(path, error)
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        guard bytes.count <= maximumKeyFileLength else {
            throw CLIFailure(.usage, "key file '\(path.shown)' is longer than \(maximumKeyFileLength) bytes: not a key")
        }
        if bytes.last == 0x0A {
            bytes.removeLast()
            if bytes.last == 0x0D { bytes.removeLast() }
        }
        return bytes
    }

    /// A key file that cannot be opened or read: missing or unreadable is a missing input (66), the rest I/O (74).
    private static func failure(_ path: FilePath, _ error: Errno = Errno(rawValue: errno)) -> CLIFailure {
        let missing: [Errno] = [.noSuchFileOrDirectory, .permissionDenied, .notDirectory, .isDirectory,
                                .tooManySymbolicLinkLevels]
        return CLIFailure(missing.contains(error) ? .noInput : .ioError,
                          "cannot read key file '\(path.shown)': \(error)")
    }
}
