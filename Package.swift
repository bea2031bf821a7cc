// swift-tools-version:6.1
// pncrypt: PubNub cipherKey message and file encryption, byte for byte as the PubNub SDKs do.
// Copyright 2026 the pncrypt authors. Licensed under the Apache License, Version 2.0 (LICENSE, NOTICE).
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

// The cipher backend (Sources/PNCryptCore/Backend/CipherBackend.swift): OpenSSL (system libcrypto) by default on
// Linux; swift-crypto on Apple platforms (no libcrypto there), chosen by platform condition, and anywhere with the
// `SwiftCrypto` trait (`swift build --traits SwiftCrypto`), which also drops the default `OpenSSL` trait, so nothing
// links libcrypto. The platforms are the ones the platform seam (Sources/PNCryptPlatform) has a C library for:
// Linux (Glibc, Musl) and Apple's (Darwin).
let applePlatforms: [Platform] = [.macOS, .iOS, .tvOS, .watchOS, .visionOS, .macCatalyst]
let otherPlatforms: [Platform] = [.linux]
let openSSL: TargetDependencyCondition? = .when(platforms: otherPlatforms, traits: ["OpenSSL"])
// The one choice of the backend in Swift code: `PNCRYPT_OPENSSL` is defined exactly where the core links OpenSSL
// (the same platforms and trait as `openSSL`); `#if PNCRYPT_OPENSSL` picks the OpenSSL backend, `#else` swift-crypto.
// Given to the targets that choose (the core, the bench's baselines, the architecture test).
let backendChoice: SwiftSetting = .define("PNCRYPT_OPENSSL", .when(platforms: otherPlatforms, traits: ["OpenSSL"]))
// A target names each product once (SwiftPM ignores a second entry of the same product, with its condition), so
// the Apple condition goes through one small target, PNCryptAppleCrypto, and the trait through the products.
let swiftCryptoDependencies: [Target.Dependency] = [
    .target(name: "PNCryptAppleCrypto", condition: .when(platforms: applePlatforms)),
    .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["SwiftCrypto"])),
    .product(name: "_CryptoExtras", package: "swift-crypto", condition: .when(traits: ["SwiftCrypto"])),
]

// swift-system's `SystemPackage` (`FilePath`, `FileDescriptor`, `Errno`), the one seam to descriptors: the files layer
// and the shells above it (and the test support's `Descriptors`), never a layer of the library.
let systemPackage: Target.Dependency = .product(name: "SystemPackage", package: "swift-system")

