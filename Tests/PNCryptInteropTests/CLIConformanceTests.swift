import Foundation
import Testing
import PNCryptJSON
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `pncrypt conformance --peer CMD` (docs/conformance.md), run as a user runs it: against the PubNub Python SDK's
/// adapter (examples/peers/pubnub_python.py), which must agree on every check, and against deliberately wrong peers
/// (Tests/conformance/wrong_peer.py: the same adapter with one fault each), each of which must be caught, exit 1, and
/// named by the vectors it broke.
@Suite("CLI conformance: pncrypt conformance --peer against the Python SDK and wrong peers", .serialized,
       .tags(.cli, .interop, .slow), .notInQuickRun,
       .enabled(if: InteropSwitch.enabled, "interop skipped because PNCRYPT_SKIP_INTEROP=1"))
struct CLIConformanceTests {
    /// The Python with pubnub==10.8.0 (`PNCRYPT_PYTHON`, else `.venv`, made by scripts/build/make_venv.sh as the
    /// interop suite makes it).
    static func python() throws -> String {
        _ = try PythonPeer.shared()   // creates or checks .venv, or throws saying what to install
        let env = ProcessInfo.processInfo.environment["PNCRYPT_PYTHON"] ?? ""
        return env.isEmpty ? Package.root.appendingPathComponent(".venv/bin/python").path : env
    }

    static func adapter() throws -> String {
        "\(try python()) \(Package.root.appendingPathComponent("examples/peers/pubnub_python.py").path)"
    }

    static func wrongPeer(_ fault: String) throws -> String {
        "\(try python()) \(Package.root.appendingPathComponent("Tests/conformance/wrong_peer.py").path) \(fault)"
    }

    static func vectors(_ name: String) -> String {
        Package.root.appendingPathComponent("Vectors/\(name)").path
    }

