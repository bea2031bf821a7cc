import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI as Unix users expect it (each suite runs the built binary): names and options.
@Suite(.tags(.cli)) struct CLIOptionNameTests {
    @Test("-k is the short form of --key")
    func shortKey() throws {
        let result = try CLI.run(["decrypt", "-k", "enigma", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "yay!")
    }

    @Test("gzip -d decompresses, as gzip does")
    func gzipDecompress() throws {
        try withTemporaryDirectory { dir in
            let text = Array(String(repeating: "pncrypt ", count: 1000).utf8)
            try Data(text).write(to: dir.appendingPathComponent("t"))
            #expect(try CLI.run(["gzip", "-i", "t", "-o", "t.gz"], directory: dir).status == 0)
            for flag in ["-d", "--decompress"] {
                let result = try CLI.run(["gzip", flag, "-i", "t.gz"], directory: dir)
                #expect(result.status == 0, "\(flag): \(result.stderr)")
                #expect(Data(result.stdout) == Data(text), "\(flag)")
            }
        }
    }

    @Test("--sync without -o is a usage error", arguments: [
        ["encrypt", "--key", "k", "--sync", "x"], ["decrypt", "--key", "k", "--sync", "x"],
        ["gzip", "--sync", "x"], ["message", "encrypt", "--key", "k", "--sync", "1"],
    ])
    func syncNeedsOutput(arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(arguments)")
        #expect(result.stderr.contains("--sync goes with -o"), "\(result.stderr)")
        #expect(result.text.isEmpty)
    }

    @Test("diagnose is told the client's setting with --scheme and --legacy-scheme")
    func diagnoseClientSetting() throws {
        // `"yay!"` as the Python SDK publishes it with a random IV (a message: JSON text).
        let randomIV = "U2I4d2taMVpuUzg3TGsxZWSC2CBmYKimjM2id4+Y2Lk="
        let fixed = try CLI.run(["diagnose", "--key", "enigma", "--legacy-scheme", "legacy", randomIV])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.text.contains("a client set to --legacy-scheme legacy shows DECRYPTION_ERROR for it"),
                "\(fixed.text)")
        let random = try CLI.run(["diagnose", "--key", "enigma", "--legacy-scheme", "legacy-random-iv", randomIV])
        #expect(random.text.contains("a client set to --legacy-scheme legacy-random-iv reads it"), "\(random.text)")
        let acrh = try CLI.run(["diagnose", "--key", "enigma", "--scheme", "acrh", "--json", randomIV])
        let client = try #require(try JSONValue(parsing: acrh.stdout)["client"])
        #expect(client["scheme"] == "acrh")
        #expect(client["decrypts"] == false)
    }

    @Test("--raw has one meaning (gunzip's raw deflate); message encrypt's is --verbatim")
    func rawHasOneMeaning() throws {
        let text = #"{"b" : 1,  "a" : 2}"#
        let verbatim = try CLI.run(["message", "encrypt", "--key", "enigma", "--verbatim", text])
        #expect(verbatim.status == 0, "\(verbatim.stderr)")
        let opened = try CLI.run(["decrypt", "--key", "enigma"], stdin: verbatim.stdout)
        #expect(opened.text == text)
        let old = try CLI.run(["message", "encrypt", "--key", "enigma", "--raw", text])
        #expect(old.status == 64)
        for command in ["message encrypt", "gunzip"] {
            let help = try CLI.run(command.split(separator: " ").map(String.init) + ["--help"]).text
            #expect(help.contains("--raw") == (command == "gunzip"), "\(command)")
        }
    }

    @Test("--key-file is repeatable and the usage line says so")
    func keyFileUsage() throws {
        for command in [["encrypt"], ["decrypt"], ["message", "decrypt"], ["diagnose"], ["inspect"]] {
            let usage = try CLI.run(command + ["--help"]).text.split(separator: "\n")
                .first { $0.hasPrefix("USAGE:") } ?? ""
            #expect(usage.contains("[--key-file <path> ...]"), "\(command): \(usage)")
            #expect(usage.contains("[--key <key> ...]"), "\(command): \(usage)")
        }
    }
}
