import Foundation
import Testing
import PNCryptJSON
import PNCryptVectors
import PNCryptTestSupport

@Suite struct TestVectorTests {
    @Test("every vector file in Vectors/ passes", arguments: ["spec.json", "negative.json", "generated.json",
                                                           "large.json", "python-sdk.json", "contract.json",
                                                           "styles.json", "headerless.json", "readings.json"])
    func vectorFile(_ name: String) throws {
        let vectors = try Package.vectors(name, as: TestVector.self)
        #expect(vectors.count == Self.counts[name], "\(name): \(vectors.count), pinned \(Self.counts[name] ?? 0)")
        for vector in vectors {
            let failure = TestVectorChecker.check(vector)
            #expect(failure == nil, "\(failure?.description ?? "")")
        }
    }

    /// How many vectors each file holds, written out by hand from Vectors/README.md's table: a file cut short (or
    /// grown without its README) fails, not only an empty one.
    static let counts = ["spec.json": 37, "negative.json": 161, "generated.json": 587, "large.json": 2,
                         "python-sdk.json": 190, "contract.json": 44, "styles.json": 429, "headerless.json": 240,
                         "readings.json": 26, "envelopes/envelopes.json": 12, "envelopes/recorded.json": 47]

    @Test("Vectors/README.md gives each file's count as pinned here")
    func readmeCounts() throws {
        let readme = try String(contentsOf: Package.vectors.appendingPathComponent("README.md"), encoding: .utf8)
        var found: [String: Int] = [:]
        for match in readme.matches(of: /\n\| `([a-z\/-]+\.json)` \| ([0-9]+)[: ]/) {
            found[String(match.output.1)] = Int(match.output.2)
        }
        #expect(found == Self.counts)
    }

    @Test("the envelope files hold the counts pinned above", arguments: ["envelopes/envelopes.json",
                                                                         "envelopes/recorded.json"])
    func envelopeCounts(_ name: String) throws {
        let text = try Data(contentsOf: Package.vectors.appendingPathComponent(name))
        let vectors = try #require(try JSONValue(parsing: Array(text))["vectors"]?.arrayValue)
        #expect(vectors.count == Self.counts[name])
    }

    @Test("every file in Vectors/ is covered above")
    func allFilesListed() throws {
        let files = try TestVectorChecker.files(at: .init(Package.vectors.path)).compactMap { $0.lastComponent?.string }
        #expect(files.sorted() == ["contract.json", "generated.json", "headerless.json", "large.json", "negative.json",
                                   "python-sdk.json", "readings.json", "spec.json", "styles.json"])
    }

    @Test("vector ids are unique across files")
    func uniqueIDs() throws {
        var seen = Set<String>()
        for file in try TestVectorChecker.files(at: .init(Package.vectors.path)) {
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
