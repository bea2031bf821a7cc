import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptCompression
import PNCrypt
import PNCryptTestSupport

/// The code of the DocC articles (Sources/PNCrypt/PNCrypt.docc), compiled and run here so the docs cannot rot.
/// Each ```swift block of an article must appear in this file, line for line (indentation aside): the first test
/// checks that, the others run the blocks and check what the articles say they do.
@Suite("DocC snippets")
struct DocSnippetTests {
    @Test("every swift block of the DocC articles is one of the snippets below")
    func articlesQuoteCompiledCode() throws {
        let here = URL(fileURLWithPath: #filePath)
        let catalog = here.deletingLastPathComponent().appendingPathComponent("../../Sources/PNCrypt/PNCrypt.docc")
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
        #expect(articles.count >= 6)
        let source = Self.normalized(try String(contentsOf: here, encoding: .utf8))
        var blocks = 0
        for name in articles {
            let text = try String(contentsOf: catalog.appendingPathComponent(name), encoding: .utf8)
            for block in Self.swiftBlocks(text) {
                blocks += 1
                #expect(source.contains(Self.normalized(block)), "\(name): a block not compiled here:\n\(block)")
            }
        }
        #expect(blocks >= 8)
    }

    /// The ```swift blocks of a Markdown text.
    static func swiftBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Lines without their indentation, blank lines dropped.
    static func normalized(_ text: String) -> String {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    // MARK: Choosing a scheme

    @Test("ChoosingAScheme: acrh by default, legacy when an old client must read it")
    func choosingAScheme() throws {
        let module = try CryptoModule(cipherKey: "enigma")              // writes acrh
        let sealed = try module.encrypt(Array("hello".utf8))            // Base64: PNED header, IV, ciphertext
        let opened = try module.decrypt(sealed)                         // "hello"

        let forOldClients = try module.encrypt(Array("yay!".utf8), scheme: .legacy)
        // "q/xJqqN6qbiZMXYmiQC1Fw==": the fixed IV gives equal ciphertexts for equal messages
        #expect(opened == "hello")
        #expect(sealed.hasPrefix("UE5FRAFBQ1JI"))
        #expect(forOldClients == "q/xJqqN6qbiZMXYmiQC1Fw==")
    }

    // MARK: Reading what older clients wrote

    @Test("ReadingOlderClients: a fixed-IV message, an iOS 3.3 message, and the iOS 3.4 marker")
    func readingOlderClients() throws {
        let reader = try MessageCrypto(cipherKey: "enigma", reading: .headerlessAs(.legacy))
        let received = reader.decrypt("06UDjczkvAAYcqWfNwkOiQ==", policy: .passThrough)
        // received.message == "Hello World", received.scheme == .legacy
        #expect(received.message == "Hello World")
        #expect(received.scheme == .legacy)

        let ios33 = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        let message: JSONValue = ["text": "hi", "from": "ann"]
        let wire = try ios33.encrypt(message)                        // each string leaf alone, keys kept
        let back = ios33.decrypt(wire, policy: .marker)               // back.message == message
        #expect(wire.objectValue?.map(\.key) == ["text", "from"])
        #expect(wire["text"] != "hi")
        #expect(back.message == message)

        let ios34 = try MessageCrypto(cipherKey: "not the key", reading: .only(.legacy))
        let marked = ios34.decrypt("06UDjczkvAAYcqWfNwkOiQ==", policy: .marker)
        // marked.message == "DECRYPTION_ERROR", marked.status?.error.code == .wrongKeyOrCorrupt
        #expect(marked.message == .string(DecryptionPolicy.markerText))
        #expect(marked.status?.error.code == .wrongKeyOrCorrupt)
    }

    // MARK: Handling decryption failures

    @Test("HandlingDecryptionFailures: statuses, history, and errors to act on")
    func handlingDecryptionFailures() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", reading: .headerlessAs(.legacy))
        let kept = crypto.decrypt("bm90IG91ciBrZXk=", policy: .passThrough)
        if let status = kept.status {
            print(status.error.code, status.json)      // wrongKeyOrCorrupt {"category":"decryption",...}
        }
        #expect(kept.message == "bm90IG91ciBrZXk=")
        #expect(kept.status?.category == .decryption)

        let body = #"[["06UDjczkvAAYcqWfNwkOiQ==",{"not":"encrypted"}],17000000000000000,17000000000000001]"#
        let history = try Envelope(parsing: Array(body.utf8), formats: EnvelopeFormat.history)
        let page = crypto.decrypt(envelope: history, policy: .passThrough)
        for status in page.statuses {
            print(status.index ?? -1, status.error.code)   // 1 notEncrypted: one line per message not decrypted
        }
        #expect(page.envelope.format == .v2)
        #expect(page.envelope.json[0]?[0] == "Hello World")
        #expect(page.statuses.map(\.index) == [1] && page.statuses.first?.reason == .notEncrypted)
        #expect(page.envelope.json[2] == .number(JSONNumber(literal: "17000000000000001")!))

        let module = try CryptoModule(cipherKey: "enigma")
        do {
            _ = try module.decrypt("q/xJ-qN6")
        } catch {
            print(error.code, error.category, error.message)   // notBase64 decryption "not Base64: ..."
        }
        #expect(throws: PNCryptError.self) { try module.decrypt("q/xJ-qN6") }
    }

    // MARK: Rotating keys

    @Test("RotatingKeys: a key ring reads both keys and says which one read each message")
    func rotatingKeys() throws {
        let old = try MessageCrypto(cipherKey: "old-key", scheme: .legacy)
        let oldMessage = try old.encrypt("from last year")

        let ring = try KeyRing(["new-key", "old-key"])
        let crypto = MessageCrypto(keys: ring, scheme: .acrh)
        let result = crypto.decrypt(oldMessage, policy: .passThrough)
        // result.keyIndex == 1, result.scheme == .legacy: still on the old key; re-encrypt it:
        let moved = try crypto.encrypt(result.message)                     // acrh, under "new-key"
        #expect(result.message == "from last year")
        #expect(result.keyIndex == 1)
        #expect(result.scheme == .legacy)
        let check = try MessageCrypto(cipherKey: "new-key").decrypt(moved, policy: .marker)
        #expect(check.message == "from last year")
        #expect(check.scheme == .acrh)

        let rekey = try MessageRekey(from: ring, to: try CipherKey("new-key"), scheme: .acrh)
        let archive = Array((oldMessage.serializedString() + "\n").utf8)     // NDJSON: one message per line
        let rekeyed = try MessageStream(.rekey(rekey)).run(archive)
        // rekeyed.summary.rekeyed == 1: the archive under "new-key", line for line
        #expect(rekeyed.summary.rekeyed == 1)
        let line = try JSONValue(parsing: rekeyed.output.dropLast())
        #expect(try MessageCrypto(cipherKey: "new-key", reading: .only(.acrh)).decrypt(line, policy: .marker).message
                == "from last year")
        #expect(try MessageStream(.rekey(rekey)).run(rekeyed.output).summary.alreadyNew == 1)
    }

