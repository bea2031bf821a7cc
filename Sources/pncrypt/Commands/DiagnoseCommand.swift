import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

struct DiagnoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract: "Explain why a message will or will not decrypt.",
        discussion: """
        Tries every scheme with every key (in the order given), checks padding, UTF-8 and JSON, and says in plain \
        words which key and scheme read the data and which clients would show DECRYPTION_ERROR, or why nothing \
        can read it. When more than one combination gives valid plaintext, it says so and shows each. With \
        --scheme or --legacy-scheme (the setting of a client), it also says whether that client reads it. \
        Exits 0 when a reading works, 1 when none does. The plaintext itself is never printed, except in \
        --json with --show-plaintext.

        A file given with -i that is raw ciphertext (a PNED header, or a byte Base64 never has) is not \
        Base64-decoded, and is still diagnosed as text (a reading works when its plaintext is UTF-8), as \
        decrypt reads it; --binary diagnoses a file as decrypt --binary reads it (the padding decides).

        Examples:
          pncrypt diagnose -k new -k old MTIzNDU2Nzg5MDEyMzQ1NjdnONoCgo0wbuMGGMmfMX0=
          pncrypt diagnose --key enigma --legacy-scheme legacy -i message.txt
          pncrypt diagnose --key enigma --json -i message.txt
        """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var client: ReadSchemeOptions
    @OptionGroup var maxInput: MaxInputOption

    @Flag(help: ArgumentHelp("""
        Diagnose a raw file (legacy, legacy-random-iv or acrh file format; the argument is its path) as decrypt \
        --binary reads it: the padding decides.
        """))
    var binary = false

    @Flag(help: "Print the findings as one JSON object.")
    var json = false

    @Flag(name: .customLong("show-plaintext"), help: "With --json: include each valid reading's plaintext.")
    var showPlaintext = false

    func validate() throws {
        if showPlaintext && !json { throw ValidationError("--show-plaintext goes with --json") }
    }

    func run() throws {
        if binary {
            return try diagnoseFile(DataInputOptions.resolve(argument: input.text, file: input.file, binary: true))
        }
        try refuseFileNameAsText(input.text)
        let data = try input.resolved()
        // Detection decides the input's encoding only (raw ciphertext or Base64): either way it is read as text.
        let raw = try data.rawCiphertextReason()
        let text = try data.readAll(limit: maxInput.limit)
        let keys = try self.keys.resolveAll(input: data)
        let diagnosis = raw == nil ? Diagnosis(text: text, keys: keys) : Diagnosis(ciphertext: text, keys: keys)
        // The message a client receives: for raw ciphertext, its Base64.
        let setting = try clientReading(raw == nil ? text : Base64.encodeBytes(text), keys: keys,
                                        diagnosis: diagnosis)
        let hint = diagnosis.decrypts ? nil : raw.map { "hint: " + data.rawAsTextHint($0) }
        if json {
            guard case .object(var object) = diagnosis.json else { return }
            if !showPlaintext, case .array(let attempts)? = object["attempts"] {
                object["attempts"] = .array(attempts.map { attempt in
                    guard case .object(var fields) = attempt else { return attempt }
                    _ = fields.removeValue(forKey: "plaintext")
                    return .object(fields)
                })
            }
            if let setting { object.append(setting.json, forKey: "client") }
            if !KeyShapeHints.hints.isEmpty {
                object.append(.array(KeyShapeHints.hints.map { .string($0) }), forKey: "keyShapes")
            }
            if let hint { object.append(.string(hint), forKey: "hint") }
            // With --show-plaintext the JSON carries decrypted text: on a terminal, DEL and C1 controls escaped.
            let bytes = Array(JSONValue.object(object).serializedString().utf8) + [0x0A]
            try FileDescriptor.standardOutput.writeAll(TerminalEscaper.json(bytes, for: .standardOutput, raw: false),
                                                       naming: "output")
        } else {
            // A key whose shape suggests a copy or file mistake (a BOM, white space, a line break) is named.
            let shapes = KeyShapeHints.hints.map { "\($0) (it is used exactly as given)" }
            let findings = diagnosis.findings + (setting.map { [$0.finding] } ?? []) + shapes
                + (hint.map { [$0] } ?? [])
            try FileDescriptor.standardOutput.printLine(findings.joined(separator: "\n"))
        }
        if !diagnosis.decrypts { throw ExitCode.dataFailure }
    }

    /// A binary file (`--binary`: as an SDK's `encrypt_file` writes it; at most `--max-input` bytes, as any input
    /// of diagnose): read as `decrypt --binary` reads it, with every key, on its head and last blocks
    /// (`FileDecryption.choose`: the padding decides; a file's plaintext need not be text). Says which key and file
    /// format read it, or why none does.
    private func diagnoseFile(_ data: Input) throws {
        guard !showPlaintext else {
            throw CLIFailure(.usage, "--show-plaintext is for messages; decrypt a binary file with pncrypt decrypt")
        }
        let source = try InputSource(data)
        // Only its start and end are read, but diagnose takes no more than --max-input, whatever the input.
        if source.length > maxInput.limit { throw CLIFailure(.usage, data.refusal(limit: maxInput.limit)) }
        let ring = try keys.ring(input: data)
        var object: JSONObject = ["binary": .bool(true), "bytes": .number(JSONNumber(source.length))]
        var finding: String
        var decrypts = false
        do {
            let choice = try FileDecryption.choose(source, ring: ring, reading: try client.policy)
            decrypts = true
            let key = ring.keys.count == 1 ? "the key" : "key #\(choice.keyIndex + 1)"
            finding = "decrypts as a file with \(choice.scheme) and \(key) (the padding of its last block is "
                + "valid; the file format has no other integrity check): pncrypt decrypt --binary reads it"
            object.append(.string(choice.scheme.rawValue), forKey: "scheme")
            object.append(.number(JSONNumber(choice.keyIndex + 1)), forKey: "key")
        } catch let error as PNCryptError {
            finding = "no key and file format read it: " + error.message
            object.append(.string(error.message), forKey: "error")
        }
        object.append(.bool(decrypts), forKey: "decrypts")
        let shapes = KeyShapeHints.hints.map { "\($0) (it is used exactly as given)" }
        if json {
            if !KeyShapeHints.hints.isEmpty {
                object.append(.array(KeyShapeHints.hints.map { .string($0) }), forKey: "keyShapes")
            }
            try FileDescriptor.standardOutput.printLine(JSONValue.object(object).serializedString())
        } else {
            try FileDescriptor.standardOutput.printLine(([finding] + shapes).joined(separator: "\n"))
        }
        if !decrypts { throw ExitCode.dataFailure }
    }

    /// What a client set as `--scheme`/`--legacy-scheme` says: the message read as a receiving client reads it.
    private struct ClientReading {
        var setting: String
        var options: ReadSchemeOptions
        var result: DecryptedMessage
        /// When the data is ambiguous and the client's scheme is not the most likely reading's: that scheme.
        var otherThanLikely: Scheme?

        /// The key number of that reading (an SDK client delivers its text, which pncrypt refuses as not JSON).
        var otherKeyNumber: Int?

        var finding: String {
            if let otherThanLikely {
                let key = otherKeyNumber.map { " with key #\($0)" } ?? ""
                return "a client set to \(setting) reads it as \(otherThanLikely)\(key): other text than the most "
                    + "likely reading above, without DECRYPTION_ERROR"
            }
            guard let status = result.status else {
                let key = result.keyIndex.map { " with key #\($0 + 1)" } ?? ""
                return "a client set to \(setting) reads it\(key.isEmpty ? "" : " (\(key.dropFirst()))")"
            }
            return "a client set to \(setting) shows DECRYPTION_ERROR for it (\(status.reason))"
        }

        var json: JSONValue {
            var object: JSONObject = ["scheme": .string(options.scheme.description),
                                      "legacyScheme": options.headerless.map { .string($0.rawValue) } ?? .null,
                                      "decrypts": .bool(result.status == nil)]
            if let status = result.status { object.append(.string(status.reason.name), forKey: "reason") }
            return .object(object)
        }
    }

    /// The client's reading, when `--scheme` or `--legacy-scheme` says how the client is set.
    private func clientReading(_ text: [UInt8], keys: [CipherKey], diagnosis: Diagnosis) throws -> ClientReading? {
        guard client.scheme != .auto || client.legacyScheme != nil else { return nil }
        let setting = client.legacyScheme.map { "--legacy-scheme \($0)" } ?? "--scheme \(client.scheme)"
        let crypto = MessageCrypto(keys: try KeyRing(keys: keys), scheme: client.explicit ?? .defaultForWriting,
                                   reading: try client.policy)
        // The message as received: a JSON string, or the bare Base64 text.
        let message = (try? JSONValue(parsing: text)) ?? .string(PlainText.trimmingWhitespace(
            String(decoding: text, as: UTF8.self)))
        // An ambiguous message (legacy and legacy-random-iv both valid) that the client reads with the scheme
        // that is not the likely one (the only JSON reading): it shows other text, not the message.
        var other: Scheme?
        var otherKey: Int?
        let json = diagnosis.matches.filter { $0.json != nil }
        if diagnosis.isAmbiguous, diagnosis.inspection?.header == nil, json.count == 1,
           let pinned = client.explicit ?? client.headerless, pinned != json[0].scheme,
           diagnosis.matches.contains(where: { $0.scheme == pinned }) {
            other = pinned
            otherKey = diagnosis.matches.first(where: { $0.scheme == pinned })?.keyNumber
        }
        return ClientReading(setting: setting, options: client, result: crypto.decrypt(message, policy: .marker),
                             otherThanLikely: other, otherKeyNumber: otherKey)
    }
}
