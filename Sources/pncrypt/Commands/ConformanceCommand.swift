import ArgumentParser
import PNCrypt
import PNCryptVectors
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// `pncrypt conformance --peer CMD`: every vector run against another SDK's adapter, both ways. The harness is
/// `ConformanceRunner` (PNCryptVectors); this command only reads the options and writes the report.
struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Run every vector against another SDK through an adapter process, both ways.",
        discussion: """
        The peer command is started once (/bin/sh -c CMD) and speaks one JSON request a line on its standard \
        input, one JSON answer a line on its standard output (docs/conformance.md). The peer decrypts pncrypt's \
        ciphertexts and pncrypt decrypts the peer's (fresh random IVs each run); bytes are compared where the IV \
        is fixed, publish bodies byte for byte in the style the peer claims, and what must fail must fail. What \
        the peer does not support is skipped. A peer that dies, hangs past --timeout or writes garbage is \
        reported (and started again, at most three times). Exits 1 on any disagreement, 0 when all that ran \
        agreed.

        Examples:
          pncrypt conformance --peer ".venv/bin/python examples/peers/pubnub_python.py"
          pncrypt conformance --peer ./my-peer --junit report.xml Vectors/spec.json
        """)

    @Option(name: .customLong("peer"), help: ArgumentHelp("The adapter command, run with /bin/sh -c.",
                                                         valueName: "CMD"))
    var peer: String

    @Option(name: .customLong("timeout"), help: ArgumentHelp(
        "Seconds the peer has to answer one request (hello: at least 10).", valueName: "SECONDS"))
    var timeout: Double = 10

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    @Option(name: .customLong("junit"), help: ArgumentHelp("Also write the report as JUnit XML to FILE.",
                                                          valueName: "FILE"), completion: .file())
    var junit: String?

    @Flag(name: .customLong("verbose"), help: ArgumentHelp("""
        Also list the skipped checks and the declared differences (text), or every check (--json).
        """))
    var verbose = false

    @Argument(help: "Vector files or folders of them (a folder's envelopes/ too).", completion: .file())
    var paths: [String] = ["Vectors"]

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout takes 0 < SECONDS <= 3600") }
        guard !peer.isEmpty else { throw ValidationError("--peer needs a command") }
    }

    func run() throws {
        let terminal = isatty(STDERR_FILENO) == 1 && !json
        // The report file, opened first: never over a vector file the run reads (as -o is never over the input).
        let paths = try RawArguments.positionalPaths(self.paths)
        let inputs = ConformanceRunner.inputFiles(paths)
        let report = try RawArguments.path(junit, long: "--junit").map {
            try OutputFile(path: $0, inputPath: nil, moreInputs: inputs.vectors + inputs.envelopes)
        }
        // The peer dies with the run: its group on any signal that ends pncrypt, and, at the end, every child it
        // left outside the group (PeerOrphans).
        let adopted = PeerOrphans.adopt()
        let runner = ConformanceRunner(
            command: peer, options: ConformanceRunner.Options(paths: paths, timeout: timeout),
            progress: terminal ? { count in
                try? FileDescriptor.standardError.writeAll(Array("\r\(count) checks".utf8), naming: "standard error")
            } : nil,
            peerGroup: { SignalCleanup.setChildGroup($0) })
        let result = runner.run()
        if adopted { PeerOrphans.killAll() }
        if terminal { try? FileDescriptor.standardError.writeAll(Array("\r\u{1B}[K".utf8), naming: "standard error") }
        if let report {
            do {
                try report.write(Array(result.junit().utf8))
                try report.commit()
            } catch {
                report.abandon()
                throw error
            }
        }
        // The peer's text is untrusted: on a terminal it passes the one escaper.
        if json {
            let bytes = TerminalEscaper.json(result.json(allChecks: verbose), for: .standardOutput, raw: false)
            try FileDescriptor.standardOutput.writeAll(bytes, naming: "output")
        } else {
            // Every text of the peer's is escaped to one line whatever the output: a pipe into a log is read too.
            let text = result.text(verbose: verbose) { peerText in
                String(decoding: TerminalEscaper.escaped(Array(peerText.utf8), layout: false), as: UTF8.self)
            }
            var bytes = Array(text.utf8)
            if isatty(STDOUT_FILENO) == 1 { bytes = TerminalEscaper.escaped(bytes, layout: true) }
            try FileDescriptor.standardOutput.writeAll(bytes, naming: "output")
        }
        if !result.agreed { throw ExitCode.dataFailure }
    }
}
