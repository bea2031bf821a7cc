#!/usr/bin/env bash
# Builds libpncrypt (the C interface, include/pncrypt.h) in release and installs it under PREFIX:
#
#   PREFIX/lib/libpncrypt.so.MAJOR.MINOR.PATCH   the library (soname libpncrypt.so.MAJOR)
#   PREFIX/lib/libpncrypt.so.MAJOR, libpncrypt.so  symlinks
#   PREFIX/include/pncrypt.h
#   PREFIX/lib/pkgconfig/pncrypt.pc
#   PREFIX/share/man/man3/libpncrypt.3         the C API's man page (docs/libpncrypt.3)
#
#   scripts/install-lib.sh /usr/local
#   scripts/install-lib.sh /tmp/p && cc app.c $(PKG_CONFIG_PATH=/tmp/p/lib/pkgconfig pkg-config --cflags --libs pncrypt)
#
# The Swift runtime is linked statically (PNCrypt uses no Foundation), so programs run without a
# Swift toolchain; only libc, libcrypto (OpenSSL 3) and libz are needed at run time. A version script exports
# only the pncrypt_ symbols. The build has its own folder (.build-lib), so its flags never touch .build.
# Environment: PNCRYPT_LIB_SCRATCH (build folder, default .build-lib); PNCRYPT_STRIP=1 (strip the library).
set -euo pipefail

# --help: the comment above, without its '#'.
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    -*) echo "install-lib.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
esac
cd "$(dirname "$0")/.."

[ $# -eq 1 ] || { echo "usage: scripts/install-lib.sh PREFIX" >&2; exit 64; }
mkdir -p "$1"
PREFIX="$(cd "$1" && pwd)"
SCRATCH="${PNCRYPT_LIB_SCRATCH:-.build-lib}"

# The version: Sources/PNCrypt/Version.swift is the one place it is set; the header's macros are a copy for C
# compilers, and must agree.
version_part() { sed -n "s/^ *public static let $1 = \([0-9][0-9]*\)\$/\1/p" Sources/PNCrypt/Version.swift; }
header_part() { sed -n "s/^#define PNCRYPT_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" include/pncrypt.h; }
MAJOR=$(version_part major)
MINOR=$(version_part minor)
PATCH=$(version_part patch)
[ -n "$MAJOR" ] && [ -n "$MINOR" ] && [ -n "$PATCH" ] \
    || { echo "install-lib.sh: no version in Sources/PNCrypt/Version.swift" >&2; exit 1; }
VERSION="$MAJOR.$MINOR.$PATCH"
HEADER="$(header_part MAJOR).$(header_part MINOR).$(header_part PATCH)"
if [ "$HEADER" != "$VERSION" ] || ! grep -q "^#define PNCRYPT_VERSION_STRING \"$VERSION\"\$" include/pncrypt.h; then
    echo "install-lib.sh: include/pncrypt.h says $HEADER, Sources/PNCrypt/Version.swift $VERSION:" \
        "update the header's PNCRYPT_VERSION_ macros" >&2
    exit 1
fi
SONAME="libpncrypt.so.$MAJOR"

echo "install-lib.sh: building libpncrypt $VERSION (release, Swift runtime linked statically)..." >&2
swift build -c release --product libpncrypt --scratch-path "$SCRATCH" \
    -Xswiftc -static-stdlib \
    -Xlinker -soname -Xlinker "$SONAME" \
    -Xlinker --version-script="$PWD/scripts/libpncrypt.map" >&2
BUILT="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/liblibpncrypt.so"
[ -f "$BUILT" ] || { echo "install-lib.sh: $BUILT was not built" >&2; exit 1; }

install -d "$PREFIX/lib/pkgconfig" "$PREFIX/include"
install -m 0755 "$BUILT" "$PREFIX/lib/libpncrypt.so.$VERSION"
# Symbols stay by default (valgrind's suppressions in Tests/C and backtraces name functions). PNCRYPT_STRIP=1 strips
# all but the dynamic symbol table (the pncrypt_ functions): 17.0 MB -> 9.4 MB (0.2.0, Linux x86_64).
if [ -n "${PNCRYPT_STRIP:-}" ]; then strip --strip-unneeded "$PREFIX/lib/libpncrypt.so.$VERSION"; fi
ln -sf "libpncrypt.so.$VERSION" "$PREFIX/lib/$SONAME"
ln -sf "$SONAME" "$PREFIX/lib/libpncrypt.so"
install -m 0644 include/pncrypt.h "$PREFIX/include/pncrypt.h"
install -d "$PREFIX/share/man/man3"
install -m 0644 docs/libpncrypt.3 "$PREFIX/share/man/man3/libpncrypt.3"
# The library reaches libcrypto and libz itself (DT_NEEDED); a static link would need them too.
cat > "$PREFIX/lib/pkgconfig/pncrypt.pc" <<PC
prefix=$PREFIX
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: pncrypt
Description: PubNub cipherKey message and file encryption, byte-compatible with the PubNub SDKs
Version: $VERSION
Requires.private: libcrypto zlib
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lpncrypt
PC
echo "$PREFIX/lib/libpncrypt.so.$VERSION"
