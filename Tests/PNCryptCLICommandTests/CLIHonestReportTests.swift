import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI as Unix users expect it (each suite runs the built binary): reports that say what they know.
@Suite(.tags(.cli)) struct CLIHonestReportTests {
    @Test("inspect on headerless data says what it knows, and no more")
    func inspectHeaderless() throws {
        try withTemporaryDirectory { dir in
            _ = try binaryFile(dir.appendingPathComponent("random.bin"), count: 5_000_000)
            let result = try CLI.run(["inspect", "--binary", "random.bin"], directory: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let expected = "no PNED header; if this is pncrypt or PubNub ciphertext it is legacy data, 312500 blocks, "
                + "IV fixed or random"
            #expect(result.text.split(separator: "\n").first.map(String.init) == expected)
        }
        let one = try CLI.run(["inspect", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        let expected = "no PNED header; if this is pncrypt or PubNub ciphertext it is legacy data, 1 block, "
            + "IV fixed (too short for a random IV)"
        #expect(one.text.split(separator: "\n").first.map(String.init) == expected)
    }

    @Test("diagnose exits 1 when no reading works, 0 when one does")
    func diagnoseStatus() throws {
        let none = try CLI.run(["diagnose", "--key", "wrong", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(none.status == 1)
        #expect(none.text.contains("wrong key or corrupted"), "\(none.text)")
        let json = try CLI.run(["diagnose", "--key", "wrong", "--json", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(json.status == 1)
        #expect(try JSONValue(parsing: json.stdout)["decrypts"] == false)
        let one = try CLI.run(["diagnose", "--key", "enigma", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(one.status == 0)
    }

    @Test("diagnose --json leaves the plaintext out unless --show-plaintext")
    func diagnosePlaintext() throws {
        let hidden = try CLI.run(["diagnose", "--key", "enigma", "--json", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(hidden.status == 0)
        #expect(!hidden.text.contains("yay!"), "\(hidden.text)")
        #expect(try JSONValue(parsing: hidden.stdout)["decrypts"] == true)
        let shown = try CLI.run(["diagnose", "--key", "enigma", "--json", "--show-plaintext",
                                 "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(shown.text.contains(#""plaintext":"yay!""#), "\(shown.text)")
        let textMode = try CLI.run(["diagnose", "--key", "enigma", "--show-plaintext", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(textMode.status == 64)
    }
}
