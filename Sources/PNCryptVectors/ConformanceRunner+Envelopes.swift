// The conformance checks of envelopes: the peer decrypts each envelope vector's response body and gives its
// messages in document order.
import PNCrypt
import PNCryptFiles
import SystemPackage

extension ConformanceRunner {
    // MARK: Envelopes

    func checkEnvelopes(_ file: FilePath) {
        let family = "envelopes"
        guard let data = VectorFiles.contents(of: file), let root = try? JSONValue(parsing: data),
              let vectors = root["vectors"]?.arrayValue else {
            record(id: file.shown, family: family, direction: "read", .failed, "not an envelope vector file")
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
                record(id: file.shown, family: family, direction: "read", .failed, "a vector lacks its fields")
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
            // The first message that disagrees is reported; every one must have the declared outcome's shape (a
            // message that must fail but came back as a value has none).
            let verdicts = { (answer: JSONValue) -> [(problem: String, shapes: Shapes)]? in
                guard let got = answer["messages"]?.arrayValue, got.count == expected.count else { return nil }
                return got.enumerated().compactMap { position, entry in
                    Self.envelopeMessageVerdict(entry, position: position, expected: expected[position],
                                                original: originals[position].value,
                                                mustFail: failed.contains(expected[position].place))
                }
            }
            judge(id + "/peer-decrypts", family, "peer-decrypts", ask(request), shapes: { answer in
                // Another count of messages has no excusable shape.
                guard let list = verdicts(answer) else { return [] }
                return list.reduce(Set(ConformanceDifference.Outcome.allCases)) { $0.intersection($1.shapes) }
            }) { answer in
                guard let got = answer["messages"]?.arrayValue else { return #"no "messages" list in the answer"# }
                guard got.count == expected.count else {
                    return "\(got.count) messages, expected \(expected.count)"
                }
                return verdicts(answer)?.first?.problem
            }
        }
    }

    /// What is wrong with message `position` of an envelope answer (`entry`), and the shapes of that
    /// disagreement; nil when it agrees. A message that must fail agrees when it is marked (an error flag, the
    /// marker, or the message as received); one that came back as a value has no excusable shape.
    static func envelopeMessageVerdict(_ entry: JSONValue, position: Int,
                                       expected want: (place: String, value: JSONValue), original: JSONValue,
                                       mustFail: Bool) -> (problem: String, shapes: Shapes)? {
        let value = entry["message"] ?? .null
        let flagged = entry["error"] == .bool(true)
        if mustFail {
            let marked = flagged || value == .string(DecryptionPolicy.markerText) || value == original
            return marked ? nil : ("message \(position) (\(want.place)) must fail to decrypt, got " + cut(value), [])
        }
        if flagged {
            return ("message \(position) (\(want.place)): the peer reported a decryption error", [.rejects])
        }
        guard !ConformanceValues.same(value, want.value) else { return nil }
        return ("message \(position) (\(want.place)) is " + cut(value) + ", expected " + cut(want.value),
                valueShapes(value, expected: want.value, received: original))
    }

    /// Where a message sits, as `failures` names it.
    static func place(channel: String?, index: Int64) -> String {
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
}
