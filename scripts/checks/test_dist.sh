#!/usr/bin/env bash
# Tests what scripts/build/dist.sh made, as a user gets it (issue 51):
#
#   scripts/checks/test_dist.sh OUTDIR
# - the tarball: its layout, the stripped command (no symbol table, no exported symbol, at most 20 MiB, no
#   Foundation, ICU or Swift library linked) run under `env -i` (`vectors check` on every vector file, the
#   README's decryption), the library's soname, links, exports and mode (0644), full RELRO and BIND_NOW on both, a
#   C program built through its pkg-config file after the tree was moved (the file is relocatable; it gives no run
#   path, so a relative PKG_CONFIG_PATH gives no relative one), and one built by CMake with find_package(pncrypt)
#   and CMAKE_PREFIX_PATH (an absolute run path), both run under `env -i`;
# - the .deb packages: their fields (Depends: libc6 with a floor, libssl3 | libssl3t64, zlib1g; -dev on the same
#   version of the library), owners, modes, paths, gzipped man pages, changelogs and completions, lintian (no error,
#   no warning), unpacked with dpkg-deb -x and run; then, as root, installed with dpkg -i (pncrypt on PATH, the
#   library in ld.so's cache, a C program through the system's pkg-config and one through CMake's find_package),
#   and removed with dpkg -r, leaving none of their files;
# - the debug tarball: the files the stripped binaries name (.gnu_debuglink), of the same build (build ID);
# - the wheel: its manylinux tag (at most manylinux_2_35) as `auditwheel show` finds it, `twine check`, its license
#   metadata and files, its own libcrypto (and the system's libz); installed with pip --no-index into a fresh venv of each Python
#   of PNCRYPT_TEST_DIST_PYTHONS, decrypting with its bundled library, which is the tarball's library (the same
#   build ID and code: auditwheel changed only its DT_NEEDED and run path; the packages' command and library are
#   the tarball's byte for byte);
# - SHA256SUMS.
# Prints "test-dist: N checks passed" last; exits 1 at the first failed check.
# Needs cc, pkg-config, cmake, lintian, python3 with venv, readelf, nm, objcopy, dpkg-deb (and dpkg, root, for the
# install step); auditwheel and twine come from scripts/build/lib/wheel_tools.sh.
# Environment: PNCRYPT_TEST_DIST_SKIP_INSTALL=1 skips dpkg -i/-r (for a machine that is not a throwaway);
# PNCRYPT_TEST_DIST_PYTHONS: the Python interpreters the wheel is installed into (default python3; e.g.
# "python3 /opt/python3.12/bin/python3").
set -euo pipefail

