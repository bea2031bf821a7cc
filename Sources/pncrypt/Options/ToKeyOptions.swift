import ArgumentParser
import PNCrypt
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

/// The new key of `rekey`: `--to-key`, `--to-key-file`, or `PNCRYPT_TO_KEY`.
struct ToKeyOptions: ParsableArguments {
    @Option(name: .customLong("to-key"), help: ArgumentHelp(
        "The new cipher key. Visible to other users of this machine: prefer --to-key-file or PNCRYPT_TO_KEY.",
        valueName: "key"))
    var toKey: String?

    @Option(name: .customLong("to-key-file"), help: ArgumentHelp(
        "Read the new cipher key from a file (one line end at the end, LF or CRLF, is ignored).",
        valueName: "path"), completion: .file())
    var toKeyFile: String?

    func validate() throws {
        if toKey != nil && toKeyFile != nil { throw ValidationError("give --to-key or --to-key-file, not both") }
    }

    /// The new key, from the first source given (the file read as `--key-file` is), refused when it is not
    /// valid UTF-8.
    func resolve() throws -> CipherKey {
        var given: GivenKey
        if let toKey {
            given = GivenKey(bytes: try RawArguments.values([toKey], long: "--to-key")[0], source: "--to-key")
        } else if let path = try RawArguments.path(toKeyFile, long: "--to-key-file") {
            given = GivenKey(bytes: try KeyOptions.read(keyFile: path), source: "key file '\(path.shown)'")
        } else if let environment = RawArguments.environment("PNCRYPT_TO_KEY") {
            given = GivenKey(bytes: environment, source: "PNCRYPT_TO_KEY")
        } else {
            throw CLIFailure(.usage, "no new key: give --to-key, --to-key-file, or set PNCRYPT_TO_KEY")
        }
        defer { given.wipe() }
        return try given.cipherKey()
    }
}
