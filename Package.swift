// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pncrypt",
    products: [
        .library(name: "PNCrypt", targets: ["PNCrypt"]),
        .executable(name: "pncrypt", targets: ["pncrypt"]),
        // The C interface (include/pncrypt.h). scripts/install-lib.sh builds it with the Swift runtime linked
        // statically, exports only the pncrypt_ symbols and installs it as libpncrypt.so.0.
        .library(name: "libpncrypt", type: .dynamic, targets: ["CPNCrypt"]),
        .executable(name: "pncrypt-bench", targets: ["pncrypt-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // DocC (the catalog in Sources/PNCrypt/PNCrypt.docc): the four layers as one combined archive (.ci/run).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // The layers (ARCHITECTURE.md): each target imports only the ones below it, so the compiler rejects an
        // upward dependency. PNCryptJSON: JSON values, parser, writer, the one wipe function; no crypto, no zlib.
        .target(name: "PNCryptJSON"),
        // The cipher core: keys, schemes, the PNED header, Base64, hex, AES-CBC, streams, the one decision
        // procedure. The only target that links OpenSSL.
        .target(name: "PNCryptCore", dependencies: ["PNCryptJSON", "CLibCrypto"]),
        // gzip, zlib and raw deflate as stream stages of the core. The only target that links zlib.
        .target(name: "PNCryptCompression", dependencies: ["PNCryptJSON", "PNCryptCore", "CZlib"]),
        // Messages, bulk work (line engine, rekey), diagnosis; re-exports the three layers below it.
        .target(name: "PNCrypt", dependencies: ["PNCryptJSON", "PNCryptCore", "PNCryptCompression"]),
        // The files layer of the shells (not part of the library): the one all-or-nothing output (temporaries,
        // commit, owner, mode, ACLs and extended attributes, signal cleanup) and input sources, for the CLI and the
        // C library alike.
        .target(name: "PNCryptFiles", dependencies: ["PNCryptCore"]),
        // The cross-SDK vector checker (Vectors/*.json) for `pncrypt vectors check` and the tests; not in the library.
        .target(name: "PNCryptVectors", dependencies: ["PNCrypt"]),
        .executableTarget(
            name: "pncrypt",
            dependencies: [
                "PNCrypt", "PNCryptFiles", "PNCryptVectors",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The @_cdecl functions of include/pncrypt.h, over the PNCrypt public API.
        .target(name: "CPNCrypt", dependencies: ["PNCrypt", "PNCryptFiles"]),
        // include/pncrypt.h as a Clang module (declarations only), so Swift code can call the C entry points.
        .systemLibrary(name: "CPNCryptHeader", path: "Sources/CPNCryptHeader"),
        .executableTarget(
            name: "pncrypt-bench",
            dependencies: [
                "PNCrypt", "CPNCrypt", "CPNCryptHeader", "CLibCrypto", "CZlib",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "PNCryptTests",
            dependencies: [
                "PNCrypt", "PNCryptJSON", "PNCryptCore", "PNCryptCompression", "PNCryptVectors",
                // The C shell's error codes against include/pncrypt.h (CErrorCodeTests).
                "CPNCrypt", "CPNCryptHeader",
            ]
        ),
    ]
)
