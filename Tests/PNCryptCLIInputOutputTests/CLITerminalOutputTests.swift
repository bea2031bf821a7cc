import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI as Unix users expect it (each suite runs the built binary): binary output never goes to a terminal.
@Suite(.tags(.cli)) struct CLITerminalOutputTests {
    @Test("(pty) binary output to a terminal is refused (64, nothing written) unless -f/--force")
    func binaryToTerminal() throws {
        try withTemporaryDirectory { dir in
            _ = try binaryFile(dir.appendingPathComponent("photo.jpg"), count: 5000)
            #expect(try CLI.run(["encrypt", "--key", "k", "--binary", "-i", "photo.jpg", "-o", "photo.enc"],
                                directory: dir).status == 0)
            let commands = [["encrypt", "--key", "k", "--binary", "-i", "photo.jpg"],
                            ["decrypt", "--key", "k", "--binary", "-i", "photo.enc"],
                            ["gzip", "-i", "photo.jpg"],
                            ["message", "encrypt", "--key", "k", "--gzip", "--threshold", "0", "[1]"]]
            for command in commands {
                let refused = try Terminal.run(command, directory: dir)
                #expect(refused.status == 64, "\(command): \(refused.transcript)")
                #expect(refused.transcript == "pncrypt: refusing to write binary data to a terminal: redirect it, "
                        + "give -o PATH, or -f to force\r\n", "\(command)")
                for force in ["-f", "--force"] {
                    let forced = try Terminal.run(command + [force], directory: dir)
                    #expect(forced.status == 0, "\(command) \(force): \(forced.transcript)")
                    #expect(forced.transcript.utf8.count > 20, "\(command) \(force)")
                }
            }
            // Text output is not binary: it goes to the terminal as always.
            let text = try Terminal.run(["encrypt", "--key", "enigma", "--scheme", "legacy", "yay!"])
            #expect(text.transcript == "q/xJqqN6qbiZMXYmiQC1Fw==\r\n")
        }
    }
}
