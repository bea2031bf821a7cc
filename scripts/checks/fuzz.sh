#!/usr/bin/env bash
# Builds and runs one libFuzzer target of Fuzz/ against the PNCrypt library's public API.
#
#   scripts/checks/fuzz.sh TARGET [SECONDS]        # run TARGET for SECONDS (default 60)
#   scripts/checks/fuzz.sh list                    # name the targets
#   scripts/checks/fuzz.sh build TARGET            # only build
#
# TARGET is a file name of Fuzz/ without .swift (`list` names them). The library is compiled once per source change
# with -sanitize=fuzzer,address into .build-fuzz/ (covered by .gitignore). A target that reaches package code of the
# shells names the modules it needs in a line `// fuzz-needs: MODULE...` of its file: PNCryptFiles, PNCryptVectors
# (the conformance harness) or pncrypt (the command, with swift-argument-parser from the package's resolved
# checkout); those are compiled the same way, with -enable-testing (the target reads their internal parsers through
# `@testable import`), and the command's `main` renamed so that libFuzzer's is the program's. The corpus grows in
# .build-fuzz/corpus/TARGET, seeded from Fuzz/seeds/TARGET when that folder exists. A crash leaves
# .build-fuzz/artifacts/TARGET/crash-* (and the script exits non-zero): turn it into a regression test in the
# test target of the layer that failed (Tests/PNCrypt*Tests/, docs/testing.md) and fix the library.
#
# Extra arguments after SECONDS go to libFuzzer (e.g. -max_len=100000, -jobs=2).
set -euo pipefail
cd "$(dirname "$0")/../.."

BUILD=.build-fuzz
C_FLAGS=(-I Sources/CLibCrypto -I Sources/CZlib -I Sources/CPNCryptSIMD/include
         -Xcc -fmodule-map-file=Sources/CLibCrypto/module.modulemap
         -Xcc -fmodule-map-file=Sources/CZlib/module.modulemap
         -Xcc -fmodule-map-file=Sources/CPNCryptSIMD/include/module.modulemap)
# PNCRYPT_OPENSSL: the OpenSSL cipher backend, as Package.swift chooses it on Linux (the `OpenSSL` trait).
SWIFT_FLAGS=(-O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 -D PNCRYPT_OPENSSL)

