// Fuzz target: record lines (`--lines --field`; `MessageStream` with `field`).
//
// Input: a selector byte, then NDJSON lines. The selector picks the style (bits 0-2), the policy (bit 3), the batch
// size of the threaded run (bits 4-5) and the field (bits 6-7): `/message`, `/m/0`, `""`, or the pointer on the
// first line (the line is then not a record).
//
// Invariants: the stream writes one line for each input line, in order, ending as it did (CRLF, LF, LF for none),
// blank lines as they were; each line is exactly what the one-record call gives (`decrypt(field:of:policy:)`,
// `encrypt(field:of:)`), or the line copied (decrypt) or empty (encrypt) with a status naming its 1-based line when
// that call throws; two threads and tiny batches give the same bytes, statuses and summary as one thread. Records
// encrypted by the stream and decrypted by it again (read as legacy, what they are) keep every byte around the
// field, and the field is one JSON value (the same value in the exact styles), with a status exactly when its style
// cannot write the value as JSON (issue 55 item 7).
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = input.first else { return 0 }
    var text = Array(input.dropFirst())
    let style = JSONStyle.allCases[Int(selector & 7) % JSONStyle.allCases.count]
    let policy: DecryptionPolicy = selector & 8 == 0 ? .marker : .passThrough
    let batchBytes = [1, 7, 64, 1 << 16][Int(selector >> 4) & 3]
    let pointer: JSONPointer
    switch selector >> 6 {
    case 0: pointer = try! JSONPointer("/message")
    case 1: pointer = try! JSONPointer("/m/0")
    case 2: pointer = try! JSONPointer("")
    default:
        let end = text.firstIndex(of: 0x0A) ?? text.count
        guard let given = try? JSONPointer(String(decoding: text[..<end], as: UTF8.self)) else { return 0 }
        pointer = given
        text = Array(text[min(text.count, end + 1)...])
    }
    let lines = splitLines(text)

    // Hostile records, decrypted.
    let reader = MessageCrypto(keys: fuzzRing, style: style)
    let decrypted = runBoth(.decrypt(reader, policy: policy), pointer, text, batchBytes, input)
    var expected: [UInt8] = []
    var statuses: [(Int, PNCryptError)] = []
    for (number, line) in lines.enumerated() {
        if line.content.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            expected += line.content
        } else if pointer.isWholeDocument {
            // The pointer "" is no field: each line is a message (`MessageStream.Operation.decrypt`).
            let result = attempt { () throws(PNCryptError) in
                try reader.decrypt(jsonText: line.content, policy: .marker)
            }
            switch result {
            case .success(let message):
                if let status = message.status { statuses.append((number + 1, status.error)) }
                expected += message.status != nil && policy == .passThrough ? line.content
                    : message.message.serialized(style: style)
            case .failure(let error):
                expected += policy == .marker ? JSONValue.string("DECRYPTION_ERROR").serialized() : line.content
                statuses.append((number + 1, error))
            }
        } else {
            let result = attempt { () throws(PNCryptError) in
                try reader.decrypt(field: pointer, of: line.content, policy: policy)
            }
            switch result {
            case .success(let record):
                expected += record.text
                if let status = record.status { statuses.append((number + 1, status.error)) }
            case .failure(let error):
                expected += line.content
                statuses.append((number + 1, error))
            }
        }
        expected += line.terminator
    }
    compare(decrypted, expected, statuses, lines.count, input, "decrypt")

    // Records encrypted by the stream (legacy: a fixed IV, so the one-record call gives the same bytes), then
    // decrypted by it.
    let writer = MessageCrypto(keys: fuzzRing, scheme: .legacy)
    let encrypted = runBoth(.encrypt(writer, raw: false), pointer, text, batchBytes, input)
    expected = []
    statuses = []
    var sealed: [Bool] = []
    for (number, line) in lines.enumerated() {
        let blank = line.content.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        if blank {
            expected += line.content
        } else {
            let result = attempt { () throws(PNCryptError) in
                // The pointer "" is no field: each line is a message, and its output line the wire JSON alone.
                if pointer.isWholeDocument { return try writer.encrypt(JSONValue(parsing: line.content)).serialized() }
                return try writer.encrypt(field: pointer, of: line.content)
            }
            switch result {
            case .success(let record): expected += record
            case .failure(let error): statuses.append((number + 1, error))
            }
        }
        sealed.append(!blank && statuses.last?.0 != number + 1)
        expected += line.terminator
    }
    compare(encrypted, expected, statuses, lines.count, input, "encrypt")
    for status in encrypted.statuses where status.original != nil {
        fail("an encrypt status carries the plaintext", input)
    }

    // Read as what it is (legacy): under the headerless rule a plaintext whose bytes from offset 16 on are a message
    // too reads both ways, and is `ambiguous` (docs/security.md), which is the rule, not the records.
    let legacyReader = MessageCrypto(keys: fuzzRing, reading: .only(.legacy), style: style)
    let opened = runBoth(.decrypt(legacyReader, policy: policy), pointer, encrypted.output, batchBytes, input)
    let back = splitLines(opened.output)
    guard back.count == lines.count else { fail("decrypting the encrypted lines changed their count", input) }
    let failedLines = Set(opened.statuses.compactMap(\.line))
    for (index, line) in lines.enumerated() where sealed[index] {
        guard let range = try? pointer.range(in: line.content),
              let original = try? JSONValue(parsing: line.content[range]) else {
            fail("line \(index + 1) encrypted without its field", input)
        }
        // A value the style cannot write as JSON fails the line (a status); any other decrypts.
        guard failedLines.contains(index + 1) == (!pointer.isWholeDocument && writesNonJSON(original, style)) else {
            fail("line \(index + 1): a status \(failedLines.contains(index + 1) ? "where it decrypts" : "missing")",
                 input)
        }
        let content = back[index].content
        if pointer.isWholeDocument {
            if style.isExact && (try? JSONValue(parsing: content)) != original {
                fail("line \(index + 1): the message came back another value", input)
            }
            continue
        }
        let suffix = line.content.count - range.upperBound
        guard content.count >= range.lowerBound + suffix, content.starts(with: line.content[..<range.lowerBound]),
              content.suffix(suffix).elementsEqual(line.content[range.upperBound...]) else {
            fail("line \(index + 1): the bytes around the field changed (\(style))", input)
        }
        guard let value = try? JSONValue(parsing: content[range.lowerBound..<(content.count - suffix)]) else {
            fail("line \(index + 1): the decrypted field is not one JSON value (\(style))", input)
        }
        if style.isExact && value != original { fail("line \(index + 1): the field came back another value", input) }
    }
    return 0
}

