// The platform seam: the one file that imports the C library. Every other file of the package imports this module
// instead (`import PNCryptPlatform`), which re-exports the C library of the platform it is built for: Glibc (Linux),
// Musl (Linux, the static SDK) or Darwin (Apple platforms). Package.swift builds for those platforms only; any
// other stops here, by name. Calls that must name the C library (a type of the caller has a member of the same
// name) name this module: `PNCryptPlatform.stat(...)`.
//
// A module of its own, under the base layer, not a file of PNCryptBase: PNCrypt re-exports PNCryptBase to its users
// (`@_exported`), and a re-export here would then put the whole C library into `import PNCrypt` and into the
// library's documentation (its symbol graph). No layer re-exports this module.

#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#else
#error("pncrypt builds on Linux (Glibc or Musl) and Apple platforms (Darwin) only")
#endif