case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
esac
[ $# -eq 1 ] || { echo "usage: scripts/checks/test_dist.sh OUTDIR" >&2; exit 64; }
OUT="$(cd "$1" && pwd)"
cd "$(dirname "$0")/../.."
ROOT="$PWD"

for tool in cc pkg-config cmake lintian readelf objcopy python3 dpkg-deb; do
    command -v "$tool" >/dev/null 2>&1 \
        || { echo "test-dist: $tool is missing (apt-get install gcc pkg-config cmake lintian binutils python3-venv)" >&2; exit 1; }
done
VERSION="$(scripts/build/lib/build.sh --version)"
MAJOR="${VERSION%%.*}"
ARCH="$(uname -m)"
DEBARCH="$(dpkg --print-architecture)"
MULTIARCH="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)"
NAME="pncrypt-$VERSION-linux-$ARCH"
LIBFILE="libpncrypt.so.$VERSION"
PACKAGES=(pncrypt "libpncrypt$MAJOR" libpncrypt-dev)
MIB=$((1024 * 1024))

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-test-dist.XXXXXX")
installed=0
cleanup() {
    if [ "$installed" = 1 ]; then dpkg -r "${PACKAGES[@]}" >/dev/null 2>&1 || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

checks=0
fail() { echo "test-dist: FAIL: $*" >&2; exit 1; }
pass() { checks=$((checks + 1)); }
# expect WHAT EXPECTED ACTUAL
expect() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; pass; }
# has WHAT TEXT PATTERN (a grep -E pattern)
has() { grep -qE -- "$3" <<< "$2" || fail "$1: no match for '$3' in: $2"; pass; }
# hasnt WHAT TEXT PATTERN
hasnt() { ! grep -qE -- "$3" <<< "$2" || fail "$1: '$3' matches: $(grep -E -- "$3" <<< "$2" | head -3)"; pass; }
# none WHAT TEXT: TEXT (the lines that break a rule) is empty
none() { [ -z "$2" ] || fail "$1: $(head -3 <<< "$2")"; pass; }

# The checks every copy of the command gets: the README's decryption and every vector file, with no environment.
check_command() {
    local what=$1 binary=$2
    expect "$what: decrypt (env -i)" "yay!" "$(env -i "$binary" decrypt --key enigma q/xJqqN6qbiZMXYmiQC1Fw==)"
    expect "$what: --version" "$VERSION" "$(env -i "$binary" --version)"
    local vectors
    vectors="$(env -i "$binary" vectors check "$ROOT/Vectors/")" || fail "$what: vectors check failed: $vectors"
    has "$what: vectors check" "$(tail -1 <<< "$vectors")" '^[1-9][0-9]* passed, 0 failed$'
}

# A C program that decrypts the README's example through the library (its output: yay!).
cat > "$WORK/decrypt.c" <<'C'
#include <pncrypt.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    const char *text = "q/xJqqN6qbiZMXYmiQC1Fw==";
    pncrypt_module *m = NULL;
    pncrypt_error err;
    uint8_t *out = NULL;
    size_t len = 0;
    if (pncrypt_module_new("enigma", "legacy", &m, &err) != 0
        || pncrypt_decrypt_text(m, "legacy", text, strlen(text), &out, &len, &err) != 0) {
        fprintf(stderr, "decrypt: %s\n", err.message);
        return 1;
    }
    printf("%.*s %s\n", (int)len, (const char *)out, pncrypt_version());
    pncrypt_free(out);
    pncrypt_module_free(m);
    return 0;
}
C
# build_c WHAT OUTPUT [CC-FLAG...]: compiles decrypt.c with `pkg-config --cflags --libs pncrypt` (as the environment
# sets it up) and the flags given, and runs it under env -i.
build_c() {
    local what=$1 program=$2 flags
    shift 2
    flags="$(pkg-config --cflags --libs pncrypt)" || fail "$what: pkg-config pncrypt failed"
    # shellcheck disable=SC2086  # pkg-config output is meant to be split
    cc -std=c99 -Wall -Wextra -Werror -o "$program" "$WORK/decrypt.c" $flags "$@" || fail "$what: cc failed ($flags)"
    expect "$what: the C program (env -i)" "yay! $VERSION" "$(env -i "$program")"
}
# The same program built by CMake through find_package(pncrypt REQUIRED) and the imported target pncrypt::pncrypt.
mkdir "$WORK/cmake-project"
cp "$WORK/decrypt.c" "$WORK/cmake-project/"
cat > "$WORK/cmake-project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(decrypt C)
find_package(pncrypt $VERSION REQUIRED)
message(STATUS "pncrypt \${pncrypt_VERSION} in \${pncrypt_DIR}")
add_executable(decrypt decrypt.c)
target_link_libraries(decrypt PRIVATE pncrypt::pncrypt)
CMAKE
# build_cmake WHAT BUILD-FOLDER [CMAKE-ARGUMENT...]: configures and builds it, and runs it under env -i; prints
# nothing, leaves the program in BUILD-FOLDER/decrypt.
build_cmake() {
    local what=$1 build=$2
    shift 2
    cmake -S "$WORK/cmake-project" -B "$build" "$@" >"$build.log" 2>&1 || fail "$what: cmake: $(tail -20 "$build.log")"
    cmake --build "$build" >>"$build.log" 2>&1 || fail "$what: cmake --build: $(tail -20 "$build.log")"
    expect "$what: the CMake program (env -i)" "yay! $VERSION" "$(env -i "$build/decrypt")"
}
# run_path FILE: the file's RUNPATH or RPATH entries, one a line.
run_path() { readelf -d "$1" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p' | tr ':' '\n'; }
# hardened WHAT FILE: full RELRO (a GNU_RELRO segment and BIND_NOW), a stack that is not executable.
hardened() {
    has "$1: RELRO" "$(readelf -lW "$2")" 'GNU_RELRO'
    has "$1: BIND_NOW (full RELRO)" "$(readelf -d "$2")" '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW'
    hasnt "$1: no executable stack" "$(readelf -lW "$2" | grep GNU_STACK)" 'RWE'
}

# 1. The tarball.
TARBALL="$OUT/$NAME.tar.gz"
[ -f "$TARBALL" ] || fail "no $TARBALL"
listing="$(tar -tzvf "$TARBALL")"
none "tarball: one top folder, $NAME" "$(tar -tzf "$TARBALL" | grep -v "^$NAME/")"
none "tarball: every file is root's (0/0)" "$(awk '$2 != "0/0"' <<< "$listing")"
while read -r path; do
    has "tarball: $path" "$(tar -tzf "$TARBALL")" "^$NAME/$path\$"
done <<EOF
bin/pncrypt
lib/$LIBFILE
lib/libpncrypt.so.$MAJOR
lib/libpncrypt.so
lib/pkgconfig/pncrypt.pc
include/pncrypt.h
share/man/man1/pncrypt.1
share/man/man3/libpncrypt.3
share/bash-completion/completions/pncrypt
share/zsh/site-functions/_pncrypt
share/fish/vendor_completions.d/pncrypt.fish
share/doc/pncrypt/copyright
share/doc/pncrypt/LICENSE
share/doc/pncrypt/NOTICE
lib/cmake/pncrypt/pncryptConfig.cmake
lib/cmake/pncrypt/pncryptConfigVersion.cmake
EOF
mkdir "$WORK/unpacked"
tar -xzf "$TARBALL" -C "$WORK/unpacked"
P="$WORK/unpacked/$NAME"
hasnt "tarball: pncrypt is stripped" "$(readelf -S "$P/bin/pncrypt")" '\.symtab'
size=$(stat -c %s "$P/bin/pncrypt")
[ "$size" -le $((20 * MIB)) ] || fail "tarball: bin/pncrypt is $size bytes, over 20 MiB"
pass
for file in bin/pncrypt "lib/$LIBFILE"; do
    needed="$(readelf -d "$P/$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')"
    hasnt "tarball: $file links no Foundation, ICU or Swift library" "$needed" 'Foundation|icu|swift|dispatch'
    has "tarball: $file links libcrypto" "$needed" '^libcrypto\.so\.3$'
    hasnt "tarball: $file: every library is found" "$(ldd "$P/$file")" 'not found'
    hasnt "tarball: $file has no run path" "$(readelf -d "$P/$file")" 'R(UN)?PATH'
    hardened "tarball: $file" "$P/$file"
done
expect "tarball: bin/pncrypt is a position-independent executable" DYN \
    "$(readelf -h "$P/bin/pncrypt" | sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p')"
expect "tarball: the library's mode" "-rw-r--r--" "$(stat -c %A "$P/lib/$LIBFILE")"
expect "tarball: the license" "$(sha256sum < LICENSE)" "$(sha256sum < "$P/share/doc/pncrypt/LICENSE")"
has "tarball: the copyright file names the license" "$(cat "$P/share/doc/pncrypt/copyright")" '^License: Apache-2\.0$'

# scripts/build/lib/build.sh links the command with --no-export-dynamic: no symbol table for a loader to read.
none "tarball: pncrypt exports no symbol" "$(nm -D --defined-only "$P/bin/pncrypt")"
hasnt "tarball: no FoundationInternationalization or ICU code in pncrypt" "$(nm -D "$P/bin/pncrypt" 2>&1)" \
    'FoundationInternationalization|ucol_|ubrk_'
check_command tarball "$P/bin/pncrypt"
expect "tarball: libpncrypt.so.$MAJOR" "$LIBFILE" "$(readlink "$P/lib/libpncrypt.so.$MAJOR")"
expect "tarball: libpncrypt.so" "libpncrypt.so.$MAJOR" "$(readlink "$P/lib/libpncrypt.so")"
expect "tarball: soname" "libpncrypt.so.$MAJOR" \
    "$(readelf -d "$P/lib/$LIBFILE" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')"
none "tarball: only pncrypt_ functions are exported" "$(nm -D --defined-only --extern-only "$P/lib/$LIBFILE" \
    | awk '{ print $3 }' | grep -vE '^(pncrypt_[a-z0-9_]+@@PNCRYPT_0|PNCRYPT_0)$')"
hasnt "tarball: the library is stripped" "$(readelf -S "$P/lib/$LIBFILE")" '\.symtab'
# The command's completions (bash's without its "#!" line: bash-completion sources the file).
for shell in bash zsh fish; do
    expect "tarball: the $shell completion is the command's" \
        "$(env -i "$P/bin/pncrypt" --generate-completion-script "$shell" | sed '1{/^#!/d}' | sha256sum)" \
        "$(sha256sum < "$P/share/$(case $shell in bash) echo bash-completion/completions/pncrypt ;;
            zsh) echo zsh/site-functions/_pncrypt ;; fish) echo fish/vendor_completions.d/pncrypt.fish ;; esac)")"
