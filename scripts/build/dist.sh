#!/usr/bin/env bash
# Builds everything pncrypt ships, from one release build, into OUTDIR:
#
#   scripts/build/dist.sh OUTDIR            # e.g. scripts/build/dist.sh dist
#   scripts/build/dist.sh --build-only      # the build alone; prints the folder of pncrypt and liblibpncrypt.so
#
#   pncrypt-VERSION-linux-ARCH.tar.gz       one folder, pncrypt-VERSION-linux-ARCH/, to unpack anywhere:
#                                           bin/pncrypt (stripped), lib/libpncrypt.so.VERSION (soname
#                                           libpncrypt.so.MAJOR) and its two symlinks, include/pncrypt.h,
#                                           lib/pkgconfig/pncrypt.pc (relocatable: prefix=${pcfiledir}/../..; no
#                                           run path), lib/cmake/pncrypt/ (find_package(pncrypt); relocatable),
#                                           share/man/man1/pncrypt.1, share/man/man3/libpncrypt.3, the bash, zsh and
#                                           fish completions (where install.sh puts them), share/doc/pncrypt/
#                                           (copyright, LICENSE, NOTICE)
#   pncrypt-VERSION-linux-ARCH-debug.tar.gz what strip removed (symbols, debug information): bin/.debug/pncrypt.debug
#                                           and lib/.debug/libpncrypt.so.VERSION.debug, for gdb and valgrind once
#                                           unpacked over the tarball (CI's valgrind run of the C tests needs it)
#   pncrypt_VERSION_DEBARCH.deb             the command: /usr/bin/pncrypt, man 1, completions
#   libpncrypt0_VERSION_DEBARCH.deb         the shared library (/usr/lib/MULTIARCH/libpncrypt.so.MAJOR...)
#   libpncrypt-dev_VERSION_DEBARCH.deb      pncrypt.h, pncrypt.pc, the CMake package, the libpncrypt.so link, man 3
#   pncrypt-VERSION-py3-none-manylinux_2_X_ARCH.whl
#                                           the Python binding with the same library inside, and libcrypto and
#                                           libz (scripts/build/build_wheel.sh: auditwheel repair)
#   SHA256SUMS
#
# The build is scripts/build/lib/build.sh's (release, Swift runtime linked statically, one folder: .build-dist), shared
# with scripts/build/install.sh and scripts/build/install_lib.sh: the command and the library are compiled once, with one set of
# flags. The library is stripped of all but its dynamic symbols (strip --strip-unneeded), the command of all symbols;
# both run once here before anything is packed. The command is 0755, the library 0644 (it is loaded, not run).
# The .deb packages (lintian-clean: scripts/checks/test_dist.sh runs lintian) are made with dpkg-deb --root-owner-group (no
# network); their Depends are computed by dpkg-shlibdeps from the libraries the binaries link (libc6 with its
# version floor, libssl3, zlib1g, libstdc++6, libgcc-s1), with libssl3 and libssl3t64 (Debian 13, Ubuntu 24.04)
# as alternatives. The wheel is scripts/build/build_wheel.sh's with PNCRYPT_WHEEL_LIB (pip builds it in an isolated
# environment: setuptools from PyPI; auditwheel from scripts/build/lib/wheel_tools.sh). scripts/checks/test_dist.sh OUTDIR tests
# the artifacts as a user gets them. Reproducible: the same commit gives the same bytes in any folder (the build's
# paths are mapped away, scripts/build/lib/build.sh; archives sorted, owned by root, every time SOURCE_DATE_EPOCH's);
# scripts/checks/check_reproducible.sh builds twice and compares.
# Needs swift, strip (binutils), dpkg-deb and dpkg-shlibdeps (dpkg-dev), python3 with pip, tar and gzip.
# Environment: PNCRYPT_BUILD_SCRATCH (build folder), PNCRYPT_DEB_MAINTAINER (the packages' Maintainer; default:
# the author of the last commit), SOURCE_DATE_EPOCH (the files' time; default: the last commit's).
set -euo pipefail

case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    --build-only) [ $# -eq 1 ] || { echo "usage: scripts/build/dist.sh --build-only" >&2; exit 64; } ;;
    -*) echo "dist.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
    *) [ $# -eq 1 ] || { echo "usage: scripts/build/dist.sh OUTDIR (or --build-only)" >&2; exit 64; } ;;
esac
cd "$(dirname "$0")/../.."
if [ "$1" = "--build-only" ]; then
    exec scripts/build/lib/build.sh pncrypt libpncrypt
fi
umask 022
started=$(date +%s)

for tool in swift strip objcopy tar gzip dpkg-deb dpkg-shlibdeps readelf python3; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "dist.sh: $tool is missing (apt-get install binutils dpkg-dev python3-venv; Swift: swift.org/install)" >&2
        exit 1
    }
