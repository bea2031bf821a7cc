// The conformance run's peer: starting it, asking it one request, starting it again when it fails, and what it
// said of itself in `hello`.
import PNCrypt

extension ConformanceRunner {
    // MARK: The peer

    func start() throws(PeerProcess.Failure) {
        peer = try PeerProcess(command: command, groupChanged: peerGroup)
    }

    /// Whether the peer said it has `op` (true when it listed no ops).
    func supports(op: String) -> Bool {
        guard let ops = info?.ops else { return true }
        return ops.contains(op)
    }

    /// Whether the peer said it has `scheme` (true when it listed no schemes).
    func supports(scheme: String) -> Bool {
        guard let schemes = info?.schemes else { return true }
        return schemes.contains(scheme)
    }

    /// Sends one request; a peer that died, hung or wrote garbage is started again (up to `maxRestarts` times).
    func ask(_ request: JSONObject, hello: Bool = false) -> Answer {
        if let gaveUp { return .broken(gaveUp) }
        if !hello, let op = request["op"]?.stringValue, !supports(op: op) { return .unsupported }
        requestID += 1
        var object = request
        object.append(.number(JSONNumber(requestID)), forKey: "id")
        let line = JSONValue.object(object).serialized()
        lastSent = Self.cut(line)
        lastGot = ""
        guard let peer, peer.isRunning else { return .broken("the peer is not running") }
        let answer: JSONValue
        do throws(PeerProcess.Failure) {
            answer = try peer.ask(line, timeout: hello ? startupTimeout : options.timeout)
        } catch {
            lastStderr = peer.stderrTail()
            if case .garbage(let text) = error { lastGot = text }
            if !hello { restart() }
            return .broken("\(error)")
        }
        lastGot = Self.cut(answer.serialized())
        if let id = answer["id"], id != .number(JSONNumber(requestID)) {
            if !hello { restart() }
            return .broken("the answer's id is \(id.serializedString()), not \(requestID): the peer is out of step")
        }
        switch answer["ok"] {
        case .bool(true)?:
            return .value(answer)
        case .bool(false)?:
            if answer["unsupported"] == .bool(true) { return .unsupported }
            return .error(answer["error"]?.stringValue ?? "(no error text)")
        default:
            return .broken(#"the answer has no "ok": true or false"#)
        }
    }

    /// The time the first answer (`hello`) may take: the timeout, but at least 10 s, since starting an SDK (a
    /// Python import, a JVM) can take seconds on a busy machine.
    var startupTimeout: Double { max(options.timeout, 10) }

    func restart() {
        peer?.stop(grace: 0)
        guard restarts < options.maxRestarts else {
            gaveUp = "the peer failed \(restarts + 1) times (died, hung or wrote garbage); the run stopped there"
            return
        }
        restarts += 1
        do throws(PeerProcess.Failure) {
            try start()
            _ = peer.map { try? $0.ask(JSONValue.object(["op": "hello"]).serialized(), timeout: startupTimeout) }
        } catch {
            gaveUp = "\(error)"
        }
    }

    /// What the peer said of itself in `hello`, and the first of its declared differences that is refused (a
    /// pattern that names no family, an outcome missing or not known), which stops the run.
    static func peerInfo(_ hello: JSONValue) -> (info: ConformancePeerInfo, refused: String?) {
        func strings(_ key: String) -> [String]? {
            hello[key]?.arrayValue.map { $0.compactMap(\.stringValue) }
        }
        var differences: [ConformanceDifference] = []
        var refused: String?
        for entry in hello["differences"]?.arrayValue ?? [] {
            let reason = entry["reason"]?.stringValue ?? "(no reason given)"
            let outcome = entry["outcome"]?.stringValue
            for pattern in entry["checks"]?.arrayValue ?? [] {
                do throws(ConformanceDifference.Refusal) {
                    guard let pattern = pattern.stringValue else {
                        throw ConformanceDifference.Refusal(description: "a declared difference's checks are "
                                                            + "not all strings")
                    }
                    differences.append(try ConformanceDifference(check: pattern, outcome: outcome, reason: reason))
                } catch {
                    refused = refused ?? "\(error)"
                }
            }
        }
        let info = ConformancePeerInfo(name: hello["name"]?.stringValue ?? "(unnamed)",
                                       version: hello["version"]?.stringValue ?? "(no version)",
                                       ops: strings("ops"), schemes: strings("schemes"),
                                       style: hello["style"]?.stringValue, differences: differences)
        return (info, refused)
    }
}
