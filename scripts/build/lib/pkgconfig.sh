#!/usr/bin/env bash
# Writes libpncrypt's pkg-config file (pncrypt.pc) to standard output, for scripts/build/install_lib.sh and
# scripts/build/dist.sh:
#
#   scripts/build/lib/pkgconfig.sh VERSION PREFIX [LIBDIR]
#
# PREFIX and LIBDIR are written as given, so they may be pkg-config expressions: the tarball's file says
# prefix=${pcfiledir}/../.. (it works wherever the tree is unpacked), install_lib.sh's the absolute prefix, the
# Debian package's prefix=/usr with the multiarch LIBDIR. LIBDIR defaults to ${prefix}/lib. The link line adds an
# rpath to LIBDIR, so programs find the library without LD_LIBRARY_PATH, only when LIBDIR is an absolute folder
# the dynamic linker does not search anyway (install_lib.sh's PREFIX/lib; not /usr/lib...). A relocatable file
# (PREFIX ${pcfiledir}/...) gets none: pkg-config writes ${pcfiledir} as the PKG_CONFIG_PATH entry it came from,
# so a relative PKG_CONFIG_PATH would give programs a relative run path, which the dynamic linker reads from the
# working directory of whoever runs them (a planted libpncrypt.so.0 there would be loaded); the tarball's users
# get an absolute run path from CMake (lib/cmake/pncrypt) or give one themselves (README, "Use from C"). The
# library reaches libcrypto and libz itself (DT_NEEDED); a static link would need them too (Requires.private).
set -euo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: scripts/build/lib/pkgconfig.sh VERSION PREFIX [LIBDIR]" >&2; exit 64; }
version=$1
prefix=$2
# shellcheck disable=SC2016  # ${prefix} is pkg-config's variable, written as it is
libdir=${3:-'${prefix}/lib'}
# LIBDIR as the linker would get it (${prefix} replaced), to decide on the rpath.
resolved=${libdir//'${prefix}'/$prefix}
rpath=''
case "$resolved" in
    *'${pcfiledir}'*|/usr/lib|/usr/lib/*) ;;
    /*) rpath=' -Wl,-rpath,${libdir}' ;;
esac
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
