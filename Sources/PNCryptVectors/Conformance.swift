// `pncrypt conformance --peer CMD`: every vector file run against another SDK through an adapter process, both
// ways (docs/conformance.md has the protocol). The peer decrypts pncrypt's ciphertexts and pncrypt decrypts the
// peer's; bytes are compared where the IV is fixed; publish bodies are compared with the style the peer claims;
// what must fail must fail. Only the public API of the library is used for pncrypt's side.
import PNCrypt
import PNCryptPlatform

/// One check of a conformance run.
public struct ConformanceCheck: Hashable, Sendable {
    /// How a check ended.
    public enum Outcome: String, Hashable, Sendable {
        /// The peer and pncrypt agreed.
        case passed
        /// They disagreed, or the peer failed to answer.
        case failed
        /// Not run: the peer does not support it, or the vector does not apply (`detail` says why).
        case skipped
        /// They disagreed where the peer's adapter declared it (`hello`'s `differences`, with the reason in
        /// `detail`): reported, not counted as a failure.
        case known
    }

    /// The vector id (or message id) and what was checked, e.g. `gen-legacy-k-0017-text/peer-decrypts`.
    public var id: String
    /// The family: the vector file's name (`generated`, `negative`, ...), or `publish`, `messages`, `envelopes`.
    public var family: String
    /// Which way: `peer-decrypts`, `pncrypt-decrypts`, `peer-encrypts` (bytes compared), `must-fail`, ...
    public var direction: String
    /// How it ended.
    public var outcome: Outcome
    /// For a failure or a skip: why. Holds text from the peer: escape it for a terminal.
    public var detail: String
    /// What was sent to the peer (the request line, cut), when it was.
    public var sent: String
    /// What came back (the answer line, cut), when something did.
    public var got: String
}

/// What the peer said of itself (`hello`).
public struct ConformancePeerInfo: Sendable {
    /// The SDK's name.
    public var name: String
    /// The SDK's version.
    public var version: String
    /// The ops it supports; nil when it did not say (all are tried).
    public var ops: [String]?
    /// The schemes it supports; nil when it did not say (all are tried).
    public var schemes: [String]?
    /// The publish style it claims (a `--style` name), when it names one.
    public var style: String?
    /// The differences from pncrypt the adapter declares: check id patterns (`*` matches any run of characters)
    /// and the reason for each.
    public var differences: [(pattern: String, reason: String)]

    /// The reason declared for check `id`, if one of the patterns matches it.
    public func declaredDifference(_ id: String) -> String? {
        differences.first { Self.matches(id, $0.pattern) }?.reason
    }

    /// Whether `id` matches `pattern`, in which `*` stands for any run of characters.
    static func matches(_ id: String, _ pattern: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
        var rest = Substring(id)
        for (index, part) in parts.enumerated() {
            if index == 0 {
                guard rest.hasPrefix(part) else { return false }
                rest = rest.dropFirst(part.count)
            } else if index == parts.count - 1 {
                return rest.hasSuffix(part)
            } else {
                guard let found = rest.firstRange(of: part) else { return false }
                rest = rest[found.upperBound...]
            }
        }
        return rest.isEmpty
    }
}

/// The result of a conformance run.
public struct ConformanceReport: Sendable {
    /// The peer command.
    public var command: String
    /// What the peer said of itself; nil when it never answered `hello`.
    public var peer: ConformancePeerInfo?
    /// Every check, in the order run.
    public var checks: [ConformanceCheck]
    /// Why the run stopped early (the peer could not be started, or kept dying), when it did.
    public var fatal: String?
    /// How often the peer was started again after it died, hung or wrote garbage.
    public var restarts: Int
    /// The peer's last words on standard error when it died or hung (untrusted text).
    public var peerStderr: String

    /// Checks that passed.
    public var passed: Int { checks.count { $0.outcome == .passed } }
    /// Checks that failed.
    public var failed: Int { checks.count { $0.outcome == .failed } }
    /// Checks that were skipped.
    public var skipped: Int { checks.count { $0.outcome == .skipped } }
    /// Checks that disagreed where the peer declared a difference.
    public var known: Int { checks.count { $0.outcome == .known } }
    /// Whether everything that ran agreed (and the run was not cut short).
    public var agreed: Bool { failed == 0 && fatal == nil && passed > 0 }

