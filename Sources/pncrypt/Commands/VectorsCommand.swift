import ArgumentParser
import PNCrypt
import PNCryptVectors
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

struct VectorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors",
        abstract: "Work with cross-SDK test vector files.",
        subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run every vector: decrypt, and encrypt where the IV is known.",
            discussion: """
            Prints one line per failing vector and a closing "N passed, N failed" line; exits 1 on any failure. \
            The format is described in Vectors/README.md.

            Example:
              pncrypt vectors check Vectors/spec.json
            """)

        @Argument(help: "Vector files or folders of them (default: Vectors).", completion: .file())
        var paths: [String] = ["Vectors"]

        func run() throws {
            var passed = 0
            var failed = 0
            for path in try RawArguments.positionalPaths(paths) {
                for file in try TestVectorChecker.files(at: path) {
                    for vector in try TestVectorFile.load(path: file).vectors {
                        if let failure = TestVectorChecker.check(vector) {
                            try FileDescriptor.standardOutput.printLine(
                                "FAIL \(file.lastComponent?.shown ?? file.shown) \(failure)")
                            failed += 1
                        } else {
                            passed += 1
                        }
                    }
                }
            }
            try FileDescriptor.standardOutput.printLine("\(passed) passed, \(failed) failed")
            if failed > 0 { throw ExitCode.dataFailure }
        }
    }
}
