import ArgumentParser
import Foundation
import PNCrypt

@main
struct PNCryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pncrypt",
        abstract: "Encrypt, decrypt and inspect PubNub cipherKey messages and files.",
        discussion: """
        Schemes: legacy (fixed IV), legacy-random-iv, acrh (CryptoModule header; recommended for new data), \
        legacy33 (iOS 3.3). Text mode reads and writes Base64; --binary streams the file formats.

        Exit status: 0 success; 1 the data could not be encrypted or decrypted; 64 bad usage; \
        65 input JSON that does not parse; 66 input file missing; 73 output file cannot be created; \
        74 other I/O error.

        Examples:
          pncrypt decrypt --key enigma q/xJqqN6qbiZMXYmiQC1Fw==
          pncrypt encrypt --key enigma --scheme legacy 'yay!'
          PNCRYPT_KEY=enigma pncrypt encrypt --binary -i photo.jpg -o photo.jpg.enc
          pncrypt inspect UE5FRAFBQ1JIEAAAAAAAAAAAAAAAAAAAAABbjKTFb0xLzByXntZkq2G7lHIGg5ZdQd73GwVG6o3ftw==
        """,
        version: "0.1.0",
        subcommands: [Encrypt.self, Decrypt.self, Inspect.self, Diagnose.self, MessageCommand.self,
                      HistoryCommand.self, GzipCommand.self, GunzipCommand.self, VectorsCommand.self]
    )

    /// Runs the command line. The one error path: every failure prints one line, `pncrypt: <what was wrong>`, and
    /// exits with its named status (`ExitCode.usage` for bad usage); help and version print as usual.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: report(error))
        }
    }

    /// Prints the line for `error` on standard error (help and version go to standard output, as ArgumentParser
    /// prints them) and returns the status to exit with.
    static func report(_ error: Error) -> Error {
        let failure: CLIFailure
        switch error {
        case let error as CLIFailure: failure = error
        case let error as PNCryptError: failure = CLIFailure(error)
        case is ExitCode, is CleanExit: return error
        default:
            let code = exitCode(for: error)
            if code == .success { return error }
            failure = CLIFailure(code, message(for: error))
        }
        if !failure.message.isEmpty {
            FileHandle.standardError.write(Data("pncrypt: \(failure.message)\n".utf8))
        }
        return failure.code
    }
}