/// The key ring of the target.
let fuzzRing: KeyRing = try! KeyRing(["enigma"])

/// One input line: its content (without LF or CRLF) and what ends its output line.
struct Line {
    var content: [UInt8]
    var terminator: [UInt8]
}

/// The lines of `text`, read independently of the line engine: LF ends a line, a CR before it is part of the
/// terminator, the last line may have none (its output line gets an LF).
func splitLines(_ text: [UInt8]) -> [Line] {
    var lines: [Line] = []
    var start = 0
    while start < text.count {
        guard let newline = text[start...].firstIndex(of: 0x0A) else {
            lines.append(Line(content: Array(text[start...]), terminator: [0x0A]))
            break
        }
        if newline > start && text[newline - 1] == 0x0D {
            lines.append(Line(content: Array(text[start..<newline - 1]), terminator: [0x0D, 0x0A]))
        } else {
            lines.append(Line(content: Array(text[start..<newline]), terminator: [0x0A]))
        }
        start = newline + 1
    }
    return lines
}

/// Runs `operation` on one thread with the default batches and on two threads with `batchBytes`: both must agree.
func runBoth(_ operation: MessageStream.Operation, _ pointer: JSONPointer, _ text: [UInt8], _ batchBytes: Int,
             _ input: [UInt8]) -> MessageStream.Output {
    let one = MessageStream(operation, jobs: 1, field: pointer)
    var two = MessageStream(operation, jobs: 2, field: pointer)
    two.batchBytes = batchBytes
    let a = attempt { () throws(PNCryptError) in try one.run(text) }
    let b = attempt { () throws(PNCryptError) in try two.run(text) }
    guard case .success(let x) = a, case .success(let y) = b else { fail("a stream failed: \(a), \(b)", input) }
    guard x.output == y.output, x.statuses == y.statuses, x.summary == y.summary else {
        fail("two threads in batches of \(batchBytes) bytes differ from one thread", input)
    }
    return x
}

/// The stream's output against the one-record calls.
func compare(_ output: MessageStream.Output, _ expected: [UInt8], _ statuses: [(Int, PNCryptError)], _ lines: Int,
             _ input: [UInt8], _ what: String) {
    guard output.output == expected else { fail("\(what): the stream's lines differ from the one-record calls", input) }
    guard output.statuses.count == statuses.count,
          zip(output.statuses, statuses).allSatisfy({ $0.line == $1.0 && $0.error.code == $1.1.code }) else {
        fail("\(what): statuses \(output.statuses.map { ($0.line ?? -1, $0.error.code) }), expected "
             + "\(statuses.map { ($0.0, $0.1.code) })", input)
    }
    guard output.summary.lines == lines, output.summary.failed == statuses.count else {
        fail("\(what): summary \(output.summary), \(lines) lines, \(statuses.count) failed", input)
    }
}
