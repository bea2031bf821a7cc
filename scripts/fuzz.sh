#!/usr/bin/env bash
# Builds and runs one libFuzzer target of Fuzz/ against the PNCrypt library's public API.
#
#   scripts/fuzz.sh TARGET [SECONDS]        # run TARGET for SECONDS (default 60)
#   scripts/fuzz.sh list                    # name the targets
#   scripts/fuzz.sh build TARGET            # only build
#
# TARGET is a file name of Fuzz/ without .swift (header, base64, decrypt-legacy, decrypt-legacy-random-iv,
# decrypt-acrh, decrypt-legacy33, message, json, gunzip, history). The library is compiled once per source change
# with -sanitize=fuzzer,address into .build-fuzz/ (covered by .gitignore). The corpus grows in
# .build-fuzz/corpus/TARGET, seeded from Fuzz/seeds/TARGET when that folder exists. A crash leaves
# .build-fuzz/artifacts/TARGET/crash-* (and the script exits non-zero): turn it into a regression test in the
# test target of the layer that failed (Tests/PNCrypt*Tests/, docs/testing.md) and fix the library.
#
# Extra arguments after SECONDS go to libFuzzer (e.g. -max_len=100000, -jobs=2).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=.build-fuzz
C_FLAGS=(-I Sources/CLibCrypto -I Sources/CZlib
         -Xcc -fmodule-map-file=Sources/CLibCrypto/module.modulemap
         -Xcc -fmodule-map-file=Sources/CZlib/module.modulemap)
SWIFT_FLAGS=(-O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6)

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
layers=(PNCryptBase PNCryptJSON PNCryptCore PNCryptCompression PNCrypt)
library=$BUILD/libPNCrypt.a
libraries=()
for layer in "${layers[@]}"; do libraries+=("$BUILD/lib$layer.a"); done
# Rebuild the instrumented library when any of its sources is newer than it.
layer_dirs=()
for layer in "${layers[@]}"; do layer_dirs+=("Sources/$layer"); done
if [ ! -f "$library" ] || [ -n "$(find "${layer_dirs[@]}" Sources/CLibCrypto Sources/CZlib -newer "$library" -type f \
        | head -1)" ]; then
    echo "fuzz: building the instrumented PNCrypt library" >&2
    rm -f "${libraries[@]}"
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
binary=$BUILD/fuzz-$target
if [ ! -x "$binary" ] || [ "$library" -nt "$binary" ] || [ "Fuzz/$target.swift" -nt "$binary" ] || [ Fuzz/Common.swift -nt "$binary" ]; then
    echo "fuzz: building $binary" >&2
    swiftc "${SWIFT_FLAGS[@]}" "${C_FLAGS[@]}" -I "$BUILD" -module-name "Fuzz_${target//-/_}" -package-name pncrypt \
        Fuzz/Common.swift "Fuzz/$target.swift" "${libraries[@]}" -lcrypto -lz -o "$binary" 2>&1 \
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
exec "$binary" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" \
    -timeout=10 -rss_limit_mb=4096 "${dict[@]}" "$@" "$corpus" "${seed_dirs[@]}"
