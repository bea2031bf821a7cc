import Testing
import PNCryptVectors
import PNCryptTestSupport

@Suite struct TestVectorTests {
    @Test("every vector file in Vectors/ passes", arguments: ["spec.json", "negative.json", "generated.json",
                                                           "large.json", "python-sdk.json", "contract.json",
                                                           "styles.json", "headerless.json"])
    func vectorFile(_ name: String) throws {
        let vectors = try Package.vectors(name, as: TestVector.self)
        #expect(!vectors.isEmpty)
        for vector in vectors {
            let failure = TestVectorChecker.check(vector)
            #expect(failure == nil, "\(failure?.description ?? "")")
        }
    }

    @Test("every file in Vectors/ is covered above")
    func allFilesListed() throws {
        let files = try TestVectorChecker.files(at: Package.vectors.path).map { $0.split(separator: "/").last! }
        #expect(files.sorted() == ["contract.json", "generated.json", "headerless.json", "large.json", "negative.json",
                                   "python-sdk.json", "spec.json", "styles.json"])
    }

    @Test("vector ids are unique across files")
    func uniqueIDs() throws {
        var seen = Set<String>()
        for file in try TestVectorChecker.files(at: Package.vectors.path) {
            for vector in try TestVectorFile.load(path: file).vectors {
                #expect(seen.insert(vector.id).inserted, "duplicate id \(vector.id)")
            }
        }
    }

    @Test("the checker catches a wrong vector")
    func checkerFails() {
        let wrong = TestVector(id: "wrong", scheme: "legacy", key: "enigma", plaintext: "yay!",
                               ciphertext: "Wi24KS4pcTzvyuGOHubiXg==", expect: .ok)
        #expect(TestVectorChecker.check(wrong)?.message.contains("decrypted to") == true)
        let notAnError = TestVector(id: "n", scheme: "legacy", key: "enigma", plaintext: nil,
                                    ciphertext: "q/xJqqN6qbiZMXYmiQC1Fw==", expect: .decryptionError)
        #expect(TestVectorChecker.check(notAnError)?.message.contains("expected a decryption error") == true)
    }
}
