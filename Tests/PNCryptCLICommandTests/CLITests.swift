import Foundation
import Testing
import PNCryptCore
import PNCryptVectors
import PNCryptTestSupport
import PNCryptCLITestSupport

@Suite(.tags(.cli)) struct CLITests {
    @Test("every vector of spec.json passes through the CLI, both ways", .tags(.slow), .notInQuickRun)
    func specVectors() throws {
        let vectors = try Package.vectors("spec.json", as: TestVector.self)
        #expect(vectors.count >= 30)
        for v in vectors where v.expect == .ok {
            let plaintext = try #require(try v.plaintextBytes())
            let ciphertext = try #require(v.ciphertext)
            // `auto` vectors read headerless data as legacy (fixed IV), as a module configured so does.
            let legacy = v.scheme == "auto" ? ["--legacy-scheme", "legacy"] : []
            let decrypted = try CLI.run(["decrypt", "--key", v.key, "--scheme", v.scheme, ciphertext] + legacy)
            #expect(decrypted.status == 0, "\(v.id): \(decrypted.stderr)")
            #expect(decrypted.stdout == plaintext, "\(v.id)")
            guard v.scheme != "auto" else { continue }
            var arguments = ["encrypt", "--key", v.key, "--scheme", v.scheme]
            if let iv = v.iv { arguments += ["--iv", iv] }
            guard v.iv != nil || v.scheme == "legacy" || v.scheme == "legacy33" else { continue }
            let encrypted = try CLI.run(arguments, stdin: plaintext)
            #expect(encrypted.status == 0, "\(v.id): \(encrypted.stderr)")
            #expect(encrypted.text == ciphertext + "\n", "\(v.id)")
        }
    }

    @Test("negative vectors exit 1 with one line naming the cause, and nothing on stdout", .tags(.slow), .notInQuickRun)
    func negativeVectors() throws {
        let vectors = try Package.vectors("negative.json", as: TestVector.self).filter {
            $0.expect == .decryptionError || $0.expect == .unknownCryptor
        }
        #expect(vectors.count >= 30)
        for v in vectors {
            let legacy = v.scheme == "auto" ? ["--legacy-scheme", "legacy"] : []
            let result = try CLI.run(["decrypt", "--key", v.key, "--scheme", v.scheme] + legacy,
                                     stdin: Array((v.ciphertext ?? "").utf8))
            #expect(result.status == 1, "\(v.id)")
            #expect(result.stdout.isEmpty, "\(v.id)")
            #expect(result.stderr.hasPrefix("pncrypt: ") && result.stderr.filter { $0 == "\n" }.count == 1,
                    "\(v.id): \(result.stderr)")
        }
    }

    @Test("the README's main command decrypts the bundled example")
    func readmeExample() throws {
        let result = try CLI.run(["decrypt", "--key", "enigma", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(result.status == 0)
        #expect(result.text == "yay!")
    }

    @Test("text input comes from TEXT, -i PATH or stdin; output exactly as documented")
    func inputSources() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("plain.txt")
            try Data("yay!".utf8).write(to: file)
            for (args, stdin) in [(["yay!"], ""), (["-i", file.path], ""), ([], "yay!")] {
                let result = try CLI.run(["encrypt", "--key", "enigma", "--scheme", "legacy"] + args,
                                         stdin: Array(stdin.utf8))
                #expect(result.text == "q/xJqqN6qbiZMXYmiQC1Fw==\n")
            }
            // Decrypt writes the plaintext bytes and nothing else: no newline added, none removed.
            let withNewline = try CLI.run(["encrypt", "--key", "k", "--scheme", "acrh"], stdin: Array("line\n".utf8))
            let back = try CLI.run(["decrypt", "--key", "k"], stdin: withNewline.stdout)
            #expect(back.stdout == Array("line\n".utf8))
        }
    }

    @Test("the key comes from --key, --key-file or PNCRYPT_KEY")
    func keySources() throws {
        try withTemporaryDirectory { dir in
            let keyFile = dir.appendingPathComponent("key")
            try Data("enigma\n".utf8).write(to: keyFile)
            let fromFile = try CLI.run(["decrypt", "--key-file", keyFile.path, "q/xJqqN6qbiZMXYmiQC1Fw=="])
            #expect(fromFile.text == "yay!")
            let fromEnv = try CLI.run(["decrypt", "q/xJqqN6qbiZMXYmiQC1Fw=="], environment: ["PNCRYPT_KEY": "enigma"])
            #expect(fromEnv.text == "yay!")
            let missing = try CLI.run(["decrypt", "--key-file", dir.appendingPathComponent("nope").path, "x"])
            #expect(missing.status == 66)
        }
    }

    @Test("bad usage exits 64", arguments: [
        ["decrypt", "q/xJqqN6qbiZMXYmiQC1Fw=="],
        ["encrypt", "--key", "k", "--scheme", "rot13", "x"],
        ["encrypt", "--key", "k", "--iv", "abcd", "x"],
        ["encrypt", "--key", "k", "x", "-i", "/etc/hostname"],
        ["encrypt", "--key", "", "x"],
        ["encrypt", "--key", "k", "--binary", "--scheme", "legacy33", "x"],
        ["decrypt", "--key", "k", "--binary", "x", "-i", "y"],
        ["frobnicate"],
    ])
    func usage(arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a missing input file exits 66")
    func missingInput() throws {
        let result = try CLI.run(["encrypt", "--key", "k", "-i", "/nonexistent/file"])
        #expect(result.status == 66)
        #expect(result.stderr == "pncrypt: input file '/nonexistent/file' does not exist\n")
    }

    @Test("-o is written atomically: refused over the input, absent after a failure, others' files left alone")
    func outputSafety() throws {
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("in")
            try Data("secret".utf8).write(to: input)
            let same = try CLI.run(["encrypt", "--key", "k", "--binary", "-i", input.path, "-o", input.path])
            #expect(same.status == 64)
            #expect(try Data(contentsOf: input) == Data("secret".utf8))

            let out = dir.appendingPathComponent("out")
            let failed = try CLI.run(["decrypt", "--key", "k", "-o", out.path, "q/xJqqN6qbiZMXYmiQC1Fw=="])
            #expect(failed.status == 1)
            #expect(!FileManager.default.fileExists(atPath: out.path))

            try Data("earlier".utf8).write(to: out)
            let failedOver = try CLI.run(["decrypt", "--key", "k", "--binary", "-i", input.path, "-o", out.path])
            #expect(failedOver.status == 1)
            #expect(try Data(contentsOf: out) == Data("earlier".utf8))

            // A file named like an old run's temporary is not this run's to remove: it is left as it is.
            let stale = dir.appendingPathComponent(".out.pncrypt-999999999.tmp")
            try Data("left by a killed run".utf8).write(to: stale)
            let ok = try CLI.run(["encrypt", "--key", "k", "-o", out.path, "hello"])
            #expect(ok.status == 0)
            #expect(try Data(contentsOf: stale) == Data("left by a killed run".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
                    == [".out.pncrypt-999999999.tmp", "in", "out"])
        }
    }

    @Test("--binary streams the file formats and decrypt auto-detects them")
    func binaryRoundTrip() throws {
        try withTemporaryDirectory { dir in
            let plain = dir.appendingPathComponent("plain")
            let bytes = (0..<5_000_017).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
            try Data(bytes).write(to: plain)
            for scheme in ["acrh", "legacy-random-iv", "legacy"] {
                let sealed = dir.appendingPathComponent("sealed-\(scheme)")
                let opened = dir.appendingPathComponent("opened-\(scheme)")
                let enc = try CLI.run(["encrypt", "--key", "k", "--binary", "--scheme", scheme, "-i", plain.path,
                                       "-o", sealed.path])
                #expect(enc.status == 0, "\(enc.stderr)")
                // Nothing in a headerless file says whether its IV is fixed: the fixed-IV format needs saying so.
                let legacy = scheme == "legacy" ? ["--legacy-scheme", "legacy"] : []
                let dec = try CLI.run(["decrypt", "--key", "k", "--binary", "-i", sealed.path, "-o", opened.path]
                                      + legacy)
                #expect(dec.status == 0, "\(dec.stderr)")
                let same = try Data(contentsOf: opened) == Data(bytes)
                #expect(same)
                let size = try FileManager.default.attributesOfItem(atPath: sealed.path)[.size] as? Int
                let prefix = ["acrh": 26, "legacy-random-iv": 16, "legacy": 0][scheme]!
                #expect(size == prefix + bytes.count / 16 * 16 + 16)
            }
            // Through stdin and stdout too; the wrong key writes nothing to stdout. A fixed IV makes the wrong key's
            // reading the same every run: with a random one, its padding is valid about once in 256 runs (CBC has no
            // integrity; docs/security.md), and this test would fail then.
            let sealed = try CLI.run(["encrypt", "--key", "k", "--binary", "--iv", "000102030405060708090a0b0c0d0e0f"],
                                     stdin: Array(bytes.prefix(100_000)))
            let opened = try CLI.run(["decrypt", "--key", "k", "--binary"], stdin: sealed.stdout)
            let same = opened.stdout == Array(bytes.prefix(100_000))
            #expect(same)
            let wrong = try CLI.run(["decrypt", "--key", "other", "--binary"], stdin: sealed.stdout)
            #expect(wrong.status == 1)
            #expect(wrong.stdout.isEmpty)
        }
    }

    @Test("inspect says what the input is without a key")
    func inspect() throws {
        let header = try CLI.run(["inspect",
            "UE5FRAFBQ1JIEAAAAAAAAAAAAAAAAAAAAABbjKTFb0xLzByXntZkq2G7lHIGg5ZdQd73GwVG6o3ftw=="])
        #expect(header.text == """
            PNED header: version 1, cryptor ACRH, metadata 16 bytes (header 26 bytes)
            iv: 00000000000000000000000000000000
            ciphertext: 32 bytes, 2 blocks

            """)
        let legacy = try CLI.run(["inspect", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        let expected = "no PNED header; if this is pncrypt or PubNub ciphertext it is legacy data, 1 block, "
            + "IV fixed (too short for a random IV)\n"
        #expect(legacy.text == expected)
        for (input, words) in [("q/xJ-qN6", "not Base64"), ("UE5FRAFB", "cut short"),
                               ("AAAAAAAAAAAAAAAAAAAAAAAA", "not a whole number")] {
            let bad = try CLI.run(["inspect", input])
            #expect(bad.status == 1)
            #expect(bad.stdout.isEmpty)
            #expect(bad.stderr.contains(words), "\(bad.stderr)")
        }
    }

    @Test("vectors check runs every vector and closes with the count")
    func vectorsCheck() throws {
        let result = try CLI.run(["vectors", "check", Package.vectors.path])
        #expect(result.status == 0, "\(result.text)")
        let last = try #require(result.text.split(separator: "\n").last)
        #expect(last.hasSuffix(" passed, 0 failed"))
        #expect((Int(last.split(separator: " ")[0]) ?? 0) > 500)

        try withTemporaryDirectory { dir in
            let broken = dir.appendingPathComponent("broken.json")
            let vectors = #"{"vectors":[{"id":"x","scheme":"legacy","key":"enigma","plaintext":"yay!","#
                + #""ciphertext":"Wi24KS4pcTzvyuGOHubiXg==","expect":"ok"}]}"#
            try Data(vectors.utf8).write(to: broken)
            let failing = try CLI.run(["vectors", "check", broken.path])
            #expect(failing.status == 1)
            #expect(failing.text.hasSuffix("0 passed, 1 failed\n"))
            #expect(failing.text.hasPrefix("FAIL broken.json x: "))
        }
    }
}
