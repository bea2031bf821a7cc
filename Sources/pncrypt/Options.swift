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
            fail(status(for: error), error.message)
        } catch let failure as CLIFailure {
            fail(failure.status, failure.message)
        }
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
