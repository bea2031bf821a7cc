import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `--field` in every `--style` (issue 55, item 7), walked over the command tree: every command that decrypts or
/// rekeys a record's field, with every style it takes, with and without `--lines`, every field path. A sender's
/// plaintext `"x","channel":"admin","y":"z"` (PHP's raw string form, a message) must leave the record around the
/// field byte for byte and the field one JSON value; a style that cannot write it so fails the record with a status.
@Suite(.tags(.cli)) struct CLIFieldStyleTests {
    static let hostile = #""x","channel":"admin","y":"z""#

    /// The commands of the tree that read a record's field (they have `--field`) and decrypt or rekey it, with
    /// whether they take `--style` and `--lines`.
    static func fieldCommands() throws -> [(path: [String], style: Bool, lines: Bool)] {
        try CLISurfaceTests.commands().compactMap { command in
            let names = Set(command.options.flatMap(\.names))
            guard names.contains("--field"),
                  command.path.contains(where: { $0.contains("decrypt") || $0.contains("rekey") }) else { return nil }
            return (command.path, names.contains("--style"), names.contains("--lines"))
        }
    }

    @Test("the tree's field commands are message decrypt and message rekey (a new one is walked too)")
    func commandsFound() throws {
        let paths = try Self.fieldCommands().map { $0.path.joined(separator: " ") }
        #expect(Set(paths).isSuperset(of: ["message decrypt", "message rekey"]), "\(paths)")
    }

    @Test("every field command × style × --lines × field path: the record intact, the field one JSON value")
    func hostilePlaintext() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wire = "\"" + (try CryptoModule(cipherKey: "k").encrypt(Array(Self.hostile.utf8), scheme: .acrh)) + "\""
        let records: [(pointer: String, before: String, after: String)] = [
            ("/message", #"{"channel":"c","message":"#, #","timetoken":"1"}"#),
            ("/payload/text", #"{"channel":"c","payload":{"text":"#, #"},"timetoken":"1"}"#),
            ("/items/1", #"{"items":[0,"#, #"],"timetoken":"1"}"#),
        ]
        var runs = 0
        for command in try Self.fieldCommands() {
            let rekey = command.path.contains { $0.contains("rekey") }
            let styles: [String?] = command.style ? JSONStyle.allCases.map(\.rawValue) : [nil]
            for style in styles {
                for lines in command.lines ? [false, true] : [false] {
                    for (pointer, before, after) in records {
                        let record = before + wire + after
                        let file = dir.appendingPathComponent("record.json")
                        try Data((record + "\n").utf8).write(to: file)
                        var arguments = command.path + ["-k", "k", "--field", pointer, "-i", file.path]
                        if rekey { arguments += ["--to-key", "k2"] }
                        if let style { arguments += ["--style", style] }
                        if lines { arguments += ["--lines"] }
                        let run = try CLI.run(arguments)
                        runs += 1
                        let what = arguments.joined(separator: " ")
                        // The record as read (its line end kept), then the command's own line end.
                        var out = run.stdout
                        while out.last == 0x0A { out.removeLast() }
                        #expect(out.starts(with: Array(before.utf8)), "\(what): \(run.text)")
                        #expect(out.reversed().starts(with: Array(after.utf8).reversed()), "\(what): \(run.text)")
                        guard out.count >= before.utf8.count + after.utf8.count else { continue }
                        let field = Array(out[before.utf8.count..<(out.count - after.utf8.count)])
                        #expect(field.withUnsafeBytes(isJSONText), "\(what): \(run.text)")
                        if run.status == 0 {
                            // Decrypted: the value between PHP's quotes; rekeyed: a new wire text.
                            let value = try JSONValue(parsing: field)
                            if rekey {
                                #expect(value.stringValue != nil, "\(what)")
                            } else {
                                #expect(value == .string(String(Self.hostile.dropFirst().dropLast())), "\(what)")
                            }
                        } else {
                            // The record failed with a status, naming the style that cannot write it.
                            #expect(run.status == 1, "\(what): \(run.stderr)")
                            #expect(style == "php", "\(what): \(run.stderr)")
                            #expect(run.stderr.contains("\"reason\":\"invalidValue\""), "\(what): \(run.stderr)")
                        }
                    }
                }
            }
        }
        #expect(runs >= 8 * 2 * 3, "\(runs) runs")
    }
}
