import Foundation
import Testing
import PNCrypt
import PNCryptVectors

/// The conformance harness's parts that need no SDK (docs/conformance.md): what a peer may declare, and what is
/// kept of a peer's standard error. The runs are in CLIConformanceHarnessTests (a shell peer) and
/// CLIConformanceTests (the Python SDK).
@Suite("Conformance harness: declared differences and the peer process")
struct ConformanceHarnessTests {
    @Test("a declared difference names its family (written out, up to the first /) and the outcome it excuses",
          arguments: ["*", "**", "*-*", "*/must-fail", "/neg-*", "neg*/must-fail", "negative*/x", "spec-legacy-*"])
    func patternWithoutFamily(_ pattern: String) {
        #expect(throws: ConformanceDifference.Refusal.self) {
            try ConformanceDifference(check: pattern, outcome: "accepts", reason: "r")
        }
        do {
            _ = try ConformanceDifference(check: pattern, outcome: "accepts", reason: "r")
        } catch {
            #expect(error.description.contains("names no family"), "\(error)")
            #expect(error.description.contains("\"\(pattern)\""), "\(error)")
        }
    }

    @Test("a difference without an outcome, with one not known, or with no checks after its family is refused")
    func outcomeRequired() throws {
        for (check, outcome, words) in [("negative/neg-*", nil, "names no outcome"),
                                        ("negative/neg-*", "anything", "is not one of accepts, rejects"),
                                        ("negative/", "accepts", "names no checks")] as [(String, String?, String)] {
            do {
                _ = try ConformanceDifference(check: check, outcome: outcome, reason: "r")
                Issue.record("\(check) \(outcome ?? "nil") was taken")
            } catch {
                #expect(error.description.contains(words), "\(error)")
            }
        }
        let taken = try ConformanceDifference(check: "negative/neg-legacy-pad-*/must-fail", outcome: "accepts",
                                              reason: "depad")
        #expect(taken.family == "negative")
        #expect(taken.pattern == "neg-legacy-pad-*/must-fail")
        #expect(taken.outcome == .accepts)
        #expect(taken.covers("neg-legacy-pad-03/must-fail", family: "negative"))
        // Only in its family.
        #expect(!taken.covers("neg-legacy-pad-03/must-fail", family: "generated"))
        #expect(!taken.covers("neg-legacy-wrong-key/must-fail", family: "negative"))
        #expect(ConformanceDifference.Outcome.allCases.map(\.rawValue) == [
            "accepts", "rejects", "json-value", "null", "numbers-as-doubles", "scalars-as-text", "as-received",
            "same-value"])
    }

    @Test("what is kept of a peer's standard error is bounded: the last 64 KiB of 5 MB, the end included")
    func stderrBounded() throws {
        let peer = try PeerProcess(command: "head -c 5000000 /dev/zero | tr '\\0' a >&2; printf END >&2; "
                                   + "echo '{\"ok\":true}'; cat >/dev/null")
        defer { peer.stop(grace: 0) }
        let answer = try peer.ask(Array(#"{"op":"hello"}"#.utf8), timeout: 60)
        #expect(answer["ok"] == .bool(true))
        let kept = peer.stderrTail(limit: .max)
        #expect(kept.count == 64 << 10)
        #expect(PeerProcess.stderrLimit == 64 << 10)
        #expect(kept.suffix(3) == Array("END".utf8))
        #expect(peer.stderrTail().count == 2000)
    }

    @Test("a peer that closes its standard error is waited for without spinning")
    func closedStderrDoesNotSpin() throws {
        let peer = try PeerProcess(command: #"exec 2>&-; sleep 2; echo '{"ok":true}'; cat >/dev/null"#)
        defer { peer.stop(grace: 0) }
        func cpu() -> Double {
            // This thread's CPU alone (it waits in ask): the process's would count the tests running beside this one.
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let before = cpu()
        let answer = try peer.ask(Array(#"{"op":"hello"}"#.utf8), timeout: 30)
        #expect(answer["ok"] == .bool(true))
        // Two seconds of waiting on poll() cost next to nothing; a loop woken by the closed pipe, most of them.
        #expect(cpu() - before < 0.2, "\(cpu() - before) s of CPU")
    }

    @Test("the peer's environment has no PNCRYPT_ variable: no key reaches it")
    func environmentWithoutKeys() throws {
        setenv("PNCRYPT_TEST_HARNESS_SECRET", "not-for-the-peer", 1)
        defer { unsetenv("PNCRYPT_TEST_HARNESS_SECRET") }
        let peer = try PeerProcess(command: #"printf '{"ok":true,"env":"%s","path":"%s"}\n' "#
                                   + #""$(env | grep -c PNCRYPT_)" "$PATH"; cat >/dev/null"#)
        defer { peer.stop(grace: 0) }
        let answer = try peer.ask(Array(#"{"op":"hello"}"#.utf8), timeout: 30)
        #expect(answer["env"] == .string("0"))
        // The rest of the environment is the harness's.
        #expect(answer["path"] == .string(String(cString: getenv("PATH"))))
    }
}
