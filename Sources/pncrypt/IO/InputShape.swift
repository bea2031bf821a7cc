import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

// Input detection (issue 47, item 2; issue 55, item 1): a file the SDKs' `encrypt_file` wrote (`PNED...` or raw
// ciphertext) given to `decrypt`, `inspect` or `diagnose` with `-i` is recognized by its first bytes, as `age` tells
// armor from binary. Detection decides only how the input is *encoded* (raw bytes or Base64 text), never what the
// plaintext must be: without `--binary` it is text (valid UTF-8, one reading), whatever the encoding, so whoever
// supplies the file cannot move a caller who asked for text into bytes mode (a padding oracle, and garbage on
// success). A binary plaintext is refused with the one decryption failure and a hint naming `--binary`. A positional
// argument that names a file and is not Base64 is refused with the option that reads it.

/// What an input's first bytes say it is: Base64 text, or a binary file.
enum InputShape {
    /// How many bytes of the start are looked at. Random ciphertext has a byte that cannot be text among its first
    /// 16 but for about one file in 2^30; Base64 text with a stray byte beyond this is read as text and its error
    /// names the offset.
    static let sniffLength = 1 << 16

    /// Why `prefix` is a binary file and cannot be Base64 text, nil when it can be text: a byte that text mode never
    /// accepts (outside the Base64 alphabet and `=`, ASCII white space and the JSON quote text mode accepts around
    /// Base64), named as a `PNED` header when the input starts with one. `PNED` alone is no reason: it is Base64
    /// text too (a ciphertext starting with the bytes 3C D1 03), and a real header's version byte is never text.
    static func binaryReason(_ prefix: some Collection<UInt8>) -> String? {
        guard let index = prefix.firstIndex(where: { !canBeText($0) }) else { return nil }
        if prefix.starts(with: CryptorHeader.sentinel) { return "it starts with a PNED header" }
        let offset = prefix.distance(from: prefix.startIndex, to: index)
        return "byte \(hex(prefix[index])) at offset \(offset) cannot be Base64 text"
    }

    /// A byte Base64 text may hold: an alphabet character or `=` (`Base64.isCharacter`), ASCII white space, `"`.
    static func canBeText(_ byte: UInt8) -> Bool {
        Base64.isCharacter(byte) || byte == UInt8(ascii: "\"") || byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" : "") + digits
    }
}

extension Input {
    /// Why this input is raw ciphertext rather than Base64 text, nil when it is not: only a regular file named with
    /// `-i PATH` is looked at (its first `InputShape.sniffLength` bytes, read by offset: nothing is consumed); TEXT,
    /// standard input, a pipe or a device are Base64 text (`--binary` reads them as files). The answer decides the
    /// input's encoding only: without `--binary`, raw ciphertext is still decrypted as text.
    func rawCiphertextReason() throws -> String? {
        guard text == nil, let path = filePath else { return nil }
        let fd = try Self.open(path)
        defer { try? fd.close() }
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let prefix: [UInt8]
        do throws(FileError) {
            prefix = try InputFiles.read(fd, at: 0, count: InputShape.sniffLength, length: Int(info.st_size), describe)
        } catch {
            throw CLIFailure(error)
        }
        return InputShape.binaryReason(prefix)
    }

    /// The hint after the one decryption failure of raw ciphertext read as text (`reason`: why it is raw). The same
    /// words for every such failure, whichever check failed: it says what the input's encoding is and what the
    /// caller can change, nothing about the key or the plaintext.
    func rawAsTextHint(_ reason: String) -> String {
        "\(describe) is raw ciphertext (\(reason)), decrypted as text as every input is without --binary: a binary "
            + "plaintext (a file an SDK's encrypt_file wrote) needs --binary"
    }

    /// The hint for Base64 text whose ciphertext is longer than any message (`FailureHint.messageLimit`), where a
    /// binary plaintext is plausible: the same words for every such failure.
    var longTextHint: String {
        "\(describe) holds a ciphertext longer than any message (over \(FailureHint.messageLimit / 1024) KiB), "
            + "decrypted as text as every input is without --binary: a binary plaintext (a file an SDK's "
            + "encrypt_file wrote) needs --binary"
    }
}

/// A positional TEXT argument that names an existing regular file and is not text the command reads
/// (`pncrypt decrypt photo.enc`, `pncrypt message decrypt export.ndjson`: a forgotten `-i`): refused with the option
/// that reads the file (exit 64). The one rule of every command that takes TEXT: `decrypt`, `inspect` and `diagnose`
/// read Base64 (`binaryHint`: the file may also be a binary one, `--binary`); the message, history and subscribe
/// commands read JSON or bare Base64 (`orJSON`). `encrypt` takes any text as its plaintext, so it keeps TEXT.
func refuseFileNameAsText(_ argument: String?, orJSON: Bool = false, binaryHint: Bool = true) throws {
    guard let argument, let file = regularFile(named: argument) else { return }
    guard (try? Base64.decode(argument)) == nil else { return }
    if orJSON, (try? JSONValue(parsing: Array(argument.utf8))) != nil { return }
    throw CLIFailure(.usage, "'\(file.shown)' is a file: give it with -i \(file.shown)"
                     + (binaryHint ? " (or --binary for a binary file)" : ""))
}

/// The path a positional TEXT `argument` is, by the bytes the command line gave (`RawArguments`), when it names an
/// existing regular file; nil otherwise (`-`, empty, no such file, or bytes the command line cannot tell).
func regularFile(named argument: String) -> FilePath? {
    guard !argument.isEmpty, argument != "-", let path = try? RawArguments.positionalPaths([argument])[0] else {
        return nil
    }
    var info = stat()
    guard path.withPlatformString({ stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return path
}