    /// Passed, failed and skipped counts per family, families in the order first seen.
    public var families: [(family: String, passed: Int, failed: Int, skipped: Int, known: Int)] {
        var order: [String] = []
        var counts: [String: (Int, Int, Int, Int)] = [:]
        for check in checks {
            if counts[check.family] == nil { order.append(check.family); counts[check.family] = (0, 0, 0, 0) }
            switch check.outcome {
            case .passed: counts[check.family]!.0 += 1
            case .failed: counts[check.family]!.1 += 1
            case .skipped: counts[check.family]!.2 += 1
            case .known: counts[check.family]!.3 += 1
            }
        }
        return order.map { ($0, counts[$0]!.0, counts[$0]!.1, counts[$0]!.2, counts[$0]!.3) }
    }
}

/// Runs the vector files against a peer process (`pncrypt conformance --peer CMD`).
public final class ConformanceRunner {
    /// The settings of a run.
    public struct Options: Sendable {
        /// The vector files or folders (`Vectors` by default; `envelopes/` under a folder is read too).
        public var paths: [String]
        /// Seconds the peer has to answer one request before it is killed (the first, `hello`, at least 10).
        public var timeout: Double
        /// How often a peer that died, hung or wrote garbage is started again before the run gives up.
        public var maxRestarts: Int

