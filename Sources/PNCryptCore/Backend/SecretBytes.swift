// Key bytes held for the life of a key and wiped in place when the last reference goes away.
//
// Ownership: the object owns its array's storage; nothing here lends it out beyond a call.

import PNCryptBase

/// Key bytes that are wiped when the last reference goes away.
package final class SecretBytes: Sendable {
    package let bytes: [UInt8]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    deinit {
        // `bytes` is immutable and owned by this object (only tests take copies, through `CipherKey.keyBytes`);
        // wipe its storage in place.
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            wipe(UnsafeMutableRawPointer(mutating: base), count: buffer.count)
        }
    }
}
