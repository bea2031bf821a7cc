import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI as Unix users expect it (each suite runs the built binary): help that survives copy and paste.
@Suite(.tags(.cli)) struct CLIHelpTests {
    /// Every command path, from the SUBCOMMANDS sections of the help.
    static func commands(_ prefix: [String] = []) throws -> [[String]] {
        let help = try CLI.run(prefix + ["--help"]).text
        guard let section = help.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first else { return [prefix] }
        var found: [[String]] = [prefix]
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
        for line in lines where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            guard let name = line.split(separator: " ").first.map(String.init), name != "help",
                  name.allSatisfy({ $0.isLowercase }) else { continue }
            found += try commands(prefix + [name])
        }
        return found
    }

    @Test("every example in --help is one line of at most 80 columns", .tags(.slow), .notInQuickRun)
    func examplesFit() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 11)
        var examples = 0
        for command in commands {
            let help = try CLI.run(command + ["--help"]).text
            guard let section = help.components(separatedBy: "Example").dropFirst().first else { continue }
            let lines = section.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
                .prefix { !$0.isEmpty }
            for line in lines {
                examples += 1
                #expect(line.count <= 80, "\(command): \(line)")
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                #expect(trimmed.hasPrefix("pncrypt ") || trimmed.hasPrefix("PNCRYPT_KEY="),
                        "\(command): a wrapped or continued example: \(line)")
                #expect(!trimmed.hasSuffix("\\"), "\(command): \(line)")
            }
        }
        #expect(examples >= 15)
    }

    @Test("the README tells how to install shell completion, and the script is generated")
    func completion() throws {
        let readme = try String(contentsOf: Package.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("## Shell completion"))
        for shell in ["bash", "zsh", "fish"] {
            #expect(readme.contains("pncrypt --generate-completion-script \(shell)"), "\(shell)")
            let script = try CLI.run(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.text.contains("pncrypt"))
        }
    }
}
