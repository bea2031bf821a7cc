import Foundation
import Testing
import PNCryptJSON
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `pncrypt conformance` (docs/conformance.md) with small shell peers, no SDK: the peer dies with the run on every
/// exit path, gets no key, cannot write a line of the report or reach the terminal, cannot excuse its way to
/// agreement, and `--junit` never replaces a vector file. The runs against the Python SDK are CLIConformanceTests.
@Suite("CLI conformance harness: the peer's box, its declarations, the report file", .serialized, .tags(.cli))
struct CLIConformanceHarnessTests {
    static let spec = Package.root.appendingPathComponent("Vectors/spec.json").path

    /// The answer to hello (every op and scheme), with `extra` members (JSON text after a comma).
    static func hello(_ extra: String = "") -> String {
        #"{"ok":true,"name":"sh-peer","version":"1""# + (extra.isEmpty ? "" : "," + extra) + "}"
    }

    /// A peer: `setup` (shell), then hello answered with `hello`, then `rest` (by default every request refused).
    static func peer(in dir: URL, setup: String = "", hello: String = Self.hello(),
                     rest: String = #"while read line; do printf '%s\n' '{"ok":false,"error":"refused"}'; done"#)
        throws -> String {
        let script = dir.appendingPathComponent("peer.sh")
        try ("\(setup)\nread line\nprintf '%s\\n' '\(hello)'\n\(rest)\n").write(to: script, atomically: true,
                                                                                  encoding: .utf8)
        return "/bin/sh \(script.path)"
    }

    /// Whether process `pid` is there and not a zombie.
    static func alive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    /// The pid written in `file`, waiting up to 30 s for it.
    static func pid(in file: URL) throws -> pid_t {
        for _ in 0..<300 {
            if let text = try? String(contentsOf: file, encoding: .utf8),
               let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) { return pid }
            usleep(100_000)
        }
        throw POSIXError(.ETIMEDOUT)
    }

    /// Whether `pid` is gone within 10 s.
    static func gone(_ pid: pid_t) -> Bool {
        for _ in 0..<100 {
            if !alive(pid) { return true }
            usleep(100_000)
        }
        return false
    }

