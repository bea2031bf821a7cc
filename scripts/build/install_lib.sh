#!/usr/bin/env bash
# Builds libpncrypt (the C interface, include/pncrypt.h) in release and installs it under PREFIX:
#
#   PREFIX/lib/libpncrypt.so.MAJOR.MINOR.PATCH   the library (soname libpncrypt.so.MAJOR)
#   PREFIX/lib/libpncrypt.so.MAJOR, libpncrypt.so  symlinks
#   PREFIX/include/pncrypt.h
#   PREFIX/lib/pkgconfig/pncrypt.pc
#   PREFIX/lib/cmake/pncrypt/                  find_package(pncrypt): the imported target pncrypt::pncrypt
#   PREFIX/share/man/man3/libpncrypt.3         the C API's man page (docs/libpncrypt.3)
#
#   scripts/build/install_lib.sh /usr/local
#   scripts/build/install_lib.sh /tmp/p && cc app.c $(PKG_CONFIG_PATH=/tmp/p/lib/pkgconfig pkg-config --cflags --libs pncrypt)
#
# The Swift runtime is linked statically (PNCrypt uses no Foundation), so programs run without a
# Swift toolchain; only libc, libcrypto (OpenSSL 3) and libz are needed at run time. A version script exports
# only the pncrypt_ symbols. The build is scripts/build/lib/build.sh's, shared with scripts/build/dist.sh and install.sh (one
# folder, .build-dist, one set of flags), so its flags never touch .build and a second script only relinks.
# Environment: PNCRYPT_LIB_SCRATCH or PNCRYPT_BUILD_SCRATCH (build folder, default .build-dist); PNCRYPT_STRIP=1
# (strip the library). scripts/build/dist.sh makes the same library into a tarball, .deb packages and the wheel.
set -euo pipefail

# --help: the comment above, without its '#'.
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    -*) echo "install_lib.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
esac
cd "$(dirname "$0")/../.."

[ $# -eq 1 ] || { echo "usage: scripts/build/install_lib.sh PREFIX" >&2; exit 64; }
mkdir -p "$1"
PREFIX="$(cd "$1" && pwd)"
SCRATCH="${PNCRYPT_LIB_SCRATCH:-${PNCRYPT_BUILD_SCRATCH:-.build-dist}}"

# The shared release build (scripts/build/lib/build.sh: the same folder and flags as scripts/build/dist.sh and install.sh).
VERSION="$(scripts/build/lib/build.sh --version)"
SONAME="libpncrypt.so.${VERSION%%.*}"
BUILT="$(PNCRYPT_BUILD_SCRATCH="$SCRATCH" scripts/build/lib/build.sh libpncrypt)/liblibpncrypt.so"
[ -f "$BUILT" ] || { echo "install_lib.sh: $BUILT was not built" >&2; exit 1; }

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
scripts/build/lib/pkgconfig.sh "$VERSION" "$PREFIX" > "$PREFIX/lib/pkgconfig/pncrypt.pc"
scripts/build/lib/cmake.sh "$VERSION" "$PREFIX/lib/cmake/pncrypt" --absolute "$PREFIX/lib" "$PREFIX/include"
echo "$PREFIX/lib/libpncrypt.so.$VERSION"
