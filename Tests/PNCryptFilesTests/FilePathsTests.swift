import Foundation
import Testing
import PNCryptFiles
import PNCryptTestSupport
import SystemPackage

/// Paths as bytes (`FilePaths.swift`): a path keeps the bytes it was given, a trailing `/` its meaning, and a
/// message shows the bytes that are not UTF-8 as `\xNN`.
@Suite struct FilePathsTests {
    @Test("a path is the bytes given, those that are not UTF-8 included")
    func bytesKept() {
        for bytes: [UInt8] in [Array("in.txt".utf8), [0x69, 0x6E, 0xFE], [0x2F, 0x74, 0xFF, 0x2F, 0x61], [0x2F]] {
            #expect(FilePath(bytes: bytes).bytes == bytes)
        }
        // Two names that decode to one string are two paths.
        #expect(FilePath(bytes: [0x61, 0xFE]) != FilePath(bytes: [0x61, 0xFF]))
    }

    @Test("a trailing / still names a folder: it is kept as a last .")
    func trailingSeparator() {
        #expect(FilePath(bytes: Array("out/".utf8)).bytes == Array("out/.".utf8))
        #expect(FilePath(bytes: Array("/".utf8)).bytes == Array("/".utf8))
        #expect(FilePath(bytes: Array("a/b".utf8)).bytes == Array("a/b".utf8))
        #expect(FilePath(bytes: Array("out/".utf8)).shown == "out/")
    }

    @Test("a message shows bytes that are not UTF-8 as \\xNN, and never U+FFFD")
    func shown() {
        #expect(FilePath(bytes: [0x69, 0x6E, 0xFE, 0x2E, 0x74]).shown == #"in\xfe.t"#)
        #expect(FilePath(bytes: Array("café/ü".utf8)).shown == "café/ü")
        #expect(FilePath(bytes: Array("\u{FFFD}".utf8)).shown == "\u{FFFD}")
        // A cut sequence is bytes that are not UTF-8; control characters are left for the terminal's escaper.
        #expect(FilePath(bytes: [0x61, 0xC3]).shown == #"a\xc3"#)
        #expect(FilePath(bytes: [0x61, 0x1B, 0x62]).shown == "a\u{1B}b")
        #expect(ShownBytes.text([0xC2, 0x9B]) == "\u{9B}")
    }

    @Test("an input file is opened by its bytes, a missing one named escaped")
    func inputByBytes() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = Array(dir.path.utf8) + [0x2F]
        let decoy = dir.appendingPathComponent("a\u{FFFD}")
        try Data("decoy".utf8).write(to: decoy)
        #expect(throws: FileError.self) { try InputFiles.open(FilePath(bytes: folder + [0x61, 0xFE])) }
        do {
            _ = try InputFiles.open(FilePath(bytes: folder + [0x61, 0xFE]))
        } catch {
            #expect(error.kind == .missing && error.message.hasSuffix(#"/a\xfe' does not exist"#), "\(error.message)")
        }
    }
}