        /// Settings with the defaults: `Vectors`, 10 s, 3 restarts.
        public init(paths: [String] = ["Vectors"], timeout: Double = 10, maxRestarts: Int = 3) {
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

    private let command: String
    private let options: Options
    private var peer: PeerProcess?
    private var info: ConformancePeerInfo?
    private var checks: [ConformanceCheck] = []
    private var restarts = 0
    private var gaveUp: String?
    private var lastStderr: [UInt8] = []
    private var requestID = 0
    private let progress: ((Int) -> Void)?

    /// A runner for the peer `command` (run as `/bin/sh -c command`); `progress` is told the number of checks done
    /// now and then.
    public init(command: String, options: Options = Options(), progress: ((Int) -> Void)? = nil) {
        self.command = command
        self.options = options
        self.progress = progress
    }

    /// Runs every check and returns the report. Never throws and never waits longer than the timeout per request:
    /// what goes wrong is in the report.
    public func run() -> ConformanceReport {
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
                info = Self.peerInfo(hello)
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

    private func runAll() {
        var files: [String] = []
        var envelopeFiles: [String] = []
        for path in options.paths {
            guard let listed = try? TestVectorChecker.files(at: path) else {
                record(id: path, family: "files", direction: "read", .failed, "no vector file or folder there")
                continue
            }
            files += listed
            if VectorFiles.isDirectory(path) == true {
                let folder = (path.hasSuffix("/") ? path : path + "/") + "envelopes"
                if let more = try? TestVectorChecker.files(at: folder) { envelopeFiles += more }
            }
        }
        var styleMessages: [(name: String, text: String)] = []
        for file in files {
            let family = Self.family(of: file)
            if family == "envelopes" || family == "recorded" {
                envelopeFiles.append(file)
                continue
            }
            let loaded: TestVectorFile
            do {
                loaded = try TestVectorFile.load(path: file)
            } catch {
                record(id: file, family: family, direction: "read", .failed, "\(error)")
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

    // MARK: The peer

    private func start() throws(PeerProcess.Failure) {
        peer = try PeerProcess(command: command)
    }

    /// Whether the peer said it has `op` (true when it listed no ops).
    private func supports(op: String) -> Bool {
        guard let ops = info?.ops else { return true }
        return ops.contains(op)
    }

    /// Whether the peer said it has `scheme` (true when it listed no schemes).
    private func supports(scheme: String) -> Bool {
        guard let schemes = info?.schemes else { return true }
        return schemes.contains(scheme)
    }

    /// The last request line sent and the answer line received, for the report.
    private var lastSent = ""
    private var lastGot = ""

    /// Sends one request; a peer that died, hung or wrote garbage is started again (up to `maxRestarts` times).
    private func ask(_ request: JSONObject, hello: Bool = false) -> Answer {
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
    private var startupTimeout: Double { max(options.timeout, 10) }

    private func restart() {
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

    private static func peerInfo(_ hello: JSONValue) -> ConformancePeerInfo {
        func strings(_ key: String) -> [String]? {
            hello[key]?.arrayValue.map { $0.compactMap(\.stringValue) }
        }
        var differences: [(pattern: String, reason: String)] = []
        for entry in hello["differences"]?.arrayValue ?? [] {
            let reason = entry["reason"]?.stringValue ?? "(no reason given)"
            for pattern in entry["checks"]?.arrayValue ?? [] {
                if let pattern = pattern.stringValue, !pattern.isEmpty, pattern != "*" {
                    differences.append((pattern, reason))
                }
            }
        }
        return ConformancePeerInfo(name: hello["name"]?.stringValue ?? "(unnamed)",
                                   version: hello["version"]?.stringValue ?? "(no version)",
                                   ops: strings("ops"), schemes: strings("schemes"),
                                   style: hello["style"]?.stringValue, differences: differences)
    }

    // MARK: Recording

    private func record(id: String, family: String, direction: String, _ outcome: ConformanceCheck.Outcome,
                        _ detail: String = "", exchanged: Bool = false) {
        var outcome = outcome
        var detail = detail
        if outcome == .failed, let reason = info?.declaredDifference(id) {
            outcome = .known
            detail = "known difference (\(reason)): \(detail)"
        }
        checks.append(ConformanceCheck(id: id, family: family, direction: direction, outcome: outcome,
                                       detail: detail, sent: exchanged ? lastSent : "",
                                       got: exchanged ? lastGot : ""))
        if checks.count % 100 == 0 { progress?(checks.count) }
    }

    /// Records a check from the peer's answer: `judge` returns nil when it agrees, else what is wrong.
    private func judge(_ id: String, _ family: String, _ direction: String, _ answer: Answer,
                       expectFailure: Bool = false, _ judge: (JSONValue) -> String?) {
        switch answer {
        case .unsupported:
            record(id: id, family: family, direction: direction, .skipped, "the peer does not support it")
        case .broken(let why):
            record(id: id, family: family, direction: direction, .failed, why, exchanged: true)
        case .error(let message):
            if expectFailure {
                record(id: id, family: family, direction: direction, .passed)
            } else {
                record(id: id, family: family, direction: direction, .failed, "the peer failed: \(message)",
                       exchanged: true)
            }
        case .value(let value):
            if let problem = judge(value) {
                record(id: id, family: family, direction: direction, .failed, problem, exchanged: true)
            } else {
                record(id: id, family: family, direction: direction, .passed)
            }
        }
    }

    // MARK: Vectors

    private func checkVector(_ v: TestVector, family: String) {
        let id = v.id
        guard supports(scheme: v.scheme) else {
            record(id: id, family: family, direction: "any", .skipped, "the peer does not have scheme \(v.scheme)")
            return
        }
        var base: JSONObject = ["scheme": .string(v.scheme), "key": .string(v.key)]
        if v.scheme == "auto" {
            base.append(.string(v.legacyScheme ?? Scheme.headerlessPair.fixed.rawValue), forKey: "legacy_scheme")
        }
        let plaintext: [UInt8]?
        do {
            plaintext = try v.plaintextBytes()
        } catch {
            record(id: id, family: family, direction: "read", .failed, "the vector's plaintext: \(error)")
            return
        }
        let ciphertext = v.ciphertext.flatMap { try? Base64.decode($0) }
        switch v.expect {
        case .ok:
            guard let plaintext, let ciphertext else {
                record(id: id, family: family, direction: "read", .failed, "an ok vector needs both texts")
                return
            }
            // The peer reads the vector's bytes.
            var request = base
            request.append("decrypt", forKey: "op")
            request.append(.string(v.ciphertext ?? ""), forKey: "data")
            judge(id + "/peer-decrypts", family, "peer-decrypts", ask(request)) { answer in
                Self.compareBytes(answer["data"], plaintext)
            }
            if let text = v.plaintext, !plaintext.isEmpty {
                var request = base
                request.append("decrypt_text", forKey: "op")
                request.append(.string(v.ciphertext ?? ""), forKey: "data")
                judge(id + "/peer-decrypts-text", family, "peer-decrypts", ask(request)) { answer in
                    Self.compareText(answer, text)
                }
            }
            guard let scheme = Scheme(rawValue: v.scheme), !plaintext.isEmpty else { return }
            checkEncryption(v, scheme: scheme, plaintext: plaintext, ciphertext: ciphertext, base: base,
                            family: family)
        case .decryptionError, .unknownCryptor:
            // Not Base64 cannot be given as bytes: such vectors go through the text path, as all do for a peer
            // without binary decryption.
            var request = base
            let viaText = v.reason == "notBase64" || ciphertext == nil || !supports(op: "decrypt")
            request.append(.string(viaText ? "decrypt_text" : "decrypt"), forKey: "op")
            request.append(.string(v.ciphertext ?? ""), forKey: "data")
            judge(id + "/must-fail", family, "must-fail", ask(request), expectFailure: true) { answer in
                "expected a failure (\(v.expect.rawValue), \(v.reason ?? "")), the peer decrypted it to "
                    + Self.cut(answer["data"] ?? answer["text"] ?? answer["value"] ?? .null)
            }
        case .encryptionError:
            var request = base
            request.append("encrypt", forKey: "op")
            request.append(.string(Base64.encode(plaintext ?? [])), forKey: "data")
            judge(id + "/must-fail", family, "must-fail", ask(request), expectFailure: true) { answer in
                "expected an encryption error, the peer encrypted it to " + Self.cut(answer["data"] ?? .null)
            }
        }
    }

    /// The peer encrypts: with the vector's IV its bytes must be the vector's; with a fresh IV pncrypt must read
    /// them; and the peer must read pncrypt's fresh ciphertext.
    private func checkEncryption(_ v: TestVector, scheme: Scheme, plaintext: [UInt8], ciphertext: [UInt8],
                                 base: JSONObject, family: String) {
        let id = v.id
        let module: CryptoModule
        do {
            module = try CryptoModule(cipherKey: v.key, scheme: scheme)
        } catch {
            record(id: id, family: family, direction: "pncrypt", .failed, "pncrypt: \(error)")
            return
        }
        let fixed = scheme.row.iv == .fixed
        if v.iv != nil || fixed {
            var request = base
            request.append("encrypt", forKey: "op")
            request.append(.string(Base64.encode(plaintext)), forKey: "data")
            if let iv = v.iv { request.append(.string(iv), forKey: "iv") }
            judge(id + "/peer-encrypts", family, "peer-encrypts", ask(request)) { answer in
                Self.compareBytes(answer["data"], ciphertext)
            }
            if let text = v.plaintext {
                var request = base
                request.append("encrypt_text", forKey: "op")
                request.append(.string(text), forKey: "text")
                if let iv = v.iv { request.append(.string(iv), forKey: "iv") }
                judge(id + "/peer-encrypts-text", family, "peer-encrypts", ask(request)) { answer in
                    guard let got = answer["data"]?.stringValue else { return #"no "data" string in the answer"#}
                    return got == v.ciphertext ? nil : "expected \(v.ciphertext ?? "")"
                }
            }
        }
        guard !fixed else { return }
        // A fresh random IV each way.
        var request = base
        request.append("encrypt", forKey: "op")
        request.append(.string(Base64.encode(plaintext)), forKey: "data")
        judge(id + "/pncrypt-decrypts", family, "pncrypt-decrypts", ask(request)) { answer in
            Self.pncryptReads(answer["data"], module: module, scheme: scheme, plaintext: plaintext)
        }
        if let text = v.plaintext {
            var request = base
            request.append("encrypt_text", forKey: "op")
            request.append(.string(text), forKey: "text")
            judge(id + "/pncrypt-decrypts-text", family, "pncrypt-decrypts", ask(request)) { answer in
                Self.pncryptReads(answer["data"], module: module, scheme: scheme, plaintext: plaintext)
            }
        }
        guard let fresh = try? module.encryptBinary(plaintext, scheme: scheme) else {
            record(id: id + "/peer-decrypts-fresh", family: family, direction: "peer-decrypts", .failed,
                   "pncrypt could not encrypt it")
            return
        }
        var decrypt = base
        decrypt.append("decrypt", forKey: "op")
        decrypt.append(.string(Base64.encode(fresh)), forKey: "data")
        judge(id + "/peer-decrypts-fresh", family, "peer-decrypts", ask(decrypt)) { answer in
            Self.compareBytes(answer["data"], plaintext)
        }
    }

    // MARK: Publish and receive

    /// An IV for message `index` of a publish check: 16 ASCII characters (some SDKs make IVs out of text).
    static func publishIV(_ index: Int, _ scheme: Scheme) -> [UInt8] {
        let digits = String(index * 4 + Scheme.allCases.firstIndex(of: scheme)!)
        return Array(("pncrypt-iv-" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits).utf8)
    }

    static let publishKey = "enigma"
    /// The schemes whose messages are one encrypted JSON text (the table's `.whole`: all but iOS 3.3's).
    static let publishSchemes: [Scheme] = Scheme.allCases.filter { $0.row.message == .whole }

    /// The name of a style vector's message: its id without `style-`, the style and `acrh-`.
    static func caseName(_ vector: TestVector) -> String {
        var name = Substring(vector.id)
        if name.hasPrefix("style-") { name = name.dropFirst(6) }
        if let style = vector.style, name.hasPrefix(style + "-") { name = name.dropFirst(style.count + 1) }
        if name.hasPrefix("acrh-") { name = name.dropFirst(5) }
        return String(name)
    }

    private func checkPublish(_ text: String, name: String, index: Int) {
        let family = "publish"
        let id = "message-\(name)"
        guard let message = try? JSONValue(parsing: text) else {
            record(id: id, family: family, direction: "read", .failed, "the message does not parse: \(text)")
            return
        }
        let claimed = info?.style
        let style = claimed.flatMap(JSONStyle.init(rawValue:))
        for scheme in Self.publishSchemes {
            let schemeID = "\(id)/\(scheme.rawValue)"
            guard supports(scheme: scheme.rawValue) else {
                record(id: schemeID, family: family, direction: "publish", .skipped,
                       "the peer does not have scheme \(scheme.rawValue)")
                continue
            }
            let request: JSONObject = ["op": "publish", "scheme": .string(scheme.rawValue),
                                       "key": .string(Self.publishKey), "message": .string(text)]
            // Byte for byte, in the style the peer claims.
            if let style {
                if let why = Self.unmodelled(message, style: style) {
                    guard !why.contains("cannot publish") else {
                        record(id: schemeID + "/peer-publishes", family: family, direction: "peer-publishes",
                               .skipped, why)
                        continue
                    }
                    // The bytes are the SDK's own matter here: the value it published must be the message's.
                    judge(schemeID + "/peer-publishes-value", family, "peer-publishes", ask(request)) { answer in
                        guard let body = answer["body"]?.stringValue else { return #"no "body" string in the answer"# }
                        guard let plaintext = Self.plaintext(ofBody: body, scheme: scheme) else {
                            return "pncrypt cannot decrypt the body as \(scheme.rawValue)"
                        }
                        guard let value = try? JSONValue(parsing: plaintext) else {
                            return "the plaintext is not JSON: " + Self.cut(plaintext)
                        }
                        return ConformanceValues.same(value, message) ? nil
                            : "the plaintext " + Self.cut(plaintext) + " is not the message \(text) (\(why))"
                    }
                } else {
                    let iv = scheme.row.iv == .fixed ? nil : Self.publishIV(index, scheme)
                    var fixed = request
                    if let iv { fixed.append(.string(Hex.encode(iv)), forKey: "iv") }
                    let expected = (try? MessageCrypto(cipherKey: Self.publishKey, scheme: scheme, style: style)
                        .encrypt(message, iv: iv))?.serialized()
                    judge(schemeID + "/peer-publishes", family, "peer-publishes", ask(fixed)) { answer in
                        guard let body = answer["body"]?.stringValue else { return #"no "body" string in the answer"# }
                        guard let expected else { return "pncrypt could not publish it" }
                        guard Array(body.utf8) != expected else { return nil }
                        var problem = "expected the body \(String(decoding: expected, as: UTF8.self)) (style "
                            + "\(style.rawValue): the plaintext \(Self.cut(message.serialized(style: style))))"
                        if let peerText = Self.plaintext(ofBody: body, scheme: scheme) {
                            problem += "; the peer's body holds \(Self.cut(peerText))"
                        }
                        return problem
                    }
                }
            } else {
                record(id: schemeID + "/peer-publishes", family: family, direction: "peer-publishes", .skipped,
                       "the peer claims no style pncrypt knows (\(claimed ?? "none")): bodies are not compared")
            }
            guard scheme.row.iv != .fixed || style == nil else { continue }
            // A fresh IV: pncrypt reads the body, and gets the message (in the claimed style's bytes when known).
            judge(schemeID + "/pncrypt-decrypts", family, "pncrypt-decrypts", ask(request)) { answer in
                guard let body = answer["body"]?.stringValue else { return #"no "body" string in the answer"# }
                guard let value = try? JSONValue(parsing: body), let base64 = value.stringValue,
                      let bytes = try? Base64.decode(base64) else {
                    return "the body is not a JSON string of Base64"
                }
                guard let module = try? CryptoModule(cipherKey: Self.publishKey, scheme: scheme),
                      let plaintext = try? module.decryptBinary(bytes, reading: .only(scheme)) else {
                    return "pncrypt cannot decrypt the body as \(scheme.rawValue)"
                }
                if let style, Self.unmodelled(message, style: style) == nil {
                    let expected = message.serialized(style: style)
                    return plaintext == expected ? nil : "the plaintext is "
                        + Self.cut(plaintext) + ", expected " + Self.cut(expected) + " (style \(style.rawValue))"
                }
                guard let got = try? JSONValue(parsing: plaintext) else {
                    return "the plaintext is not JSON: " + Self.cut(plaintext)
                }
                return ConformanceValues.same(got, message) ? nil
                    : "the plaintext " + Self.cut(plaintext) + " is not the message " + text
            }
        }
    }

    /// Why pncrypt's model of `style` does not give an SDK's bytes for `message`, or nil when it does: the exact
    /// styles keep numbers as written and every repeated key, where a real SDK holds a parsed value.
    static func unmodelled(_ message: JSONValue, style: JSONStyle) -> String? {
        if JSONStyle.exactStyles.contains(style) {
            if ConformanceValues.hasNonIntegerNumber(message) {
                return "the \(style.rawValue) style keeps numbers as written; the SDK's float formatting is not "
                    + "modelled"
            }
            if ConformanceValues.hasRepeatedKey(message) {
                return "the \(style.rawValue) style keeps every repeated key; an SDK's parsed object keeps one"
            }
        }
        if let change = message.changes(in: style).first(where: { $0.contains("cannot publish") }) {
            return change
        }
        return nil
    }

    private func checkReceive(_ text: String, name: String, index: Int) {
        let family = "messages"
        let id = "message-\(name)"
        guard let message = try? JSONValue(parsing: text) else { return }
        for scheme in Self.publishSchemes {
            let schemeID = "\(id)/\(scheme.rawValue)"
            guard supports(scheme: scheme.rawValue) else {
                record(id: schemeID, family: family, direction: "receive", .skipped,
                       "the peer does not have scheme \(scheme.rawValue)")
                continue
            }
            guard !ConformanceValues.hasRepeatedKey(message) else {
                record(id: schemeID + "/peer-receives", family: family, direction: "peer-receives", .skipped,
                       "a repeated key: which value an SDK keeps is a style matter (publish checks it)")
                continue
            }
            guard let crypto = try? MessageCrypto(cipherKey: Self.publishKey, scheme: scheme),
                  let published = try? crypto.encrypt(message) else {
                record(id: schemeID, family: family, direction: "receive", .failed, "pncrypt could not publish it")
                continue
            }
            let request: JSONObject = ["op": "decrypt_message", "scheme": .string(scheme.rawValue),
                                       "key": .string(Self.publishKey),
                                       "message": .string(published.serializedString())]
            judge(schemeID + "/peer-receives", family, "peer-receives", ask(request)) { answer in
                if answer["error"] == .bool(true) { return "the peer reported a decryption error" }
                guard let value = answer["message"] else { return #"no "message" in the answer"# }
                return ConformanceValues.same(value, message) ? nil : "expected the message \(text)"
            }
            // With the wrong key: DECRYPTION_ERROR, never another value. The IV is one with which pncrypt itself
            // finds the padding wrong, so the check cannot pass by chance.
            let wrongKey = Self.publishKey + "-wrong"
            var wrong: JSONValue?
            for attempt in 0..<64 {
                let iv = Self.publishIV(1000 + index * 64 + attempt, scheme)
                guard let sealed = try? crypto.encrypt(message, iv: iv), let base64 = sealed.stringValue,
                      let bytes = try? Base64.decode(base64),
                      let module = try? CryptoModule(cipherKey: wrongKey, scheme: scheme) else { continue }
                if (try? module.decryptBinary(bytes, reading: .only(scheme))) == nil {
                    wrong = sealed
                    break
                }
            }
            guard let wrong else { continue }
            let failing: JSONObject = ["op": "decrypt_message", "scheme": .string(scheme.rawValue),
                                       "key": .string(wrongKey), "message": .string(wrong.serializedString())]
            judge(schemeID + "/peer-wrong-key", family, "must-fail", ask(failing), expectFailure: true) { answer in
                if answer["error"] == .bool(true) { return nil }
                let value = answer["message"]
                if value == .string(DecryptionPolicy.markerText) || value == wrong { return nil }
                return "expected DECRYPTION_ERROR or the message as received, got "
                    + Self.cut(value ?? .null)
            }
        }
    }

    // MARK: Envelopes

    private func checkEnvelopes(_ file: String) {
        let family = "envelopes"
        guard let data = VectorFiles.contents(of: file), let root = try? JSONValue(parsing: data),
              let vectors = root["vectors"]?.arrayValue else {
            record(id: file, family: family, direction: "read", .failed, "not an envelope vector file")
            return
        }
        for vector in vectors {
            if gaveUp != nil { return }
            guard let id = vector["id"]?.stringValue, let format = vector["format"]?.stringValue,
                  let scheme = vector["scheme"]?.stringValue, let key = vector["key"]?.stringValue,
                  let encrypted = vector["encrypted"]?.stringValue, let decrypted = vector["decrypted"]?.stringValue,
                  let envelopeFormat = EnvelopeFormat(rawValue: format),
                  let before = try? JSONValue(parsing: encrypted), let after = try? JSONValue(parsing: decrypted)
            else {
                record(id: "\(file)", family: family, direction: "read", .failed, "a vector lacks its fields")
                continue
            }
            guard scheme == "none" || supports(scheme: scheme) else {
                record(id: id, family: family, direction: "peer-decrypts", .skipped,
                       "the peer does not have scheme \(scheme)")
                continue
            }
            let originals = Self.messages(of: before, envelopeFormat)
            let expected = Self.messages(of: after, envelopeFormat)
            var failed: Set<String> = []
            for failure in vector["failures"]?.arrayValue ?? [] {
                failed.insert(Self.place(channel: failure["channel"]?.stringValue,
                                         index: failure["index"].flatMap { $0.numberValue?.int64Value } ?? -1))
            }
            let request: JSONObject = ["op": "decrypt_envelope", "format": .string(format),
                                       "scheme": .string(scheme == "none" ? Scheme.headerlessPair.fixed.rawValue
                                                         : scheme),
                                       "key": .string(key), "body": .string(encrypted)]
            judge(id + "/peer-decrypts", family, "peer-decrypts", ask(request)) { answer in
                guard let got = answer["messages"]?.arrayValue else { return #"no "messages" list in the answer"# }
                guard got.count == expected.count else {
                    return "\(got.count) messages, expected \(expected.count)"
                }
                for (position, entry) in got.enumerated() {
                    let want = expected[position]
                    let value = entry["message"] ?? .null
                    if failed.contains(want.place) {
                        let marked = entry["error"] == .bool(true) || value == .string(DecryptionPolicy.markerText)
                            || value == originals[position].value
                        if !marked {
                            return "message \(position) (\(want.place)) must fail to decrypt, got " + Self.cut(value)
                        }
                    } else {
                        if entry["error"] == .bool(true) {
                            return "message \(position) (\(want.place)): the peer reported a decryption error"
                        }
                        if !ConformanceValues.same(value, want.value) {
                            return "message \(position) (\(want.place)) is " + Self.cut(value) + ", expected "
                                + Self.cut(want.value)
                        }
                    }
                }
                return nil
            }
        }
    }

    /// Where a message sits, as `failures` names it.
    private static func place(channel: String?, index: Int64) -> String {
        channel.map { "\($0)[\(index)]" } ?? "[\(index)]"
    }

    /// The message fields of a response in document order (docs/formats.md section 6), with their places.
    static func messages(of body: JSONValue, _ format: EnvelopeFormat) -> [(place: String, value: JSONValue)] {
        var out: [(place: String, value: JSONValue)] = []
        switch format {
        case .v2:
            for (index, item) in (body[0]?.arrayValue ?? []).enumerated() {
                if let object = item.objectValue, object.contains(key: "message"),
                   object.contains(key: "timetoken") || object.contains(key: "meta") {
                    out.append((place(channel: nil, index: Int64(index)), object["message"] ?? .null))
                } else {
                    out.append((place(channel: nil, index: Int64(index)), item))
                }
            }
        case .v3:
            for (channel, items) in body["channels"]?.objectValue ?? [:] {
                for (index, item) in (items.arrayValue ?? []).enumerated() {
                    out.append((place(channel: channel, index: Int64(index)), item["message"] ?? .null))
                }
            }
        case .subscribe:
            for (index, item) in (body["m"]?.arrayValue ?? []).enumerated() {
                let type = item["e"]?.numberValue?.int64Value
                let channel = item["c"]?.stringValue ?? ""
                guard item["e"] == nil || type == 0 || type == 4, !channel.hasSuffix("-pnpres") else { continue }
                out.append((place(channel: channel, index: Int64(index)), item["d"] ?? .null))
            }
        }
        return out
    }

    // MARK: Comparisons

    /// The plaintext of a publish body (a JSON string of Base64), when pncrypt can read it with the publish key.
    static func plaintext(ofBody body: String, scheme: Scheme) -> [UInt8]? {
        guard let value = try? JSONValue(parsing: body), let base64 = value.stringValue,
              let bytes = try? Base64.decode(base64),
              let module = try? CryptoModule(cipherKey: publishKey, scheme: scheme) else { return nil }
        return try? module.decryptBinary(bytes, reading: .only(scheme))
    }

    static func compareBytes(_ answer: JSONValue?, _ expected: [UInt8]) -> String? {
        guard let text = answer?.stringValue else { return #"no "data" string in the answer"# }
        guard let got = try? Base64.decode(text) else { return #""data" is not Base64"# }
        return got == expected ? nil : "expected \(Base64.encode(expected))"
    }

    static func compareText(_ answer: JSONValue, _ expected: String) -> String? {
        if let text = answer["text"]?.stringValue {
            return text == expected ? nil : "expected the text \(Self.cut(Array(expected.utf8)))"
        }
        // An SDK that parses decrypted JSON hands the value over (the text itself when it is not JSON).
        if let value = answer["value"] {
            if let parsed = try? JSONValue(parsing: expected) {
                return ConformanceValues.same(value, parsed) ? nil : "expected the value \(Self.cut(parsed))"
            }
            return value == .string(expected) ? nil : "expected the text \(Self.cut(Array(expected.utf8)))"
        }
        return #"no "text" or "value" in the answer"#
    }

    static func pncryptReads(_ answer: JSONValue?, module: CryptoModule, scheme: Scheme, plaintext: [UInt8])
        -> String? {
        guard let text = answer?.stringValue else { return #"no "data" string in the answer"# }
        guard let bytes = try? Base64.decode(text) else { return #""data" is not Base64"# }
        do {
            let got = try module.decryptBinary(bytes, reading: .only(scheme))
            return got == plaintext ? nil : "pncrypt decrypted it to \(Base64.encode(got)), expected "
                + Base64.encode(plaintext)
        } catch {
            return "pncrypt cannot decrypt it as \(scheme.rawValue): \(error)"
        }
    }

    static func family(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".json") ? String(name.dropLast(5)) : name
    }

    static func cut(_ bytes: [UInt8], limit: Int = 300) -> String {
        String(decoding: bytes.prefix(limit), as: UTF8.self) + (bytes.count > limit ? "…" : "")
    }

    static func cut(_ value: JSONValue) -> String { cut(value.serialized()) }
}

/// JSON values compared as SDKs hold them: numbers by value, objects without regard to member order (Go sorts
/// keys), a repeated key by its last value.
enum ConformanceValues {
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            if x.literal == y.literal { return true }
            // Integers exactly (an SDK keeps them of any size); anything else as the Double every SDK holds.
            if isInteger(x.literal) && isInteger(y.literal) { return canonical(x.literal) == canonical(y.literal) }
            if let p = Double(x.literal), let q = Double(y.literal) { return p == q }
            return false
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            let left = lastValues(x), right = lastValues(y)
            guard left.count == right.count else { return false }
            for (key, value) in left {
                guard let other = right[key], same(value, other) else { return false }
            }
            return true
        default:
            return a == b
        }
    }

    private static func isInteger(_ literal: String) -> Bool {
        let digits = literal.hasPrefix("-") ? literal.dropFirst() : Substring(literal)
        return !digits.isEmpty && digits.allSatisfy { $0 >= "0" && $0 <= "9" }
    }

    /// An integer literal without leading zeros, `-0` as `0`.
    private static func canonical(_ literal: String) -> String {
        let negative = literal.hasPrefix("-")
        let digits = (negative ? literal.dropFirst() : Substring(literal)).drop { $0 == "0" }
        return digits.isEmpty ? "0" : (negative ? "-" : "") + digits
    }

    private static func lastValues(_ object: JSONObject) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (key, value) in object { out[key] = value }
        return out
    }

    static func hasNonIntegerNumber(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let number):
            let literal = number.literal
            let digits = literal.hasPrefix("-") ? literal.dropFirst() : Substring(literal)
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return true }
            return (digits.count > 1 && digits.first == "0") || literal == "-0"
        case .array(let elements): return elements.contains(where: hasNonIntegerNumber)
        case .object(let object): return object.contains { hasNonIntegerNumber($0.value) }
        default: return false
        }
    }

    static func hasRepeatedKey(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let elements): return elements.contains(where: hasRepeatedKey)
        case .object(let object):
            return Set(object.keys).count != object.count || object.contains { hasRepeatedKey($0.value) }
        default: return false
        }
    }
}