done
for doc in docs/pncrypt.1 docs/libpncrypt.3 packaging/copyright; do
    [ -f "$doc" ] || { echo "dist.sh: $doc is missing" >&2; exit 1; }
done

mkdir -p "$1"
OUT="$(cd "$1" && pwd)"
VERSION="$(scripts/build/lib/build.sh --version)"
MAJOR="${VERSION%%.*}"
SONAME="libpncrypt.so.$MAJOR"
ARCH="$(uname -m)"
DEBARCH="$(dpkg --print-architecture)"
MULTIARCH="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)"
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH="$(git log -1 --format=%ct 2>/dev/null || date +%s)"
fi
export SOURCE_DATE_EPOCH
MAINTAINER="${PNCRYPT_DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null || true)}"
[ -n "$MAINTAINER" ] || { echo "dist.sh: set PNCRYPT_DEB_MAINTAINER (no git history to take it from)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-dist.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# 1. The one build.
BIN="$(scripts/build/lib/build.sh pncrypt libpncrypt)"
built=$(date +%s)

# 2. The stripped binaries, run before they are packed; the completions come from the stripped command. What strip
# removes (the symbol tables and debug information) is kept in FILE.debug, which each stripped file names
# (.gnu_debuglink): gdb and valgrind read it from a .debug folder beside the file (the debug tarball's layout).
LIBFILE="libpncrypt.so.$VERSION"
cp "$BIN/pncrypt" "$WORK/pncrypt"
cp "$BIN/liblibpncrypt.so" "$WORK/$LIBFILE"
for file in pncrypt "$LIBFILE"; do
    objcopy --only-keep-debug "$WORK/$file" "$WORK/$file.debug"
    chmod 0644 "$WORK/$file.debug"
done
strip "$WORK/pncrypt"
strip --strip-unneeded "$WORK/$LIBFILE"
for file in pncrypt "$LIBFILE"; do
    (cd "$WORK" && objcopy --add-gnu-debuglink="$file.debug" "$file")
done
# The library is not run: 0644, as Debian's policy has shared libraries (lintian: shared-library-is-executable).
chmod 0755 "$WORK/pncrypt"
chmod 0644 "$WORK/$LIBFILE"
reported="$(env -i "$WORK/pncrypt" --version)"
[ "$reported" = "$VERSION" ] || { echo "dist.sh: pncrypt --version says '$reported', not $VERSION" >&2; exit 1; }
soname="$(readelf -d "$WORK/$LIBFILE" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')"
[ "$soname" = "$SONAME" ] || { echo "dist.sh: the library's soname is '$soname', not $SONAME" >&2; exit 1; }
for shell in bash zsh fish; do
    env -i "$WORK/pncrypt" --generate-completion-script "$shell" > "$WORK/completion.$shell"
    [ -s "$WORK/completion.$shell" ] || { echo "dist.sh: no $shell completion script" >&2; exit 1; }
done
# bash-completion sources the file, never runs it: without ArgumentParser's "#!/bin/bash" line (lintian:
# bash-completion-with-hashbang).
sed -i '1{/^#!/d}' "$WORK/completion.bash"

# The files of each part under ROOT, in either layout (the tarball's PREFIX, the packages' /usr):
#   put_command ROOT BINDIR MANDIR SHAREDIR ZSHDIR   the command and its completions (the man page differs:
#                                                    plain in the tarball, gzipped in the package)
#   put_library ROOT LIBDIR                          the library and its soname link
#   put_development ROOT LIBDIR INCLUDEDIR MANDIR    the header, the libpncrypt.so link, the folders of the rest
put_command() {
    local root=$1 bindir=$2 mandir=$3 sharedir=$4 zshdir=$5
    install -d "$root/$bindir" "$root/$mandir/man1" "$root/$sharedir/bash-completion/completions" \
        "$root/$zshdir" "$root/$sharedir/fish/vendor_completions.d"
    install -m 0755 "$WORK/pncrypt" "$root/$bindir/pncrypt"
    install -m 0644 "$WORK/completion.bash" "$root/$sharedir/bash-completion/completions/pncrypt"
    install -m 0644 "$WORK/completion.zsh" "$root/$zshdir/_pncrypt"
    install -m 0644 "$WORK/completion.fish" "$root/$sharedir/fish/vendor_completions.d/pncrypt.fish"
}
put_library() {
    local root=$1 libdir=$2
    install -d "$root/$libdir"
    install -m 0644 "$WORK/$LIBFILE" "$root/$libdir/$LIBFILE"
    ln -s "$LIBFILE" "$root/$libdir/$SONAME"
}
put_development() {
    local root=$1 libdir=$2 includedir=$3 mandir=$4
    install -d "$root/$libdir/pkgconfig" "$root/$includedir" "$root/$mandir/man3"
    ln -s "$SONAME" "$root/$libdir/libpncrypt.so"
    install -m 0644 include/pncrypt.h "$root/$includedir/pncrypt.h"
}
# Every file and link of a tree gets SOURCE_DATE_EPOCH as its time (the same bytes from the same commit).
settle() { find "$1" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +; }

# 3. The tarball: the PREFIX layout of install.sh and install_lib.sh, under one folder.
NAME="pncrypt-$VERSION-linux-$ARCH"
T="$WORK/tar/$NAME"
put_command "$T" bin share/man share share/zsh/site-functions
put_library "$T" lib
put_development "$T" lib include share/man
install -m 0644 docs/pncrypt.1 "$T/share/man/man1/pncrypt.1"
install -m 0644 docs/libpncrypt.3 "$T/share/man/man3/libpncrypt.3"
# Relocatable: pncrypt.pc through ${pcfiledir} (no run path: scripts/build/lib/pkgconfig.sh says why), the CMake package
# through its own folder (an absolute run path, computed when CMake reads it).
# shellcheck disable=SC2016  # ${pcfiledir} is pkg-config's own variable
scripts/build/lib/pkgconfig.sh "$VERSION" '${pcfiledir}/../..' > "$T/lib/pkgconfig/pncrypt.pc"
scripts/build/lib/cmake.sh "$VERSION" "$T/lib/cmake/pncrypt" --relative ../include
install -d "$T/share/doc/pncrypt"
install -m 0644 packaging/copyright LICENSE NOTICE "$T/share/doc/pncrypt/"
settle "$T"
# pack TREE-PARENT FOLDER TARBALL
pack() {
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -C "$1" -cf - "$2" \
        | gzip -9n > "$3"
}
pack "$WORK/tar" "$NAME" "$OUT/$NAME.tar.gz"
# The debug information, in the same folder: unpacked over the tarball, each file is where its binary looks.
G="$WORK/debug/$NAME"
install -d "$G/bin/.debug" "$G/lib/.debug"
install -m 0644 "$WORK/pncrypt.debug" "$G/bin/.debug/pncrypt.debug"
install -m 0644 "$WORK/$LIBFILE.debug" "$G/lib/.debug/$LIBFILE.debug"
settle "$G"
pack "$WORK/debug" "$NAME" "$OUT/$NAME-debug.tar.gz"

# 4. The Debian packages.
# The Depends of the shared libraries FILE links (dpkg-shlibdeps, which reads the packages' symbols files: libc6's
# floor is the newest symbol version used), with libssl3 and its 64-bit-time name libssl3t64 as alternatives.
shlib_depends() {
    local dir="$WORK/shlibs" depends
    mkdir -p "$dir/debian"
    printf 'Source: pncrypt\n\nPackage: pncrypt\nArchitecture: any\n' > "$dir/debian/control"
    depends="$(cd "$dir" && dpkg-shlibdeps -O "$1" 2>"$dir/warnings" | sed -n 's/^shlibs:Depends=//p')" || {
        cat "$dir/warnings" >&2
        echo "dist.sh: dpkg-shlibdeps failed on $1" >&2
        exit 1
    }
    [ -n "$depends" ] || { echo "dist.sh: dpkg-shlibdeps found no dependencies of $1" >&2; exit 1; }
    echo "$depends" | sed -E 's/(^|, )libssl3(t64)? (\([^)]*\))/\1libssl3 \3 | libssl3t64 \3/'
}
# The packages' changelog (Debian's format; a native package's is changelog.gz): one entry per release, which points
# at CHANGELOG.md. Its date is SOURCE_DATE_EPOCH's.
debian_changelog() {
    printf 'pncrypt (%s) unstable; urgency=medium\n\n  * pncrypt %s. What changed: CHANGELOG.md in the source.\n\n -- %s  %s\n' \
        "$VERSION" "$VERSION" "$MAINTAINER" "$(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")"
}
# make_deb ROOT PACKAGE SECTION DEPENDS SUMMARY DESCRIPTION [EXTRA-CONTROL-LINES]
make_deb() {
    local root=$1 package=$2 section=$3 depends=$4 summary=$5 description=$6 extra=${7:-}
    install -d "$root/usr/share/doc/$package" "$root/DEBIAN"
    install -m 0644 packaging/copyright "$root/usr/share/doc/$package/copyright"
    debian_changelog | gzip -9n > "$root/usr/share/doc/$package/changelog.gz"
    (cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
    {
        echo "Package: $package"
        echo "Source: pncrypt"
        echo "Version: $VERSION"
        echo "Architecture: $DEBARCH"
        echo "Maintainer: $MAINTAINER"
        echo "Installed-Size: $(du -sk --apparent-size "$root/usr" | cut -f1)"
        echo "Depends: $depends"
        [ -z "$extra" ] || printf '%s\n' "$extra"
        echo "Section: $section"
        echo "Priority: optional"
        echo "Description: $summary"
        printf '%s\n' "$description" | fold -s -w 79 | sed 's/ *$//; s/^/ /'
    } > "$root/DEBIAN/control"
    chmod 0644 "$root/DEBIAN/"*
    settle "$root"
    dpkg-deb --root-owner-group --build "$root" "$OUT/${package}_${VERSION}_${DEBARCH}.deb" >/dev/null
}
ABOUT="Encrypts, decrypts, compresses and decodes PubNub cipherKey messages and files byte for byte as the PubNub \
SDKs do: the CryptoModule format (PNED header, AES-256-CBC, random IV), the legacy fixed-IV and random-IV \
schemes, and the iOS 3.3 scheme."

D="$WORK/deb/pncrypt"
put_command "$D" usr/bin usr/share/man usr/share usr/share/zsh/vendor-completions
gzip -9n < docs/pncrypt.1 > "$D/usr/share/man/man1/pncrypt.1.gz"
make_deb "$D" pncrypt utils "$(shlib_depends "$D/usr/bin/pncrypt")" \
    "encrypt and decrypt PubNub cipherKey messages and files" \
    "$ABOUT This package has the pncrypt command, its manual page and bash, zsh and fish completions."

D="$WORK/deb/libpncrypt$MAJOR"
put_library "$D" "usr/lib/$MULTIARCH"
install -d "$D/DEBIAN"
echo "libpncrypt $MAJOR libpncrypt$MAJOR (>= $VERSION)" > "$D/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$D/DEBIAN/triggers"
make_deb "$D" "libpncrypt$MAJOR" libs "$(shlib_depends "$D/usr/lib/$MULTIARCH/$LIBFILE")" \
    "PubNub cipherKey encryption for C and other languages (shared library)" \
    "$ABOUT This package has the shared library libpncrypt (the C interface of pncrypt.h), with the Swift runtime \
linked in." "Multi-Arch: same"

D="$WORK/deb/libpncrypt-dev"
put_development "$D" "usr/lib/$MULTIARCH" usr/include usr/share/man
gzip -9n < docs/libpncrypt.3 > "$D/usr/share/man/man3/libpncrypt.3.gz"
scripts/build/lib/pkgconfig.sh "$VERSION" /usr "\${prefix}/lib/$MULTIARCH" > "$D/usr/lib/$MULTIARCH/pkgconfig/pncrypt.pc"
scripts/build/lib/cmake.sh "$VERSION" "$D/usr/lib/$MULTIARCH/cmake/pncrypt" --absolute "/usr/lib/$MULTIARCH" /usr/include
make_deb "$D" libpncrypt-dev libdevel "libpncrypt$MAJOR (= $VERSION), libssl-dev, zlib1g-dev" \
    "PubNub cipherKey encryption for C and other languages (development files)" \
    "$ABOUT This package has the header pncrypt.h, the pkg-config file pncrypt.pc, the CMake package (find_package(pncrypt), \
the imported target pncrypt::pncrypt), the libpncrypt.so link and the libpncrypt(3) manual page." "Multi-Arch: same"

# 5. The wheel, with the library built above (no second build).
WHEEL="$(PNCRYPT_WHEEL_LIB="$WORK/$LIBFILE" scripts/build/build_wheel.sh "$OUT")"

# 6. Checksums of what this run made.
(cd "$OUT" && sha256sum "$NAME.tar.gz" "$NAME-debug.tar.gz" ./*_"${VERSION}_${DEBARCH}.deb" "$(basename "$WHEEL")" \
    | sed 's| \./| |' > SHA256SUMS)
finished=$(date +%s)
echo "dist.sh: built in $((built - started)) s, packed in $((finished - built)) s; in $OUT:" >&2
(cd "$OUT" && ls -l "$NAME.tar.gz" "$NAME-debug.tar.gz" ./*_"${VERSION}_${DEBARCH}.deb" "$(basename "$WHEEL")") | sed 's/^/  /; s/ \.\// /' >&2
echo "$OUT"
