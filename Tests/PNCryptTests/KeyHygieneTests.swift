import Synchronization
import Testing
import PNCryptJSON
import PNCryptCore
@testable import PNCrypt
import PNCryptTestSupport
import PNCryptFiles
import SystemPackage

/// Key hygiene: derived keys and the plaintext buffers the library owns are wiped (`wipe`) when
/// released. `Wiping.observer` (a task-local hook) sees every buffer right after it was wiped, before it is
/// freed, so these tests check both that the wipe happened for the buffers that matter and that it left zeros.
@Suite struct KeyHygieneTests {
    /// The sizes of the buffers wiped while `body` ran in this task, failing the test on a buffer not all zero.
    static func wipes(_ body: () throws -> Void) rethrows -> [Int] {
        let sizes = try wipedBuffers(body)
        #expect(sizes.allSatisfy { $0 >= 0 }, "a wiped buffer still held data: \(sizes)")
        return sizes
    }

    @Test("the wipe helper zeroes the buffer it is given")
    func cleanseZeroes() {
        var bytes = [UInt8](repeating: 0xA5, count: 100)
        let sizes = Self.wipes { wipe(&bytes) }
        #expect(bytes == [UInt8](repeating: 0, count: 100))
        #expect(sizes == [100])
    }

    @Test("a released CipherKey wipes its three derived keys and the key's UTF-8 copy")
    func derivedKeys() throws {
        let sizes = try Self.wipes {
            let key = try CipherKey("a key of 23 UTF-8 bytes")
            #expect(key.keyBytes(for: .acrh).count == 32)
        }
        // The UTF-8 copy (23 bytes) while deriving; then legacy (32), raw SHA-256 (32) and MD5 (16) on release.
        #expect(sizes.sorted() == [16, 23, 32, 32])
    }

