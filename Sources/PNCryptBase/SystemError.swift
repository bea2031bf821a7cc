// A failed system call's `errno`, as SystemIO.swift (the one EINTR loop) and the files layer report it. It holds
// no descriptor or buffer.

import PNCryptPlatform

/// A failed system call's `errno`, with the reason `strerror` gives for it (`description`), taken when the call
/// failed: each layer words the failure in its own error type ("cannot read 'x': No such file or directory").
package struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `errno` value.
    package let code: Int32

    /// The error of `code`.
    package init(_ code: Int32) {
        self.code = code
    }

    /// The error of the current `errno` (call right after the failing call).
    package static var current: SystemError { SystemError(errno) }

    /// The reason, as `strerror` says it.
    package var description: String { String(cString: strerror(code)) }
}
