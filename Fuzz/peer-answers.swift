// Fuzz target: what a conformance peer answers (`pncrypt conformance --peer CMD`): its `hello`, its answers, its
// standard error, and the reports they end up in.
// fuzz-needs: PNCryptVectors
//
// Input: lines; the first is the peer's `hello`, the next ones its answers, and the rest after an empty line its
// standard error.
//
// Invariants: a line is taken only as a JSON object (as `PeerProcess` reads one). `hello` gives the peer's name and
// version (or the placeholders), and exactly the declared differences an independent reading on Unicode scalars
// accepts (`FAMILY/CHECKS`, the family written out without `*`, checks not empty, a known outcome), refusing
// the others; each covers, in its family only, the check id it spells with every `*` left out. Judging an answer:
// `ConformanceValues.same` is reflexive, symmetric, true for equal values and for the same value written again in
// an exact style; `compareBytes` agrees exactly when the `data` string decodes to the expected bytes;
// `pncryptReads` agrees only when pncrypt really decrypts `data` to the plaintext, and agrees for a ciphertext
// pncrypt made of it. The reports: the JSON one
// parses and gives back every text of the peer exactly; the JUnit one is well-formed XML (balanced known elements,
// no markup or control character from the peer's text).
@testable import PNCryptVectors
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = input.split(separator: 0x0A, omittingEmptySubsequences: false)
    let answersEnd = lines.firstIndex(where: \.isEmpty) ?? lines.count
    let stderr = String(decoding: Array(lines[min(lines.count, answersEnd + 1)...].joined(separator: [0x0A])),
                        as: UTF8.self)
    guard let first = lines.first, let hello = peerLine(first) else { return 0 }

    let (info, refused) = ConformanceRunner.peerInfo(hello)
    guard info.name == hello["name"]?.stringValue ?? "(unnamed)",
          info.version == hello["version"]?.stringValue ?? "(no version)" else { fail("name or version", input) }
    // The declarations, read independently on Unicode scalars: `FAMILY/CHECKS` with a family written out (no `*`)
    // and checks not empty, under a known outcome; anything else is refused.
    var declared: [(family: [Unicode.Scalar], pattern: [Unicode.Scalar])] = []
    var refusals = 0
    let outcomes = Set(ConformanceDifference.Outcome.allCases.map(\.rawValue))
    for entry in hello["differences"]?.arrayValue ?? [] {
        let outcome = entry["outcome"]?.stringValue
        for check in entry["checks"]?.arrayValue ?? [] {
            let scalars = Array((check.stringValue ?? "").unicodeScalars)
            guard check.stringValue != nil, let outcome, outcomes.contains(outcome),
                  let slash = scalars.firstIndex(of: "/"), slash > 0, !scalars[..<slash].contains("*"),
                  slash + 1 < scalars.count else {
                refusals += 1
                continue
            }
            declared.append((Array(scalars[..<slash]), Array(scalars[(slash + 1)...])))
        }
    }
    guard (refused != nil) == (refusals > 0) else {
        fail("refused: \(refused ?? "nothing"), expected \(refusals) refusals", input)
    }
    guard info.differences.count == declared.count, zip(info.differences, declared).allSatisfy({
        $0.family.unicodeScalars.elementsEqual($1.family) && $0.pattern.unicodeScalars.elementsEqual($1.pattern)
    }) else {
        fail("the declared differences are not the ones an independent reading accepts", input)
    }
    for difference in info.differences {
        let literal = String(String.UnicodeScalarView(difference.pattern.unicodeScalars.filter { $0 != "*" }))
        guard difference.covers(literal, family: difference.family) else {
            fail("pattern \(Array(difference.pattern.utf8)) does not match \(Array(literal.utf8)), the id it spells",
                 input)
        }
        guard !difference.covers(literal, family: difference.family + "/") else { fail("another family", input) }
    }

    var checks: [ConformanceCheck] = []
    var previous: JSONValue = hello
    for (index, line) in lines[1..<max(1, answersEnd)].prefix(8).enumerated() {
        guard let answer = peerLine(line) else { continue }
        judge(answer, previous, input)
        previous = answer
        let outcome: ConformanceCheck.Outcome = [.passed, .failed, .skipped, .known][index % 4]
        checks.append(ConformanceCheck(id: "answer-\(index)/peer-decrypts", family: answer["family"]?.stringValue
                                           ?? "family-\(index % 2)", direction: "peer-decrypts", outcome: outcome,
                                       detail: "the peer failed: " + (answer["error"]?.stringValue ?? ""),
                                       sent: "{}", got: String(decoding: line, as: UTF8.self)))
    }
    let fatal = hello["fatal"]?.stringValue
    let report = ConformanceReport(command: "peer", peer: info, checks: checks, fatal: fatal, restarts: checks.count,
                                   peerStderr: stderr)
    checkJSON(report, input)
    checkJUnit(report.junit(), input)
    _ = report.text(verbose: true) { $0 }
    return 0
}

