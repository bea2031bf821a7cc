#!/usr/bin/env bash
# Writes libpncrypt's pkg-config file (pncrypt.pc) to standard output, for scripts/install-lib.sh and
# scripts/dist.sh:
#
#   scripts/lib/pkgconfig.sh VERSION PREFIX [LIBDIR]
#
# PREFIX and LIBDIR are written as given, so they may be pkg-config expressions: the tarball's file says
# prefix=${pcfiledir}/../.. (it works wherever the tree is unpacked), install-lib.sh's the absolute prefix, the
# Debian package's prefix=/usr with the multiarch LIBDIR. LIBDIR defaults to ${prefix}/lib. The link line adds an
# rpath to LIBDIR, so programs find the library without LD_LIBRARY_PATH, unless LIBDIR is a folder the dynamic
# linker searches anyway (/usr/lib...). The library reaches libcrypto and libz itself (DT_NEEDED); a static link
# would need them too (Requires.private).
set -euo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: scripts/lib/pkgconfig.sh VERSION PREFIX [LIBDIR]" >&2; exit 64; }
version=$1
prefix=$2
# shellcheck disable=SC2016  # ${prefix} is pkg-config's variable, written as it is
libdir=${3:-'${prefix}/lib'}
rpath=' -Wl,-rpath,${libdir}'
case "$libdir" in /usr/lib|/usr/lib/*) rpath='' ;; esac
cat <<PC
prefix=$prefix
libdir=$libdir
includedir=\${prefix}/include

Name: pncrypt
Description: PubNub cipherKey message and file encryption, byte-compatible with the PubNub SDKs
Version: $version
Requires.private: libcrypto zlib
Cflags: -I\${includedir}
Libs: -L\${libdir}$rpath -lpncrypt
PC
