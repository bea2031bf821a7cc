import Testing
import PNCryptCore
import PNCrypt

/// `FailureHint` (issue 59, item 8): the one rule for the hints after the one decryption failure, which the CLI,
/// C and Python word alike; it depends on what the caller gave only.
@Suite struct FailureHintTests {
    @Test("a key's shape and a key that names a file; ordinary keys get no hint")
    func keys() throws {
        let newline = FailureHint.Key(try CipherKey("enigma\n"), source: "cipher_key")
        let file = FailureHint.Key(try CipherKey("old.key"), source: "key #2", namesFile: true)
        let plain = FailureHint.Key(try CipherKey("enigma"), source: "--key")
        #expect(FailureHint.keys([plain]) == nil)
        #expect(FailureHint.keys([newline, plain, file]) == "cipher_key: the key ends with a line break; key #2: the"
                + " key is also the name of a file (the key is that text, not the file's contents) (keys are used"
                + " exactly as given)")
    }

    @Test("a binary plaintext is plausible for raw input or more than a message, unless a key's shape explains it")
    func binary() {
        #expect(!FailureHint.binaryPlaintextPlausible(raw: false, ciphertextCount: 48, keyHint: nil))
        #expect(FailureHint.binaryPlaintextPlausible(raw: true, ciphertextCount: 48, keyHint: nil))
        #expect(FailureHint.binaryPlaintextPlausible(raw: false, ciphertextCount: FailureHint.messageLimit + 16,
                                                     keyHint: nil))
        #expect(!FailureHint.binaryPlaintextPlausible(raw: true, ciphertextCount: 48, keyHint: "a hint"))
    }
}