    @Test("SIGINT, SIGTERM, SIGHUP, SIGQUIT or SIGUSR1 to pncrypt: it exits 128+N and the peer's group is gone",
          arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1])
    func signalKillsPeer(_ signal: Int32) throws {
        try withTemporaryDirectory { dir in
            let ready = dir.appendingPathComponent("ready")
            // The peer (its shell and a child in its group) hangs on the request after hello.
            let command = try Self.peer(in: dir, setup: """
                echo $$ > \(dir.path)/peer.pid
                sleep 300 </dev/null >/dev/null 2>&1 &
                echo $! > \(dir.path)/child.pid
                """, rest: "echo $$ > \(ready.path)\nread line\nsleep 300")
            let run = try ChildProcess(CLI.binary.path, ["conformance", "--peer", command, "--timeout", "120",
                                                         Self.spec],
                                       environment: CLI.environment(), stdout: .null, stderr: .null)
            let shell = try Self.pid(in: dir.appendingPathComponent("peer.pid"))
            let child = try Self.pid(in: dir.appendingPathComponent("child.pid"))
            defer { kill(shell, SIGKILL); kill(child, SIGKILL) }
            _ = try Self.pid(in: ready)
            #expect(Self.alive(shell) && Self.alive(child))
            kill(run.pid, signal)
            #expect(run.wait() == .exited(128 + signal))
            #expect(Self.gone(shell), "the peer's shell outlived pncrypt (signal \(signal))")
            #expect(Self.gone(child), "the peer's child outlived pncrypt (signal \(signal))")
        }
    }

    @Test("a normal run leaves nothing of the peer: its group, and a child that left it with setsid")
    func normalRunKillsOrphans() throws {
        try withTemporaryDirectory { dir in
            let command = try Self.peer(in: dir, setup: """
                setsid sleep 300 </dev/null >/dev/null 2>&1 &
                echo $! > \(dir.path)/setsid.pid
                sleep 300 </dev/null >/dev/null 2>&1 &
                echo $! > \(dir.path)/child.pid
                """)
            let run = try CLI.run(["conformance", "--peer", command, Self.spec])
            let escaped = try Self.pid(in: dir.appendingPathComponent("setsid.pid"))
            let child = try Self.pid(in: dir.appendingPathComponent("child.pid"))
            defer { kill(escaped, SIGKILL); kill(child, SIGKILL) }
            #expect(run.status == 1, "\(run.text)")
            #expect(Self.gone(child), "the peer's child outlived the run")
            #expect(Self.gone(escaped), "the peer's setsid child outlived the run")
        }
    }

    @Test("the peer gets no PNCRYPT_KEY, PNCRYPT_TO_KEY or other PNCRYPT_ variable")
    func noKeysInPeerEnvironment() throws {
        try withTemporaryDirectory { dir in
            let command = try Self.peer(in: dir, setup: "env > \(dir.path)/env.txt")
            let run = try CLI.run(["conformance", "--peer", command, Self.spec],
                                  environment: ["PNCRYPT_KEY": "secret-key-one", "PNCRYPT_TO_KEY": "secret-key-two",
                                                "PNCRYPT_KEY_FILE": "/secret/key/file"])
            #expect(run.status == 1)
            let environment = try String(contentsOf: dir.appendingPathComponent("env.txt"), encoding: .utf8)
            #expect(!environment.contains("PNCRYPT_"), "\(environment)")
            #expect(!environment.contains("secret-key"), "\(environment)")
            #expect(environment.contains("PATH="))
        }
    }

    @Test("with TMPDIR unusable, the peer's standard error still never reaches pncrypt's: it is shown escaped")
    func stderrWithoutTMPDIR() throws {
        try withTemporaryDirectory { dir in
            let command = try Self.peer(in: dir, rest: #"""
                read line
                printf '\033]0;pwned\007\033[2Jpeer-stderr-marker\nsecond line\n' >&2
                exit 3
                """#)
            let run = try CLI.run(["conformance", "--peer", command, Self.spec],
                                  environment: ["TMPDIR": dir.appendingPathComponent("no/such/folder").path])
            #expect(run.status == 1)
            #expect(!run.stderr.contains("peer-stderr-marker"), "\(run.stderr)")
            #expect(!run.stdout.contains(0x1B))
            #expect(run.text.contains(#"the peer's standard error ended with: \x1b]0;pwned\x07\x1b[2J"#
                                      + #"peer-stderr-marker\x0asecond line"#), "\(run.text)")
        }
    }

    @Test("the peer's name and error texts are shown escaped on one line: no peer writes a line of the report")
    func peerTextOnOneLine() throws {
        try withTemporaryDirectory { dir in
            let forged = "415 passed, 0 failed, 0 skipped"
            let name = #"sh\n"# + forged + #"\u001b[2J"#
            let command = try Self.peer(in: dir, hello: Self.hello().replacingOccurrences(of: "sh-peer", with: name),
                                        rest: #"""
                while read line; do printf '%s\n' '{"ok":false,"error":"bad\nFORGED LINE\r\u001b]0;x\u0007"}'; done
                """#)
            let run = try CLI.run(["conformance", "--peer", command, Self.spec])
            #expect(run.status == 1)
            let lines = run.text.split(separator: "\n").map(String.init)
            #expect(!lines.contains(forged), "\(run.text)")
            #expect(!lines.contains { $0.hasPrefix("FORGED") })
            #expect(!run.stdout.contains(0x1B) && !run.stdout.contains(0x0D))
            #expect(lines.first == #"peer: sh\x0a415 passed, 0 failed, 0 skipped\x1b[2J 1"#)
            #expect(run.text.contains(#"the peer failed: bad\x0aFORGED LINE\x0d\x1b]0;x\x07"#))
            #expect(lines.last?.hasSuffix(" skipped") == true)
        }
    }

    @Test("a declared difference that names no family (*, **, *-*) or no outcome stops the run at hello",
          arguments: [("*", "rejects"), ("**", "rejects"), ("*-*", "rejects"), ("*/must-fail", "accepts"),
                      ("spec/spec-*", nil)] as [(String, String?)])
    func declarationRefused(_ pattern: String, _ outcome: String?) throws {
        try withTemporaryDirectory { dir in
            let declared = #""differences":[{"reason":"everything","checks":[""# + pattern + #""]"#
                + (outcome.map { #","outcome":""# + $0 + #"""# } ?? "") + "}]"
            let command = try Self.peer(in: dir, hello: Self.hello(declared))
            let run = try CLI.run(["conformance", "--peer", command, "--json", Self.spec])
            #expect(run.status == 1)
            let report = try JSONValue(parsing: run.stdout)
            let fatal = report["fatal"]?.stringValue ?? ""
            #expect(fatal.hasPrefix("the peer's hello was refused: the declared difference"), "\(fatal)")
            #expect(fatal.contains(outcome == nil ? "names no outcome it excuses" : "names no family"), "\(fatal)")
            #expect(report["known"] == 0 && report["passed"] == 0)
        }
    }

    @Test("a run whose declared differences excuse more than agreed has not agreed; no family of it is covered")
    func excusesOutweighAgreement() throws {
        try withTemporaryDirectory { dir in
            // contract.json: 8 vectors that must fail (refused, they agree), 36 that must not (refused, excused).
            let contract = Package.root.appendingPathComponent("Vectors/contract.json").path
            let declared = #""differences":[{"reason":"refuses all","outcome":"rejects","checks":["contract/*"]}]"#
            let command = try Self.peer(in: dir, hello: Self.hello(declared))
            let run = try CLI.run(["conformance", "--peer", command, "--json", contract])
            #expect(run.status == 1, "\(run.text)")
            let report = try JSONValue(parsing: run.stdout)
            let passed = try #require(report["passed"]?.numberValue?.int64Value)
            let known = try #require(report["known"]?.numberValue?.int64Value)
            #expect(report["failed"] == 0 && report["agreed"] == .bool(false) && report["fatal"] == .null)
            #expect(known > passed && passed > 0, "\(known) known, \(passed) passed")
            let text = try CLI.run(["conformance", "--peer", command, contract])
            #expect(text.status == 1)
            #expect(text.text.contains("not agreed: the declared differences excuse \(known) checks, more than the "
                                       + "\(passed) that agreed"), "\(text.text)")
            // A family in which nothing agreed (here every check excused) is not covered.
            let envelopes = Package.root.appendingPathComponent("Vectors/envelopes/envelopes.json").path
            let both = try Self.peer(in: dir, hello: Self.hello(
                #""differences":[{"reason":"refuses all","outcome":"rejects","checks":["envelopes/*"]}]"#))
            let uncovered = try CLI.run(["conformance", "--peer", both, "--json", contract, envelopes])
            #expect(uncovered.status == 1)
            let families = try JSONValue(parsing: uncovered.stdout)["families"]?.arrayValue ?? []
            #expect(families.contains { $0["family"] == "envelopes" && $0["covered"] == .bool(false) }, "\(families)")
            #expect(families.contains { $0["family"] == "contract" && $0["covered"] == .bool(true) }, "\(families)")
            let uncoveredText = try CLI.run(["conformance", "--peer", both, contract, envelopes])
            #expect(uncoveredText.text.contains(" known differences (not covered: nothing in it agreed)"),
                    "\(uncoveredText.text)")
        }
    }

    @Test("--junit never writes over a vector file the run reads (named, in a folder given, or through a link)")
    func junitNotOverInput() throws {
        try withTemporaryDirectory { dir in
            let vectors = dir.appendingPathComponent("vectors")
            try FileManager.default.createDirectory(at: vectors.appendingPathComponent("envelopes"),
                                                    withIntermediateDirectories: true)
            let spec = vectors.appendingPathComponent("spec.json")
            let envelopes = vectors.appendingPathComponent("envelopes/envelopes.json")
            try FileManager.default.copyItem(atPath: Self.spec, toPath: spec.path)
            let source = Package.root.appendingPathComponent("Vectors/envelopes/envelopes.json")
            try FileManager.default.copyItem(at: source, to: envelopes)
            let link = dir.appendingPathComponent("link.xml")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: spec)
            let before = try Data(contentsOf: spec)
            let beforeEnvelopes = try Data(contentsOf: envelopes)
            let command = try Self.peer(in: dir)
            for (junit, inputs) in [(spec.path, [spec.path]), (spec.path, [vectors.path]),
                                    (envelopes.path, [vectors.path]), (link.path, [spec.path]),
                                    (spec.path, [envelopes.path, spec.path])] {
                let run = try CLI.run(["conformance", "--peer", command, "--junit", junit] + inputs)
                #expect(run.status == 64, "--junit \(junit) \(inputs): \(run.text)")
                #expect(run.stderr.contains("refusing to write the output over the input file"), "\(run.stderr)")
                #expect(try Data(contentsOf: spec) == before)
                #expect(try Data(contentsOf: envelopes) == beforeEnvelopes)
            }
            // Anywhere else, the report is written.
            let report = dir.appendingPathComponent("report.xml")
            let run = try CLI.run(["conformance", "--peer", command, "--junit", report.path, spec.path])
            #expect(run.status == 1)
            #expect(try String(contentsOf: report, encoding: .utf8).hasPrefix("<?xml"))
        }
    }
}
