import Foundation
import PNCryptJSON

/// The real PubNub Python SDK as a peer process (`scripts/vectors/pubnub_peer.py`, one JSON request per line on its
/// stdin, one JSON reply per line on its stdout), for the interop suite. One process serves a whole test run.
///
/// The Python comes from `PNCRYPT_PYTHON` when set, otherwise from `<repo>/.venv`, which is created (or checked)
/// with `scripts/build/make_venv.sh` (pip-installs `pubnub==10.8.0` from PyPI). When that fails, every interop test
/// fails with `PythonPeer.SetupError`, which says what to install or run.
package final class PythonPeer: @unchecked Sendable {
    /// The SDK version the suite checks (pinned in `scripts/build/make_venv.sh`).
    package static let sdkVersion = "10.8.0"

    /// Why the peer could not be started: the message says what to do.
    package struct SetupError: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    /// A reply the peer could not give, or a broken pipe.
    package struct PeerError: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    private let child: ChildProcess
    private let toPeer: FileHandle
    private let fromPeer: Int32
    private let stderrPath: String
    private var pending: [UInt8] = []
    private let lock = NSLock()

    /// The shared peer, started on first use. A failure to start is remembered and thrown by every caller.
    package static func shared() throws -> PythonPeer {
        try sharedResult.get()
    }

    private static let sharedResult: Result<PythonPeer, SetupError> = {
        do {
            let python = try findPython()
            return .success(try PythonPeer(python: python))
        } catch let error as SetupError {
            return .failure(error)
        } catch {
            return .failure(SetupError(description: "could not start the Python peer: \(error)"))
        }
    }()

    private static let howToFix = """
        The interop suite needs Python 3 (>= 3.9) with the venv module and access to PyPI, to create .venv with \
        pubnub==\(sdkVersion): apt-get install python3 python3-venv (Debian/Ubuntu) or brew install python \
        (macOS), then run scripts/build/make_venv.sh (honours HTTPS_PROXY / PIP_INDEX_URL), or point PNCRYPT_PYTHON \
        at a python that has pubnub==\(sdkVersion) installed. To skip the suite on a developer machine only: \
        PNCRYPT_SKIP_INTEROP=1 swift test (refused in CI).
        """

    /// `PNCRYPT_PYTHON`, or the repository's `.venv/bin/python` after `scripts/build/make_venv.sh` made sure it has the
    /// pinned packages (idempotent: quick when the venv is already complete).
    private static func findPython() throws -> String {
        let env = ProcessInfo.processInfo.environment
        if let python = env["PNCRYPT_PYTHON"], !python.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: python) else {
                throw SetupError(description: "PNCRYPT_PYTHON=\(python) is not an executable file. \(howToFix)")
            }
            return python
        }
        let script = Package.root.appendingPathComponent("scripts/build/make_venv.sh").path
        let venv = Package.root.appendingPathComponent(".venv").path
        let result: (status: Int32, output: String)
        do {
            result = try runTool("/bin/bash", [script, venv])
        } catch {
            throw SetupError(description: "could not run scripts/build/make_venv.sh: \(error). \(howToFix)")
        }
        guard result.status == 0 else {
            throw SetupError(description: """
                scripts/build/make_venv.sh could not create \(venv) with pubnub==\(sdkVersion) (exit \(result.status)):
                \(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
                \(howToFix)
                """)
        }
        return venv + "/bin/python"
    }

    /// Runs a tool to completion and returns its status and its output (standard output, then error).
    private static func runTool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try runProcess(path, arguments)
        return (result.status, result.text + result.stderr)
    }

    private init(python: String) throws {
        signal(SIGPIPE, SIG_IGN)
        let script = Package.root.appendingPathComponent("scripts/vectors/pubnub_peer.py").path
        var env = ProcessInfo.processInfo.environment
        env["PYTHONIOENCODING"] = "utf-8"
        env["PYTHONUTF8"] = "1"
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        stderrPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("pncrypt-peer-\(UUID().uuidString).stderr").path
        do {
            child = try ChildProcess(python, ["-u", script], environment: env, stderr: .file(stderrPath))
        } catch {
            throw SetupError(description: "could not start \(python) \(script): \(error). \(PythonPeer.howToFix)")
        }
        toPeer = FileHandle(fileDescriptor: child.input, closeOnDealloc: false)
        fromPeer = child.output
        let pong: JSONValue
        do {
            pong = try request(["op": "ping"])
        } catch {
            throw SetupError(description: "the Python peer did not answer: \(error). \(PythonPeer.howToFix)")
        }
        guard pong["sdk"]?.stringValue == Self.sdkVersion else {
            throw SetupError(description: "\(python) has pubnub \(pong["sdk"]?.description ?? "?"), not "
                             + "\(Self.sdkVersion). \(PythonPeer.howToFix)")
        }
    }

    /// Sends one request and returns the reply object (`ok` true or false).
    package func request(_ request: JSONValue) throws -> JSONValue {
        try batch([request])[0]
    }

    /// Sends all `requests` at once (written from another thread, so neither side blocks on a full pipe) and
    /// returns the replies in order.
    package func batch(_ requests: [JSONValue]) throws -> [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        var text: [UInt8] = []
        for request in requests {
            text += request.serialized(style: .compact)
            text.append(0x0A)
        }
        let writer = DispatchGroup()
        let handle = toPeer
        let payload = text
        DispatchQueue.global().async(group: writer) {
            try? handle.write(contentsOf: payload)
        }
        defer { writer.wait() }
        var replies: [JSONValue] = []
        replies.reserveCapacity(requests.count)
        for _ in requests {
            let line = try readLine()
            do {
                replies.append(try JSONValue(parsing: line))
            } catch {
                throw PeerError(description: "the peer wrote a line that is not JSON (\(error)): "
                                + String(decoding: line.prefix(300), as: UTF8.self))
            }
        }
        return replies
    }

    private func readLine() throws -> [UInt8] {
        var scanned = 0
        while true {
            if let newline = pending[scanned...].firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return line
            }
            scanned = pending.count
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(fromPeer, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
                throw PeerError(description: "the Python peer closed its output (exited?); its stderr: "
                                + String(stderr.suffix(2000)))
            }
            pending += chunk[0..<n]
        }
    }

    deinit {
        child.closeInput()
        try? FileManager.default.removeItem(atPath: stderrPath)
    }
}

/// Whether the interop suite runs, from the environment.
package enum InteropSwitch {
    /// `PNCRYPT_SKIP_INTEROP=1`: a developer skipping the suite locally.
    package static var skipRequested: Bool { ProcessInfo.processInfo.environment["PNCRYPT_SKIP_INTEROP"] == "1" }

    /// `CI` set to anything but empty, `0` or `false` (what CI services set; `.ci/run` sets `CI=true`).
    package static var inCI: Bool {
        let value = (ProcessInfo.processInfo.environment["CI"] ?? "").lowercased()
        return !value.isEmpty && value != "0" && value != "false"
    }

    /// The suite runs unless skipping is requested outside CI (in CI a skip request makes a test fail instead).
    package static var enabled: Bool { !skipRequested || inCI }
}
