#!/usr/bin/env bash
# The size of the shipped binaries against two baselines built with the same flags (docs/performance.md, "Binary
# size"):
#
#   scripts/bench/size_baselines.sh
#
#   hello        print("hello"): the Swift runtime and standard library alone
#   argparser    one ParsableCommand with an option and a flag: the above, swift-argument-parser and what it
#                brings (FoundationEssentials)
#   pncrypt      the command (scripts/build/lib/build.sh)
#   libpncrypt   the C library (scripts/build/lib/build.sh; stripped as shipped: strip --strip-unneeded)
#
# Each is built in release with -static-stdlib, --disable-local-rpath and the flags that decide size
# (scripts/build/lib/build.sh --size-flags); the baselines in a temporary package whose swift-argument-parser is the
# checkout of the shipped build (the same version; no network). Prints each one's size stripped, then
# scripts/bench/size_report.py's split of the unstripped files by module. Needs what scripts/build/lib/build.sh
# needs, strip and nm.
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
ROOT="$PWD"
SCRATCH="${PNCRYPT_BUILD_SCRATCH:-.build-dist}"
BIN="$(scripts/build/lib/build.sh pncrypt libpncrypt)"
PARSER="$ROOT/$SCRATCH/checkouts/swift-argument-parser"
[ -d "$PARSER" ] || { echo "size_baselines.sh: no swift-argument-parser checkout in $SCRATCH" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-size.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/package/Sources/hello" "$WORK/package/Sources/argparser"
cat > "$WORK/package/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "baselines",
    dependencies: [.package(path: "$PARSER")],
    targets: [
        .executableTarget(name: "hello"),
        .executableTarget(name: "argparser",
                          dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]),
    ]
)
SWIFT
echo 'print("hello")' > "$WORK/package/Sources/hello/main.swift"
cat > "$WORK/package/Sources/argparser/Command.swift" <<'SWIFT'
import ArgumentParser

@main
struct Command: ParsableCommand {
    @Option(help: "A name.") var name = "world"
    @Flag(help: "Shout.") var loud = false

    func run() throws {
        print(loud ? "HELLO, \(name.uppercased())!" : "hello, \(name)")
    }
}
SWIFT
mapfile -t SIZE_FLAGS < <(scripts/build/lib/build.sh --size-flags)
(cd "$WORK/package" && swift build -c release -Xswiftc -static-stdlib --disable-local-rpath "${SIZE_FLAGS[@]}" >&2)
BASE="$(cd "$WORK/package" && swift build -c release --show-bin-path)"

stripped() {
    cp "$1" "$WORK/stripped"
    strip ${2:+"$2"} "$WORK/stripped"
    stat -c %s "$WORK/stripped"
}
printf '%-12s %12s %12s\n' binary stripped unstripped
for entry in "hello:$BASE/hello" "argparser:$BASE/argparser" "pncrypt:$BIN/pncrypt" \
    "libpncrypt:$BIN/liblibpncrypt.so:--strip-unneeded"; do
    IFS=: read -r name path flag <<< "$entry"
    printf '%-12s %12s %12s\n' "$name" "$(stripped "$path" "$flag")" "$(stat -c %s "$path")"
done
scripts/bench/size_report.py "$BASE/hello" "$BASE/argparser" "$BIN/pncrypt" "$BIN/liblibpncrypt.so"