done
expect "tarball: the man pages are docs/'s" "$(cat docs/pncrypt.1 docs/libpncrypt.3 | sha256sum)" \
    "$(cat "$P/share/man/man1/pncrypt.1" "$P/share/man/man3/libpncrypt.3" | sha256sum)"
has "tarball: pncrypt.pc is relocatable" "$(cat "$P/lib/pkgconfig/pncrypt.pc")" '^prefix=\$\{pcfiledir\}/\.\./\.\.$'
# Moved elsewhere after unpacking, the tree still builds and runs a C program through its pkg-config file.
mkdir -p "$WORK/moved/to"
mv "$P" "$WORK/moved/to/prefix"
P="$WORK/moved/to/prefix"
has "tarball: pkg-config follows the moved tree" \
    "$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags pncrypt)" "^-I$WORK/moved/to/prefix/lib/pkgconfig/"
# pkg-config writes ${pcfiledir} as found, relative for a relative PKG_CONFIG_PATH: the file gives no run path
# (a relative one would load libpncrypt.so.0 from the working directory of whoever runs the program).
cd "$WORK/moved"
hasnt "tarball: pncrypt.pc gives no run path" "$(PKG_CONFIG_PATH=to/prefix/lib/pkgconfig pkg-config --libs pncrypt)" \
    'rpath'
