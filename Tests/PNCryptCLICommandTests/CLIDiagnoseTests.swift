import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

@Suite(.tags(.cli)) struct CLIDiagnoseTests {
    @Test("diagnose explains in words, or as JSON")
    func diagnose() throws {
        let words = try CLI.run(["diagnose", "--key", "new", "--key", "enigma",
                                 "MTIzNDU2Nzg5MDEyMzQ1NjdnONoCgo0wbuMGGMmfMX0="])
        #expect(words.status == 0)
        #expect(words.text.hasPrefix("decrypts with legacy-random-iv and key #2; a client set to a static IV (legacy) "
                                     + "shows DECRYPTION_ERROR for it\n"))
        let json = try CLI.run(["diagnose", "--key", "x", "--json", "q/xJqqN6qbiZ-XYmiQC1Fw=="])
        let value = try JSONValue(parsing: json.stdout)
        #expect(value["decrypts"] == false)
        let finding = "not Base64 at offset 12: unexpected character '-' (URL-safe Base64 is not accepted)"
        #expect(value["findings"]?[0] == .string(finding))
        #expect(value["inputError"]?["offset"] == 12)
    }
}