/// A line of the peer as `PeerProcess.ask` takes it: a JSON object, else nil (garbage).
func peerLine(_ line: ArraySlice<UInt8>) -> JSONValue? {
    guard let value = try? JSONValue(parsing: line), value.objectValue != nil else { return nil }
    return value
}

/// The judging of one answer (and of it against the one before).
func judge(_ answer: JSONValue, _ previous: JSONValue, _ input: [UInt8]) {
    guard ConformanceValues.same(answer, answer) else { fail("same(a, a) is false", input) }
    guard ConformanceValues.same(answer, previous) == ConformanceValues.same(previous, answer) else {
        fail("same is not symmetric", input)
    }
    if answer == previous, !ConformanceValues.same(answer, previous) { fail("equal values are not the same", input) }
    for style in JSONStyle.allCases where style.isExact {
        guard let again = try? JSONValue(parsing: answer.serialized(style: style)),
              ConformanceValues.same(answer, again) else {
            fail("the answer written in \(style) is not the same", input)
        }
    }

    let data = answer["data"]
    let decoded = data?.stringValue.flatMap { try? Base64.decode($0) }
    if let decoded {
        guard ConformanceRunner.compareBytes(data, decoded) == nil else {
            fail("compareBytes refused its bytes", input)
        }
    }
    guard ConformanceRunner.compareBytes(data, (decoded ?? []) + [0]) != nil else {
        fail("compareBytes agreed with other bytes", input)
    }
    if let text = answer["text"]?.stringValue, ConformanceRunner.compareText(answer, text) != nil {
        fail("compareText refused its own text", input)
    }

    // Empty data cannot be encrypted: the plaintext is the answer's text, or "p".
    let plaintext = Array((answer["text"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? "p").utf8)
    for scheme in [Scheme.legacy, .legacyRandomIV, .acrh] {
        let module = try! CryptoModule(cipherKey: ConformanceRunner.publishKey, scheme: scheme)
        if ConformanceRunner.pncryptReads(data, module: module, scheme: scheme, plaintext: plaintext) == nil {
            guard let decoded, (try? module.decryptBinary(decoded, reading: .only(scheme))) == plaintext else {
                fail("pncryptReads agreed with data that does not decrypt to the plaintext (\(scheme))", input)
            }
        }
        guard let sealed = try? module.encryptBinary(plaintext, scheme: scheme),
              ConformanceRunner.pncryptReads(.string(Base64.encode(sealed)), module: module, scheme: scheme,
                                             plaintext: plaintext) == nil else {
            fail("pncryptReads refused pncrypt's own ciphertext (\(scheme))", input)
        }
        // `data` as a publish body (a JSON string of Base64): read only when pncrypt decrypts it so.
        if let body = data?.serializedString(), let got = ConformanceRunner.plaintext(ofBody: body, scheme: scheme) {
            guard let decoded, (try? module.decryptBinary(decoded, reading: .only(scheme))) == got else {
                fail("plaintext(ofBody:) read what pncrypt does not decrypt (\(scheme))", input)
            }
        }
    }
}

/// The JSON report gives back every text of the peer.
func checkJSON(_ report: ConformanceReport, _ input: [UInt8]) {
    guard let json = try? JSONValue(parsing: report.json(allChecks: true)) else { fail("the JSON report", input) }
    guard json["peer"]?["name"]?.stringValue == report.peer?.name,
          json["peer"]?["version"]?.stringValue == report.peer?.version,
          json["peer_stderr"]?.stringValue == report.peerStderr,
          json["fatal"]?.stringValue == report.fatal,
          let checks = json["checks"]?.arrayValue, checks.count == report.checks.count,
          zip(checks, report.checks).allSatisfy({ $0["got"]?.stringValue == $1.got
              && $0["detail"]?.stringValue == $1.detail && $0["family"]?.stringValue == $1.family }) else {
        fail("the JSON report does not give back the peer's texts", input)
    }
}

/// The JUnit report is well-formed: the known elements, balanced; attribute values and text without markup or
/// characters XML 1.0 cannot hold; entities only the four the writer makes.
func checkJUnit(_ xml: String, _ input: [UInt8]) {
    let bytes = Array(xml.utf8)
    let elements: Set<String> = ["testsuites", "testsuite", "testcase", "skipped", "failure", "error"]
    var open: [String] = []
    var index = 0
    func broken(_ why: String) -> Never { fail("JUnit report: \(why) at \(index): \(xml)", input) }
    guard xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n") else { broken("no declaration") }
    index = 39
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "<") {
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { broken("an open tag") }
            var tag = Array(bytes[(index + 1)..<close])
            let closing = tag.first == UInt8(ascii: "/")
            let empty = tag.last == UInt8(ascii: "/")
            if closing { tag.removeFirst() }
            if empty { tag.removeLast() }
            let nameEnd = tag.firstIndex(of: 0x20) ?? tag.count
            let name = String(decoding: tag[..<nameEnd], as: UTF8.self)
            guard elements.contains(name) else { broken("element \(name)") }
            // Attributes: name="value" pairs, values without < or ".
            var rest = tag[nameEnd...].drop { $0 == 0x20 }
            while !rest.isEmpty {
                guard let equals = rest.firstIndex(of: UInt8(ascii: "=")), rest[rest.startIndex..<equals].allSatisfy({
                    $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }), equals + 1 < rest.endIndex,
                      rest[equals + 1] == UInt8(ascii: "\""),
                      let end = rest[(equals + 2)...].firstIndex(of: UInt8(ascii: "\"")) else {
                    broken("attributes of \(name)")
                }
                checkText(rest[(equals + 2)..<end], broken)
                rest = rest[(end + 1)...].drop { $0 == 0x20 }
            }
            if closing {
                guard open.popLast() == name else { broken("</\(name)> closes another element") }
            } else if !empty {
                open.append(name)
            }
            index = close + 1
        } else {
            let end = bytes[index...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
            checkText(bytes[index..<end], broken)
            index = end
        }
    }
    guard open.isEmpty else { broken("unclosed \(open)") }
}

/// Character data or an attribute value: no `<`, `>` or `"`, entities only `&amp;` `&lt;` `&gt;` `&quot;`, no
/// control character but tab and line feed, no U+FFFE or U+FFFF.
func checkText(_ text: ArraySlice<UInt8>, _ broken: (String) -> Never) {
    let string = String(decoding: text, as: UTF8.self)
    var scalars = string.unicodeScalars[...]
    while let scalar = scalars.first {
        switch scalar {
        case "<", ">", "\"": broken("markup \(scalar) in text")
        case "&":
            let entities = ["&amp;", "&lt;", "&gt;", "&quot;"]
            guard entities.contains(where: { scalars.starts(with: $0.unicodeScalars) }) else {
                broken("an entity")
            }
        case "\n", "\t": break
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                broken("character U+\(String(scalar.value, radix: 16)) in text")
            }
        }
        scalars = scalars.dropFirst()
    }
}
