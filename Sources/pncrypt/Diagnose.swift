import ArgumentParser
import PNCrypt

struct Diagnose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Explain why a message will or will not decrypt.",
        discussion: """
        Tries every scheme with every key (in the order given), checks padding, UTF-8 and JSON, and says in plain \
        words which key and scheme read the data and which clients would show DECRYPTION_ERROR, or why nothing \
        can read it. When more than one combination gives valid plaintext, it says so and shows each. \
        Exits 0 when it could diagnose the input, whatever the finding.

        Examples:
          pncrypt diagnose --key new --key old MTIzNDU2Nzg5MDEyMzQ1NjdnONoCgo0wbuMGGMmfMX0=
          pncrypt diagnose --key enigma --json -i message.txt
        """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: InputOptions

    @Flag(help: "Print the findings as one JSON object.")
    var json = false

    func run() throws {
        let diagnosis = Diagnosis(text: try input.readAll(), keys: try keys.resolveAll())
        if json {
            print(diagnosis.json.serializedString())
        } else {
            print(diagnosis.findings.joined(separator: "\n"))
        }
    }
}