    // MARK: Files and streams

    @Test("FilesAndStreams: compress and encrypt a file in constant memory, and back")
    func filesAndStreams() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plainPath = folder.appendingPathComponent("notes.txt").path
        let sealedPath = folder.appendingPathComponent("notes.txt.gz.enc").path
        try Data(repeating: 0x61, count: 100_000).write(to: URL(fileURLWithPath: plainPath))

        let plainURL = URL(fileURLWithPath: plainPath), sealedURL = URL(fileURLWithPath: sealedPath)
        _ = FileManager.default.createFile(atPath: sealedPath, contents: nil)
        let key = try CipherKey("enigma")
        let input = try FileHandle(forReadingFrom: plainURL)
        let output = try FileHandle(forWritingTo: sealedURL)
        defer { try? input.close(); try? output.close() }
        let stages: [any ByteStreamStage] = [try Compressor(), try StreamEncryptor(key: key, scheme: .acrh)]
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try output.write(contentsOf: stages.update(chunk))
        }
        try output.write(contentsOf: stages.finish())
        try output.synchronize()

        let sealed = try Array(Data(contentsOf: URL(fileURLWithPath: sealedPath)))
        let back: [any ByteStreamStage] = [try StreamDecryptor(key: key),
                                          try Decompressor(outputLimit: .bytes(100 << 20))]
        let plain = try back.run(sealed)   // in memory: at most 100 MiB out
        #expect(plain == [UInt8](repeating: 0x61, count: 100_000))
        #expect(sealed.count < 1000)

        let packed = try Compressor.compress(Array("{\"text\":\"hi\"}".utf8))
        let publishBody = try Decompressor.decompress(packed)                       // one-shot: at most 64 MiB
        #expect(publishBody == Array("{\"text\":\"hi\"}".utf8))
    }
}
