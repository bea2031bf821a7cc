import Foundation
import Testing
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// What a run keeps while it works, looked at from outside while it waits for the rest of its standard input (a
/// pipe the test holds open, so no clock is involved): the key bytes it read are wiped once the key holds them
/// (docs/security.md, "What is wiped"), and the temporary files it makes of standard input (`decrypt --binary`)
/// and of decoded Base64 (`decrypt`, text) are 0600, unlinked, and hold ciphertext only ("Text mode of the command
/// line", "`--binary` with several keys").
@Suite(.tags(.cli)) struct CLIProcessMemoryTests {
    /// Starts `pncrypt arguments` with standard input a pipe, standard output and error into `dir`, and feeds it
    /// the first two chunks (2 MiB) of `input`: once `feed` returns the run has read all but a pipe's capacity (at
    /// most 64 KiB) of them, so it has handled its first chunk (it reads 1 MiB, or what a read gives, and writes
    /// what it made of it before it reads again) and waits for more.
    static func startFed(_ arguments: [String], input: [UInt8], in dir: URL,
                         environment: [String: String] = [:]) throws -> (run: ChildProcess, fed: Int) {
        let run = try ChildProcess(CLI.binary.path, arguments, environment: CLI.environment(environment),
                                   stdout: .file(dir.appendingPathComponent("stdout").path),
                                   stderr: .file(dir.appendingPathComponent("stderr").path))
        let fed = 2 * StreamPipeline.defaultChunkSize
        let capacity = Int(fcntl(run.input, GNU.F_GETPIPE_SZ))
        try #require(capacity > 0 && capacity < StreamPipeline.defaultChunkSize && fed < input.count,
                     "pipe capacity \(capacity), \(input.count) bytes of input")
        try run.feed(Array(input.prefix(fed)))
        return (run, fed)
    }

    /// Feeds the rest of `input`, closes it, and expects the run to succeed with `output` on standard output.
    static func finish(_ run: ChildProcess, input: [UInt8], from fed: Int, in dir: URL, output: [UInt8]) throws {
        try run.feed(Array(input.dropFirst(fed)))
        run.closeInput()
        let status = run.wait().status
        let stderr = try String(contentsOf: dir.appendingPathComponent("stderr"), encoding: .utf8)
        #expect(status == 0, "\(stderr)")
        #expect(Array(try Data(contentsOf: dir.appendingPathComponent("stdout"))) == output)
    }

    // MARK: - Temporary files

    /// The files process `pid` has open whose name starts with `prefix`, as `(/proc/<pid>/fd/<n>, the link)`.
    static func openFiles(of pid: pid_t, startingWith prefix: String) throws -> [(path: String, link: String)] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { fd in
            let path = "/proc/\(pid)/fd/\(fd)"
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
                  link.hasPrefix(prefix) else { return nil }
            return (path, link)
        }
    }

    /// Runs `arguments` on `input` (from standard input) with `TMPDIR` a folder of its own and, midway, checks the
    /// one temporary file it has open there: a regular file, mode 0600, no link left (no name in the folder, which
    /// is empty), holding the start of `ciphertext` and nothing else, at least `least` bytes of it.
    static func expectTemporary(_ arguments: [String], input: [UInt8], ciphertext: [UInt8], output: [UInt8],
                                least: Int) throws {
        try withTemporaryDirectory { dir in
            let folder = dir.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            let (run, fed) = try startFed(arguments, input: input, in: dir, environment: ["TMPDIR": folder.path])
            let open = try openFiles(of: run.pid, startingWith: folder.resolvingSymlinksInPath().path + "/")
            try #require(open.count == 1, "\(arguments): files open in TMPDIR: \(open.map(\.link))")
            #expect(open[0].link.hasSuffix(" (deleted)"), "\(open[0].link)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
            var info = stat()
            try #require(stat(open[0].path, &info) == 0)
            #expect(info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o7777 == 0o600 && info.st_nlink == 0,
                    "\(arguments): mode \(String(info.st_mode, radix: 8)), \(info.st_nlink) links")
            let held = Array(try Data(contentsOf: URL(fileURLWithPath: open[0].path)))
            #expect(held.count >= least, "\(arguments): \(held.count) bytes held")
            #expect(held == Array(ciphertext.prefix(held.count)), "\(arguments): the file holds other bytes")
            try finish(run, input: input, from: fed, in: dir, output: output)
        }
    }

    /// 3 MiB of random bytes (not text, so that a plaintext in the temporary file could not pass for ciphertext).
    static let plaintext: [UInt8] = {
        var random = SeededRandom(seed: 600)
        return (0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }()

    @Test("decrypt --binary copies standard input into an unlinked 0600 temporary file: ciphertext only")
    func standardInputCopy() throws {
        let ciphertext = try CryptoModule(key: CipherKey("k"), scheme: .acrh).encryptBinary(Self.plaintext)
        for keys in [["-k", "k"], ["-k", "k", "-k", "other"]] {
            try Self.expectTemporary(["decrypt", "--binary", "-f"] + keys, input: ciphertext, ciphertext: ciphertext,
                                     output: Self.plaintext, least: StreamPipeline.defaultChunkSize)
        }
    }

    @Test("decrypt (text) decodes the Base64 into an unlinked 0600 temporary file: ciphertext only")
    func decodedBase64() throws {
        let text = Base64.encode(Self.plaintext)
        let module = CryptoModule(key: try CipherKey("k"), scheme: .legacyRandomIV)
        let ciphertext = try module.encryptBinary(Array(text.utf8))
        try Self.expectTemporary(["decrypt", "-k", "k"], input: Array((Base64.encode(ciphertext) + "\n").utf8),
                                 ciphertext: ciphertext, output: Array(text.utf8),
                                 least: StreamPipeline.defaultChunkSize / 4 * 3 - 3)
    }

    // MARK: - Key bytes

    /// How many times `needle` occurs in the memory of process `pid` (which this process started, so may read),
    /// outside its initial stack (where the kernel keeps argv and the environment for the life of the process:
    /// docs/security.md names them as not wiped). Counts the readable mappings: heap, anonymous memory, data.
    static func occurrences(of needle: [UInt8], inMemoryOf pid: pid_t) throws -> Int {
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        let memory = open("/proc/\(pid)/mem", O_RDONLY)
        try #require(memory >= 0, "cannot open /proc/\(pid)/mem: errno \(errno)")
        defer { close(memory) }
        var count = 0
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("r"), !line.hasSuffix("[stack]"), !line.hasSuffix("[vvar]"),
                  !line.hasSuffix("[vsyscall]"), !line.hasSuffix("[vdso]") else { continue }
            let range = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard range.count == 2, range[1] - range[0] < 1 << 30 else { continue }
            var region = [UInt8](repeating: 0, count: Int(range[1] - range[0]))
            let n = region.withUnsafeMutableBytes { pread(memory, $0.baseAddress, $0.count, off_t(range[0])) }
            guard n > 0 else { continue }
            count += region.prefix(n).ranges(of: needle).count
        }
        return count
    }

    /// A key of 48 bytes that no other part of the run holds.
    static func secretKey(_ label: String) -> String {
        "wipe-test-\(label)-" + String(repeating: "q7Zx", count: 12).prefix(48 - 12 - label.count)
    }

    /// Each source whose bytes the CLI reads itself (a key file, standard-input-free; the environment's copy), with
    /// the run that reads it and then waits on standard input.
    static let keySources: [(name: String, arguments: @Sendable (URL) -> [String], environment: [String: String],
                             keys: [String])] = [
        ("--key-file", { ["decrypt", "--binary", "-f", "--key-file", $0.appendingPathComponent("key").path] }, [:],
         [secretKey("file")]),
        ("PNCRYPT_KEY", { _ in ["decrypt", "--binary", "-f"] }, ["PNCRYPT_KEY": secretKey("env")], [secretKey("env")]),
        ("--key-file and --to-key-file", {
            ["message", "rekey", "--key-file", $0.appendingPathComponent("key").path,
             "--to-key-file", $0.appendingPathComponent("to-key").path]
        }, [:], [secretKey("file"), secretKey("to-file")]),
        ("PNCRYPT_TO_KEY", { ["message", "rekey", "--key-file", $0.appendingPathComponent("key").path] },
         ["PNCRYPT_TO_KEY": secretKey("to-env")], [secretKey("file"), secretKey("to-env")]),
    ]

    @Test("the scan sees a copy left on the heap: -k's, which ArgumentParser keeps (docs/security.md: not wiped)")
    func scanSeesCopies() throws {
        try withTemporaryDirectory { dir in
            let key = Self.secretKey("argv")
            let input = try CryptoModule(key: CipherKey(key), scheme: .acrh).encryptBinary(Self.plaintext)
            let (run, _) = try Self.startFed(["decrypt", "--binary", "-f", "-k", key], input: input, in: dir)
            #expect(try Self.occurrences(of: Array(key.utf8), inMemoryOf: run.pid) >= 2)
            run.stop(with: SIGKILL)
        }
    }

    /// A shared object whose `free` keeps the memory as it is (it frees nothing), made with the system's C
    /// compiler: preloaded into a run, every buffer the run freed is still in its memory when the scan looks, so a
    /// buffer freed without its wipe is seen (with the system allocator, its memory may be reused before the scan).
    static let keepFreed: String = {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("pncrypt-keep-freed-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let source = dir.appendingPathComponent("keep-freed.c").path
        let library = dir.appendingPathComponent("keep-freed.so").path
        guard FileManager.default.createFile(atPath: source, contents: Data("void free(void *p) { (void)p; }\n".utf8))
        else { return "" }
        let cc = ProcessInfo.processInfo.environment["CC"] ?? "cc"
        let result = try? runProcess("/usr/bin/env", [cc, "-shared", "-fPIC", "-O2", "-o", library, source])
        return result?.status == 0 ? library : ""
    }()

    /// What this sees is the memory at that moment: a copy still alive, or freed (the run frees nothing while the
    /// test looks: `keepFreed` is preloaded, so a buffer freed unwiped keeps its bytes). A run without the
    /// preload is checked too: the system allocator's own behaviour is the one shipped.
    @Test("the key bytes the CLI read are wiped once the key holds them: one copy of each key in its memory",
          arguments: keySources.indices, [true, false])
    func keyBytesWiped(source: Int, keepingFreed: Bool) throws {
        let (name, arguments, given, keys) = Self.keySources[source]
        var environment = given
        if keepingFreed {
            try #require(!Self.keepFreed.isEmpty, "cannot build the keep-freed preload with the C compiler (CC, cc)")
            environment["LD_PRELOAD"] = Self.keepFreed
        }
        try withTemporaryDirectory { dir in
            try Data((Self.secretKey("file") + "\n").utf8).write(to: dir.appendingPathComponent("key"))
            try Data((Self.secretKey("to-file") + "\n").utf8).write(to: dir.appendingPathComponent("to-key"))
            // The input: ciphertext under the first key (decrypt), or lines of messages under it (rekey).
            let key = try CipherKey(keys[0])
            let input: [UInt8]
            let output: [UInt8]
            if arguments(dir)[0] == "decrypt" {
                input = try CryptoModule(key: key, scheme: .acrh).encryptBinary(Self.plaintext)
                output = Self.plaintext
            } else {
                let message = try MessageCrypto(keys: KeyRing(keys: [key]), scheme: .acrh)
                    .encrypt(JSONValue.string("a message"))
                let line = String(decoding: message.serialized(), as: UTF8.self) + "\n"
                input = Array(String(repeating: line, count: 40_000).utf8)
                output = []
            }
            let (run, fed) = try Self.startFed(arguments(dir), input: input, in: dir, environment: environment)
            for key in keys {
                // The key's own storage (`CipherKey`, wiped when released) holds it once; nothing else does.
                #expect(try Self.occurrences(of: Array(key.utf8), inMemoryOf: run.pid) == 1,
                        "\(name), freed memory kept: \(keepingFreed): \(key)")
            }
            try run.feed(Array(input.dropFirst(fed)))
            run.closeInput()
            let status = run.wait().status
            let stderr = try String(contentsOf: dir.appendingPathComponent("stderr"), encoding: .utf8)
            #expect(status == 0, "\(name): \(stderr)")
            if !output.isEmpty {
                #expect(Array(try Data(contentsOf: dir.appendingPathComponent("stdout"))) == output)
            }
        }
    }
}
