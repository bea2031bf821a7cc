import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// A write that fails is an I/O error, exit 74, on every writer: never a decryption failure
/// and never exit 0. Each command that writes runs with standard output on `/dev/full` (ENOSPC) and on a terminal
/// whose other side has closed (EIO), with `-o` past the file size limit (EFBIG, unprivileged), and with `-o` on a
/// full tmpfs (ENOSPC; the output and any temporary are gone).
/// EIO on `-o` is not produced: it needs a file system whose writes fail (a device-mapper `error` target, a FUSE
/// file system), which a test cannot count on having; `-o` and standard output share the write paths checked here.
@Suite(.tags(.cli)) struct CLIWriteErrorTests {
    /// One writer: a name, and its arguments given the folder of inputs (`Self.inputs`).
    struct Writer: Sendable {
        var name: String
        var arguments: @Sendable (URL) -> [String]
        /// It takes `-o` (diagnose and inspect write to standard output only).
        var takesOutput = true
    }

    /// Every command that writes data (binary ones with `-f`, for the terminal). Their outputs are hundreds of KiB
    /// or more, beyond what a full tmpfs of 128 KiB takes.
    static let writers: [Writer] = [
        Writer(name: "decrypt (the streaming text path)") { ["decrypt", "-k", "k", "-i", $0.path + "/text.ct"] },
        Writer(name: "decrypt --binary") { ["decrypt", "-k", "k", "--binary", "-f", $0.path + "/file.enc"] },
        Writer(name: "decrypt --binary --gunzip") {
            ["decrypt", "-k", "k", "--binary", "--gunzip", "-f", $0.path + "/gz.enc"]
        },
        Writer(name: "encrypt (text)") { ["encrypt", "-k", "k", "-i", $0.path + "/plain.txt"] },
        Writer(name: "encrypt --binary") { ["encrypt", "-k", "k", "--binary", "-f", $0.path + "/plain.txt"] },
        Writer(name: "gzip") { ["gzip", "-f", $0.path + "/plain.txt"] },
        Writer(name: "gunzip") { ["gunzip", $0.path + "/plain.gz"] },
        Writer(name: "message encrypt") { ["message", "encrypt", "-k", "k", "-i", $0.path + "/message.json"] },
        Writer(name: "message encrypt --gzip") {
            ["message", "encrypt", "-k", "k", "--gzip", "-f", "-i", $0.path + "/message.json"]
        },
        Writer(name: "message decrypt") { ["message", "decrypt", "-k", "k", "-i", $0.path + "/message.enc"] },
        Writer(name: "message encrypt --lines") {
            ["message", "encrypt", "--lines", "-k", "k", "-i", $0.path + "/lines.ndjson"]
        },
        Writer(name: "message decrypt --lines") {
            ["message", "decrypt", "--lines", "-k", "k", "-i", $0.path + "/lines.enc"]
        },
        Writer(name: "message decrypt --lines --on-error fail") {
            ["message", "decrypt", "--lines", "--on-error", "fail", "-k", "k", "-i", $0.path + "/lines.enc"]
        },
        Writer(name: "message rekey") {
            ["message", "rekey", "-k", "k", "--to-key", "j", "-i", $0.path + "/lines.enc"]
        },
        Writer(name: "history decrypt") {
            ["history", "decrypt", "-k", "k", "--max-input", "8M", "-i", $0.path + "/history.json"]
        },
        Writer(name: "history rekey") {
            ["history", "rekey", "-k", "k", "--to-key", "j", "--max-input", "8M", "-i", $0.path + "/history.json"]
        },
        Writer(name: "diagnose", arguments: { ["diagnose", "-k", "k", "-i", $0.path + "/small.enc"] },
               takesOutput: false),
        Writer(name: "diagnose --json", arguments: { ["diagnose", "--json", "-k", "k", "-i", $0.path + "/small.enc"] },
               takesOutput: false),
        Writer(name: "inspect", arguments: { ["inspect", "-k", "k", "-i", $0.path + "/text.ct"] },
               takesOutput: false),
        Writer(name: "inspect --binary", arguments: { ["inspect", "--binary", $0.path + "/file.enc"] },
               takesOutput: false),
    ]

    /// Makes the inputs in `dir`: 1 MiB of random Base64 text (it compresses little) as text, a file, gzip, a
    /// message, 400 lines and a history response, plaintext and encrypted with key "k".
    static func inputs(in dir: URL) throws {
        var random = SeededRandom(seed: 74)
        let text = Base64.encode((0..<(768 << 10)).map { _ in UInt8.random(in: 0...255, using: &random) })
        let path = { (name: String) in dir.appendingPathComponent(name).path }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path("plain.txt")))
        try Data(("\"" + text + "\"").utf8).write(to: URL(fileURLWithPath: path("message.json")))
        let line = "\"" + text.prefix(4000) + "\"\n"
        try Data(String(repeating: line, count: 400).utf8).write(to: URL(fileURLWithPath: path("lines.ndjson")))
        for arguments in [["encrypt", "-k", "k", "-i", path("plain.txt"), "-o", path("text.ct")],
                          ["encrypt", "-k", "k", "--binary", path("plain.txt"), "-o", path("file.enc")],
                          ["gzip", path("plain.txt"), "-o", path("plain.gz")],
                          ["encrypt", "-k", "k", "--binary", path("plain.gz"), "-o", path("gz.enc")],
                          ["message", "encrypt", "-k", "k", "-i", path("message.json"), "-o", path("message.enc")],
                          ["message", "encrypt", "-k", "k", "\"hello\"", "-o", path("small.enc")],
                          ["message", "encrypt", "-k", "k", "--lines", "-i", path("lines.ndjson"),
                           "-o", path("lines.enc")]] {
            let result = try CLI.run(arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let message = try String(contentsOfFile: path("message.enc"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try Data("[[\(message),\(message)],1,2]".utf8).write(to: URL(fileURLWithPath: path("history.json")))
    }

    /// Runs every writer with standard output on `stdout`; each must exit 74 with one line naming `reason`.
    static func expectIOError(stdout: ChildProcess.Stream, reason: String) throws {
        try withTemporaryDirectory { dir in
            try inputs(in: dir)
            for writer in writers {
                let run = try ChildProcess(CLI.binary.path, writer.arguments(dir), environment: CLI.environment(),
                                           stdin: .null, stdout: stdout)
                let (_, stderr) = try run.communicate([])
                let text = String(decoding: stderr, as: UTF8.self)
                let status = run.wait().status
                #expect(status == 74, "\(writer.name): exit \(status): \(text)")
                #expect(text.hasPrefix("pncrypt: ") && text.contains(reason), "\(writer.name): \(text)")
                #expect(!text.contains("decryption error"), "\(writer.name): \(text)")
            }
        }
    }

    @Test("ENOSPC on standard output (/dev/full): every writer exits 74 and says why", .tags(.slow), .notInQuickRun)
    func fullStandardOutput() throws {
        try Self.expectIOError(stdout: .file("/dev/full"), reason: "No space left on device")
    }

    @Test("EIO on standard output (a terminal whose other side has closed): every writer exits 74 and says why",
          .tags(.slow), .notInQuickRun)
    func hungUpTerminal() throws {
        // grantpt, unlockpt and ptsname need _XOPEN_SOURCE, which Swift's Glibc module does not define.
        func function<T>(_ name: String, _ type: T.Type) throws -> T {
            unsafeBitCast(try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)), to: type)
        }
        typealias Call = @convention(c) (Int32) -> Int32
        let ptsname = try function("ptsname", (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
        let (grantpt, unlockpt) = (try function("grantpt", Call.self), try function("unlockpt", Call.self))
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0)
        let name = String(cString: try #require(ptsname(master)))
        let terminal = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        close(master)
        try #require(terminal >= 0)
        defer { close(terminal) }
        // Writing there now fails with EIO, as the kernel does for a hung-up terminal.
        #expect(write(terminal, "x", 1) == -1 && errno == EIO)
        try Self.expectIOError(stdout: .descriptor(terminal), reason: "Input/output error")
    }

    /// A full disk without privileges: the file size limit (RLIMIT_FSIZE, `ulimit -f`) with SIGXFSZ ignored makes
    /// a write past it fail with EFBIG, as a full file system fails one with ENOSPC, on every machine (CI included,
    /// where the tmpfs test below may be skipped). 64 KiB: less than every writer's output. (The text path's
    /// temporary file of ciphertext, as large as its output, meets the limit first: the same failure, earlier.)
    @Test("-o past the file size limit (RLIMIT_FSIZE): every writer exits 74, the old file kept, nothing left")
    func fileSizeLimitOnOutputFile() throws {
        try withTemporaryDirectory { dir in
            try Self.inputs(in: dir)
            let output = dir.appendingPathComponent("out")
            let old = Array("the file that was there\n".utf8)
            for writer in Self.writers where writer.takesOutput {
                try Data(old).write(to: output)
                let before = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
                // 128 blocks of 512 bytes.
                let script = #"trap '' XFSZ; ulimit -f 128 && exec "$@""#
                let result = try runProcess("/bin/sh", ["-c", script, "sh", CLI.binary.path] + writer.arguments(dir)
                                            + ["-o", output.path], environment: CLI.environment())
                #expect(result.status == 74, "\(writer.name): exit \(result.status): \(result.stderr)")
                #expect(result.stderr.contains("File too large"), "\(writer.name): \(result.stderr)")
                #expect(Array(try Data(contentsOf: output)) == old, "\(writer.name): the old file changed")
                #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == before,
                        "\(writer.name)")
            }
        }
    }

    /// Root may mount a tmpfs (in a container, only with CAP_SYS_ADMIN).
    static let canMount: Bool = {
        guard let dir = try? temporaryDirectory() else { return false }
        defer { try? FileManager.default.removeItem(at: dir) }
        guard mount("tmpfs", dir.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        return umount(dir.path) == 0
    }()

    @Test("ENOSPC on -o (a full tmpfs): every writer exits 74, leaves nothing (skipped: no tmpfs can be mounted)",
          .enabled(if: canMount))
    func fullOutputFile() throws {
        try withTemporaryDirectory { dir in
            try Self.inputs(in: dir)
            let full = dir.appendingPathComponent("full")
            try FileManager.default.createDirectory(at: full, withIntermediateDirectories: false)
            try #require(mount("tmpfs", full.path, "tmpfs", 0, "size=128k") == 0)
            defer { umount(full.path) }
            for writer in Self.writers where writer.takesOutput {
                let output = full.appendingPathComponent("out").path
                let result = try CLI.run(writer.arguments(dir) + ["-o", output])
                #expect(result.status == 74, "\(writer.name): exit \(result.status): \(result.stderr)")
                #expect(result.stderr.contains("No space left on device"), "\(writer.name): \(result.stderr)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: full.path).isEmpty, "\(writer.name)")
            }
        }
    }
}
