// The conformance run's driver: the runner, its settings, and the order of the checks (vectors, then publish and
// receive of every style message, then envelopes). The peer is ConformanceRunner+Peer.swift; the checks,
// ConformanceRunner+Vectors.swift, ConformanceRunner+Messages.swift, ConformanceRunner+Envelopes.swift; judging
// and comparing, ConformanceRunner+Judging.swift.
import PNCrypt
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

/// Runs the vector files against a peer process (`pncrypt conformance --peer CMD`).
package final class ConformanceRunner {
    /// The settings of a run.
    package struct Options: Sendable {
        /// The vector files or folders (`Vectors` by default; `envelopes/` under a folder is read too).
        package var paths: [FilePath]
        /// Seconds the peer has to answer one request before it is killed (the first, `hello`, at least 10).
        package var timeout: Double
        /// How often a peer that died, hung or wrote garbage is started again before the run gives up.
        package var maxRestarts: Int

        /// Settings with the defaults: `Vectors`, 10 s, 3 restarts.
        package init(paths: [FilePath] = ["Vectors"], timeout: Double = 10, maxRestarts: Int = 3) {
            self.paths = paths
            self.timeout = timeout
            self.maxRestarts = maxRestarts
        }
    }

    /// The peer's answer to one request.
    enum Answer {
        /// `{"ok": true, ...}`.
        case value(JSONValue)
        /// `{"ok": false, "error": ...}`.
        case error(String)
        /// `{"ok": false, "unsupported": true}` (or an op left out of `hello`).
        case unsupported
        /// No answer: the peer died, hung or wrote garbage (it was started again for the next request).
        case broken(String)
    }

    let command: String
    let options: Options
    var peer: PeerProcess?
    var info: ConformancePeerInfo?
    var checks: [ConformanceCheck] = []
    var restarts = 0
    var gaveUp: String?
    var lastStderr: [UInt8] = []
    var requestID = 0
    let progress: ((Int) -> Void)?
    let peerGroup: (pid_t) -> Void
    /// The last request line sent and the answer line received, for the report.
    var lastSent = ""
    var lastGot = ""

    /// A runner for the peer `command` (run as `/bin/sh -c command`); `progress` is told the number of checks done
    /// now and then; `peerGroup` the process group of each peer started and 0 when it is gone (`PeerProcess`), for
    /// a signal handler that kills the peer before the program ends.
    package init(command: String, options: Options = Options(), progress: ((Int) -> Void)? = nil,
                peerGroup: @escaping (pid_t) -> Void = { _ in }) {
        self.command = command
        self.options = options
        self.progress = progress
        self.peerGroup = peerGroup
    }

    /// Runs every check and returns the report. Never throws and never waits longer than the timeout per request:
    /// what goes wrong is in the report.
    package func run() -> ConformanceReport {
        // Writing to a peer that closed its input must be an EPIPE, not the end of this process.
        let savedPipe = signal(SIGPIPE, SIG_IGN)
        defer {
            peer?.stop(grace: 1)
            signal(SIGPIPE, savedPipe)
        }
        var fatal: String?
        do throws(PeerProcess.Failure) {
            try start()
        } catch {
            fatal = "\(error)"
        }
        if fatal == nil {
            switch ask(["op": "hello"], hello: true) {
            case .value(let hello):
                let read = Self.peerInfo(hello)
                info = read.info
                fatal = read.refused.map { "the peer's hello was refused: \($0)" }
            case .error(let message):
                fatal = "the peer refused hello: \(message)"
            case .unsupported:
                fatal = "the peer answered hello as unsupported"
            case .broken(let why):
                fatal = "the peer did not answer hello: \(why)"
            }
        }
        if fatal == nil {
            runAll()
            fatal = gaveUp
        }
        if let peer, !peer.isRunning || fatal != nil {
            lastStderr = peer.stderrTail()
        }
        return ConformanceReport(command: command, peer: info, checks: checks, fatal: fatal, restarts: restarts,
                                 peerStderr: String(decoding: lastStderr, as: UTF8.self))
    }

    /// The files a run over `paths` reads: the vector files, the envelope vector files (a folder's `envelopes/`,
    /// and files named `envelopes.json` or `recorded.json`), and the paths where there is no vector file or folder.
    package static func inputFiles(_ paths: [FilePath])
        -> (vectors: [FilePath], envelopes: [FilePath], missing: [FilePath]) {
        var files: [FilePath] = []
        var envelopeFiles: [FilePath] = []
        var missing: [FilePath] = []
        for path in paths {
            guard let listed = try? TestVectorChecker.files(at: path) else {
                missing.append(path)
                continue
            }
            for file in listed {
                let family = family(of: file)
                if family == "envelopes" || family == "recorded" {
                    envelopeFiles.append(file)
                } else {
                    files.append(file)
                }
            }
            if VectorFiles.isDirectory(path) == true {
                let folder = path.appending("envelopes")
                if let more = try? TestVectorChecker.files(at: folder) { envelopeFiles += more }
            }
        }
        return (files, envelopeFiles, missing)
    }

    func runAll() {
        let (files, envelopeFiles, missing) = Self.inputFiles(options.paths)
        for path in missing {
            record(id: path.shown, family: "files", direction: "read", .failed, "no vector file or folder there")
        }
        var styleMessages: [(name: String, text: String)] = []
        for file in files {
            let family = Self.family(of: file)
            let loaded: TestVectorFile
            do {
                loaded = try TestVectorFile.load(path: file)
            } catch {
                record(id: file.shown, family: family, direction: "read", .failed, "\(error)")
                continue
            }
            for vector in loaded.vectors {
                if gaveUp != nil { return }
                checkVector(vector, family: family)
                if let message = vector.message, !styleMessages.contains(where: { $0.text == message }) {
                    styleMessages.append((Self.caseName(vector), message))
                }
            }
        }
        for (index, message) in styleMessages.enumerated() {
            if gaveUp != nil { return }
            checkPublish(message.text, name: message.name, index: index)
        }
        for (index, message) in styleMessages.enumerated() {
            if gaveUp != nil { return }
            checkReceive(message.text, name: message.name, index: index)
        }
        for file in envelopeFiles {
            if gaveUp != nil { return }
            checkEnvelopes(file)
        }
    }
}