PKG_CONFIG_PATH=to/prefix/lib/pkgconfig build_c "tarball, relative PKG_CONFIG_PATH" "$WORK/decrypt-relative" \
    -Wl,-rpath,"$P/lib"
cd "$ROOT"
none "tarball: a relative PKG_CONFIG_PATH gives no relative run path" \
    "$(run_path "$WORK/decrypt-relative" | grep -v "^$P/lib\$" || true)"
# The README's way: the prefix's absolute lib folder as the run path.
PKG_CONFIG_PATH="$P/lib/pkgconfig" build_c "tarball" "$WORK/decrypt-tarball" -Wl,-rpath,"$P/lib"
# CMake, through the moved tree's relocatable lib/cmake/pncrypt: an absolute run path to its lib folder.
build_cmake "tarball: CMake" "$WORK/cmake-tarball" -DCMAKE_PREFIX_PATH="$P"
expect "tarball: CMake's run path is the tree's lib folder" "$P/lib" "$(run_path "$WORK/cmake-tarball/decrypt")"
has "tarball: CMake found the moved tree's package" "$(cat "$WORK/cmake-tarball.log")" \
    "^-- pncrypt $VERSION in $P/lib/cmake/pncrypt\$"
expect "tarball: CMake's program needs the soname" "libpncrypt.so.$MAJOR" \
    "$(readelf -d "$WORK/cmake-tarball/decrypt" | sed -n 's/.*(NEEDED).*\[\(libpncrypt.*\)\]$/\1/p')"
