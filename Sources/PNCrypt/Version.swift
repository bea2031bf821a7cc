import PNCryptJSON
import PNCryptCore

/// pncrypt's version, set here and nowhere else: `pncrypt --version` and the C library's `pncrypt_version()` read
/// it, and `scripts/build/install_lib.sh` reads the three numbers below (keep each `static let` on its own line) for
/// the library's file name and its pkg-config file. `include/pncrypt.h` (its `PNCRYPT_VERSION_` macros, for C
/// compilers) and `bindings/python/pyproject.toml` carry copies that `VersionTests` checks, as it checks that
/// `CHANGELOG.md`'s newest release is this one. What each number promises: README, "Versions and stability".
public enum PNCryptVersion {
    /// Raised for a change that breaks the formats, the CLI's exit codes or the C ABI.
    public static let major = 0
    /// Raised for additions (and, before 1.0, changes to the Swift API).
    public static let minor = 2
    /// Raised for fixes.
    public static let patch = 0
    /// `"MAJOR.MINOR.PATCH"`.
    public static let string = "\(major).\(minor).\(patch)"
}
