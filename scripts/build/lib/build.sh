#!/usr/bin/env bash
# The one release build of what pncrypt ships, shared by scripts/build/dist.sh, scripts/build/install.sh,
# scripts/build/install_lib.sh (and through it `pip install ./bindings/python`) and CI's benchmark smoke run:
#
#   scripts/build/lib/build.sh PRODUCT...      # pncrypt, libpncrypt, pncrypt-bench; prints the folder they are in
#   scripts/build/lib/build.sh --version       # prints MAJOR.MINOR.PATCH (checked against include/pncrypt.h)
#   scripts/build/lib/build.sh --size-flags    # prints the flags below that decide an executable's size, one a line
#
# One scratch folder (.build-dist, or PNCRYPT_BUILD_SCRATCH) and one set of compiler flags for every product:
# release, the Swift runtime linked statically (-static-stdlib), so the command and the library run without a
# Swift toolchain, no run path, and only the code something reaches. The modules are compiled once for all
# products; the executables' links export no symbol, the library's adds its soname (libpncrypt.so.MAJOR) and the
# version script that exports only the pncrypt_ symbols (Sources/CPNCrypt/libpncrypt.map).
# The build's own output goes to standard error; standard output gets only the folder (or the version).
set -euo pipefail

case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
esac
cd "$(dirname "$0")/../../.."

# Size (docs/performance.md, "Binary size"): SwiftPM links with --gc-sections, which drops a section nothing
# reaches; without these flags it dropped almost nothing of Swift code.
# - Every function in a section of its own (-function-sections); else a module's code is one section.
# - Public symbols not kept for other programs (-internalize-at-link): the compiler marks every public function
#   "retain", which no linker may drop, in case something outside the program calls it. Nothing does: the command
#   is one program, and the library exports only its C functions (its version script).
SIZE_FLAGS=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xfrontend -Xswiftc -internalize-at-link)
# - The executables export nothing: swiftc's -static-stdlib link adds -export-dynamic (static-stdlib-args.lnk),
#   which put every symbol of the package's own objects, 4,757 of them, in the command's dynamic symbol table
#   (0.43 MB), and kept each one's code. Nothing is loaded into the command that would look them up (CLibrary's
#   dlsym finds the C library's functions).
EXECUTABLE_FLAGS=(-Xlinker --no-export-dynamic)
if [ "${1:-}" = "--size-flags" ]; then
    printf '%s\n' "${SIZE_FLAGS[@]}" "${EXECUTABLE_FLAGS[@]}"
    exit 0
fi

# The version: Sources/PNCrypt/Version.swift is the one place it is set; the header's macros are a copy for C
# compilers, and must agree.
version_part() { sed -n "s/^ *public static let $1 = \([0-9][0-9]*\)\$/\1/p" Sources/PNCrypt/Version.swift; }
header_part() { sed -n "s/^#define PNCRYPT_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" include/pncrypt.h; }
MAJOR=$(version_part major)
MINOR=$(version_part minor)
PATCH=$(version_part patch)
[ -n "$MAJOR" ] && [ -n "$MINOR" ] && [ -n "$PATCH" ] \
    || { echo "build.sh: no version in Sources/PNCrypt/Version.swift" >&2; exit 1; }
VERSION="$MAJOR.$MINOR.$PATCH"
HEADER="$(header_part MAJOR).$(header_part MINOR).$(header_part PATCH)"
if [ "$HEADER" != "$VERSION" ] || ! grep -q "^#define PNCRYPT_VERSION_STRING \"$VERSION\"\$" include/pncrypt.h; then
    echo "build.sh: include/pncrypt.h says $HEADER, Sources/PNCrypt/Version.swift $VERSION:" \
        "update the header's PNCRYPT_VERSION_ macros" >&2
    exit 1
fi
if [ "${1:-}" = "--version" ]; then
    echo "$VERSION"
    exit 0