targets() { for f in Fuzz/*.swift; do n=$(basename "$f" .swift); [ "$n" = Common ] || echo "$n"; done; }

usage() { echo "usage: $0 TARGET [SECONDS] [libFuzzer options...] | list | build TARGET" >&2; echo "targets:" $(targets) >&2; exit 64; }

[ $# -ge 1 ] || usage
if [ "$1" = list ]; then targets; exit 0; fi
only_build=0
if [ "$1" = build ]; then only_build=1; shift; [ $# -ge 1 ] || usage; fi
target=$1; shift
seconds=${1:-60}; [ $# -ge 1 ] && shift
[ -f "Fuzz/$target.swift" ] || { echo "fuzz: no target '$target'" >&2; usage; }

mkdir -p "$BUILD"
# The library's layers, lowest first (Package.swift): each one is compiled against the modules before it.
layers=(PNCryptPlatform PNCryptBase PNCryptJSON PNCryptCore PNCryptCompression PNCrypt)
library=$BUILD/libPNCrypt.a
# The core's C target (its vector loops) first, under every layer.
libraries=("$BUILD/libCPNCryptSIMD.a")
for layer in "${layers[@]}"; do libraries+=("$BUILD/lib$layer.a"); done
# Rebuild the instrumented library when any of its sources is newer than it.
layer_dirs=()
for layer in "${layers[@]}"; do layer_dirs+=("Sources/$layer"); done
if [ ! -f "$library" ] || [ -n "$(find "${layer_dirs[@]}" Sources/CLibCrypto Sources/CZlib Sources/CPNCryptSIMD \
        -newer "$library" -type f | head -1)" ]; then
    echo "fuzz: building the instrumented PNCrypt library" >&2
    rm -f "${libraries[@]}"
    clang -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/CPNCryptSIMD/include -c Sources/CPNCryptSIMD/simd.c \
        -o "$BUILD/CPNCryptSIMD.o"
    ar rcs "$BUILD/libCPNCryptSIMD.a" "$BUILD/CPNCryptSIMD.o"
    for layer in "${layers[@]}"; do
        sources=$(find "Sources/$layer" -name '*.swift' | sort)
        # shellcheck disable=SC2086
        swiftc "${SWIFT_FLAGS[@]}" "${C_FLAGS[@]}" -I "$BUILD" -module-name "$layer" -package-name pncrypt -wmo \
            -emit-module -emit-module-path "$BUILD/$layer.swiftmodule" \
            -emit-library -static -o "$BUILD/lib$layer.a" $sources 2>&1 \
            | grep -v 'warning: Cannot export local symbol' >&2 || true
        [ -f "$BUILD/lib$layer.a" ] || { echo "fuzz: library build failed ($layer)" >&2; exit 1; }
    done
fi
# The extra modules the target names (`// fuzz-needs:`), each with the ones it needs first.
needs=$(sed -n 's|^// fuzz-needs: *||p' "Fuzz/$target.swift" | tr ' ' '\n' | sed '/^$/d')
extras=()
add_extra() { local m; for m in "${extras[@]}"; do [ "$m" = "$1" ] && return; done; extras+=("$1"); }
for need in $needs; do
    case $need in
        PNCryptFiles) add_extra PNCryptFiles ;;
        PNCryptVectors) add_extra PNCryptFiles; add_extra PNCryptVectors ;;
        pncrypt) add_extra PNCryptFiles; add_extra PNCryptVectors; add_extra ArgumentParserToolInfo
                 add_extra ArgumentParser; add_extra pncrypt ;;
        *) echo "fuzz: Fuzz/$target.swift needs '$need', which this script cannot build" >&2; exit 1 ;;
    esac
done
# swift-system's SystemPackage, which the files layer and the shells above it import (paths as bytes): SwiftPM's
# own build of it (not instrumented: not our code), its module beside ours and its objects in one archive, last on
# the link line.
if [ ${#extras[@]} -gt 0 ]; then
    system_include=.build/checkouts/swift-system/Sources/CSystem/include
    C_FLAGS+=(-I "$system_include" -Xcc -fmodule-map-file="$system_include/module.modulemap")
    if [ ! -f "$BUILD/libSystemPackage.a" ] || [ ! -f "$BUILD/SystemPackage.swiftmodule" ]; then
        echo "fuzz: building swift-system (SystemPackage)" >&2
        swift build --target SystemPackage >&2
        bin=$(swift build --show-bin-path)
        cp "$bin/Modules/SystemPackage.swiftmodule" "$BUILD/"
        rm -f "$BUILD/libSystemPackage.a"
        ar rcs "$BUILD/libSystemPackage.a" "$bin"/SystemPackage.build/*.o "$bin"/CSystem.build/*.o
    fi
    libraries=("$BUILD/libSystemPackage.a" "${libraries[@]}")
fi
argument_parser=.build/checkouts/swift-argument-parser/Sources
for extra in "${extras[@]}"; do
    flags=(-enable-testing -package-name pncrypt)
    uses=()   # the extra modules this one imports (the library aside)
    case $extra in
        ArgumentParser*)
            if [ ! -d "$argument_parser/$extra" ]; then
                echo "fuzz: resolving the package's dependencies (swift-argument-parser)" >&2
                swift package resolve >&2
            fi
            dir=$argument_parser/$extra; flags=(-suppress-warnings)   # not our code
            [ "$extra" = ArgumentParser ] && uses=(ArgumentParserToolInfo) ;;
        # The command's @main as pncrypt_main (as SwiftPM builds a testable executable): libFuzzer has the main.
        pncrypt) dir=Sources/pncrypt; flags+=(-Xfrontend -entry-point-function-name -Xfrontend pncrypt_main)
                 uses=(PNCryptFiles PNCryptVectors ArgumentParser) ;;
        PNCryptVectors) dir=Sources/PNCryptVectors; uses=(PNCryptFiles) ;;
        *) dir=Sources/$extra ;;
    esac
    archive=$BUILD/lib$extra.a
    stale=0
    if [ ! -f "$archive" ] || [ -n "$(find "$dir" -newer "$archive" -type f | head -1)" ]; then stale=1; fi
    # swift-argument-parser does not use the library.
    if [ "${extra#ArgumentParser}" = "$extra" ] && [ "$library" -nt "$archive" ]; then stale=1; fi
    for use in "${uses[@]}"; do [ "$BUILD/lib$use.a" -nt "$archive" ] && stale=1; done
    if [ "$stale" = 1 ]; then
        echo "fuzz: building the instrumented $extra" >&2
        rm -f "$archive"
        mapfile -t sources < <(find "$dir" -name '*.swift' | sort)   # swift-argument-parser has spaces in its paths
        swiftc "${SWIFT_FLAGS[@]}" "${C_FLAGS[@]}" "${flags[@]}" -I "$BUILD" -module-name "$extra" -wmo \
            -emit-module -emit-module-path "$BUILD/$extra.swiftmodule" \
            -emit-library -static -o "$archive" "${sources[@]}" 2>&1 \
            | grep -v 'warning: Cannot export local symbol' >&2 || true
        [ -f "$archive" ] || { echo "fuzz: build failed ($extra)" >&2; exit 1; }
    fi
done
# Highest first on the link line: each archive before the ones it uses.
archives=()
for (( i=${#extras[@]}-1; i>=0; i-- )); do archives+=("$BUILD/lib${extras[i]}.a"); done
for (( i=${#libraries[@]}-1; i>=0; i-- )); do archives+=("${libraries[i]}"); done
binary=$BUILD/fuzz-$target
stale=0
for archive in "${archives[@]}" "Fuzz/$target.swift" Fuzz/Common.swift; do [ "$archive" -nt "$binary" ] && stale=1; done
if [ ! -x "$binary" ] || [ "$stale" = 1 ]; then
    echo "fuzz: building $binary" >&2
    swiftc "${SWIFT_FLAGS[@]}" "${C_FLAGS[@]}" -I "$BUILD" -module-name "Fuzz_${target//-/_}" -package-name pncrypt \
        Fuzz/Common.swift "Fuzz/$target.swift" "${archives[@]}" -lcrypto -lz -o "$binary" 2>&1 \
        | grep -v 'warning: Cannot export local symbol' >&2 || true
    [ -x "$binary" ] && [ "$binary" -nt "$library" ] || { echo "fuzz: target build failed" >&2; exit 1; }
fi
[ "$only_build" = 1 ] && exit 0

corpus=$BUILD/corpus/$target
artifacts=$BUILD/artifacts/$target
mkdir -p "$corpus" "$artifacts"
seed_dirs=()
[ -d "Fuzz/seeds/$target" ] && seed_dirs+=("Fuzz/seeds/$target")
dict=()
[ -f "Fuzz/dicts/$target.dict" ] && dict=("-dict=Fuzz/dicts/$target.dict")
echo "fuzz: running $target for ${seconds}s" >&2
# A broken invariant stops the run through fatalError: no Swift backtracer (under ASan it reports itself).
export SWIFT_BACKTRACE=enable=no
exec "$binary" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" \
    -timeout=10 -rss_limit_mb=4096 "${dict[@]}" "$@" "$corpus" "${seed_dirs[@]}"
