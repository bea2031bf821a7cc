import ArgumentParser
import Foundation
import PNCrypt

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say what ciphertext is, without a key.",
        discussion: """
        Prints the PNED header fields (version, cryptor id, metadata length, IV in hex) and the ciphertext size, \
        or "no header: legacy data, N blocks". Exits 1 with the reason when the input cannot be ciphertext \
        (not Base64, not whole blocks, header cut short, unknown cryptor). With a key (--key, --key-file or \
        PNCRYPT_KEY) it also says whether the plaintext is gzip; nothing of the plaintext is printed.

        Example:
          pncrypt inspect UE5FRAFBQ1JIEAAAAAAAAAAAAAAAAAAAAABbjKTFb0xLzByXntZkq2G7lHIGg5ZdQd73GwVG6o3ftw==
        """)

    @OptionGroup var input: InputOptions

    @Flag(help: "The input is a raw file (legacy random-IV or acrh format), not Base64.")
    var binary = false

    /// Optional here: with a key (--key, --key-file or PNCRYPT_KEY), also say whether the plaintext is gzip.
    @OptionGroup var keys: KeyOptions

    func run() throws {
        try CLI.run {
            let prefix: [UInt8]
            let inspection: Inspection
            if binary, input.input != nil {
                // Only the start is read: files may be far larger than memory.
                (prefix, inspection) = try input.withHandle { handle in
                    let prefix = Array(try handle.read(upToCount: CryptorHeader.maximumFixedLength + 0xFFFF + 64) ?? Data())
                    let size = try handle.seekToEnd()
                    return (prefix, try Self.inspect(prefix, totalLength: Int(size)))
                }
            } else {
                let raw = try input.readAll()
                prefix = binary ? raw : try Self.decodeUnlessGzip(raw)
                inspection = try Self.inspect(prefix, totalLength: prefix.count)
            }
            var lines = inspection.lines
            if let key = try keys.resolveIfGiven() {
                lines.append(try Self.describePlaintext(prefix, key: key, binary: binary))
            }
            print(lines.joined(separator: "\n"))
        }
    }

    /// Text input is Base64, unless it is gzip data given by mistake: then say that instead of "not Base64".
    static func decodeUnlessGzip(_ raw: [UInt8]) throws -> [UInt8] {
        if CompressionFormat.detect(raw) == .gzip { return raw }
        return try Base64.decode(raw)
    }

    static func inspect(_ prefix: [UInt8], totalLength: Int) throws -> Inspection {
        if CompressionFormat.detect(prefix) == .gzip {
            throw CLIFailure(1, "not ciphertext: gzip data (\(totalLength) bytes); decompress it with pncrypt gunzip")
        }
        return try Inspection(prefix: prefix, totalLength: totalLength)
    }

    /// Whether the start of the plaintext is gzip, from the first blocks (the padding is not checked here).
    static func describePlaintext(_ prefix: [UInt8], key: CipherKey, binary: Bool) throws -> String {
        var start: [UInt8] = []
        if binary {
            let decryptor = try StreamDecryptor(key: key)
            try withExtendedLifetime(prefix) {
                try prefix.withUnsafeBytes { try decryptor.update($0) { start += $0 } }
            }
        } else {
            start = try CryptoModule(key: key).decryptBinary(prefix)
        }
        defer { _ = start.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        switch CompressionFormat.detect(start) {
        case .gzip?: return "plaintext: gzip data (decrypt with --binary --gunzip)"
        case .zlib?: return "plaintext: zlib data"
        default: return "plaintext: not gzip"
        }
    }
}
