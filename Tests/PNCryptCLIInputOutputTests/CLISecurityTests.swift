import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// What `-o` and the key options promise a careful user, checked by running
/// the built binary: the temporary file cannot be redirected or shared, the output keeps its permissions, links
/// are followed, devices and FIFOs are written through, every write failure and signal leaves nothing behind.
@Suite(.tags(.cli)) struct CLISecurityTests {
    static let isRoot = getuid() == 0
    /// Some user other than the one running the tests, for files "someone else" owns.
    static let nobody: uid_t = 65534

    /// Runs `pncrypt arguments...` through `/bin/sh -c script`, where the script ends with `exec "$@"`.
    static func shell(_ script: String, _ arguments: [String], stdin: [UInt8] = [], directory: URL,
                      environment: [String: String] = [:]) throws -> CLI.Result {
        try CLI.run(["-c", script, "sh", CLI.binary.path] + arguments, stdin: stdin, environment: environment,
                    directory: directory, executable: "/bin/sh")
    }

    /// The text `encrypt --key k` wrote to `url`, decrypted.
    static func opened(_ url: URL) throws -> [UInt8] {
        try CryptoModule(cipherKey: "k").decryptBytes(try String(contentsOf: url, encoding: .utf8))
    }

    /// Process ids no process has now: the names of temporaries the old sweep considered dead.
    static func deadPIDs() -> [Int32] {
        (4_000_000..<4_000_100).filter { kill($0, 0) == -1 && errno == ESRCH }.prefix(3).map { $0 }
    }

    static func permissions(_ path: String) -> mode_t? { CLI.status(path).map { $0.st_mode & 0o7777 } }

    // MARK: - The temporary file

    @Test("a symbolic link planted where a temporary could go is not followed, not removed; nothing outside changes")
    func plantedSymlink() throws {
        try withTemporaryDirectories { dir, outside in
            let victim = outside.appendingPathComponent("victim")
            try Data("precious".utf8).write(to: victim)
            let before = try #require(CLI.status(victim.path))
            // Links under every name a run could have predicted: dead pids, and (planted by the shell that then
            // becomes pncrypt, so the pid is the same) the running pid itself.
            var planted = Self.deadPIDs().map { ".OUT.pncrypt-\($0).tmp" }
            for name in planted {
                try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent(name).path,
                                                           withDestinationPath: victim.path)
            }
            let result = try Self.shell("ln -s \"$VICTIM\" .OUT.pncrypt-$$.tmp && ls -A > planted && exec \"$@\"",
                                        ["encrypt", "--key", "k", "-o", "OUT", "hello"], directory: dir,
                                        environment: ["VICTIM": victim.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.opened(dir.appendingPathComponent("OUT")) == [UInt8]("hello"))
            planted += try String(contentsOf: dir.appendingPathComponent("planted"), encoding: .utf8)
                .split(separator: "\n").map(String.init).filter { $0.hasSuffix(".tmp") && !planted.contains($0) }
            #expect(planted.count == Self.deadPIDs().count + 1)
            // Every planted link is still there and still points at the victim, which is unchanged.
            for name in planted {
                let link = dir.appendingPathComponent(name).path
                #expect(CLI.status(link).map { $0.st_mode & S_IFMT == S_IFLNK } == true, "\(name) was removed")
                #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == victim.path)
            }
            #expect(try Data(contentsOf: victim) == Data("precious".utf8))
            let after = try #require(CLI.status(victim.path))
            #expect(after.st_ino == before.st_ino && after.st_size == before.st_size)
            #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["victim"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
                    == (["OUT", "planted"] + planted).sorted())
        }
    }

    @Test("a foreign file planted where a temporary could go is left alone, its content and owner unchanged")
    func plantedForeignFile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = """
            echo 'not yours' > .OUT.pncrypt-$$.tmp && chmod 644 .OUT.pncrypt-$$.tmp && \
            { [ "$(id -u)" != 0 ] || chown \(Self.nobody):\(Self.nobody) .OUT.pncrypt-$$.tmp; } && exec "$@"
            """
        var planted: [String] = []
        for pid in Self.deadPIDs() {
            let name = ".OUT.pncrypt-\(pid).tmp"
            try Data("not yours\n".utf8).write(to: dir.appendingPathComponent(name))
            if Self.isRoot { chown(dir.appendingPathComponent(name).path, Self.nobody, Self.nobody) }
            planted.append(name)
        }
        let result = try Self.shell(script, ["encrypt", "--key", "k", "-o", "OUT", "hello"], directory: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.opened(dir.appendingPathComponent("OUT")) == [UInt8]("hello"))
        let foreign = try CLI.temporaries(of: "OUT", in: dir)
        #expect(foreign.count == planted.count + 1, "a planted file was removed: \(foreign)")
        for name in foreign {
            let path = dir.appendingPathComponent(name)
            #expect(try Data(contentsOf: path) == Data("not yours\n".utf8), "\(name)")
            if Self.isRoot { #expect(CLI.status(path.path)?.st_uid == Self.nobody) }
        }
    }

    // MARK: - Permissions

    @Test("an existing output keeps its permission bits (and owner, as root)", arguments: [0o600, 0o640, 0o604, 0o755])
    func existingOutputKeepsPermissions(mode: Int) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("OUT")
        try Data("old".utf8).write(to: out)
        chmod(out.path, mode_t(mode))
        if Self.isRoot { chown(out.path, Self.nobody, Self.nobody) }
        let result = try Self.shell("umask 022 && exec \"$@\"", ["encrypt", "--key", "k", "-o", "OUT", "hello"],
                                    directory: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.opened(out) == [UInt8]("hello"))
        #expect(Self.permissions(out.path) == mode_t(mode),
                "mode \(String(Self.permissions(out.path) ?? 0, radix: 8)), expected \(String(mode, radix: 8))")
        if Self.isRoot {
            #expect(CLI.status(out.path)?.st_uid == Self.nobody)
            #expect(CLI.status(out.path)?.st_gid == Self.nobody)
        }
    }

    @Test("a new output gets 0600 minus the umask, as the C library's", arguments: [(0o022, 0o600), (0o027, 0o600),
                                                                                      (0o077, 0o600), (0o002, 0o600),
                                                                                      (0o277, 0o400)])
    func newOutputGetsUmaskDefault(umask: Int, expected: Int) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = "umask \(String(umask, radix: 8)) && exec \"$@\""
        for arguments in [["encrypt", "--key", "k", "-o", "OUT", "hello"],
                          ["encrypt", "--key", "k", "--binary", "-o", "BIN"],
                          ["decrypt", "--key", "enigma", "--scheme", "legacy", "-o", "PLAIN",
                           "q/xJqqN6qbiZMXYmiQC1Fw=="],
                          ["gzip", "-o", "GZ"]] {
            let result = try Self.shell(script, arguments, stdin: [1, 2, 3], directory: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let path = dir.appendingPathComponent(arguments[arguments.firstIndex(of: "-o")! + 1]).path
            #expect(Self.permissions(path) == mode_t(expected), "\(arguments)")
        }
    }

    // MARK: - What -o names

    @Test("-o on a symbolic link replaces what it points to and keeps the link (chains and dangling links too)")
    func symlinkOutput() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let real = dir.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"),
                                                withIntermediateDirectories: true)
        try Data("old".utf8).write(to: real)
        chmod(real.path, 0o640)
        let links = ["link": "real", "sub/chain": "../link", "dangling": "sub/made"]
        for (name, destination) in links {
            try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent(name).path,
                                                       withDestinationPath: destination)
        }
        for (name, target, text) in [("link", "real", "one"), ("sub/chain", "real", "two"),
                                     ("dangling", "sub/made", "three")] {
            let result = try CLI.run(["encrypt", "--key", "k", "-o", name, text], directory: dir)
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(try Self.opened(dir.appendingPathComponent(target)) == [UInt8](text.utf8), "\(name)")
        }
        for (name, destination) in links {
            let path = dir.appendingPathComponent(name).path
            #expect(CLI.status(path).map { $0.st_mode & S_IFMT == S_IFLNK } == true, "\(name) was replaced")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == destination)
        }
        #expect(Self.permissions(real.path) == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
                == ["dangling", "link", "real", "sub"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("sub").path).sorted()
                == ["chain", "made"])
    }

    /// Reads a FIFO to its end on another thread.
    final class FIFOReader: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)
        private let keep: String

        /// Starts reading `path`; `keep` is a hard link to the same FIFO, to unblock the reader if `path` is
        /// replaced before any writer opens it.
        init(_ path: String, keep: String) throws {
            self.keep = keep
            try #require(link(path, keep) == 0)
            Thread.detachNewThread { [self] in
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                if fd >= 0 {
                    data = FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
                }
                done.signal()
            }
        }

        /// What was read, once the writer (which has exited) is gone. A reader still waiting after 30 s never got a
        /// writer: it is unblocked and nothing is returned.
        func finish() -> Data? {
            if done.wait(timeout: .now() + 30) == .timedOut {
                let fd = open(keep, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if fd >= 0 { close(fd) }
                done.wait()
                return nil
            }
            return data
        }
    }

    @Test("-o on a FIFO writes into it (a reader gets the bytes, only verified ones), and it stays a FIFO")
    func fifoOutput() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)

        let reader = try FIFOReader(fifo, keep: dir.appendingPathComponent("keep").path)
        let result = try CLI.run(["encrypt", "--key", "k", "-o", "fifo", "hello"], directory: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let sealed = try #require(reader.finish(), "the reader never got a writer: the FIFO was replaced")
        #expect(try CryptoModule(cipherKey: "k").decryptBytes(String(decoding: sealed, as: UTF8.self))
                == [UInt8]("hello"))
        #expect(CLI.status(fifo).map { $0.st_mode & S_IFMT == S_IFIFO } == true)

        // 2 MiB whose last block is corrupt: the plaintext is held back, the reader gets nothing.
        var bad = try CryptoModule(cipherKey: "k").encryptBinary([UInt8](repeating: 7, count: 2 << 20),
                                                           scheme: .legacyRandomIV)
        bad[bad.count - 17] ^= 0x10
        try Data(bad).write(to: dir.appendingPathComponent("bad.bin"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("keep"))
        let second = try FIFOReader(fifo, keep: dir.appendingPathComponent("keep").path)
        let failed = try CLI.run(["decrypt", "--key", "k", "--binary", "-i", "bad.bin", "-o", "fifo"], directory: dir)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(second.finish() == Data(), "unverified plaintext reached the FIFO")
        #expect(CLI.status(fifo).map { $0.st_mode & S_IFMT == S_IFIFO } == true)
        #expect(try CLI.temporaries(of: "fifo", in: dir) == [])
    }

    /// The device number of Linux's memory device `1, minor` (glibc's `makedev`, a macro Swift cannot import).
    static func memoryDevice(_ minor: UInt32) -> dev_t {
        let (major, minor) = (dev_t(1), dev_t(minor))
        return (major & 0xfff) << 8 | (major & ~0xfff) << 32 | (minor & 0xff) | (minor & ~0xff) << 12
    }

    /// A character device in `dir`: made with mknod as root, else a link to the system's device.
    static func characterDevice(_ name: String, minor: UInt32, system: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent(name)
        if !(isRoot && mknod(url.path, S_IFCHR | 0o666, memoryDevice(minor)) == 0) {
            try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: system)
        }
        return url
    }

    static func isCharacterDevice(_ path: String, minor: UInt32) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR && info.st_rdev == memoryDevice(minor)
    }

    @Test("-o on a character device (a null device in a temporary folder) writes to it; it stays a device")
    func nullDeviceOutput() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let null = try Self.characterDevice("null", minor: 3, system: "/dev/null", in: dir)
        let sealed = dir.appendingPathComponent("sealed")
        #expect(try CLI.run(["encrypt", "--key", "k", "--binary", "-o", "sealed"], stdin: [1, 2, 3],
                            directory: dir).status == 0)
        for arguments in [["encrypt", "--key", "k", "hello"], ["encrypt", "--key", "k", "--binary", "-i", "sealed"],
                          ["decrypt", "--key", "k", "--binary", "-i", sealed.path]] {
            let result = try CLI.run(arguments + ["-o", null.path], directory: dir)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(Self.isCharacterDevice(null.path, minor: 3), "\(arguments) replaced the device")
        }
        #expect(try CLI.temporaries(of: "null", in: dir) == [])
    }

    @Test("-o on a device whose writes fail (a /dev/full in a temporary folder) exits 74; it stays a device")
    func fullDeviceOutput() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let full = try Self.characterDevice("full", minor: 7, system: "/dev/full", in: dir)
        try Data(count: 1 << 20).write(to: dir.appendingPathComponent("big"))
        let sealed = try CLI.run(["encrypt", "--key", "k", "--binary", "-i", "big", "-o", "sealed"], directory: dir)
        #expect(sealed.status == 0)
        for arguments in [["encrypt", "--key", "k", "hello"], ["encrypt", "--key", "k", "--binary", "-i", "big"],
                          ["decrypt", "--key", "k", "--binary", "-i", "sealed"], ["gzip", "-i", "big"]] {
            let result = try CLI.run(arguments + ["-o", full.path], directory: dir)
            #expect(result.status == 74, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("pncrypt: ") && result.stderr.contains("No space left on device"))
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(Self.isCharacterDevice(full.path, minor: 7), "\(arguments) replaced the device")
        }
        #expect(try CLI.temporaries(of: "full", in: dir) == [])
    }

    @Test("-o /dev/fd/1 and /proc/self/fd/1 write standard output, only verified output",
          arguments: ["/dev/fd/1", "/proc/self/fd/1"])
    func descriptorOutput(path: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["encrypt", "--key", "enigma", "--scheme", "legacy", "-o", path, "yay!"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "q/xJqqN6qbiZMXYmiQC1Fw==\n")
        var bad = try CryptoModule(cipherKey: "k").encryptBinary([UInt8](repeating: 7, count: 2 << 20),
                                                           scheme: .legacyRandomIV)
        bad[bad.count - 17] ^= 0x10
        try Data(bad).write(to: dir.appendingPathComponent("bad.bin"))
        let failed = try CLI.run(["decrypt", "--key", "k", "--binary", "-i", "bad.bin", "-o", path], directory: dir)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stdout.isEmpty)
    }

    // MARK: - Write failures

    /// Whether this machine lets the tests mount a tmpfs (root, and a mount namespace that allows it).
    static let canMountTmpfs: Bool = {
        guard isRoot, let dir = try? temporaryDirectory() else { return false }
        defer { try? FileManager.default.removeItem(at: dir) }
        guard mountSmallTmpfs(at: dir.path) else { return false }
        umount(dir.path)
        return true
    }()

    static func mountSmallTmpfs(at path: String) -> Bool {
        "size=64k".withCString { mount("tmpfs", path, "tmpfs", 0, $0) } == 0
    }

    @Test("a full filesystem (a 64 KiB tmpfs; skipped when mount is not permitted) fails the run, nothing renamed",
          .enabled(if: canMountTmpfs, "mounting a tmpfs needs root in a mount namespace that allows it"),
          arguments: [false, true])
    func fullFilesystem(earlier: Bool) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mountPoint = dir.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        try #require(Self.mountSmallTmpfs(at: mountPoint.path))
        defer { umount2(mountPoint.path, Int32(MNT_DETACH)) }
        let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(big).write(to: dir.appendingPathComponent("big"))
        let out = mountPoint.appendingPathComponent("OUT")
        if earlier { try Data("earlier content".utf8).write(to: out) }
        for arguments in [["encrypt", "--key", "k", "--binary"], ["encrypt", "--key", "k"],
                          ["encrypt", "--key", "k", "--binary", "--sync"], ["gzip", "--level", "0"]] {
            let result = try CLI.run(arguments + ["-i", "big", "-o", out.path], directory: dir)
            #expect(result.status == 74, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("pncrypt: ") && result.stderr.split(separator: "\n").count == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint.path) == (earlier ? ["OUT"] : []))
            if earlier { #expect(try Data(contentsOf: out) == Data("earlier content".utf8)) }
        }
    }

    @Test("-o in a folder that does not exist exits 73 (output cannot be created)")
    func missingOutputFolder() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["encrypt", "--key", "k", "-o", "missing/OUT", "hello"], directory: dir)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr == "pncrypt: cannot create output file 'missing/OUT': No such file or directory\n")
    }

    // MARK: - Keys

    @Test("--key-file with invalid UTF-8 exits 64 with one line, instead of decoding it lossily")
    func keyFileInvalidUTF8() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Both decode lossily to "k\u{FFFD}": two different key files, one key.
        for (name, bytes) in [("one", [0x6B, 0xFF, 0x0A]), ("two", [0x6B, 0xFE, 0x0A])] as [(String, [UInt8])] {
            try Data(bytes).write(to: dir.appendingPathComponent(name))
            for command in [["encrypt", "hello"], ["decrypt", "q/xJqqN6qbiZMXYmiQC1Fw=="]] {
                let result = try CLI.run(command + ["--key-file", name], directory: dir)
                #expect(result.status == 64, "\(result.stderr)")
                #expect(result.stderr
                        == "pncrypt: key file '\(name)': the cipher key is not valid UTF-8 (byte 2 of 2)\n")
                #expect(result.stdout.isEmpty)
            }
        }
    }

    @Test("inspect takes its key from --key, --key-file or PNCRYPT_KEY")
    func inspectKeySources() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("k\n".utf8).write(to: dir.appendingPathComponent("key"))
        try Data(repeating: 0x41, count: 1000).write(to: dir.appendingPathComponent("plain"))
        let sealed = try CLI.run(["encrypt", "--key", "k", "--binary", "--gzip", "-i", "plain", "-o", "sealed"],
                                 directory: dir)
        #expect(sealed.status == 0)
        let gzipLine = "plaintext: gzip data (decrypt with --binary --gunzip)"
        for (arguments, environment) in [(["--key", "k"], [:]), (["--key-file", "key"], [:]),
                                         ([], ["PNCRYPT_KEY": "k"])] as [([String], [String: String])] {
            let result = try CLI.run(["inspect", "--binary", "-i", "sealed"] + arguments, environment: environment,
                                     directory: dir)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.text.hasSuffix(gzipLine + "\n"), "\(arguments) \(environment): \(result.text)")
        }
        let keyless = try CLI.run(["inspect", "--binary", "-i", "sealed"], directory: dir)
        #expect(keyless.status == 0)
        #expect(!keyless.text.contains("plaintext:"))
    }
}
