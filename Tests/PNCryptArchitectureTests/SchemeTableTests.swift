import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptVectors
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The scheme table (`Scheme.row`, `Sources/PNCryptCore/Cipher/Scheme.swift`): each row against its vectors and
/// its names, the table's invariants, and the rule that keeps scheme knowledge in the table.
@Suite struct SchemeTableTests {
    // MARK: Scheme cases stay in the table

    /// A scheme case spelled in Swift code: `.acrh` as an implicit member (not a property such as `options.legacy`),
    /// `Scheme.acrh`, or a scheme name as a whole string literal.
    static let caseSpelling = try! NSRegularExpression(pattern: [
        #"(^|[^\]A-Za-z0-9_)?!])\.(legacy|legacyRandomIV|acrh|legacy33)\b"#,
        #"Scheme\.(legacy|legacyRandomIV|acrh|legacy33)\b"#,
        #""(legacy|legacy-random-iv|acrh|legacy33)""#,
    ].joined(separator: "|"))

    /// The Swift files under `folder` whose code (comment lines aside: doc examples show the cases to readers, as
    /// the DocC articles do) spells a scheme case, relative to `folder`, sorted.
    static func filesSpellingSchemes(under folder: URL) throws -> [String] {
        let paths = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        return try paths.filter { path in
            let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
            return text.split(separator: "\n", omittingEmptySubsequences: false).contains { line in
                let code = String(line)
                if code.trimmingCharacters(in: .whitespaces).hasPrefix("//") { return false }
                return caseSpelling.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil
            }
        }.sorted()
    }

    @Test("scheme cases are spelled in at most 3 files under Sources/ (the table, and the bench's choice)")
    func casesStayInTheTable() throws {
        let files = try Self.filesSpellingSchemes(under: Package.root.appendingPathComponent("Sources"))
        #expect(files.count <= 3, "scheme cases spelled in \(files.count) files: \(files)")
        #expect(files.contains("PNCryptCore/Cipher/Scheme.swift"))
    }

