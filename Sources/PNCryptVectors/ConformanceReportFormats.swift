// The three forms of a conformance report: text (one line per failure, a table per family, the closing count), JSON
// (one document) and JUnit XML (a test suite per family, a test case per check). Text from the peer is kept as it
// came in text and JSON (the CLI escapes it for a terminal) and made valid XML in JUnit.
import PNCrypt

extension ConformanceReport {
    /// The report as text: the peer, one `FAIL` line per failing check (with what was sent and what came back), a
    /// line per family, and `N passed, N failed, N skipped`. Every text that comes from the peer or a vector (its
    /// name, errors, answers, standard error, check details) passes `escape`, which must give one line of it with
    /// nothing a terminal acts on: the CLI passes its terminal escaper (control characters, newline included, as
    /// `\xNN`), whatever the output is, so that no peer can write a line of the report.
    package func text(verbose: Bool = false, escape: (String) -> String) -> String {
        var lines: [String] = []
        if let peer {
            var about = "peer: \(escape(peer.name)) \(escape(peer.version))"
            if let style = peer.style { about += ", style \(escape(style))" }
            if let schemes = peer.schemes { about += ", schemes \(escape(schemes.joined(separator: " ")))" }
            lines.append(about)
        } else {
            lines.append("peer: \(escape(command)) (no hello)")
        }
        for check in checks where check.outcome == .failed || (verbose && check.outcome != .passed) {
            let tag = switch check.outcome {
            case .failed: "FAIL"
            case .known: "KNOWN"
            default: "SKIP"
            }
            lines.append("\(tag) \(escape(check.family)) \(escape(check.id)): \(escape(check.detail))")
            if !check.sent.isEmpty { lines.append("  sent: \(escape(check.sent))") }
            if !check.got.isEmpty { lines.append("  got:  \(escape(check.got))") }
        }
        for family in families {
            lines.append("  \(escape(family.family)): \(family.passed) passed, \(family.failed) failed, "
                         + "\(family.skipped) skipped"
                         + (family.known > 0 ? ", \(family.known) known differences" : "")
                         + (family.passed == 0 ? " (not covered: nothing in it agreed)" : ""))
        }
        if restarts > 0 { lines.append("the peer was started again \(restarts) time\(restarts == 1 ? "" : "s")") }
        if let fatal { lines.append("stopped: \(escape(fatal))") }
        if !peerStderr.isEmpty && (fatal != nil || restarts > 0) {
            var tail = Substring(peerStderr)
            while tail.last == "\n" { tail = tail.dropLast() }
            lines.append("the peer's standard error ended with: \(escape(String(tail)))")
        }
        if known > 0 {
            lines.append("\(known) known difference\(known == 1 ? "" : "s") declared by the peer "
                         + "(--verbose lists them)")
        }
        if excusesOutweigh {
            lines.append("not agreed: the declared differences excuse \(known) checks, more than the \(passed) "
                         + "that agreed")
        }
        lines.append("\(passed) passed, \(failed) failed, \(skipped) skipped")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The report as one JSON document: `peer`, `passed`, `failed`, `skipped`, `families`, `failures` (every failing
    /// check with `sent` and `got`), `fatal`, `restarts`; with `allChecks`, `checks` too.
    package func json(allChecks: Bool = false) -> [UInt8] {
        func check(_ c: ConformanceCheck) -> JSONValue {
            .object(["id": .string(c.id), "family": .string(c.family), "direction": .string(c.direction),
                     "outcome": .string(c.outcome.rawValue), "detail": .string(c.detail),
                     "sent": .string(c.sent), "got": .string(c.got)])
        }
        var root: JSONObject = [:]
        root.append(.string(command), forKey: "command")
        if let peer {
            var about: JSONObject = ["name": .string(peer.name), "version": .string(peer.version)]
            if let style = peer.style { about.append(.string(style), forKey: "style") }
            if let ops = peer.ops { about.append(.array(ops.map(JSONValue.string)), forKey: "ops") }
            if let schemes = peer.schemes { about.append(.array(schemes.map(JSONValue.string)), forKey: "schemes") }
            root.append(.object(about), forKey: "peer")
        } else {
            root.append(.null, forKey: "peer")
        }
        root.append(.bool(agreed), forKey: "agreed")
        root.append(.number(JSONNumber(passed)), forKey: "passed")
        root.append(.number(JSONNumber(failed)), forKey: "failed")
        root.append(.number(JSONNumber(skipped)), forKey: "skipped")
        root.append(.number(JSONNumber(known)), forKey: "known")
        root.append(.array(families.map { f in
            .object(["family": .string(f.family), "passed": .number(JSONNumber(f.passed)),
                     "failed": .number(JSONNumber(f.failed)), "skipped": .number(JSONNumber(f.skipped)),
                     "known": .number(JSONNumber(f.known)), "covered": .bool(f.passed > 0)])
        }), forKey: "families")
        root.append(.array(checks.filter { $0.outcome == .failed }.map(check)), forKey: "failures")
        root.append(.array(checks.filter { $0.outcome == .known }.map(check)), forKey: "known_differences")
        if allChecks { root.append(.array(checks.map(check)), forKey: "checks") }
        root.append(fatal.map(JSONValue.string) ?? .null, forKey: "fatal")
        root.append(.number(JSONNumber(restarts)), forKey: "restarts")
        root.append(.string(peerStderr), forKey: "peer_stderr")
        return JSONValue.object(root).serialized() + [0x0A]
    }

    /// The report as JUnit XML: one `<testsuite>` per family, one `<testcase>` per check (`classname` the family and
    /// direction), a `<failure>` with the detail, request and answer, `<skipped>` with the reason.
    package func junit() -> String {
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let name = "pncrypt conformance: " + (peer.map { "\($0.name) \($0.version)" } ?? command)
        let errors = fatal == nil ? 0 : 1
        out += "<testsuites name=\"\(Self.xml(name))\" tests=\"\(checks.count + errors)\" failures=\"\(failed)\" "
            + "errors=\"\(errors)\" skipped=\"\(skipped + known)\">\n"
        for family in families {
            let total = family.passed + family.failed + family.skipped + family.known
            out += "  <testsuite name=\"\(Self.xml(family.family))\" tests=\"\(total)\" "
                + "failures=\"\(family.failed)\" errors=\"0\" skipped=\"\(family.skipped + family.known)\">\n"
            for check in checks where check.family == family.family {
                out += "    <testcase classname=\"\(Self.xml(check.family + "." + check.direction))\" "
                    + "name=\"\(Self.xml(check.id))\""
                switch check.outcome {
                case .passed:
                    out += "/>\n"
                case .skipped, .known:
                    out += ">\n      <skipped message=\"\(Self.xml(check.detail))\"/>\n    </testcase>\n"
                case .failed:
                    var body = check.detail
                    if !check.sent.isEmpty { body += "\nsent: " + check.sent }
                    if !check.got.isEmpty { body += "\ngot: " + check.got }
                    out += ">\n      <failure message=\"\(Self.xml(check.detail))\">\(Self.xml(body))</failure>\n"
                        + "    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        if let fatal {
            out += "  <testsuite name=\"peer\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
                + "    <testcase classname=\"peer\" name=\"run\">\n"
                + "      <error message=\"\(Self.xml(fatal))\">\(Self.xml(peerStderr))</error>\n"
                + "    </testcase>\n  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// `text` as XML character data or an attribute value: markup characters as entities, and characters XML 1.0
    /// cannot hold (controls but tab and newline, U+FFFE, U+FFFF) as `\uXXXX`.
    static func xml(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                    || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
