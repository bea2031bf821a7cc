import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// What `-o` promises on every path, checked by running the built binary: links are
/// followed only under the protected-symlinks rule, a replaced file keeps its owner, group, mode and ACLs, every
/// signal that ends a run leaves nothing behind and prints no backtrace, and a failure writes nothing to a pipe.
@Suite(.tags(.cli)) struct CLIOutputFileTests {
    static let isRoot = getuid() == 0
    static let nobody: uid_t = 65534
    static let hasACLTools = findTool("setfacl") != nil && findTool("getfacl") != nil

    /// `setxattr` and `getxattr` (Swift's Glibc module does not declare `sys/xattr.h`).
    static func setxattr(_ path: String, _ name: String, _ value: [UInt8], _ size: Int, _ flags: Int32) -> Int32 {
        typealias Set = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32)
            -> Int32
        let function = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setxattr"), to: Set.self)
        return value.withUnsafeBytes { function(path, name, $0.baseAddress, size, flags) }
    }

    static func getxattr(_ path: String, _ name: String, _ value: inout [UInt8], _ size: Int) -> Int {
        typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int)
            -> Int
        let function = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getxattr"), to: Get.self)
        return value.withUnsafeMutableBytes { function(path, name, $0.baseAddress, size) }
    }

    /// The text `encrypt --key k` wrote to `url`, decrypted.
    static func opened(_ url: URL) throws -> [UInt8] {
        try CryptoModule(cipherKey: "k").decryptBytes(try String(contentsOf: url, encoding: .utf8))
    }

    /// A sticky world-writable folder (as /tmp is) inside a fresh temporary folder, and a root-only file beside it.
    static func stickyFolder(_ dir: URL) throws -> (sticky: URL, victim: URL) {
        let sticky = dir.appendingPathComponent("sticky")
        try FileManager.default.createDirectory(at: sticky, withIntermediateDirectories: false)
        try #require(chmod(sticky.path, 0o1777) == 0)
        let victim = dir.appendingPathComponent("victim")
        try Data("root only".utf8).write(to: victim)
        try #require(chmod(victim.path, 0o600) == 0)
        return (sticky, victim)
    }

    // MARK: - Links

    @Test("(as root) -o through a link another user planted in a sticky folder is refused (73), the target untouched",
          .enabled(if: isRoot), arguments: ["link", "folderlink/victim"])
    func plantedLinkInStickyFolder(spelling: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (sticky, victim) = try Self.stickyFolder(dir)
        let before = try #require(CLI.status(victim.path))
        // Planted by "nobody": one link to the file, one to its folder.
        for (name, destination) in [("link", victim.path), ("folderlink", dir.path)] {
            let link = sticky.appendingPathComponent(name).path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: destination)
            try #require(lchown(link, Self.nobody, Self.nobody) == 0)
        }
        let result = try CLI.run(["encrypt", "--key", "k", "-o", "sticky/\(spelling)", "overwritten"], directory: dir)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("refusing to follow the symbolic link 'sticky/"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try Data(contentsOf: victim) == Data("root only".utf8))
        let after = try #require(CLI.status(victim.path))
        #expect(after.st_ino == before.st_ino && after.st_mode == before.st_mode)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sticky.path).sorted() == ["folderlink", "link"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["sticky", "victim"])
    }

    /// A name with a terminal command in it (retitle the window: OSC 0 ... BEL), as another user may plant one.
    static let hostileName = "x\u{1b}]0;PWNED\u{07}y"
    /// How a message shows it on a terminal.
    static let hostileShown = "x\\x1b]0;PWNED\\x07y"

    @Test("(as root, pty) a planted link's name is escaped in the refusal on a terminal",
          .enabled(if: isRoot))
    func plantedLinkNameOnTerminal() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (sticky, victim) = try Self.stickyFolder(dir)
        let link = sticky.appendingPathComponent(Self.hostileName).path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim.path)
        try #require(lchown(link, Self.nobody, Self.nobody) == 0)
        let run = try Terminal.run(["encrypt", "--key", "k", "-o", "sticky/\(Self.hostileName)", "x"],
                                   directory: dir)
        #expect(run.status == 73, "\(run.transcript)")
        #expect(run.transcript.contains("refusing to follow the symbolic link 'sticky/\(Self.hostileShown)'"),
                "\(run.transcript)")
        #expect(!run.transcript.contains("\u{1b}") && !run.transcript.contains("\u{07}"), "\(run.transcript)")
        // One line: the terminal turns the one newline into CR LF.
        #expect(run.transcript.hasSuffix("\r\n") && run.transcript.dropLast(2).allSatisfy { $0 != "\r\n" })
    }

    @Test("(as root, pty) planted temporaries are escaped; only the caller's are called pncrypt's",
          .enabled(if: isRoot))
    func plantedTemporaryNamesOnTerminal() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let foreign = dir.appendingPathComponent(".\(Self.hostileName).pncrypt-1.tmp").path
        let own = dir.appendingPathComponent(".mine\u{1b}[2J.pncrypt-2.tmp").path
        for path in [foreign, own] { try Data("left".utf8).write(to: URL(fileURLWithPath: path)) }
        try #require(chown(foreign, Self.nobody, Self.nobody) == 0)
        let run = try Terminal.run(["encrypt", "--key", "k", "-o", "OUT", "x"], directory: dir)
        #expect(run.status == 0, "\(run.transcript)")
        #expect(!run.transcript.contains("\u{1b}") && !run.transcript.contains("\u{07}"), "\(run.transcript)")
        let lines = run.transcript.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 2, "\(lines)")
        let foreignLine = try #require(lines.first { $0.contains(Self.hostileShown) }, "\(lines)")
        #expect(foreignLine.contains("has the name of a pncrypt temporary file but is owned by uid 65534, not by you"))
        #expect(!foreignLine.contains("interrupted pncrypt run"))
        let ownLine = try #require(lines.first { $0.contains(".mine\\x1b[2J.pncrypt-2.tmp") }, "\(lines)")
        #expect(ownLine.contains("looks like the temporary file of an interrupted pncrypt run"))
        // Both are left alone.
        #expect(FileManager.default.fileExists(atPath: foreign) && FileManager.default.fileExists(atPath: own))
    }

    @Test("(pty) any path in a message is escaped on a terminal, exactly in a pipe")
    func pathInMessageOnTerminal() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let arguments = ["encrypt", "--key-file", Self.hostileName, "x"]
        let run = try Terminal.run(arguments, directory: dir)
        #expect(run.status == 66, "\(run.transcript)")
        #expect(run.transcript == "pncrypt: cannot read key file '\(Self.hostileShown)': No such file or directory\r\n",
                "\(run.transcript)")
        let piped = try CLI.run(arguments, directory: dir)
        #expect(piped.status == 66 && piped.stderr.contains("'\(Self.hostileName)'"), "\(piped.stderr)")
    }

    @Test("(as root) links the caller or the sticky folder's owner owns, and ordinary links, are written through",
          .enabled(if: isRoot), arguments: [(0, 0), (65534, 65534), (65534, -1)])
    func allowedLinks(linkOwner: Int, folderOwner: Int) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (sticky, victim) = try Self.stickyFolder(dir)
        if folderOwner >= 0 {
            try #require(chown(sticky.path, uid_t(folderOwner), gid_t(folderOwner)) == 0)
        } else {
            // Not sticky and not world-writable: an ordinary folder; the rule does not apply.
            try #require(chmod(sticky.path, 0o755) == 0)
        }
        let link = sticky.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim.path)
        try #require(lchown(link, uid_t(linkOwner), gid_t(linkOwner)) == 0)
        let result = try CLI.run(["encrypt", "--key", "k", "-o", "sticky/link", "through"], directory: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.opened(victim) == [UInt8]("through".utf8))
        #expect(CLI.status(link).map { $0.st_mode & S_IFMT == S_IFLNK } == true)
        #expect(CLI.status(victim.path).map { $0.st_mode & 0o7777 } == 0o600)
    }

    // MARK: - Replacing keeps access

    @Test("(as root, needs setfacl from package acl) replacing a file keeps its ACL, extended attributes, owner, group",
          .enabled(if: isRoot && hasACLTools), arguments: [false, true])
    func replaceKeepsAccess(named: Bool) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("OUT")
        try Data("old".utf8).write(to: out)
        try #require(chown(out.path, Self.nobody, 1) == 0)
        try #require(chmod(out.path, 0o640) == 0)
        let set = try runProcess(try #require(findTool("setfacl")), ["-m", "u:nobody:r--,g:daemon:rw-", out.path])
        try #require(set.status == 0, "\(set.stderr)")
        let value = [UInt8]("kept".utf8)
        try #require(Self.setxattr(out.path, "user.pncrypt-test", value, value.count, 0) == 0)
        let getfacl = try #require(findTool("getfacl"))
        let acl = try runProcess(getfacl, ["-c", out.path]).text
        #expect(acl.contains("user:nobody:r--"))
        let before = try #require(CLI.status(out.path))

        let result = try CLI.run(["encrypt", "--key", "k", "-o", "OUT", "new"],
                                 environment: named ? ["PNCRYPT_TEST_NAMED_TEMPORARY": "1"] : [:], directory: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.opened(out) == [UInt8]("new".utf8))
        let after = try #require(CLI.status(out.path))
        #expect(after.st_ino != before.st_ino, "replaced, not rewritten in place")
        #expect(after.st_uid == Self.nobody && after.st_gid == 1)
        #expect(after.st_mode & 0o7777 == before.st_mode & 0o7777)
        #expect(try runProcess(getfacl, ["-c", out.path]).text == acl)
        var read = [UInt8](repeating: 0, count: 16)
        let count = Self.getxattr(out.path, "user.pncrypt-test", &read, read.count)
        #expect(count == value.count && Array(read.prefix(max(count, 0))) == value)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["OUT"])
    }

    @Test("(as root, via setpriv) a user never replaces a file they could not write, nor one whose owner would change",
          .enabled(if: isRoot && findTool("setpriv") != nil), arguments: [(0, 0o644), (0, 0o666), (65534, 0o444)])
    func replaceRefusedWithoutAccess(owner: Int, mode: Int) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A folder "nobody" may write in, holding a file they must not replace.
        try #require(chmod(dir.path, 0o777) == 0)
        let out = dir.appendingPathComponent("OUT")
        try Data("keep".utf8).write(to: out)
        try #require(chown(out.path, uid_t(owner), gid_t(owner)) == 0)
        try #require(chmod(out.path, mode_t(mode)) == 0)
        let result = try runProcess(try #require(findTool("setpriv")),
                                    ["--reuid=65534", "--regid=65534", "--clear-groups", CLI.binary.path,
                                     "encrypt", "--key", "k", "-o", "OUT", "new"],
                                    environment: CLI.environment(), directory: dir)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("refusing to replace 'OUT'"), "\(result.stderr)")
        #expect(try Data(contentsOf: out) == Data("keep".utf8))
        #expect(CLI.status(out.path).map { ($0.st_uid, $0.st_mode & 0o7777) } ?? (1, 0) == (uid_t(owner), mode_t(mode)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["OUT"])
    }

    // MARK: - Signals

    /// Every signal whose default action ends a process, other than SIGKILL and the crash signals.
    static let endingSignals: [Int32] = [SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ, SIGPIPE, SIGVTALRM,
                                         SIGPROF, SIGINT, SIGTERM, SIGHUP, SIGIO, SIGPWR, SIGSTKFLT, 34, 64]
    static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS]

    /// Starts `encrypt --binary -o OUT` over an earlier OUT, sends `signal` mid-way, and returns how the run ended
    /// and what it wrote on standard error; checks that OUT and its folder are as before.
    static func signalMidway(_ signal: Int32, named: Bool) throws -> (ChildProcess.Termination, String) {
        try withTemporaryDirectories { dir, logs in
            let out = dir.appendingPathComponent("OUT")
            try Data("earlier content".utf8).write(to: out)
            chmod(out.path, 0o644)
            let log = logs.appendingPathComponent("stderr").path
            // The run's input stays open: it cannot finish before the signal, however fast the machine is.
            let (run, temporary) = try CLI.startEncryptMidway(output: out, named: named, stderr: .file(log))
            #expect(run.poll() == nil)
            var info = stat()
            #expect(stat(temporary.path, &info) == 0 && info.st_mode & 0o7777 == 0o600)
            // A run the signal does not end (the old SIGQUIT backtracer carried on) is killed after 20 s, and fails.
            kill(run.pid, signal)
            var waited = 0
            while run.poll() == nil && waited < 2000 {
                usleep(10_000)
                waited += 1
            }
            if run.poll() == nil { kill(run.pid, SIGKILL) }
            let end = run.wait()
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["OUT"])
            #expect(try Data(contentsOf: out) == Data("earlier content".utf8))
            return (end, try String(contentsOfFile: log, encoding: .utf8))
        }
    }

    @Test("every signal that ends a run mid-way removes what it made, exits 128+signal, prints nothing",
          .tags(.stress), .notInQuickRun,
          arguments: endingSignals, [false, true])
    func endingSignal(signal: Int32, named: Bool) throws {
        let (end, stderr) = try Self.signalMidway(signal, named: named)
        // Killed by the signal itself would mean nothing removed the temporary.
        #expect(end == .exited(128 + signal), "signal \(signal)")
        #expect(stderr.isEmpty, "signal \(signal): \(stderr)")
    }

    @Test("a crash signal mid-way removes the temporary and prints one line, no backtrace, no registers",
          arguments: crashSignals, [false, true])
    func crashSignal(signal: Int32, named: Bool) throws {
        let (end, stderr) = try Self.signalMidway(signal, named: named)
        #expect(end == .exited(128 + signal), "signal \(signal)")
        #expect(stderr == "pncrypt: crashed (signal \(signal)); output removed\n", "signal \(signal): \(stderr)")
    }

    // MARK: - Standard output

    @Test("a corrupt last block writes zero bytes to a pipe (text and --binary, from a file and standard input)",
          arguments: [false, true], [false, true])
    func corruptLastBlockToPipe(binary: Bool, fromStdin: Bool) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Several stream chunks of plaintext (so output could start before the end); 11 bytes of padding 0x0B.
        let plain = [UInt8](repeating: 0x61, count: (binary ? 3 : 1) * StreamPipeline.defaultChunkSize + 5)
        var sealed = try CryptoModule(cipherKey: "k").encryptBinary(plain, scheme: .acrh)
        // The last byte of the block before the last: the last plaintext byte becomes 0x00, always bad padding.
        sealed[sealed.count - 17] ^= 0x0B
        let bytes = binary ? sealed : [UInt8](Base64.encode(sealed).utf8)
        let file = dir.appendingPathComponent("in")
        try Data(bytes).write(to: file)
        let arguments = ["decrypt", "--key", "k"] + (binary ? ["--binary"] : []) + (fromStdin ? [] : ["-i", "in"])
        let result = try CLI.run(arguments, stdin: fromStdin ? bytes : [], directory: dir)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout.count) bytes on standard output")
    }
}