    @Test("a CipherKey holds the key only in wiped storage, never as a String or plain array")
    func keyHeldOnlyInWipedStorage() throws {
        let key = try CipherKey("a key of 23 UTF-8 bytes")
        let children = Mirror(reflecting: key).children
        #expect(!children.isEmpty)
        for child in children {
            #expect(!(child.value is String) && !(child.value is [UInt8]) && !(child.value is Substring),
                    "\(child.label ?? "?") holds the key outside wiped storage")
        }
        // The key's own bytes are one of its wiped buffers (23 bytes), readable by nothing public.
        let secrets = children.compactMap { $0.value as? SecretBytes }
        #expect(secrets.map(\.bytes.count).sorted() == [16, 23, 32, 32])
        #expect(secrets.contains { $0.bytes == Array("a key of 23 UTF-8 bytes".utf8) })
    }

    @Test("line-mode workers share the derived keys (derived once), with contexts of their own",
          arguments: ["encrypt", "decrypt", "rekey"])
    func workersShareDerivedKeys(kind: String) throws {
        let old = try CipherKey("old key")
        let new = try CipherKey("new key")
        let crypto = MessageCrypto(keys: try KeyRing(keys: [old]), scheme: .acrh)
        let operation: MessageStream.Operation = switch kind {
        case "encrypt": .encrypt(crypto, raw: false)
        case "decrypt": .decrypt(crypto, policy: .marker)
        default: .rekey(try MessageRekey(from: KeyRing(keys: [old]), to: new, scheme: .acrh))
        }
        var copy: LineWork?
        let derived = Self.wipes { copy = LineWork(operation: operation, stopOnFailure: false).withOwnKeys() }
        // Deriving a key makes (and wipes) a UTF-8 copy of it: none was made.
        #expect(derived.isEmpty, "\(derived)")
        let keys: [(CipherKey, CipherKey)] = switch try #require(copy).operation {
        case .encrypt(let own, _), .decrypt(let own, _), .decryptEnvelopes(let own, _, _):
            [(old, own.keys.keys[0])]
        case .rekey(let own), .rekeyEnvelopes(let own, _): [(old, own.from.keys[0]), (new, own.to)]
        }
        for (original, own) in keys {
            #expect(own !== original && own.isSame(as: original))
            #expect(own.legacy === original.legacy && own.raw === original.raw && own.md5 === original.md5)
            #expect(own.pool(.acrh, encrypting: false) !== original.pool(.acrh, encrypting: false))
        }
    }

    @Test("a failed decryption wipes the partial plaintext it produced")
    func failedDecrypt() throws {
        let module = try CryptoModule(cipherKey: "enigma")
        var sealed = try module.encryptBinary([UInt8](repeating: 0x42, count: 100), scheme: .legacy)
        sealed[sealed.count - 17] ^= 0x55  // the last block's padding becomes invalid
        let sizes = Self.wipes {
            let error = expectPNError { () throws(PNCryptError) in
                try module.decryptBinary(sealed, reading: .only(.legacy))
            }
            #expect(error?.code == .wrongKeyOrCorrupt)
        }
        // The output buffer had room for the ciphertext and one block.
        #expect(sizes.contains(sealed.count + 16), "\(sizes)")
    }

    @Test("a received message's decrypted bytes are wiped once parsed")
    func messagePlaintext() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy, reading: .only(.legacy))
        let text = #"{"secret":"launch codes 0000"}"#
        let wire = try crypto.encrypt(JSONValue(parsing: text))
        let sizes = Self.wipes {
            let result = crypto.decrypt(wire, policy: .marker)
            #expect(result.message == (try? JSONValue(parsing: text)))
        }
        // The plaintext is decrypted into a scratch buffer with room for one more block; all of it is wiped.
        #expect(sizes.contains { $0 >= text.utf8.count && $0 <= text.utf8.count + 32 }, "\(sizes)")
        // Publishing wipes the JSON text it encrypted.
        let published = try Self.wipes { _ = try crypto.encrypt(JSONValue(parsing: text)) }
        #expect(published.contains(text.utf8.count), "\(published)")
    }

    @Test("a key ring wipes plaintext it rejects as not UTF-8")
    func rejectedPlaintext() throws {
        let module = try CryptoModule(cipherKey: "enigma")
        let sealed = try module.encryptBinary([0xFF, 0xFE, 0xFD], scheme: .legacy)
        let sizes = Self.wipes {
            let error = expectPNError { () throws(PNCryptError) in
                try KeyRing(keys: [module.key]).decrypt(sealed, reading: .only(.legacy), content: .message)
            }
            #expect(error == CryptoModule.decryptionFailed)
        }
        // The scratch the plaintext was decrypted into (input + 16 bytes) and the output buffer.
        #expect(sizes.contains(sealed.count + 16), "\(sizes)")
    }

    @Test("a stream decryptor wipes its plaintext buffer, finished or abandoned")
    func streamBuffers() throws {
        let key = try CipherKey("enigma")
        let file = try CryptoModule(key: key).encryptBinary([UInt8](repeating: 1, count: 5000), scheme: .acrh)
        // Abandoned after the first chunk (as when the output cannot be written).
        let abandoned = try Self.wipes {
            let stage = try StreamDecryptor(key: key)
            try withBytes(file.prefix(2000)) { (b) throws(PNCryptError) in try stage.update(b) { _ in } }
        }
        #expect(abandoned.contains { $0 >= 2000 }, "\(abandoned)")
        // Streamed from a file: the read buffer (plaintext when encrypting) is wiped too.
        let chunk = 4096
        let pumped = try Self.wipes {
            _ = try StreamPipeline.run(file, through: [StreamDecryptor(key: key)])
            let fds = try pipeFDs()
            defer { close(fds.read) }
            try withBytes([UInt8]("plaintext")) { (b) throws(PNCryptError) in
                try FileDescriptor(rawValue: fds.write).writeStream(b)
            }
            close(fds.write)
            try FileDescriptor(rawValue: fds.read).pump(chunkSize: chunk) { _ in }
        }
        #expect(pumped.contains(chunk), "\(pumped)")
    }

    @Test("bytes copied out of a non-contiguous collection are wiped after use")
    func copiedInput() throws {
        let module = try CryptoModule(cipherKey: "enigma")
        let plaintext = (0..<40).lazy.map { UInt8($0) }  // not contiguous: withBytes copies it
        let sizes = try Self.wipes { _ = try module.encryptBinary(plaintext, scheme: .legacy) }
        #expect(sizes.contains(40), "\(sizes)")
    }

    @Test("the writer wipes plaintext it leaves behind when a message outgrows stack memory")
    func writerWipesWhenGrowing() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .acrh)
        let message: JSONValue = ["text": .string(String(repeating: "secret ", count: 500))]
        let length = message.serialized().count
        let sizes = Mutex<[Int]>([])
        try Wiping.$observer.withValue({ buffer in
            let zero = buffer.allSatisfy { $0 == 0 }
            sizes.withLock { $0.append(zero ? buffer.count : -buffer.count) }
        }) {
            _ = try crypto.publishBody(message)
        }
        let wiped = sizes.withLock { $0 }
        #expect(wiped.allSatisfy { $0 >= 0 }, "a wiped buffer still held data: \(wiped)")
        #expect(wiped.contains(length), "\(wiped)")
        // Before growing, the stack memory held the text written so far: wiped too.
        #expect(wiped.contains { $0 > 0 && $0 < length && $0 <= JSONWriter.stackBytes }, "\(wiped)")
    }
}

#if canImport(Glibc)
import Glibc
#endif

private func pipeFDs() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw PNCryptError(.io, "pipe failed") }
    return (fds[0], fds[1])
}
