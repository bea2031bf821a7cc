import PNCrypt
import PNCryptPlatform
import SystemPackage

/// The children a conformance peer leaves outside its process group (`setsid`, `setpgid`), which killing the
/// group does not reach. On Linux, `conformance` makes pncrypt the "child subreaper" of what it starts
/// (`PR_SET_CHILD_SUBREAPER`): when the peer dies, its orphans become pncrypt's children, and once the run is over
/// `killAll` kills them (and theirs, as they come to pncrypt in turn). Only a program may do this, never the
/// library: every child of the process is killed. A signal that ends pncrypt kills the peer's group only (a signal
/// handler cannot walk `/proc`); elsewhere than Linux, a child that left the group is not reached.
enum PeerOrphans {
    /// Makes this process the reaper of its descendants' orphans; false where that cannot be done.
    static func adopt() -> Bool { CLibrary.becomeChildSubreaper() }

    /// Kills every child of this process and reaps it, then those that became its children as they died, at most
    /// `rounds` times over; returns how many were killed. Call it only when no child should live on.
    @discardableResult
    static func killAll(rounds: Int = 64) -> Int {
        var killed = 0
        for _ in 0..<rounds {
            let children = self.children()
            if children.isEmpty { break }
            for child in children {
                // A child that made a group of its own takes that group with it.
                if getpgid(child) == child { kill(-child, SIGKILL) }
                kill(child, SIGKILL)
            }
            // Every signal pncrypt handles ends it, so nothing interrupts these waits to retry.
            for child in children {
                var status: Int32 = 0
                _ = waitpid(child, &status, 0)
            }
            killed += children.count
        }
        return killed
    }

    /// The processes whose parent is this one (from `/proc`; none where there is no `/proc`).
    static func children() -> [pid_t] {
        guard let folder = opendir("/proc") else { return [] }
        defer { closedir(folder) }
        let me = getpid()
        var out: [pid_t] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), pid != me, parent(of: pid) == me else { continue }
            out.append(pid)
        }
        return out
    }

    /// The parent of `pid`: the fourth field of `/proc/PID/stat`, after the name in parentheses.
    static func parent(of pid: pid_t) -> pid_t? {
        guard let fd = try? FileDescriptor.open(FilePath("/proc/\(pid)/stat"), .readOnly, options: .closeOnExec)
        else { return nil }
        defer { try? fd.close() }
        var buffer = [UInt8](repeating: 0, count: 1024)
        guard let n = try? buffer.withUnsafeMutableBytes({ try fd.read(into: $0) }), n > 0,
              let close = buffer[..<n].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = buffer[(close + 1)..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 1 else { return nil }
        return pid_t(String(decoding: fields[1], as: UTF8.self))
    }
}
