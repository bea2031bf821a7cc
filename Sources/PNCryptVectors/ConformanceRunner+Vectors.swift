// The conformance checks of the vector files: the peer decrypts the vectors' bytes and text, encrypts with
// their IVs and fresh ones, and fails where they must fail.
import PNCrypt

extension ConformanceRunner {
    // MARK: Vectors

    func checkVector(_ v: TestVector, family: String) {
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
            let request = Self.request(base, op: "decrypt", ["data": v.ciphertext ?? ""])
            judge(id + "/peer-decrypts", family, "peer-decrypts", ask(request)) { answer in
                Self.compareBytes(answer["data"], plaintext)
            }
            if let text = v.plaintext, !plaintext.isEmpty {
                let request = Self.request(base, op: "decrypt_text", ["data": v.ciphertext ?? ""])
                judge(id + "/peer-decrypts-text", family, "peer-decrypts", ask(request),
                      shapes: { Self.textShapes($0, expected: text) }) { answer in
                    Self.compareText(answer, text)
                }
            }
            guard let scheme = Scheme(rawValue: v.scheme), !plaintext.isEmpty else { return }
            checkEncryption(v, scheme: scheme, plaintext: plaintext, ciphertext: ciphertext, base: base,
                            family: family)
        case .decryptionError, .unknownCryptor:
            // Not Base64 cannot be given as bytes: such vectors go through the text path, as all do for a peer
            // without binary decryption.
            let viaText = v.reason == "notBase64" || ciphertext == nil || !supports(op: "decrypt")
            let request = Self.request(base, op: viaText ? "decrypt_text" : "decrypt", ["data": v.ciphertext ?? ""])
            judge(id + "/must-fail", family, "must-fail", ask(request), expectFailure: true) { answer in
                "expected a failure (\(v.expect.rawValue), \(v.reason ?? "")), the peer decrypted it to "
                    + Self.cut(answer["data"] ?? answer["text"] ?? answer["value"] ?? .null)
            }
        case .encryptionError:
            let request = Self.request(base, op: "encrypt", ["data": Base64.encode(plaintext ?? [])])
            judge(id + "/must-fail", family, "must-fail", ask(request), expectFailure: true) { answer in
                "expected an encryption error, the peer encrypted it to " + Self.cut(answer["data"] ?? .null)
            }
        }
    }

    /// The peer encrypts: with the vector's IV its bytes must be the vector's; with a fresh IV pncrypt must read
    /// them; and the peer must read pncrypt's fresh ciphertext.
    func checkEncryption(_ v: TestVector, scheme: Scheme, plaintext: [UInt8], ciphertext: [UInt8],
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
            let request = Self.request(base, op: "encrypt", ["data": Base64.encode(plaintext), "iv": v.iv])
            judge(id + "/peer-encrypts", family, "peer-encrypts", ask(request)) { answer in
                Self.compareBytes(answer["data"], ciphertext)
            }
            if let text = v.plaintext {
                let request = Self.request(base, op: "encrypt_text", ["text": text, "iv": v.iv])
                judge(id + "/peer-encrypts-text", family, "peer-encrypts", ask(request)) { answer in
                    guard let got = answer["data"]?.stringValue else { return #"no "data" string in the answer"#}
                    return got == v.ciphertext ? nil : "expected \(v.ciphertext ?? "")"
                }
            }
        }
        guard !fixed else { return }
        // A fresh random IV each way.
        let request = Self.request(base, op: "encrypt", ["data": Base64.encode(plaintext)])
        judge(id + "/pncrypt-decrypts", family, "pncrypt-decrypts", ask(request)) { answer in
            Self.pncryptReads(answer["data"], module: module, scheme: scheme, plaintext: plaintext)
        }
        if let text = v.plaintext {
            let request = Self.request(base, op: "encrypt_text", ["text": text])
            judge(id + "/pncrypt-decrypts-text", family, "pncrypt-decrypts", ask(request)) { answer in
                Self.pncryptReads(answer["data"], module: module, scheme: scheme, plaintext: plaintext)
            }
        }
        guard let fresh = try? module.encryptBinary(plaintext, scheme: scheme) else {
            record(id: id + "/peer-decrypts-fresh", family: family, direction: "peer-decrypts", .failed,
                   "pncrypt could not encrypt it")
            return
        }
        let decrypt = Self.request(base, op: "decrypt", ["data": Base64.encode(fresh)])
        judge(id + "/peer-decrypts-fresh", family, "peer-decrypts", ask(decrypt)) { answer in
            Self.compareBytes(answer["data"], plaintext)
        }
    }

    /// The request of one check: `base` (scheme and key) with `op` and `fields`, in that order (a nil field is
    /// left out).
    static func request(_ base: JSONObject, op: String, _ fields: KeyValuePairs<String, String?>) -> JSONObject {
        var request = base
        request.append(.string(op), forKey: "op")
        for (key, value) in fields {
            if let value { request.append(.string(value), forKey: key) }
        }
        return request
    }
}
