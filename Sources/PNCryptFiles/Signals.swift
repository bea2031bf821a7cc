// Installing and restoring signal handlers (SignalCleanup.swift's, the CLI's). Nothing here allocates.

import PNCryptCore
import PNCryptPlatform

/// Installing and restoring signal handlers.
package enum Signals {
    /// Installs `handler` for each of `signals` that is not ignored (a signal the parent set to be ignored, as
    /// `nohup` does, stays ignored); returns the previous actions, for `restore`. The handler runs with every signal
    /// blocked and may only make async-signal-safe calls.
    @discardableResult
    package static func install(_ handler: @escaping @convention(c) (Int32) -> Void, for signals: [Int32],
                                flags: Int32 = 0) -> [(Int32, sigaction)] {
        var previous: [(Int32, sigaction)] = []
        for signal in signals {
            var old = sigaction()
            guard sigaction(signal, nil, &old) == 0 else { continue }
            let ignored = unsafeBitCast(SIG_IGN, to: Int.self)
            if unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == ignored { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigfillset(&action.sa_mask)
            action.sa_flags = flags
            sigaction(signal, &action, nil)
            previous.append((signal, old))
        }
        return previous
    }

    /// Puts back the actions `install` replaced.
    package static func restore(_ previous: [(Int32, sigaction)]) {
        for (signal, action) in previous {
            var action = action
            sigaction(signal, &action, nil)
        }
    }
}
