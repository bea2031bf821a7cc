import ArgumentParser
import Foundation
import PNCrypt

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say what ciphertext is, without a key.",
        discussion: """
        Prints the PNED header fields (version, cryptor id, metadata length, IV in hex) and the ciphertext size,
        or "no header: legacy data, N blocks". Exits 1 with the reason when the input cannot be ciphertext
        (not Base64, not whole blocks, header cut short, unknown cryptor).

        Example:
          pncrypt inspect UE5FRAFBQ1JIEAAAAAAAAAAAAAAAAAAAAABbjKTFb0xLzByXntZkq2G7lHIGg5ZdQd73GwVG6o3ftw==
        """)

    @OptionGroup var input: InputOptions

    @Flag(help: "The input is a raw file (legacy random-IV or acrh format), not Base64.")
    var binary = false

    func run() throws {
        try CLI.run {
            let inspection: Inspection
            if binary {
                if let path = input.input {
                    // Only the header is read: files may be far larger than memory.
                    inspection = try input.withHandle { handle in
                        let prefix = try handle.read(upToCount: CryptorHeader.maximumFixedLength + 0xFFFF) ?? Data()
                        let size = try handle.seekToEnd()
                        _ = path
                        return try Inspection(prefix: prefix, totalLength: Int(size))
                    }
                } else {
                    inspection = try Inspection(try input.readAll())
                }
            } else {
                inspection = try Inspection(try Base64.decode(try input.readAll()))
            }
            print(inspection.lines.joined(separator: "\n"))
        }
    }
}
