import Foundation
import Testing

/// One output path: the CLI (`Sources/pncrypt`) and the C library (`Sources/CPNCrypt`) open, commit and
/// abandon their output files, install signal cleanup and read their input files through the files layer
/// (`Sources/PNCryptFiles`), and hold none of that code themselves. (What they share is tested per shell:
/// CLIOutputFileTests and CLICrashSafetyTests for the CLI, `test_files` and `test_fifo_input` in Tests/C.)
@Suite struct FilesLayerTests {
    /// The POSIX calls that make output appear whole (temporaries, links, renames, access, flushing), clean up
    /// on signals, and read input by offset (swift-system's `read(fromAbsoluteOffset:into:)`, its `pread`).
    static let filesCalls = ["renameat", "linkat", "unlinkat", "unlink", "fchmod", "fchown", "fsync", "mkstemp",
                             "umask", "sigaction", "sigaltstack", "read(fromAbsoluteOffset:", "O_TMPFILE",
                             "faccessat"]

    static func sources(_ folder: String) throws -> [(name: String, text: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/\(folder)").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".swift") }
        return try names.sorted().map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The files calls made in `text` (a name followed by `(`, a call spelled with its label, or the flag), outside
    /// comments.
    static func calls(in text: String) -> [String] {
        var found: [String] = []
        for line in text.split(separator: "\n") {
            let code = line.components(separatedBy: "//")[0]
            for name in filesCalls {
                let pattern = name.hasPrefix("O_") ? "\\b\(name)\\b"
                    : name.contains("(") ? "\\b" + NSRegularExpression.escapedPattern(for: name) : "\\b\(name)\\s*\\("
                if code.range(of: pattern, options: .regularExpression) != nil { found.append(name) }
            }
        }
        return found
    }

    @Test("the shells make no output-commit, signal-cleanup or input-reading calls of their own", arguments: [
        "pncrypt", "CPNCrypt",
    ])
    func shellsAreThin(folder: String) throws {
        for (name, text) in try Self.sources(folder) {
            #expect(Self.calls(in: text).isEmpty, "\(folder)/\(name) calls \(Self.calls(in: text))")
        }
    }

    @Test("the files layer is where those calls are")
    func filesLayerHoldsThem() throws {
        let found = Set(try Self.sources("PNCryptFiles").flatMap { Self.calls(in: $0.text) })
        #expect(found.isSuperset(of: ["renameat", "linkat", "unlinkat", "fchmod", "fchown", "fsync", "sigaction",
                                      "read(fromAbsoluteOffset:", "O_TMPFILE"]), "\(found)")
    }
}
