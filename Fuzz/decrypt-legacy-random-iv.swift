// Fuzz target: decrypting as `legacy-random-iv` under the fixed key `enigma` (see decryptTarget in Common.swift for the
// invariants checked).
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    decryptTarget(.legacyRandomIV, data, size)
    return 0
}
