import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

@main
struct PNCryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pncrypt",
        abstract: "Encrypt, decrypt and inspect PubNub cipherKey messages and files.",
        discussion: """
        Schemes: legacy (fixed IV), legacy-random-iv, acrh (CryptoModule header; recommended for new data), \
        legacy33 (iOS 3.3). Text mode reads and writes Base64; --binary streams the file formats, and its \
        argument is a file path. The key comes from -k/--key, --key-file, PNCRYPT_KEY, or else the terminal.

        Exit status:
          0     success: every message given was decrypted (diagnose: a reading
                works)
          1     data not encrypted, decrypted or decompressed: wrong key, corrupt,
                not Base64, empty, unknown cryptor, over --max-size, ambiguous;
                a message not decrypted by message decrypt, history decrypt,
                subscribe decrypt, --lines or rekey (output still written
                unless --on-error fail;
                --allow-failures exits 0); diagnose found no reading; a vector
                failed
          64    bad usage: unknown or conflicting options, no key, a key that is
                not UTF-8, binary output to a terminal without -f, -o naming the
                input
          65    input JSON that does not parse, a response of none of the shapes
                (message, history, subscribe), or a record without its --field
          66    an input file or key file that does not exist or is unreadable
          73    the output file cannot be created (missing folder, a directory)
          74    another I/O error (a failed read or write, a full disk)
          128+N ended by signal N (SIGINT 130, SIGTERM 143): -o left unchanged

        Shell completion: pncrypt --generate-completion-script bash|zsh|fish

        Examples:
          pncrypt decrypt --key enigma q/xJqqN6qbiZMXYmiQC1Fw==
          pncrypt encrypt --key enigma --scheme legacy 'yay!'
          PNCRYPT_KEY=enigma pncrypt encrypt --binary photo.jpg -o photo.jpg.enc
          pncrypt inspect --binary photo.jpg.enc
        """,
        version: PNCryptVersion.string,
        subcommands: [EncryptCommand.self, DecryptCommand.self, InspectCommand.self, DiagnoseCommand.self,
                      MessageCommand.self, HistoryCommand.self, SubscribeCommand.self, GzipCommand.self,
                      GunzipCommand.self, VectorsCommand.self, ConformanceCommand.self]
    )

    /// Runs the command line. The one error path: every failure prints one line, `pncrypt: <what was wrong>`, and
    /// exits with its named status (`ExitCode.usage` for bad usage); help and version print as usual.
    static func main() {
        SignalCleanup.installAll()
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
        // ArgumentParser's messages may have lines of usage after the error.
        var layout = false
        switch error {
        case let error as CLIFailure: failure = error
        case let error as PNCryptError: failure = CLIFailure(error)
        case let error as FileError: failure = CLIFailure(error)
        case is ExitCode, is CleanExit: return error
        default:
            let code = exitCode(for: error)
            if code == .success { return error }
            let unknown = unknownCommand()
            layout = unknown == nil
            failure = CLIFailure(code, unknown ?? message(for: error))
        }
        if !failure.message.isEmpty {
            CLI.printError(failure.message, layout: layout)
        }
        if let hint = failure.hint {
            CLI.printError("hint: " + hint)
        }
        if failure.decryption, let hint = KeyShapeHints.line {
            CLI.printError(hint)
        }
        return failure.code
    }

    /// For a command line whose subcommand does not exist (`pncrypt decrpyt`), the nearest one.
    static func unknownCommand(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> String? {
        var command: ParsableCommand.Type = Self.self
        var path = ["pncrypt"]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return nil }
            if let next = subcommands.first(where: { $0._commandName == argument }) {
                command = next
                path.append(argument)
                continue
            }
            let names = subcommands.map { $0._commandName }
            let nearest = names.min { editDistance($0, argument) < editDistance($1, argument) }
            var message = "unknown command '\(argument)' for '\(path.joined(separator: " "))'"
            if let nearest, editDistance(nearest, argument) <= max(2, argument.count / 3) {
                message += "; did you mean '\(nearest)'?"
            } else {
                message += "; the commands are \(names.joined(separator: ", "))"
            }
            return message
        }
        return nil
    }

    /// The Levenshtein distance between two words.
    static func editDistance(_ first: String, _ second: String) -> Int {
        let a = Array(first)
        let b = Array(second)
        var row = Array(0...b.count)
        for i in a.indices {
            var diagonal = row[0]
            row[0] = i + 1
            for j in b.indices {
                let above = row[j + 1]
                row[j + 1] = Swift.min(above + 1, row[j] + 1, diagonal + (a[i] == b[j] ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
    }
}