# Another major version is not this package (pncryptConfigVersion.cmake).
mkdir "$WORK/cmake-major-project"
cp "$WORK/decrypt.c" "$WORK/cmake-major-project/"
sed "s/find_package(pncrypt $VERSION REQUIRED)/find_package(pncrypt $((MAJOR + 1)) REQUIRED)/" \
    "$WORK/cmake-project/CMakeLists.txt" > "$WORK/cmake-major-project/CMakeLists.txt"
if cmake -S "$WORK/cmake-major-project" -B "$WORK/cmake-major-build" -DCMAKE_PREFIX_PATH="$P" >/dev/null 2>&1; then
    fail "tarball: find_package(pncrypt $((MAJOR + 1))) found pncrypt $VERSION"
fi
pass
# The debug tarball: for each stripped binary, the file its .gnu_debuglink names, of the same build (build ID).
DEBUG="$OUT/$NAME-debug.tar.gz"
[ -f "$DEBUG" ] || fail "no $DEBUG"
mkdir "$WORK/debug"
tar -xzf "$DEBUG" -C "$WORK/debug"
build_id() { readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: //p'; }
for file in bin/pncrypt "lib/$LIBFILE"; do
    debug="$WORK/debug/$NAME/$(dirname "$file")/.debug/$(basename "$file").debug"
    [ -f "$debug" ] || fail "debug tarball: no $(basename "$file").debug"
    has "debug tarball: $file names its debug file" "$(readelf -p .gnu_debuglink "$P/$file")" \
        "\] +$(basename "$file")\.debug\$"
    id="$(build_id "$P/$file")"
    has "debug tarball: $file has a build ID" "$id" '^[0-9a-f]{16,}$'
    expect "debug tarball: $(basename "$debug") is of the same build" "$id" "$(build_id "$debug")"
    has "debug tarball: $(basename "$debug") has the symbols" "$(readelf -S "$debug" 2>/dev/null)" '\.symtab'
done
sha_command=$(sha256sum < "$P/bin/pncrypt")
sha_library=$(sha256sum < "$P/lib/$LIBFILE")

# 2. The Debian packages.
deb() { echo "$OUT/${1}_${VERSION}_${DEBARCH}.deb"; }
for package in "${PACKAGES[@]}"; do
    [ -f "$(deb "$package")" ] || fail "no $(deb "$package")"
    info="$(dpkg-deb -f "$(deb "$package")")"
    has "$package: Package" "$info" "^Package: $package\$"
    has "$package: Version" "$info" "^Version: $VERSION\$"
    has "$package: Architecture" "$info" "^Architecture: $DEBARCH\$"
    has "$package: Maintainer" "$info" '^Maintainer: .+'
    has "$package: Description" "$info" '^Description: .+'
    contents="$(dpkg-deb -c "$(deb "$package")")"
    none "$package: every file is root's" "$(awk '$2 != "root/root"' <<< "$contents")"
    has "$package: copyright" "$contents" " \./usr/share/doc/$package/copyright\$"
    has "$package: changelog" "$contents" " \./usr/share/doc/$package/changelog\.gz\$"
    dpkg-deb -x "$(deb "$package")" "$WORK/debroot"
    has "$package: the copyright file is machine-readable, Apache-2.0" \
        "$(head -1 "$WORK/debroot/usr/share/doc/$package/copyright"; grep -A2 '^Files: \*$' \
            "$WORK/debroot/usr/share/doc/$package/copyright")" \
        '^Format: https://www\.debian\.org/doc/packaging-manuals/copyright-format/1\.0/$'
    has "$package: the changelog's entry" "$(gzip -dc "$WORK/debroot/usr/share/doc/$package/changelog.gz" | head -1)" \
        "^pncrypt \($VERSION\) "
done
# lintian, as Debian's archive would run it: no error and no warning (information and pedantic tags are allowed).
lintian_out="$(lintian --fail-on error,warning --tag-display-limit 0 "$(deb pncrypt)" "$(deb "libpncrypt$MAJOR")" \
    "$(deb libpncrypt-dev)" 2>&1)" || fail "lintian: $lintian_out"
none "lintian: no error or warning" "$(grep -E '^[EW]: ' <<< "$lintian_out" || true)"
for package in "${PACKAGES[@]}"; do
    has "copyright of $package: Files: * is Apache-2.0" "$(grep -A2 '^Files: \*$' \
        "$WORK/debroot/usr/share/doc/$package/copyright")" '^License: Apache-2\.0$'
done
depends() { dpkg-deb -f "$(deb "$1")" Depends; }
for package in pncrypt "libpncrypt$MAJOR"; do
    has "$package: Depends libc6 with a floor" "$(depends "$package")" '(^|, )libc6 \(>= 2\.[0-9]+\)'
    has "$package: Depends libssl3 | libssl3t64" "$(depends "$package")" \
        '(^|, )libssl3 \(>= [^)]+\) \| libssl3t64 \(>= [^)]+\)(,|$)'
    has "$package: Depends zlib1g" "$(depends "$package")" '(^|, )zlib1g( \([^)]*\))?(,|$)'
    hasnt "$package: no Swift or ICU package" "$(depends "$package")" 'swift|icu'
done
has "libpncrypt-dev: Depends on the same library" "$(depends libpncrypt-dev)" \
    "(^|, )libpncrypt$MAJOR \(= $VERSION\)(,|\$)"
has "libpncrypt$MAJOR: shlibs" "$(dpkg-deb -I "$(deb "libpncrypt$MAJOR")" shlibs)" \
    "^libpncrypt $MAJOR libpncrypt$MAJOR \(>= $VERSION\)\$"
D="$WORK/debroot"
LIBDIR="usr/lib/$MULTIARCH"
for path in usr/bin/pncrypt usr/share/man/man1/pncrypt.1.gz usr/share/bash-completion/completions/pncrypt \
    usr/share/zsh/vendor-completions/_pncrypt usr/share/fish/vendor_completions.d/pncrypt.fish \
    "$LIBDIR/$LIBFILE" usr/include/pncrypt.h "$LIBDIR/pkgconfig/pncrypt.pc" usr/share/man/man3/libpncrypt.3.gz; do
    [ -f "$D/$path" ] || fail "packages: no /$path"
    pass
done
expect "packages: man 1 is docs/pncrypt.1, gzipped" "$(sha256sum < docs/pncrypt.1)" \
    "$(gzip -dc "$D/usr/share/man/man1/pncrypt.1.gz" | sha256sum)"
expect "packages: man 3 is docs/libpncrypt.3, gzipped" "$(sha256sum < docs/libpncrypt.3)" \
    "$(gzip -dc "$D/usr/share/man/man3/libpncrypt.3.gz" | sha256sum)"
expect "packages: libpncrypt.so.$MAJOR (libpncrypt$MAJOR)" "$LIBFILE" "$(readlink "$D/$LIBDIR/libpncrypt.so.$MAJOR")"
expect "packages: libpncrypt.so (libpncrypt-dev)" "libpncrypt.so.$MAJOR" "$(readlink "$D/$LIBDIR/libpncrypt.so")"
has "libpncrypt-dev: the link" "$(dpkg-deb -c "$(deb libpncrypt-dev)")" \
    " \./$LIBDIR/libpncrypt\.so -> libpncrypt\.so\.$MAJOR\$"
has "libpncrypt$MAJOR: the soname link" "$(dpkg-deb -c "$(deb "libpncrypt$MAJOR")")" \
    " \./$LIBDIR/libpncrypt\.so\.$MAJOR -> $LIBFILE\$"
has "libpncrypt$MAJOR: the library's mode is 0644" "$(dpkg-deb -c "$(deb "libpncrypt$MAJOR")")" \
    "^-rw-r--r-- root/root .* \./$LIBDIR/$LIBFILE\$"
for file in pncryptConfig.cmake pncryptConfigVersion.cmake; do
    has "libpncrypt-dev: $file" "$(dpkg-deb -c "$(deb libpncrypt-dev)")" \
        "^-rw-r--r-- root/root .* \./$LIBDIR/cmake/pncrypt/$file\$"
done
expect "packages: the command is the tarball's" "$sha_command" "$(sha256sum < "$D/usr/bin/pncrypt")"
expect "packages: the library is the tarball's" "$sha_library" "$(sha256sum < "$D/$LIBDIR/$LIBFILE")"
check_command "pncrypt.deb (dpkg-deb -x)" "$D/usr/bin/pncrypt"

if [ -n "${PNCRYPT_TEST_DIST_SKIP_INSTALL:-}" ]; then
    echo "test-dist: PNCRYPT_TEST_DIST_SKIP_INSTALL is set: dpkg -i and dpkg -r not tried" >&2
elif [ "$(id -u)" != 0 ]; then
    fail "dpkg -i needs root (CI runs as root); PNCRYPT_TEST_DIST_SKIP_INSTALL=1 skips it"
else
    for package in "${PACKAGES[@]}"; do
        if dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'installed'; then
            fail "$package is installed already: remove it first (dpkg -r $package), or skip this step"
        fi
    done
    installed=1
    dpkg -i "$(deb "libpncrypt$MAJOR")" "$(deb libpncrypt-dev)" "$(deb pncrypt)" >"$WORK/dpkg.log" 2>&1 \
        || fail "dpkg -i: $(cat "$WORK/dpkg.log")"
    for package in "${PACKAGES[@]}"; do
        expect "dpkg -i: $package" "install ok installed" "$(dpkg-query -W -f '${Status}' "$package")"
    done
    expect "dpkg -i: pncrypt on PATH" /usr/bin/pncrypt "$(env -i PATH=/usr/bin:/bin sh -c 'command -v pncrypt')"
    expect "dpkg -i: pncrypt from PATH" "yay!" \
        "$(env -i PATH=/usr/bin:/bin pncrypt decrypt --key enigma q/xJqqN6qbiZMXYmiQC1Fw==)"
    check_command "dpkg -i" /usr/bin/pncrypt
    has "dpkg -i: ld.so's cache" "$(ldconfig -p)" "libpncrypt\.so\.$MAJOR .*=> (/usr)?/${LIBDIR#usr/}/libpncrypt\.so\.$MAJOR\$"
    # The system's pkg-config search path only.
    unset PKG_CONFIG_PATH
    has "dpkg -i: pkg-config finds pncrypt" "$(pkg-config --modversion pncrypt)" "^$VERSION\$"
    build_c "dpkg -i" "$WORK/decrypt-system"
    build_cmake "dpkg -i: CMake" "$WORK/cmake-system"
    none "dpkg -i: CMake's program has no run path (the library is in the linker's folders)" \
        "$(run_path "$WORK/cmake-system/decrypt")"
    files="$(dpkg -L "${PACKAGES[@]}" | sort -u)"
    dpkg -r "${PACKAGES[@]}" >"$WORK/dpkg.log" 2>&1 || fail "dpkg -r: $(cat "$WORK/dpkg.log")"
    installed=0
    for package in "${PACKAGES[@]}"; do
        hasnt "dpkg -r: $package" "$(dpkg-query -W -f '${Status}' "$package" 2>/dev/null || true)" 'installed$'
    done
    left=""
    while read -r path; do
        if [ -f "$path" ] || [ -L "$path" ]; then left="$left $path"; fi
    done <<< "$files"
    expect "dpkg -r: no file of the packages is left" "" "$left"
    hasnt "dpkg -r: ld.so's cache" "$(ldconfig -p)" 'libpncrypt\.so'
fi

# 3. The wheel: what PyPI takes (a manylinux tag auditwheel confirms, twine check), then installed as users do.
wheels=("$OUT"/pncrypt-"$VERSION"-py3-none-manylinux_*_"$ARCH".whl)
expect "wheel: one manylinux wheel" 1 "$(ls "${wheels[@]}" 2>/dev/null | wc -l)"
WHEEL="${wheels[0]}"
tag="$(basename "$WHEEL" .whl)"
tag="${tag#pncrypt-"$VERSION"-py3-none-}"
has "wheel: tagged manylinux_2_X, X at most 35" "$tag" "^manylinux_2_([0-9]|[12][0-9]|3[0-5])_$ARCH(\.|\$)"
tools="$(scripts/build/lib/wheel_tools.sh)"
shown="$("$tools/bin/auditwheel" show "$WHEEL" 2>&1)" || fail "auditwheel show: $shown"
has "wheel: auditwheel show confirms its tag" "$(tr '\n' ' ' <<< "$shown" | tr -s ' ')" \
    "consistent with the following platform tag: \"${tag%%.*}\""
twine="$("$tools/bin/twine" check --strict "$WHEEL" 2>&1)" || fail "twine check: $twine"
has "wheel: twine check" "$twine" 'PASSED'
mkdir "$WORK/wheel"
python3 -m zipfile -e "$WHEEL" "$WORK/wheel"
metadata="$(cat "$WORK/wheel/pncrypt-$VERSION.dist-info/METADATA")"
has "wheel: License-Expression" "$metadata" '^License-Expression: Apache-2\.0$'
for file in LICENSE NOTICE; do
    expect "wheel: $file inside" "$(sha256sum < "$file")" \
        "$(sha256sum < "$WORK/wheel/pncrypt-$VERSION.dist-info/licenses/$file")"
done
W="$WORK/wheel/pncrypt/libpncrypt.so.$MAJOR"
expect "wheel: its own libcrypto and nothing else (pncrypt.libs)" "libcrypto" \
    "$(ls "$WORK/wheel/pncrypt.libs" | sed 's/-[0-9a-f]\{8\}\.so\.3$//' | tr '\n' ' ' | sed 's/ $//')"
has "wheel: the system's libz (on the manylinux policy)" "$(readelf -d "$W")" '\(NEEDED\).*\[libz\.so\.1\]'
expect "wheel: the library's run path is its own folder's pncrypt.libs" "\$ORIGIN/../pncrypt.libs" "$(run_path "$W")"
# The tarball's library, but for what auditwheel rewrites: the same build ID, the same code and constants.
section() { objcopy -O binary --only-section="$2" "$1" "$WORK/section" && sha256sum < "$WORK/section"; }
expect "wheel: the library is the tarball's build" "$(build_id "$P/lib/$LIBFILE")" "$(build_id "$W")"
for name in .text .rodata; do
    expect "wheel: the library's $name is the tarball's" "$(section "$P/lib/$LIBFILE" "$name")" "$(section "$W" "$name")"
done
hardened "wheel: the library" "$W"
# Installed with no index (no other package is fetched) into a fresh venv of each Python.
for python in ${PNCRYPT_TEST_DIST_PYTHONS:-python3}; do
    pyversion="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" || fail "no Python $python"
    venv="$WORK/venv-$pyversion"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install -q --no-index "$WHEEL" || fail "Python $pyversion: pip install --no-index $WHEEL failed"
    expect "wheel, Python $pyversion: decrypts with its bundled library" "yay! bundled" "$(cd "$WORK" && \
        env -u PNCRYPT_LIB "$venv/bin/python" -c 'import pncrypt
where = "bundled" if pncrypt._find_library()[0] == pncrypt._BUNDLED else pncrypt._find_library()
print(pncrypt.CryptoModule("enigma", "legacy").decrypt("q/xJqqN6qbiZMXYmiQC1Fw=="), where)')"
    has "wheel, Python $pyversion: libcrypto is the wheel's" "$(cd "$WORK" && "$venv/bin/python" -c '
import pncrypt, subprocess
print(subprocess.run(["ldd", pncrypt._BUNDLED], capture_output=True, text=True).stdout)')" \
        'libcrypto-[^ ]*\.so\.3 => [^ ]*/site-packages/[^ ]*pncrypt\.libs/libcrypto-'
done

# 4. The checksums.
(cd "$OUT" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match"
pass
expect "SHA256SUMS: six artifacts" 6 "$(wc -l < "$OUT/SHA256SUMS")"

echo "test-dist: $checks checks passed"