    /// Runs `pncrypt conformance` and returns its status and standard output.
    static func conformance(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["conformance"] + arguments, directory: Package.root)
    }

    @Test("the real Python SDK agrees on every vector, both ways: 6,110 agree, 27 declared, every family covered")
    func realSDKPasses() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("report.xml").path
        // The 1 MiB vectors take the SDK a few seconds; on a loaded 2-core machine, with pncrypt built under
        // AddressSanitizer, more than the default 10 s per request.
        let run = try Self.conformance(["--peer", try Self.adapter(), "--timeout", "120", "--json", "--junit", junit])
        let report = try JSONValue(parsing: run.stdout)
        #expect(run.status == 0, "\(run.text.prefix(4000)) \(run.stderr)")
        #expect(report["agreed"] == .bool(true))
        #expect(report["failures"]?.arrayValue?.isEmpty == true)
        // The exact figures of pubnub 10.8.0 (docs/conformance.md): a change either way is news.
        #expect(report["passed"] == 6110 && report["failed"] == 0 && report["skipped"] == 663
                    && report["known"] == 27,
                "\(["passed", "failed", "skipped", "known"].map { report[$0]?.serializedString() ?? "-" })")
        #expect(report["peer"]?["name"] == "pubnub-python")
        #expect(report["peer"]?["version"] == .string(PythonPeer.sdkVersion))
        // Both ways, in every family, each covered: something in it agreed (all skipped or excused is not covered).
        // Known differences per family, each excused with the outcome the adapter declares for it.
        let families = report["families"]?.arrayValue ?? []
        let expected: [(String, Int)] = [("spec", 0), ("generated", 2), ("negative", 16), ("large", 0),
                                         ("python-sdk", 0), ("contract", 0), ("styles", 3), ("publish", 0),
                                         ("messages", 2), ("envelopes", 4)]
        for (family, known) in expected {
            let entry = families.first { $0["family"]?.stringValue == family }
            #expect(entry?["covered"] == .bool(true), "family \(family): \(entry?.serializedString() ?? "missing")")
            #expect(entry?["known"] == .number(JSONNumber(known)),
                    "family \(family): \(entry?.serializedString() ?? "")")
        }
        // headerless.json asks for pncrypt's own headerless rule, which the SDK does not have: all skipped, so
        // not covered.
        #expect(families.contains { $0["family"] == "headerless" && $0["covered"] == .bool(false) })
        let outcomes = (report["known_differences"]?.arrayValue ?? []).compactMap { check -> String? in
            guard let detail = check["detail"]?.stringValue, detail.hasPrefix("known difference (") else { return nil }
            return String(detail.dropFirst(18).prefix { $0 != ":" })
        }
        #expect(outcomes.count == 27)
        #expect(Dictionary(grouping: outcomes, by: { $0 }).mapValues(\.count)
                    == ["accepts": 16, "rejects": 6, "json-value": 5], "\(outcomes)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.hasPrefix("<?xml"))
        #expect(xml.contains(#"<testsuite name="generated""#))
        #expect(xml.contains(#"failures="0""#))
        #expect(!xml.contains("<failure"))
        // The text report: a line per family, the closing count.
        let text = try Self.conformance(["--peer", try Self.adapter(), Self.vectors("spec.json")])
        #expect(text.status == 0)
        #expect(text.text.contains("  spec: "))
        #expect(text.text.split(separator: "\n").last?.hasSuffix("0 failed, 7 skipped") == true, "\(text.text)")
    }

    @Test("both directions are checked: the peer decrypts pncrypt's, pncrypt decrypts the peer's, bytes compared")
    func bothDirections() throws {
        let run = try Self.conformance(["--peer", try Self.adapter(), "--json", "--verbose",
                                        Self.vectors("generated.json"), Self.vectors("negative.json")])
        #expect(run.status == 0, "\(run.text.prefix(2000))")
        let checks = try JSONValue(parsing: run.stdout)["checks"]?.arrayValue ?? []
        func count(_ direction: String) -> Int {
            checks.count { $0["direction"]?.stringValue == direction && $0["outcome"] == "passed" }
        }
        // The peer reads pncrypt's, pncrypt reads the peer's, the peer's bytes are the vectors', failures fail.
        #expect(count("peer-decrypts") >= 500, "\(count("peer-decrypts"))")
        #expect(count("pncrypt-decrypts") >= 200, "\(count("pncrypt-decrypts"))")
        #expect(count("peer-encrypts") >= 200, "\(count("peer-encrypts"))")
        #expect(count("must-fail") >= 100, "\(count("must-fail"))")
        #expect(checks.contains {
            $0["id"] == "gen-acrh-ascii-bin-17/pncrypt-decrypts" && $0["outcome"] == "passed"
        })
        let text = try Self.conformance(["--peer", try Self.adapter(), "--verbose", Self.vectors("spec.json")])
        #expect(text.status == 0)
        // Skips are named with their reason (legacy33 is not in the SDK).
        #expect(text.text.contains("SKIP spec spec-legacy33-"), "\(text.text)")
        #expect(text.text.contains("the peer does not have scheme legacy33"))
    }

    @Test("a peer that flips a byte of its plaintexts is caught, and the vectors are named")
    func flippedByte() throws {
        let run = try Self.conformance(["--peer", try Self.wrongPeer("flip"), Self.vectors("spec.json")])
        #expect(run.status == 1)
        #expect(run.text.contains("FAIL spec spec-legacy-hello-world/peer-decrypts: expected IkhlbGxvIFdvcmxkIg=="))
        #expect(run.text.contains("  sent: "))
        #expect(run.text.contains("  got:  "))
        // Only the legacy decryptions with the key enigma were broken.
        #expect(!run.text.contains("FAIL spec spec-acrh"))
    }

    @Test("a declared difference excuses only its outcome: a declared refusal is known, a flipped plaintext fails")
    func declaredDifferences() throws {
        let declared = try Self.conformance(["--peer", try Self.wrongPeer("reject-declared"), "--verbose",
                                             Self.vectors("spec.json")])
        #expect(declared.status == 0, "\(declared.text)")
        #expect(declared.text.contains("KNOWN spec spec-legacy-hello-world/peer-decrypts: known difference "
                                       + "(rejects: refused on purpose): the peer failed: refused on purpose"))
        #expect(declared.text.contains("  spec: 97 passed, 0 failed, 7 skipped, 10 known differences"),
                "\(declared.text)")
        let flipped = try Self.conformance(["--peer", try Self.wrongPeer("flip-declared"), Self.vectors("spec.json")])
        #expect(flipped.status == 1)
        #expect(flipped.text.contains("FAIL spec spec-legacy-hello-world/peer-decrypts: expected IkhlbGxvIFdvcmxkIg== "
                                      + "(the peer declares a difference here that excuses only \"rejects\": this "
                                      + "disagreement is not that)"), "\(flipped.text)")
        #expect(flipped.text.contains("  spec: 97 passed, 10 failed, 7 skipped\n"), "\(flipped.text)")
    }

    @Test("a peer that refuses everything and declares it for every family has not agreed")
    func refusesEverything() throws {
        let run = try Self.conformance(["--peer", try Self.wrongPeer("refuse-all"), "--json",
                                        Self.vectors("spec.json")])
        #expect(run.status == 1)
        let report = try JSONValue(parsing: run.stdout)
        #expect(report["agreed"] == .bool(false) && report["failed"] == 0)
        let passed = try #require(report["passed"]?.numberValue?.int64Value)
        let known = try #require(report["known"]?.numberValue?.int64Value)
        #expect(known > passed, "\(known) known, \(passed) passed")
    }

    @Test("a wrong peer fails every judge whatever it declares: must-fail, wrong key, publish, receive, envelopes")
    func corruptedAnswersNeverExcused() throws {
        let run = try Self.conformance(["--peer", try Self.wrongPeer("corrupt"), "--json", "--verbose",
                                        "--timeout", "120", Self.vectors("negative.json"), Self.vectors("styles.json"),
                                        Self.vectors("envelopes/envelopes.json")])
        #expect(run.status == 1)
        let report = try JSONValue(parsing: run.stdout)
        let checks = report["checks"]?.arrayValue ?? []
        // What is excused is the SDK's own answers (its declared differences, here declared for every outcome):
        // never a corrupted one.
        let known = checks.filter { $0["outcome"] == "known" }
        #expect(known.allSatisfy { $0["got"]?.stringValue?.contains("corrupted plaintext") == false },
                "\(known.map { $0.serializedString() })")
        // Each judge: the checks it made, every one of them failed (none skipped but the peer's unsupported ones).
        for (family, suffix) in [("negative", "/must-fail"), ("messages", "/peer-wrong-key"),
                                 ("publish", "/peer-publishes"), ("publish", "/pncrypt-decrypts"),
                                 ("messages", "/peer-receives"), ("envelopes", "/peer-decrypts")] {
            let judged = checks.filter {
                $0["family"]?.stringValue == family && $0["id"]?.stringValue?.hasSuffix(suffix) == true
                    && $0["outcome"] != "skipped"
            }
            #expect(judged.count >= 10, "\(family) \(suffix): \(judged.count) checks")
            let passing = judged.filter { $0["outcome"] != "failed" }.compactMap { $0["id"]?.stringValue }
            #expect(passing.isEmpty, "\(family) \(suffix): \(passing.prefix(10))")
        }
        #expect(checks.contains {
            $0["id"] == "message-string-json-looking/legacy-random-iv/peer-wrong-key" && $0["outcome"] == "failed"
                && $0["detail"]?.stringValue?.hasPrefix("expected DECRYPTION_ERROR or the message as received, got "
                                                        + "\"corrupted plaintext\"") == true
        })
    }

    @Test("a peer that pads wrongly is caught where the IV is fixed and the bytes are compared")
    func wrongPadding() throws {
        let run = try Self.conformance(["--peer", try Self.wrongPeer("pad"), "--json", Self.vectors("spec.json")])
        #expect(run.status == 1)
        let report = try JSONValue(parsing: run.stdout)
        let failed = (report["failures"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        #expect(failed.contains("spec-legacy-hello-world/peer-encrypts"), "\(failed)")
        #expect(failed.allSatisfy { $0.hasSuffix("/peer-encrypts") }, "\(failed)")
        #expect(report["agreed"] == .bool(false))
    }

    @Test("a peer that publishes in another style is caught byte for byte, naming the message")
    func otherStyle() throws {
        let run = try Self.conformance(["--peer", try Self.wrongPeer("style"), Self.vectors("styles.json")])
        #expect(run.status == 1)
        #expect(run.text.contains("FAIL publish message-object-nested/legacy/peer-publishes: expected the body"))
        #expect(run.text.contains("(style python: the plaintext"))
        // A message whose bytes are the same in both styles still agrees.
        #expect(!run.text.contains("FAIL publish message-string-plain/legacy/"))
    }

    @Test("a peer that hangs is killed after --timeout, reported, and the run goes on")
    func hangs() throws {
        let start = Date()
        let run = try Self.conformance(["--peer", try Self.wrongPeer("hang"), "--timeout", "3",
                                        Self.vectors("spec.json")])
        #expect(run.status == 1)
        #expect(run.text.contains("FAIL spec spec-legacy-hello-world/peer-decrypts: no answer within 3 s"))
        #expect(run.text.contains("the peer was started again 1 time"))
        #expect(Date().timeIntervalSince(start) < 60)
        // The checks after it ran.
        #expect(run.text.contains("  spec: 106 passed, 1 failed"), "\(run.text)")
    }

    @Test("a peer that dies is reported with its exit status, and started again")
    func dies() throws {
        let run = try Self.conformance(["--peer", try Self.wrongPeer("die"), Self.vectors("spec.json")])
        #expect(run.status == 1)
        #expect(run.text.contains("FAIL spec spec-legacy-hello-world/peer-decrypts: the peer exited with status 3"))
        #expect(run.text.contains("  spec: 106 passed, 1 failed"), "\(run.text)")
    }

    @Test("a peer that writes garbage is reported; its text passes the terminal escaper")
    func garbage() throws {
        let run = try Self.conformance(["--peer", try Self.wrongPeer("garbage"), Self.vectors("spec.json")])
        #expect(run.status == 1)
        #expect(run.text.contains("FAIL spec spec-legacy-hello-world/peer-decrypts: the peer's answer is not a JSON "
                                  + "object: this is not JSON"))
        // Escaped and on one line, through a pipe as on a terminal: the peer's escape sequence is shown, not sent.
        #expect(run.text.contains(#"this is not JSON \x1b[31mred\x1b[0m"#), "\(run.text)")
        #expect(!run.text.contains("\u{1B}"))
        let json = try Self.conformance(["--peer", try Self.wrongPeer("garbage"), "--json", Self.vectors("spec.json")])
        let report = try JSONValue(parsing: json.stdout)
        #expect(report["failed"] == 1)
        let terminal = try Terminal.run(["conformance", "--peer", try Self.wrongPeer("garbage"),
                                         Self.vectors("spec.json")], directory: Package.root)
        #expect(terminal.status == 1)
        #expect(terminal.transcript.contains(#"this is not JSON \x1b[31mred\x1b[0m"#), "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("\u{1B}[31m"))
    }

    @Test("a peer that cannot start, or never says hello, fails the run with a reason")
    func noPeer() throws {
        let missing = try Self.conformance(["--peer", "exit 7", Self.vectors("spec.json")])
        #expect(missing.status == 1)
        #expect(missing.text.contains("stopped: the peer did not answer hello: the peer exited with status 7"),
                "\(missing.text)")
        // hello has at least 10 s (starting an SDK can be slow), every other request --timeout.
        let silent = try Self.conformance(["--peer", "cat >/dev/null", "--timeout", "0.5", Self.vectors("spec.json")])
        #expect(silent.status == 1)
        #expect(silent.text.contains("stopped: the peer did not answer hello: no answer within 10 s"), "\(silent.text)")
        let echo = try Self.conformance(["--peer", "echo '{\"ok\":true}'; sleep 5", "--timeout", "1",
                                         Self.vectors("spec.json")])
        #expect(echo.status == 1, "a peer that supports nothing agrees on nothing")
        let usage = try Self.conformance(["--peer", "true", "--timeout", "0"])
        #expect(usage.status == 64)
    }
}
