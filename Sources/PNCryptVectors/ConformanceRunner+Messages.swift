// The conformance checks of messages: the peer publishes each style message (its body compared byte for byte
// in the style it claims), pncrypt reads the peer's bodies, and the peer reads pncrypt's (and fails with a
// wrong key).
import PNCrypt

extension ConformanceRunner {
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

    /// Runs `body` for each scheme of the publish checks (`publishSchemes`) with the check id of that scheme
    /// (`id/scheme`), recording a skipped check in `direction` for a scheme the peer does not have.
    func forEachPublishScheme(id: String, family: String, direction: String, _ body: (Scheme, String) -> Void) {
        for scheme in Self.publishSchemes {
            let schemeID = "\(id)/\(scheme.rawValue)"
            guard supports(scheme: scheme.rawValue) else {
                record(id: schemeID, family: family, direction: direction, .skipped,
                       "the peer does not have scheme \(scheme.rawValue)")
                continue
            }
            body(scheme, schemeID)
        }
    }

    func checkPublish(_ text: String, name: String, index: Int) {
        let family = "publish"
        let id = "message-\(name)"
        guard let message = try? JSONValue(parsing: text) else {
            record(id: id, family: family, direction: "read", .failed, "the message does not parse: \(text)")
            return
        }
        let claimed = info?.style
        let style = claimed.flatMap(JSONStyle.init(rawValue:))
        forEachPublishScheme(id: id, family: family, direction: "publish") { scheme, schemeID in
            let request: JSONObject = ["op": "publish", "scheme": .string(scheme.rawValue),
                                       "key": .string(Self.publishKey), "message": .string(text)]
            // Byte for byte, in the style the peer claims.
            if let style {
                if let why = Self.unmodelled(message, style: style) {
                    guard !why.utf8.containsRun("cannot publish".utf8) else {
                        record(id: schemeID + "/peer-publishes", family: family, direction: "peer-publishes",
                               .skipped, why)
                        return
                    }
                    // The bytes are the SDK's own matter here: the value it published must be the message's.
                    judge(schemeID + "/peer-publishes-value", family, "peer-publishes", ask(request),
                          shapes: { Self.bodyShapes($0, message: message, scheme: scheme) }) { answer in
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
                    judge(schemeID + "/peer-publishes", family, "peer-publishes", ask(fixed),
                          shapes: { Self.bodyShapes($0, message: message, scheme: scheme) }) { answer in
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
            guard scheme.row.iv != .fixed || style == nil else { return }
            // A fresh IV: pncrypt reads the body, and gets the message (in the claimed style's bytes when known).
            judge(schemeID + "/pncrypt-decrypts", family, "pncrypt-decrypts", ask(request),
                  shapes: { Self.bodyShapes($0, message: message, scheme: scheme) }) { answer in
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
        if let change = message.changes(in: style).first(where: { $0.utf8.containsRun("cannot publish".utf8) }) {
            return change
        }
        return nil
    }

    func checkReceive(_ text: String, name: String, index: Int) {
        let family = "messages"
        let id = "message-\(name)"
        guard let message = try? JSONValue(parsing: text) else { return }
        forEachPublishScheme(id: id, family: family, direction: "receive") { scheme, schemeID in
            guard !ConformanceValues.hasRepeatedKey(message) else {
                record(id: schemeID + "/peer-receives", family: family, direction: "peer-receives", .skipped,
                       "a repeated key: which value an SDK keeps is a style matter (publish checks it)")
                return
            }
            guard let crypto = try? MessageCrypto(cipherKey: Self.publishKey, scheme: scheme),
                  let published = try? crypto.encrypt(message) else {
                record(id: schemeID, family: family, direction: "receive", .failed, "pncrypt could not publish it")
                return
            }
            let request: JSONObject = ["op": "decrypt_message", "scheme": .string(scheme.rawValue),
                                       "key": .string(Self.publishKey),
                                       "message": .string(published.serializedString())]
            judge(schemeID + "/peer-receives", family, "peer-receives", ask(request), shapes: { answer in
                if answer["error"] == .bool(true) { return [.rejects] }
                return Self.valueShapes(answer["message"] ?? .null, expected: message, received: published)
            }) { answer in
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
            guard let wrong else { return }
            let failing: JSONObject = ["op": "decrypt_message", "scheme": .string(scheme.rawValue),
                                       "key": .string(wrongKey), "message": .string(wrong.serializedString())]
            // A value here is never excused: a message under the wrong key must fail in every SDK.
            judge(schemeID + "/peer-wrong-key", family, "must-fail", ask(failing), expectFailure: true,
                  shapes: { _ in [] }) { answer in
                if answer["error"] == .bool(true) { return nil }
                let value = answer["message"]
                if value == .string(DecryptionPolicy.markerText) || value == wrong { return nil }
                return "expected DECRYPTION_ERROR or the message as received, got "
                    + Self.cut(value ?? .null)
            }
        }
    }
}
