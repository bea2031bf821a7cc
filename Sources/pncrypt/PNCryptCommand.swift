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
        version: PNCryptVersion.string,
        subcommands: [Encrypt.self, Decrypt.self, Inspect.self, Diagnose.self, MessageCommand.self, HistoryCommand.self,
                      GzipCommand.self, GunzipCommand.self, VectorsCommand.self]
    )

    /// Runs the command line. Errors print one line, `pncrypt: <what was wrong>`, and exit with the documented
    /// status (64 for bad usage); help and version print as usual.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let status = exitCode(for: error)
            if status == .success {
                print(fullMessage(for: error))
            } else {
                let message = self.message(for: error)
                if !message.isEmpty { FileHandle.standardError.write(Data("pncrypt: \(message)\n".utf8)) }
            }
            Foundation.exit(status.rawValue)
        }
    }
}
