// The one decision procedure: which (key, scheme) reading of some ciphertext is certainly right. Every decrypting
// path of the library (one-shot bytes, text and messages, files, streams, rekeying, diagnosis) gathers one
// `Verdict` per reading and asks `Decision.decide`; nothing else decides.
//
// Ownership: `verdict(of:...)` reads the caller's plaintext buffer for the duration of the call and keeps
// nothing; everything else here works on values.

/// Decides which reading of a ciphertext qualifies, with the same rules wherever the readings come from.
///
/// CBC has no integrity check: a wrong key, or a wrong reading of headerless data, passes the PKCS#7 padding check
/// about once in 256 tries. So every possible reading is checked, and a plaintext is delivered only when exactly
/// one reading qualifies for the kind of content asked for:
///
/// | content | a reading qualifies when |
/// |---|---|
/// | `.bytes` | its padding is valid |
/// | `.text` | its padding is valid and its plaintext is valid UTF-8 |
/// | `.json` (messages) | its padding is valid and its plaintext is valid UTF-8 and one JSON text |
///
/// The rules are the same whether one reading was possible or several. None qualifying is the one public
/// failure, `CryptoModule.decryptionFailed`; several is `ambiguous`, naming them (callers that reflect a status
/// to a sender turn that into the public failure too).
///
/// Callers compute every check of every reading whatever the others gave (`verdict(of:...)` does so), so the time
/// taken does not tell which check failed. One-shot decryption (`KeyRing`, `CryptoModule`, `MessageCrypto`,
/// `MessageRekey`), files (`KeyRing.fileMatch`: padding of the final blocks), streams of text (verdicts gathered
/// while streaming, then this function), `Diagnosis` and `Inspection` all call it.
enum Decision {
    /// What the checks of one (key, scheme) reading gave. Every field is computed whatever the others are.
    struct Verdict: Hashable, Sendable {
        /// The key's index in the caller's key list (0 for a single key).
        var keyIndex: Int
        /// The scheme of the reading.
        var scheme: Scheme
        /// The PKCS#7 padding is valid.
        var padding: Bool
        /// The plaintext is valid UTF-8 (false when the content is `.bytes` and it was not checked).
        var utf8: Bool
        /// The plaintext is one JSON text (false when the content is not `.json` and it was not checked).
        var json: Bool

        /// A verdict from checks already run (streams gather these as they go).
        init(keyIndex: Int, scheme: Scheme, padding: Bool, utf8: Bool, json: Bool) {
            self.keyIndex = keyIndex
            self.scheme = scheme
            self.padding = padding
            self.utf8 = utf8
            self.json = json
        }
    }

    /// Whether `verdict` qualifies for `content` (see the table above).
    static func qualifies(_ verdict: Verdict, content: KeyRing.Content) -> Bool {
        switch content {
        case .bytes: verdict.padding
        case .text: verdict.padding && verdict.utf8
        case .json: verdict.padding && verdict.utf8 && verdict.json
        }
    }

    /// The position in `verdicts` of the one reading that qualifies for `content`.
    ///
    /// - Parameters:
    ///   - verdicts: one per reading tried, each with every check run.
    ///   - content: what a plaintext must be.
    ///   - namingKeys: name the key of each reading in an `ambiguous` error (there were several keys).
    /// - Throws: `CryptoModule.decryptionFailed` when none qualifies; `ambiguous`, naming the readings, when more
    ///   than one does.
    static func decide(_ verdicts: some Collection<Verdict>, content: KeyRing.Content, namingKeys: Bool)
        throws(PNCryptError) -> Int {
        var winner = -1
        var winners: [Verdict] = []
        for (position, verdict) in verdicts.enumerated() where qualifies(verdict, content: content) {
            winner = position
            winners.append(verdict)
        }
        guard winners.count == 1 else { throw failure(winners, namingKeys: namingKeys) }
        return winner
    }

    /// The failure for no qualifying reading (the one decryption failure) or several (`ambiguous`, naming them).
    static func failure(_ winners: [Verdict], namingKeys: Bool) -> PNCryptError {
        guard winners.count > 1 else { return CryptoModule.decryptionFailed }
        let names = winners.map { namingKeys ? "key #\($0.keyIndex + 1) \($0.scheme)" : "\($0.scheme)" }
        return PNCryptError(.ambiguous, "ambiguous: \(winners.count) readings decrypt this ("
                            + names.joined(separator: ", ") + "); say which scheme (or key) to use")
    }

    /// Runs every check `content` needs on one decrypted reading, whatever the padding gave.
    ///
    /// - Parameters:
    ///   - decrypted: the whole decrypted body, padding included (the same length whatever the key).
    ///   - plaintextCount: the length without the padding when it is valid (`decrypted.count` otherwise).
    ///   - padding: whether the padding is valid.
    ///   - content: `.bytes` checks nothing more; `.text` checks UTF-8; `.json` UTF-8 and JSON.
    ///
    /// UTF-8 is checked over all of `decrypted`: valid padding is ASCII (1 to 16), so this gives the same answer
    /// as checking the plaintext alone, over the same length whether the padding was valid or not.
    static func verdict(of decrypted: UnsafeRawBufferPointer, plaintextCount: Int, padding: Bool, keyIndex: Int,
                        scheme: Scheme, content: KeyRing.Content) -> Verdict {
        var utf8 = false
        var json = false
        if content != .bytes {
            utf8 = isValidUTF8(decrypted)
        }
        if content == .json {
            json = isJSONText(UnsafeRawBufferPointer(rebasing: decrypted[0..<plaintextCount]))
        }
        return Verdict(keyIndex: keyIndex, scheme: scheme, padding: padding, utf8: utf8, json: json)
    }
}
