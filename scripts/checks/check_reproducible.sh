#!/usr/bin/env bash
# Checks that a release is reproducible: the same commit gives the same bytes.
#
#   scripts/checks/check_reproducible.sh                 # two release builds of HEAD, from clean, in two folders
#   scripts/checks/check_reproducible.sh --repack OUTDIR # CI's cheap check of OUTDIR, which scripts/build/dist.sh just made
#
# The full check exports HEAD (git archive: what is committed, nothing else) into two new folders of different
# names and depths, runs scripts/build/dist.sh in each (its own build folder, .build-dist, from nothing; about 2 x 15
# minutes on a loaded 2-core machine: docs/performance.md), and compares byte for byte bin/pncrypt and
# lib/libpncrypt.so.VERSION (from the tarballs), the three .deb packages, the wheel, the two tarballs and
# SHA256SUMS. Both builds get the commit's time as SOURCE_DATE_EPOCH and its author as the packages' Maintainer.
# What makes the bytes the same: scripts/build/lib/build.sh maps the checkout's and the build folder's paths away
# (-file-prefix-map: debug information, #file, and so the build ID the stripped files keep), and dist.sh and
# build_wheel.sh sort every archive, give every file root's owner and SOURCE_DATE_EPOCH's time, and pin the wheel's
# tools. Exits 1 and names each file that differs (diffoscope, if installed, shows how); the folders are kept then.
#
# --repack OUTDIR (no second build: about a minute): runs dist.sh again on the build it just made, into another
# folder, and compares every artifact with OUTDIR's (the packing: archive order, times, owners, the wheel's tools),
# and checks that neither the checkout's nor the build folder's path is in the binaries or their debug files (the
# compilation's share, which the full check proves by building in two places).
# Environment: PNCRYPT_REPRO_DIR (where the full check's folders go; default a new folder under TMPDIR);
# SOURCE_DATE_EPOCH and PNCRYPT_DEB_MAINTAINER (default: the last commit's time and author, as dist.sh's; --repack
# needs the values OUTDIR was made with).
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    --repack) [ $# -eq 2 ] || { echo "usage: scripts/checks/check_reproducible.sh --repack OUTDIR" >&2; exit 64; } ;;
    "") ;;
    *) echo "usage: scripts/checks/check_reproducible.sh [--repack OUTDIR] (see --help)" >&2; exit 64 ;;
esac
[ "${1:-}" != --repack ] || OUTDIR="$(cd "$2" && pwd)"
cd "$(dirname "$0")/../.."
ROOT="$PWD"
VERSION="$(scripts/build/lib/build.sh --version)"
NAME="pncrypt-$VERSION-linux-$(uname -m)"
LIBFILE="libpncrypt.so.$VERSION"
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}"
PNCRYPT_DEB_MAINTAINER="${PNCRYPT_DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>')}"
export SOURCE_DATE_EPOCH PNCRYPT_DEB_MAINTAINER

# compare DIR1 DIR2: every artifact of two dist.sh outputs, and the command and library inside the tarballs.
compare() {
    local one=$1 two=$2 file differ=0
    for side in "$one" "$two"; do
        mkdir -p "$side/unpacked"
        tar -xzf "$side/$NAME.tar.gz" -C "$side/unpacked"
    done
    for file in unpacked/$NAME/bin/pncrypt "unpacked/$NAME/lib/$LIBFILE" $(cd "$one" && ls -- *.deb *.whl *.tar.gz) \
        SHA256SUMS; do
        if cmp -s "$one/$file" "$two/$file"; then
            echo "check-reproducible: same bytes: ${file#unpacked/"$NAME"/} ($(stat -c %s "$one/$file") bytes)" >&2
        else
            echo "check-reproducible: DIFFERENT: ${file#unpacked/"$NAME"/}" >&2
            if command -v diffoscope >/dev/null 2>&1; then
                diffoscope "$one/$file" "$two/$file" | head -40 >&2 || true
            fi
            differ=1
        fi
    done
    expect_files="$(cd "$one" && ls -- *.deb *.whl *.tar.gz | sort)"
    [ "$expect_files" = "$(cd "$two" && ls -- *.deb *.whl *.tar.gz | sort)" ] \
        || { echo "check-reproducible: DIFFERENT file names: $(ls "$one") / $(ls "$two")" >&2; differ=1; }
    return "$differ"
}

if [ "${1:-}" = --repack ]; then
    work="$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-repack.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
    scratch="$(cd "${PNCRYPT_BUILD_SCRATCH:-.build-dist}" && pwd -P)"
    mkdir "$work/first"
    cp -p "$OUTDIR"/*.deb "$OUTDIR"/*.whl "$OUTDIR"/*.tar.gz "$OUTDIR/SHA256SUMS" "$work/first/"
    scripts/build/dist.sh "$work/again" >/dev/null
    compare "$work/first" "$work/again" || { echo "check-reproducible: packing the same build twice differs" >&2; exit 1; }
    # The paths a build in another folder would change, searched in the stripped files and in the debug files.
    mkdir "$work/debug"
    tar -xzf "$OUTDIR/$NAME-debug.tar.gz" -C "$work/debug"
    for file in "$work/first/unpacked/$NAME/bin/pncrypt" "$work/first/unpacked/$NAME/lib/$LIBFILE" \
        "$work/debug/$NAME/bin/.debug/pncrypt.debug" "$work/debug/$NAME/lib/.debug/$LIBFILE.debug"; do
        for path in "$(pwd -P)" "$scratch"; do
            if grep -qaF -- "$path" "$file"; then
                echo "check-reproducible: $(basename "$file") holds the build's path $path: not reproducible in" \
                    "another folder (scripts/build/lib/build.sh's -file-prefix-map)" >&2
                exit 1
            fi
        done
    done
    echo "check-reproducible: packed twice, the same bytes; no build path in the binaries or their debug files"
    exit 0
fi

WORK="${PNCRYPT_REPRO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-repro.XXXXXX")}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
commit="$(git rev-parse HEAD)"
[ -z "$(git status --porcelain --untracked-files=no)" ] \
    || echo "check-reproducible: the working tree has uncommitted changes; HEAD ($commit) is built" >&2
# Two folders: different names, different depths.
folders=("$WORK/first/pncrypt" "$WORK/second/deeper/checkout-of-pncrypt")
times=()
for i in 0 1; do
    src="${folders[$i]}"
    [ ! -e "$src" ] || { echo "check-reproducible: $src exists: give an empty PNCRYPT_REPRO_DIR" >&2; exit 1; }
    mkdir -p "$src"
    git archive "$commit" | tar -x -C "$src"
    echo "check-reproducible: build $((i + 1)) of 2 in $src..." >&2
    started=$(date +%s)
    (cd "$src" && env -u PNCRYPT_BUILD_SCRATCH scripts/build/dist.sh "$WORK/out$((i + 1))" > "$WORK/dist$((i + 1)).log" 2>&1) \
        || { tail -30 "$WORK/dist$((i + 1)).log" >&2; echo "check-reproducible: build $((i + 1)) failed" >&2; exit 1; }
    elapsed=$(( $(date +%s) - started ))
    times+=("$elapsed")
done
if compare "$WORK/out1" "$WORK/out2"; then
    echo "check-reproducible: $commit: two builds from clean (${times[0]} s and ${times[1]} s), the same bytes"
    [ -n "${PNCRYPT_REPRO_DIR:-}" ] || rm -rf "$WORK"
else
    echo "check-reproducible: $commit: the builds differ (${times[0]} s and ${times[1]} s); kept in $WORK" >&2
    exit 1
fi