let package = Package(
    name: "pncrypt",
    // Apple platforms: the oldest releases with the standard library's Synchronization module (`Atomic`, used by
    // the core's context pools); swift-crypto's `AES._CBC` needs less (macOS 10.15, iOS 13). Not built on Apple
    // hardware yet (README, "Use in an iOS or macOS app").
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2), .macCatalyst(.v18)],
    products: [
        .library(name: "PNCrypt", targets: ["PNCrypt"]),
        .executable(name: "pncrypt", targets: ["pncrypt"]),
        // The C interface (include/pncrypt.h). scripts/build/install_lib.sh builds it with the Swift runtime linked
        // statically, exports only the pncrypt_ symbols and installs it as libpncrypt.so.0.
        .library(name: "libpncrypt", type: .dynamic, targets: ["CPNCrypt"]),
        .executable(name: "pncrypt-bench", targets: ["pncrypt-bench"]),
    ],
    traits: [
        .trait(name: "OpenSSL", description: "AES, SHA-256 and MD5 from the system's OpenSSL 3 (libcrypto)."),
        .trait(name: "SwiftCrypto", description: "AES, SHA-256 and MD5 from swift-crypto (no libcrypto), as on "
               + "Apple platforms, where swift-crypto is used without this trait."),
        .default(enabledTraits: ["OpenSSL"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // DocC (the catalog in Sources/PNCrypt/PNCrypt.docc): the layers as one combined archive (.ci/run).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // AES._CBC is underscored API (_CryptoExtras): pinned exactly.
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        // The files layer's paths (`FilePath`: the bytes of a path, not a decoded string), descriptors and errno.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
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
        // swift-crypto's `Crypto` and `_CryptoExtras` on Apple platforms, re-exported for the core (and the bench);
        // an empty module elsewhere. No code of its own.
        .target(
            name: "PNCryptAppleCrypto",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto", condition: .when(platforms: applePlatforms)),
                .product(name: "_CryptoExtras", package: "swift-crypto", condition: .when(platforms: applePlatforms)),
            ]
        ),
        // The platform seam, under everything: the one file that imports the C library (Glibc, Musl or Darwin) and
        // re-exports it to the targets that import it. A module of its own so that no layer re-exports it to users.
        .target(name: "PNCryptPlatform"),
        // The vector forms of the core's byte loops (UTF-8 validation, Base64 both ways): C with SSSE3 intrinsics,
        // chosen at run time on x86-64; elsewhere it reports itself unavailable and the core's Swift loops run. No
        // cipher: AES is OpenSSL's (or swift-crypto's).
        .target(name: "CPNCryptSIMD"),
        // The layers (ARCHITECTURE.md): each target imports only the ones below it, so the compiler rejects an
        // upward dependency. PNCryptBase, under every layer: the error type, the one wipe function, byte and UTF-8
        // helpers, plurals, the one lock (`Locked`); on the platform seam only. No I/O: descriptors are swift-system's
        // `FileDescriptor`, from the files layer up.
        .target(name: "PNCryptBase", dependencies: ["PNCryptPlatform"]),
        // PNCryptJSON: JSON values, parser, writer; no crypto, no zlib.
        .target(name: "PNCryptJSON", dependencies: ["PNCryptBase"]),
        // The cipher core: keys, schemes, the PNED header, Base64, hex, AES-CBC, streams, the one decision
        // procedure. The only target of the library that links OpenSSL or swift-crypto (the backend seam). No JSON:
        // whether a plaintext is a message is asked through a check the messages layer passes in.
        .target(
            name: "PNCryptCore",
            dependencies: [
                "PNCryptPlatform", "PNCryptBase", "CPNCryptSIMD", .target(name: "CLibCrypto", condition: openSSL),
            ]
                + swiftCryptoDependencies,
            swiftSettings: [backendChoice]
        ),
        // gzip, zlib and raw deflate as stream stages of the core. The only target that links zlib.
        .target(name: "PNCryptCompression", dependencies: ["PNCryptPlatform", "PNCryptBase", "PNCryptCore", "CZlib"]),
        // Messages, bulk work (line engine, rekey), diagnosis; re-exports the four layers below it.
        .target(
            name: "PNCrypt",
            dependencies: ["PNCryptPlatform", "PNCryptBase", "PNCryptJSON", "PNCryptCore", "PNCryptCompression"]
        ),
        // The files layer of the shells (not part of the library): the one all-or-nothing output (temporaries,
        // commit, owner, mode, ACLs and extended attributes, signal cleanup) and input sources, for the CLI and the
        // C library alike. Paths are swift-system's `FilePath` (bytes, exactly as given) from here up: swift-system
        // enters the package in this layer, and only the shells above it use it.
        .target(
            name: "PNCryptFiles",
            dependencies: ["PNCryptPlatform", "PNCryptBase", "PNCryptCore", systemPackage]
        ),
        // The cross-SDK vector checker (Vectors/*.json) for `pncrypt vectors check` and the tests; not in the library.
        .target(name: "PNCryptVectors", dependencies: ["PNCryptPlatform", "PNCrypt", "PNCryptFiles", systemPackage]),
        .executableTarget(
            name: "pncrypt",
            dependencies: [
                "PNCryptPlatform", "PNCrypt", "PNCryptFiles", "PNCryptVectors", systemPackage,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The @_cdecl functions of include/pncrypt.h, over the PNCrypt public API; the header's error codes and
        // `pncrypt_error` come from the header itself (CPNCryptHeader).
        // libpncrypt.map: the version script the release build links the library with (scripts/build/lib/build.sh).
        .target(
            name: "CPNCrypt",
            dependencies: ["PNCryptPlatform", "PNCrypt", "PNCryptFiles", "CPNCryptHeader", systemPackage],
            exclude: ["libpncrypt.map"]
        ),
        // include/pncrypt.h as a Clang module (declarations only): its constants and types for the C library, and
        // the C entry points for Swift callers (the bench).
        .systemLibrary(name: "CPNCryptHeader", path: "Sources/CPNCryptHeader"),
        .executableTarget(
            name: "pncrypt-bench",
            dependencies: [
                "PNCryptPlatform", "PNCrypt", "PNCryptFiles", "CPNCrypt", "CPNCryptHeader", systemPackage,
                .target(name: "CLibCrypto", condition: openSSL), "CZlib",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + swiftCryptoDependencies,
            swiftSettings: [backendChoice]
        ),
        // The tests (docs/testing.md): one target per layer, each depending only on its layer, the ones below it and
        // the test support (LayerTests checks it), then the shells' tests, by kind.
        // What several test targets share (paths, processes, the expect-error helper, the seeded generator, file
        // descriptors, tags, the vector files read as JSON): on the base and JSON layers, the two below the core, so
        // that every layer's tests can use it (the base's tests reach JSON only through it).
        .target(
            name: "PNCryptTestSupport", dependencies: ["PNCryptBase", "PNCryptJSON", systemPackage],
            path: "Tests/PNCryptTestSupport"
        ),
        // Running the built pncrypt as a user runs it (`CLI`, `Terminal`), for the targets above the layers.
        .target(
            name: "PNCryptCLITestSupport", dependencies: ["PNCryptCore", "PNCryptTestSupport"],
            path: "Tests/PNCryptCLITestSupport"
        ),
        .testTarget(name: "PNCryptBaseTests", dependencies: ["PNCryptBase", "PNCryptTestSupport"]),
        .testTarget(name: "PNCryptJSONTests", dependencies: ["PNCryptJSON", "PNCryptBase", "PNCryptTestSupport"]),
        .testTarget(
            name: "PNCryptCoreTests", dependencies: ["PNCryptCore", "PNCryptJSON", "PNCryptBase", "PNCryptTestSupport"]
        ),
        .testTarget(
            name: "PNCryptCompressionTests",
            dependencies: ["PNCryptCompression", "PNCryptCore", "PNCryptJSON", "PNCryptBase", "PNCryptTestSupport"]
        ),
        // The files layer: the library's streams over file descriptors.
        .testTarget(
            name: "PNCryptFilesTests",
            dependencies: [
                "PNCryptFiles", "PNCryptCore", "PNCryptJSON", "PNCryptBase", "PNCryptTestSupport", systemPackage,
            ]
        ),
        // The messages layer (messages, bulk, envelopes, diagnosis); PNCryptVectors reads the vector files.
        .testTarget(
            name: "PNCryptTests",
            dependencies: [
                "PNCrypt", "PNCryptBase", "PNCryptJSON", "PNCryptCore", "PNCryptCompression", "PNCryptFiles",
                "PNCryptVectors", "PNCryptTestSupport", systemPackage,
            ]
        ),
        // The CLI, run as a user runs the built pncrypt: what it reads and writes (files, terminals, keys, limits,
        // crashes), and its commands (messages, lines, envelopes, gzip, help, options, exit statuses).
        .testTarget(
            name: "PNCryptCLIInputOutputTests",
            dependencies: ["PNCrypt", "PNCryptCore", "PNCryptJSON", "PNCryptTestSupport", "PNCryptCLITestSupport"]
        ),
        .testTarget(
            name: "PNCryptCLICommandTests",
            dependencies: [
                "PNCrypt", "PNCryptCompression", "PNCryptCore", "PNCryptJSON", "PNCryptVectors", "PNCryptTestSupport",
                "PNCryptCLITestSupport",
            ]
        ),
        // The C library's Swift-side suites: its error codes against include/pncrypt.h, its read policies.
        .testTarget(
            name: "PNCryptCLibraryTests",
            dependencies: [
                "CPNCrypt", "CPNCryptHeader", "PNCryptCore", "PNCryptBase", "PNCryptTestSupport",
                "PNCryptCLITestSupport",
            ]
        ),
        // Against the real PubNub Python SDK: the interop suite, `pncrypt conformance`, the promise matrix.
        .testTarget(
            name: "PNCryptInteropTests",
            dependencies: [
                "PNCrypt", "PNCryptCore", "PNCryptJSON", "PNCryptFiles", "PNCryptTestSupport", "PNCryptCLITestSupport",
            ]
        ),
        // The house rules: layers (LayerTests), the files layer, suite names, the scheme table, the version's copies.
        .testTarget(
            name: "PNCryptArchitectureTests",
            dependencies: [
                "PNCrypt", "PNCryptBase", "PNCryptCore", "PNCryptJSON", "PNCryptVectors", "PNCryptTestSupport",
                "PNCryptCLITestSupport",
            ],
            // LayerTests checks the build runs on the backend the choice names.
            swiftSettings: [backendChoice]
        ),
        // The whole, end to end through the library and the CLI: the vector files and contract scenarios, SDK
        // styles, decryption trust, message statuses, growing inputs, the docs' snippets, a new user's first contact.
        .testTarget(
            name: "PNCryptEndToEndTests",
            dependencies: [
                "PNCrypt", "PNCryptBase", "PNCryptJSON", "PNCryptCore", "PNCryptCompression", "PNCryptFiles",
                "PNCryptVectors", "PNCryptTestSupport", "PNCryptCLITestSupport",
            ]
        ),
    ]
)