fi
[ $# -ge 1 ] || { echo "usage: scripts/build/lib/build.sh PRODUCT... (pncrypt, libpncrypt, pncrypt-bench)" >&2; exit 64; }

SCRATCH="${PNCRYPT_BUILD_SCRATCH:-.build-dist}"
mkdir -p "$SCRATCH"
# --disable-local-rpath: no $ORIGIN run path (the binaries need no library of their own folder; a package's
# /usr/bin/pncrypt would otherwise look for libcrypto in /usr/bin first).
FLAGS=(-c release --scratch-path "$SCRATCH" -Xswiftc -static-stdlib --disable-local-rpath)
# Reproducible (scripts/checks/check_reproducible.sh): the folder the checkout and the build folder are in is written
# nowhere (the build ID, and so the stripped files' bytes, is computed over the debug information too).
# - -file-prefix-map rewrites it in the debug information and in #file strings: the checkout becomes ".", a build
#   folder outside it "build".
# - No DWARF skeleton units for the imported C modules (-no-clang-module-breadcrumbs): they name the module cache's
#   .pcm files, whose names are hashes of the compiler's arguments, folders included (gdb and valgrind never read
#   them; the C types of OpenSSL and zlib are then not described to lldb).
# - No module hash (-disable-incremental-llvm-codegen): the .swift_modhash section hashes the compiler's input,
#   paths included; it only lets a rebuild skip code generation for an unchanged module.
# - Swift 6.3.1 gives withoutActuallyEscaping's run-time check the length of the unmapped source path (the text is
#   the mapped one): the shipped code does not use it (Sources/PNCrypt/Messages/MessageStream.swift).
# - The compiler writes macro expansions (the standard library's @TaskLocal) to TMPDIR/swift-generated-sources,
#   and how their path is split in the line table depends on what it shares with the checkout's: a TMPDIR inside
#   the build folder gives the same split, and the same mapped path, in any folder.
scratch="$(cd "$SCRATCH" && pwd -P)"
# - The C targets (swift-system's CSystem shims) get the same maps through clang's -ffile-prefix-map, and DWARF 4 as
#   the Swift code has: one DWARF 5 unit among DWARF 4 ones makes valgrind 3.19 give up on the whole debug file
#   ("Possibly corrupted debuginfo file"; scripts/checks/test_c.sh runs the library under it).
case "$scratch/" in
    "$(pwd -P)"/*) ;;
    *) FLAGS+=(-Xswiftc -file-prefix-map -Xswiftc "$scratch=build" -Xcc "-ffile-prefix-map=$scratch=build") ;;
esac
FLAGS+=(-Xcc "-ffile-prefix-map=$(pwd -P)=." -Xcc -gdwarf-4
        -Xswiftc -file-prefix-map -Xswiftc "$(pwd -P)=."
        -Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs
        -Xswiftc -Xfrontend -Xswiftc -disable-incremental-llvm-codegen)
mkdir -p "$scratch/tmp"
export TMPDIR="$scratch/tmp"
FLAGS+=("${SIZE_FLAGS[@]}")
# Hardening (docs/security.md, "The release binaries"): full RELRO, the relocated data read-only and every symbol
# bound at load time (-z relro -z now, BIND_NOW), and a non-executable stack.
FLAGS+=(-Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker -z -Xlinker noexecstack)
for product in "$@"; do
    link=()
    case "$product" in
        pncrypt|pncrypt-bench) link=("${EXECUTABLE_FLAGS[@]}") ;;
        libpncrypt)
            link=(-Xlinker -soname -Xlinker "libpncrypt.so.$MAJOR"
                  -Xlinker --version-script="$PWD/Sources/CPNCrypt/libpncrypt.map") ;;
        *) echo "build.sh: unknown product '$product' (pncrypt, libpncrypt, pncrypt-bench)" >&2; exit 64 ;;
    esac
    echo "build.sh: building $product $VERSION (release, Swift runtime linked statically, $SCRATCH)..." >&2
    swift build "${FLAGS[@]}" --product "$product" ${link[@]+"${link[@]}"} >&2
done
swift build "${FLAGS[@]}" --show-bin-path
