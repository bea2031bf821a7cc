// PKCS#7 padding, checked in constant time. Ownership: reads the caller's buffer during the call, keeps nothing.

/// PKCS#7 padding checked in constant time: the time taken does not depend on which byte is wrong, nor on
/// whether any is (a decrypting context leaves the padding in place for this).
package enum PKCS7 {
    /// The plaintext length of `plaintext` (whole blocks, padding included) and whether its padding is valid.
    /// When it is not, the length returned is `plaintext.count`, so later checks run over as many bytes.
    package static func unpad(_ plaintext: UnsafeRawBufferPointer) -> (count: Int, valid: Bool) {
        let count = plaintext.count
        guard count >= 16, count % 16 == 0 else { return (count, false) }
        let pad = Int(plaintext[count - 1])
        // All-ones when the condition holds, zero otherwise; no branch on secret data.
        var bad = mask(pad == 0 ? 1 : 0) | mask(pad > 16 ? 1 : 0)
        for i in 0..<16 {
            let inPad = mask(i < pad ? 1 : 0)
            bad |= inPad & (Int(plaintext[count - 1 - i]) ^ pad)
        }
        let valid = (bad == 0 ? 1 : 0)
        let keep = mask(valid)
        return ((count - pad) & keep | count & ~keep, valid == 1)
    }

    /// `-1` (all bits) for 1, `0` for 0.
    @inline(__always)
    private static func mask(_ bit: Int) -> Int { 0 &- bit }
}
