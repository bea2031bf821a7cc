import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `--scheme auto,legacy33` (issue 59, item 7) through the built binary: one pass over iOS 3.3 and later data, the
/// one failure when two readings of the list qualify, and one clear line where a list cannot be used.
@Suite(.tags(.cli)) struct CLIReadListTests {
    @Test("text and messages read with the list; a message two readings qualify for is the one failure")
    func reads() throws {
        let text = try CLI.run(["decrypt", "--key", "enigma", "--scheme", "auto,legacy33", "UzIyeVhanI+QnyaNqVob2A=="])
        #expect(text.status == 0 && text.text == "Hello World", "\(text.stderr)")
        let leaves = try CLI.run(["message", "decrypt", "--key", "enigma", "--scheme", "legacy33,auto",
                                  #"["0ZRaiDryY0rdklgVVU80pQ==",{"food":"zu9G3gtmiAxYLpehtuQngw=="}]"#])
        #expect(leaves.status == 0, "\(leaves.stderr)")
        #expect(try JSONValue(parsing: leaves.stdout) == ["seven", ["food": "Cheeseburger"]])
        // legacy reads it as 30643283711 (JSON), legacy33 as 15 bytes of UTF-8: the one failure, not `ambiguous`.
        let both = #""DcKD1fpHi3rSu3L+8qhjWQ==""#
        let auto = try CLI.run(["message", "decrypt", "--key", "enigma", both])
        #expect(auto.status == 0 && auto.text == "30643283711\n", "\(auto.stderr)")
        let listed = try CLI.run(["message", "decrypt", "--key", "enigma", "--scheme", "auto,legacy33", both])
        #expect(listed.status == 1)
        #expect(listed.stderr.contains(#""reason":"wrongKeyOrCorrupt""#), "\(listed.stderr)")
        #expect(!listed.stderr.contains("ambiguous"))
        // diagnose, given the key, explains: both readings, and what a client set to the list shows.
        let diagnosis = try CLI.run(["diagnose", "--key", "enigma", "--scheme", "auto,legacy33", both])
        #expect(diagnosis.text.contains("legacy with key #1") && diagnosis.text.contains("legacy33 with key #1"),
                "\(diagnosis.text)")
        #expect(diagnosis.text.contains("a client set to --scheme auto,legacy33 shows DECRYPTION_ERROR"))
    }

    @Test("a list that cannot be read, or where one scheme is needed, is one line and exit 64, nothing written",
          arguments: [
              (["message", "decrypt", "--key", "k", "--scheme", "auto,auto", #""x""#], "names auto twice"),
              (["message", "decrypt", "--key", "k", "--scheme", "auto,legacy", #""x""#], "beside auto"),
              (["decrypt", "--key", "k", "--scheme", "legacy,legacy33", "--legacy-scheme", "legacy", "eA=="],
               "--legacy-scheme"),
              (["encrypt", "--key", "k", "--scheme", "auto,legacy33", "x"], "'auto,legacy33' is invalid"),
              (["message", "rekey", "--key", "k", "--to-key", "n", "--to-scheme", "auto,legacy33", #""x""#],
               "'auto,legacy33' is invalid"),
          ])
    func refused(_ arguments: [String], _ words: String) throws {
        let run = try CLI.run(arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(words), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }

    @Test("--binary reads one format: a list is refused, no output file")
    func binary() throws {
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("in")
            let output = dir.appendingPathComponent("out")
            try Data(repeating: 7, count: 32).write(to: input)
            let run = try CLI.run(["decrypt", "--key", "k", "--binary", "--scheme", "auto,legacy33", "-i", input.path,
                                   "-o", output.path])
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr.contains("name one scheme, or auto"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }
}
