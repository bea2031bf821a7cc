import ArgumentParser
import PNCrypt
import PNCryptFiles
import SystemPackage

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Say what ciphertext is, without a key.",
        discussion: """
        Prints the PNED header fields (version, cryptor id, metadata length, IV in hex) and the ciphertext size; \
        for data without a header, what it would be if it is pncrypt or PubNub ciphertext (nothing without a \
        key can tell whether it is). Exits 1 with the reason when the input cannot be ciphertext (not Base64, \
        not whole blocks, header cut short, unknown cryptor). With a key (--key, --key-file or PNCRYPT_KEY; \
        never asked for) it also says whether the plaintext is gzip; nothing of the plaintext is printed. Without \
        --binary the plaintext is read as text, as decrypt reads it, whether the input is Base64 or raw \
        ciphertext (a file given with -i that starts with a PNED header or holds a byte Base64 never has): a \
        binary plaintext (gzip) is described with --binary.

        Any size is read in bounded memory: --binary reads the file's start and length; Base64 text is decoded \
        in chunks and only its first 1 MiB decoded is kept. With a key, larger text is described from its first \
        blocks when it has a PNED header; without one, it is not read for the plaintext (use --binary).

        Examples:
          pncrypt inspect q/xJqqN6qbiZMXYmiQC1Fw==
          pncrypt inspect --binary photo.enc
        """)

    @OptionGroup var input: DataInputOptions

    @Flag(help: "The input is a raw file (legacy random-IV or acrh format), not Base64.")
    var binary = false

    /// Optional here: with a key (--key, --key-file or PNCRYPT_KEY), also say whether the plaintext is gzip.
    @OptionGroup var keys: KeyOptions

    func run() throws {
        if !binary { try refuseFileNameAsText(input.argument) }
        let data = try input.resolved(binary: binary)
        // Detection decides the input's encoding only (raw ciphertext or Base64): either way the plaintext is
        // described as text unless --binary.
        let raw = binary ? nil : try data.rawCiphertextReason()
        let prefix: [UInt8]
        let totalLength: Int
        let inspection: Inspection
        if binary || raw != nil {
            // Only the start is read: files may be far larger than memory (raw ciphertext read as text keeps what
            // Base64 text keeps).
            let source = try InputSource(data)
            prefix = try source.read(at: 0, count: binary ? CryptorHeader.maximumFixedLength + 0xFFFF + 64
                                                          : Self.keptLength)
            totalLength = source.length
            inspection = try Self.inspect(prefix, totalLength: totalLength)
        } else {
            // Decoded in chunks: only the first `keptLength` bytes are kept, whatever the input's size.
            let decoded = try Self.decodeText(data)
            (prefix, totalLength) = decoded
            inspection = try Self.inspect(prefix, totalLength: totalLength)
        }
        var lines = inspection.lines
        if inspection.header == nil, Self.looksLikeText(prefix) {
            lines.append("the bytes look like plain text (UTF-8, no control characters): probably not encrypted")
        }
        if let key = try keys.resolveIfGiven(input: data) {
            if binary || totalLength <= prefix.count {
                do {
                    lines.append(try Self.describePlaintext(prefix, key: key, binary: binary))
                } catch let error as PNCryptError where error == CryptoModule.decryptionFailed {
                    throw CLIFailure(error).hinted(raw.map { data.rawAsTextHint($0) })
                }
            } else if inspection.header != nil {
                // Only the start is kept: its first blocks are read as a file's are.
                lines.append(try Self.describePlaintext(prefix, key: key, binary: true))
            } else {
                lines.append("plaintext: not examined: without a PNED header, text input over "
                             + "\(Self.keptLength.counting("byte")) decoded is not read for it (the readings "
                             + "differ from the first block on); decode it to a file and use --binary")
            }
        }
        try FileDescriptor.standardOutput.printLine(lines.joined(separator: "\n"))
    }

    /// The decoded bytes text input keeps: all of a message or a small file (the plaintext description reads them
    /// all), only the start of a larger one (the header and first blocks; the rest is counted, not kept).
    static let keptLength = 1 << 20

    /// Text input is Base64, unless it is gzip data given by mistake: then say that instead of "not Base64" (the
    /// prefix is then the raw start). Read and decoded in 64 KiB chunks: memory stays bounded for any input size;
    /// errors are `Base64.decode`'s for the whole text.
    static func decodeText(_ data: Input) throws -> (prefix: [UInt8], totalLength: Int) {
        var head: [UInt8] = []
        var kept: [UInt8] = []
        var total = 0
        var gzip: Bool?
        let decoder = Base64StreamDecoder()
        let sink: ByteSink = { (bytes) throws(PNCryptError) in
            total += bytes.count
            if kept.count < keptLength { kept += bytes.prefix(keptLength - kept.count) }
        }
        // The first three bytes decide whether the input is gzip; until then they wait in `head`.
        func feed(_ chunk: UnsafeRawBufferPointer) throws {
            switch gzip {
            case true?:
                total += chunk.count
            case false?:
                try decoder.update(chunk, sink)
            case nil:
                head += chunk
                guard head.count >= 3 else { return }
                gzip = CompressionFormat.detect(head) == .gzip
                if gzip == true {
                    total = head.count
                    kept = head
                } else {
                    try withExtendedLifetime(head) { try head.withUnsafeBytes { try decoder.update($0, sink) } }
                }
                head = []
            }
        }
        if let text = data.text {
            let bytes = Array(text.utf8)
            try withExtendedLifetime(bytes) { try bytes.withUnsafeBytes { try feed($0) } }
        } else {
            try data.withDescriptor { fd in
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                try chunk.withUnsafeMutableBytes { buffer in
                    while true {
                        let n = try fd.read(into: buffer, naming: data.describe)
                        if n == 0 { break }
                        try feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                    }
                }
            }
        }
        if gzip == nil {
            // Fewer than three bytes in all.
            if CompressionFormat.detect(head) == .gzip { return (head, head.count) }
            try withExtendedLifetime(head) { try head.withUnsafeBytes { try decoder.update($0, sink) } }
        }
        if gzip != true { try decoder.finish(sink) }
        return (kept, total)
    }

    static func inspect(_ prefix: [UInt8], totalLength: Int) throws -> Inspection {
        if CompressionFormat.detect(prefix) == .gzip {
            throw CLIFailure(.dataFailure,
                             "not ciphertext: gzip data (\(totalLength) bytes); decompress it with pncrypt gunzip")
        }
        let inspection: Inspection
        do throws(PNCryptError) {
            inspection = try Inspection(prefix: prefix, totalLength: totalLength)
        } catch {
            // No header and a length no scheme writes: nothing was decrypted, so no decryption error.
            guard error.code == .wrongKeyOrCorrupt, !prefix.starts(with: CryptorHeader.sentinel) else { throw error }
            if totalLength == 0 { throw CLIFailure(.dataFailure, "not ciphertext: the input is empty") }
            let what = looksLikeText(prefix) ? "; the bytes look like plain text" : ""
            throw CLIFailure(.dataFailure, "not ciphertext: the input does not look encrypted (no PNED header, and "
                             + "\(totalLength.counting("byte")) is not a whole number of 16-byte blocks)\(what)")
        }
        return inspection
    }

    /// Whether the first bytes are UTF-8 text without control characters other than tab and line ends (random
    /// ciphertext almost never is: each byte would have to be printable).
    static func looksLikeText(_ prefix: [UInt8]) -> Bool {
        let start = prefix.prefix(4096)
        // A character cut at the end of a long prefix is not a reason to say no.
        let cuts = start.count == 4096 ? 0...3 : 0...0
        guard !start.isEmpty,
              let text = cuts.lazy.compactMap({ String(validating: start.dropLast($0), as: UTF8.self) }).first else {
            return false
        }
        let allowed: Set<Unicode.Scalar> = ["\t", "\n", "\r"]
        return text.unicodeScalars.allSatisfy { ($0.value >= 0x20 && $0.value != 0x7F) || allowed.contains($0) }
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
            // Text, as decrypt reads it without --binary: a reading qualifies only with valid padding and UTF-8
            // (reading as bytes when text fails would answer whether the padding is valid: a padding oracle). A
            // gzip plaintext is binary: inspect --binary describes it.
            start = try KeyRing(keys: [key]).decrypt(prefix, content: .text).plaintext
        }
        defer { wipe(&start) }
        switch CompressionFormat.detect(start) {
        case .gzip?: return "plaintext: gzip data (decrypt with --binary --gunzip)"
        case .zlib?: return "plaintext: zlib data"
        default:
            // A message's plaintext: name the serializers that write exactly these bytes (nothing of it is printed).
            guard !binary, let writers = JSONStyle.writersFinding(start) else { return "plaintext: not gzip" }
            return "plaintext: not gzip; " + writers
        }
    }
}