    @Test("the count sees cases, names and Scheme.x in code, not properties or comments")
    func countingSeesSpellings() throws {
        try withTemporaryDirectory { folder in
            let samples = [
                "a.swift": "let s: Scheme = .acrh\n",
                "b.swift": "if x == .legacyRandomIV { }\n",
                "c.swift": "let name = \"legacy-random-iv\"\n",
                "d.swift": "let s = Scheme.legacy33\n",
                "e.swift": "let l = options.legacy\nlet m = reading.legacy ?? fallback\n",
                "f.swift": "/// try module.encrypt(data, scheme: .legacy)\n// .acrh\n",
                "g.swift": "let t = f(x)?.legacy ?? y\n",
            ]
            for (name, text) in samples {
                try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
            let found = try Self.filesSpellingSchemes(under: folder)
            #expect(found == ["a.swift", "b.swift", "c.swift", "d.swift"])
        }
    }

    // MARK: The table's invariants

    @Test("the writing default is one row fit for it, and two rows are the headerless pair")
    func defaults() {
        let schemes = Scheme.allCases
        #expect(schemes.filter(\.isDefaultForWriting).count == 1)
        #expect(schemes.filter(\.isHeaderlessPair).count == 2)
        #expect(schemes.filter(\.hasHeader) == [Scheme.withHeader], "one header row: CryptorHeader knows one cryptor")
        #expect(Scheme.defaultForWriting.row.hasFileFormat && Scheme.defaultForWriting.row.message == .whole)
        let (first, second) = Scheme.headerlessPair
        #expect(first.row.iv == .fixed && second.row.iv == .prefix, "the rule reads the fixed-IV reading's first block")
        #expect(first.partner == second && second.partner == first)
        #expect(first.row.iv != second.row.iv, "the two headerless readings differ in where the IV is")
        #expect(first.row.keyDerivation == second.row.keyDerivation && first.isLegacyCryptor && second.isLegacyCryptor)
        #expect(Scheme.withHeader.hasHeader && Scheme.headerless.allSatisfy { !$0.hasHeader })
    }

    @Test("no two rows are the same (a scheme the table cannot tell apart would be a second name)")
    func rowsDiffer() {
        #expect(Set(Scheme.allCases.map(\.row)).count == Scheme.allCases.count)
    }

    @Test("the IV size is written once: the block size, the header's IV and the acrh header length follow it")
    func ivSize() {
        #expect(Cryptor.blockSize == Scheme.ivSize)
        #expect(CryptorHeader.ivLength == Scheme.ivSize)
        #expect(CryptorHeader.acrhLength == CryptorHeader.acrhStart.count + Scheme.ivSize)
        #expect(Cryptor.fixedIV.count == Scheme.ivSize)
    }

    // MARK: Each row against its data

    @Test("each row's key derivation gives its AES key", arguments: Scheme.allCases)
    func keyDerivation(_ scheme: Scheme) throws {
        let key = try CipherKey("enigma")
        let bytes = key.keyBytes(for: scheme)
        switch scheme.row.keyDerivation {
        case .hexSHA256:
            #expect(bytes == Array(Hex.encode(Backend.sha256(Array("enigma".utf8))).prefix(32).utf8))
        case .sha256:
            #expect(bytes == Backend.sha256(Array("enigma".utf8)))
        case .md5:
            #expect(bytes == Backend.md5(Array("enigma".utf8)))
        }
        for other in Scheme.allCases where other.row.keyDerivation == scheme.row.keyDerivation {
            #expect(key.keyBytes(for: other) == bytes)
        }
    }

    @Test("each row's IV is where the row says, and its output round-trips", arguments: Scheme.allCases)
    func layout(_ scheme: Scheme) throws {
        let module = try CryptoModule(cipherKey: "enigma", scheme: scheme)
        let plaintext = Array("scheme table".utf8)
        let one = try module.encryptBinary(plaintext, scheme: scheme)
        let two = try module.encryptBinary(plaintext, scheme: scheme)
        #expect(one.count == Cryptor.sealedLength(plaintext.count, scheme: scheme))
        #expect(try module.decryptBinary(one, reading: .only(scheme)) == plaintext)
        switch scheme.row.iv {
        case .fixed:
            #expect(one == two, "a fixed IV encrypts the same plaintext the same way")
            #expect(one.count == Scheme.ivSize)
        case .prefix:
            #expect(one.count == 2 * Scheme.ivSize)
            #expect(one.prefix(Scheme.ivSize) != two.prefix(Scheme.ivSize), "a fresh random IV first")
        case .header:
            let length = try Inspection(one).headerLength
            #expect(try Inspection(one).header?.metadata == Array(one[(length - Scheme.ivSize)..<length]))
            #expect(one.prefix(length) != two.prefix(length), "a fresh random IV in the header")
        }
        #expect(scheme.hasHeader == (try Inspection(one).header != nil))
    }

    @Test("each row has vectors, and every one of them passes", arguments: Scheme.allCases)
    func vectors(_ scheme: Scheme) throws {
        let files = try TestVectorChecker.files(at: .init(Package.vectors.path))
        let vectors = try files.flatMap { try TestVectorFile.load(path: $0).vectors }
            .filter { $0.scheme == scheme.rawValue }
        #expect(vectors.contains { $0.expect == .ok && $0.ciphertext != nil && (try? $0.plaintextBytes()) != nil })
        #expect(vectors.contains { $0.expect != .ok }, "a row needs negative vectors too")
        for vector in vectors {
            let failure = TestVectorChecker.check(vector)
            #expect(failure == nil, "\(failure?.description ?? "")")
        }
    }

    @Test("each row's file format: streamed when it has one, refused when it has none", arguments: Scheme.allCases)
    func fileFormat(_ scheme: Scheme) throws {
        let key = try CipherKey("enigma")
        let plaintext = [UInt8](repeating: 0x61, count: 100)
        guard scheme.row.hasFileFormat else {
            expectPNError(.invalidValue) { () throws(PNCryptError) in
                try StreamDecryptor(key: key, reading: .only(scheme))
            }
            return
        }
        let sealed = try StreamPipeline.run(plaintext, through: [StreamEncryptor(key: key, scheme: scheme)])
        let back = try StreamPipeline.run(sealed, through: [StreamDecryptor(key: key, reading: .only(scheme))])
        #expect(back == plaintext)
        if scheme.isLegacyCryptor || scheme.hasHeader {
            let detected = try StreamPipeline.run(sealed, through: [StreamDecryptor(
                key: key, reading: scheme.headerlessFileFormat.map(ReadPolicy.headerlessAs) ?? .rule)])
            #expect(detected == plaintext)
        }
    }

    @Test("each row's message form: whole messages, or string leaves", arguments: Scheme.allCases)
    func messageForm(_ scheme: Scheme) throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: scheme, reading: .only(scheme))
        let message: JSONValue = .array([.string("seven"), .object(["food": .string("Cheeseburger")])])
        let sealed = try crypto.encrypt(message)
        switch scheme.row.message {
        case .whole: #expect(sealed.stringValue != nil)
        case .stringLeaves: #expect(sealed.arrayValue?.count == 2)
        }
        let opened = crypto.decrypt(sealed, policy: .marker)
        #expect(opened.status == nil && opened.message == message && opened.scheme == scheme)
    }

    // MARK: Names

    @Test("each row's name parses back to it, in the library and on the command line", arguments: Scheme.allCases)
    func names(_ scheme: Scheme) throws {
        #expect(Scheme(rawValue: scheme.rawValue) == scheme)
        #expect(scheme.description == scheme.rawValue)
        #expect(!scheme.summary.isEmpty && !scheme.clientSetting.isEmpty && !scheme.readers.isEmpty)
        // `--scheme NAME` writes the row's format: read back by the library with that scheme alone.
        let arguments = ["encrypt", "--key", "enigma", "--scheme", scheme.rawValue]
        let result = try CLI.run(arguments, stdin: Array("[1,2]".utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.text.trimmingCharacters(in: .whitespacesAndNewlines)
        let module = try CryptoModule(cipherKey: "enigma")
        let opened = try module.decryptBinary(try Base64.decode(Array(text.utf8)), reading: .only(scheme))
        #expect(opened == Array("[1,2]".utf8))
    }
}
