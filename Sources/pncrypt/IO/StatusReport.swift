import PNCrypt
import PNCryptPlatform
import SystemPackage

/// The status lines of a line-mode run (issue 59, item 3): at most `shownLimit` of them on standard error, then one
/// line with the count of the rest; every one, as NDJSON, in the `--statuses FILE` (an `OutputFile`: it appears
/// only when the run ends, whole); and the failures counted by reason for the closing summary.
final class StatusReport {
    /// The most status lines a run writes to standard error (20): a run over millions of lines under a wrong key
    /// must not write a status line per line there; `--statuses FILE` keeps every one.
    static let shownLimit = 20

    private let file: OutputFile?
    private var shown = 0
    /// The statuses reported, by reason (`wrongKeyOrCorrupt`, `invalidJSON`, ...), in the order first seen.
    private(set) var reasons: [(name: String, count: Int)] = []
    private(set) var total = 0

    /// A report; `path` is `--statuses FILE` (refused over the input file, as `-o` is).
    init(path: FilePath?, input: Input, durable: Bool) throws {
        file = try path.map {
            try OutputFile(path: $0, inputPath: input.filePath, standardInput: input.isStandardInput,
                           durable: durable)
        }
    }

    /// Reports one status: to the file, and to standard error while fewer than `shownLimit` have been shown.
    func report(_ status: MessageStatus) throws {
        total += 1
        let name = status.error.code.name
        if let index = reasons.firstIndex(where: { $0.name == name }) {
            reasons[index].count += 1
        } else {
            reasons.append((name, 1))
        }
        let line = status.json.serialized() + [0x0A]
        try file?.write(line)
        guard shown < Self.shownLimit else { return }
        shown += 1
        // Its "original" is input as it was: on a terminal, with DEL and C1 controls escaped too.
        try? FileDescriptor.standardError.writeAll(TerminalEscaper.json(line, for: .standardError, raw: false),
                                                   naming: "standard error")
    }

    /// The end of a run that completed: the count of the status lines not shown, and the file put in place.
    func finish() throws {
        if total > shown {
            let kept = file == nil ? "--statuses FILE writes every one" : "every one is in the --statuses file"
            CLI.printError("\((total - shown).counting("more status line")) not shown (\(kept))")
        }
        try file?.commit()
    }

    /// `, by reason: {"wrongKeyOrCorrupt":2,"invalidJSON":1}` when anything failed, else nothing: the reasons as
    /// one JSON object (one word, so a script that reads the summary's numbers is not misled).
    var byReason: String {
        guard !reasons.isEmpty else { return "" }
        var object: JSONObject = [:]
        for (name, count) in reasons { object.append(.number(JSONNumber(count)), forKey: name) }
        return ", by reason: " + String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
    }
}
