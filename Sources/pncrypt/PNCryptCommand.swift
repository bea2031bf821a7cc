import ArgumentParser
import PNCrypt

@main
struct PNCryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pncrypt",
        abstract: "Encrypt, decrypt and inspect PubNub cipherKey messages and files.",
        discussion: """
        Schemes: legacy (fixed IV), legacy-random-iv, acrh (CryptoModule header; recommended for new data),
        legacy33 (iOS 3.3). Text mode reads and writes Base64; --binary streams the file formats.

        Exit status: 0 success; 1 the data could not be encrypted or decrypted; 64 bad usage;
        65 input JSON that does not parse; 66 input file missing; 74 other I/O error.

        Examples:
          pncrypt decrypt --key enigma q/xJqqN6qbiZMXYmiQC1Fw==
          pncrypt encrypt --key enigma --scheme legacy 'yay!'
          PNCRYPT_KEY=enigma pncrypt encrypt --binary -i photo.jpg -o photo.jpg.enc
          pncrypt inspect UE5FRAFBQ1JIEAAAAAAAAAAAAAAAAAAAAABbjKTFb0xLzByXntZkq2G7lHIGg5ZdQd73GwVG6o3ftw==
        """,
        version: "0.1.0",
        subcommands: [Encrypt.self, Decrypt.self, Inspect.self, Diagnose.self, MessageCommand.self, HistoryCommand.self, Bench.self,
                      VectorsCommand.self]
    )
}
