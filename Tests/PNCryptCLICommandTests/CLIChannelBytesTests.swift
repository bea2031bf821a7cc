import Foundation
import Testing
import PNCryptJSON
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `--channel-key-file` compares channels as bytes, as PubNub does (`ChannelKeys`; found by the `channel-keys` fuzz
/// target): a channel spelled in another Unicode normalization than a pattern is another channel.
@Suite(.tags(.cli)) struct CLIChannelBytesTests {
    @Test("a channel in another Unicode normalization than its pattern is not read with that pattern's key")
    func normalization() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let wire = try MessageCrypto(cipherKey: "key-c", scheme: .legacy).encrypt(.string("hi"))
        let response: JSONValue = ["t": ["t": "17000000000000000", "r": 1],
                                   "m": [["c": .string(decomposed), "d": wire], ["c": .string(composed), "d": wire]]]
        try withTemporaryDirectory { dir in
            let key = dir.appendingPathComponent("key")
            try Data("key-c\n".utf8).write(to: key)
            let run = try CLI.run(["subscribe", "decrypt", "--on-error", "passthrough",
                                   "--channel-key-file", "\(composed)=\(key.path)"], stdin: response.serialized())
            #expect(run.status == 1, "\(run.stderr)")
            let out = try JSONValue(parsing: run.stdout)
            #expect(out["m"]?[0]?["d"] == wire, "\(run.text)")
            #expect(out["m"]?[1]?["d"] == .string("hi"), "\(run.text)")
            #expect(run.stderr.contains("no key for channel"), "\(run.stderr)")
            #expect(run.stderr.contains("1 of 2 messages not decrypted"), "\(run.stderr)")
        }
    }
}
