import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

// `inspect` reads text input (Base64) in chunks and keeps only its start: memory stays bounded whatever the size
// (README "Bounded"); `--binary` reads only the start of the file.

/// The PNED header of an `acrh` ciphertext with a fixed IV (version 1, cryptor `ACRH`, 16 bytes of metadata).
private let header: [UInt8] = Array("PNED".utf8) + [1] + Array("ACRH".utf8) + [16] + Array(0..<16)

/// Writes `ciphertext` blocks of zeros after `header` (nil: none), as Base64 text to `text` and, when `binary` is
/// given, as a sparse binary file there; returns the decoded length. The text is written 1 MiB at a time: zeros
/// are `A` in Base64, so everything after the first 3-byte-aligned bytes is a run of `A`.
private func ciphertextFiles(blocks: Int, header: [UInt8]?, text: URL, binary: URL? = nil) throws -> Int {
    let start = header ?? []
    let length = start.count + 16 * blocks
    try #require(length % 3 == 0, "no Base64 padding: the text is the aligned start and a run of A")
    var aligned = start
    while aligned.count % 3 != 0 { aligned.append(0) }
    _ = FileManager.default.createFile(atPath: text.path, contents: nil)
    let file = try FileHandle(forWritingTo: text)
    try file.write(contentsOf: Base64.encodeBytes(aligned))
    var left = (length - aligned.count) / 3 * 4
    let run = [UInt8](repeating: UInt8(ascii: "A"), count: 1 << 20)
    while left > 0 {
        let n = min(left, run.count)
        try file.write(contentsOf: run[0..<n])
        left -= n
    }
    try file.write(contentsOf: [0x0A])
    try file.close()
    if let binary {
        _ = FileManager.default.createFile(atPath: binary.path, contents: Data(aligned))
        let handle = try FileHandle(forWritingTo: binary)
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()
    }
    return length
}

@Suite(.tags(.cli)) struct CLIInspectBoundedTests {
    @Test("a 300 MB Base64 input inspected under 48 MiB peak RSS, as --binary says (skipped under a sanitizer)",
          .tags(.stress), .notInQuickRun, .notUnderSanitizer)
    func boundedMemory() throws {
        try withTemporaryDirectory { dir in
            let text = dir.appendingPathComponent("big.b64")
            let binary = dir.appendingPathComponent("big.bin")
            // 26 + 16 * blocks is a multiple of 3 when blocks is 1 more than one.
            let blocks = 14_062_501
            let length = try ciphertextFiles(blocks: blocks, header: header, text: text, binary: binary)
            let run = try CLI.peakRSS(["inspect", "--key", "big"], input: text.path)
            #expect(run.status == 0)
            #expect(run.samples > 10, "the run was sampled while it ran")
            #expect(run.bytes < 48 << 20, "peak RSS \(run.bytes >> 20) MiB")
            let shown = try CLI.run(["inspect", "--key", "big", "-i", text.path])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.text.contains("ciphertext: \(length - header.count) bytes, \(blocks) blocks"),
                    "\(shown.text)")
            // The same lines as for the decoded bytes in a file, the plaintext's first blocks included.
            let file = try CLI.run(["inspect", "--binary", "--key", "big", binary.path])
            #expect(file.status == 0, "\(file.stderr)")
            #expect(shown.stdout == file.stdout)
        }
    }

    @Test("large text without a header: the lengths, and with a key a one-line reason the plaintext is not read")
    func largeHeaderless() throws {
        try withTemporaryDirectory { dir in
            let text = dir.appendingPathComponent("big.b64")
            // 1.5 MiB decoded: over what inspect keeps of text input.
            let length = try ciphertextFiles(blocks: 3 << 15, header: nil, text: text)
            let shown = try CLI.run(["inspect", "-i", text.path])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.text.contains("legacy data, \(length / 16) blocks"), "\(shown.text)")
            let keyed = try CLI.run(["inspect", "--key", "k", "-i", text.path])
            #expect(keyed.status == 0, "\(keyed.stderr)")
            #expect(keyed.text.contains("plaintext: not examined: without a PNED header, text input over 1048576"),
                    "\(keyed.text)")
            // Bad Base64 far past the kept start is still found, with its offset in the whole text.
            let handle = try FileHandle(forWritingTo: text)
            try handle.seekToEnd()
            try handle.write(contentsOf: Array("!!!!\n".utf8))
            try handle.close()
            let bad = try CLI.run(["inspect", "-i", text.path])
            #expect(bad.status == 1)
            #expect(bad.stderr.contains("not Base64: unexpected character '!' at offset"), "\(bad.stderr)")
        }
    }
}
