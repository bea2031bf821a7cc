#!/usr/bin/env bash
# Writes pncrypt's CMake package (find_package(pncrypt), the imported target pncrypt::pncrypt) into a folder, for
# scripts/build/dist.sh and scripts/build/install_lib.sh:
#
#   scripts/build/lib/cmake.sh VERSION DIR --relative INCLUDE-FROM-LIBDIR   # the tarball: DIR is LIBDIR/cmake/pncrypt,
#                                                                       # every path computed from the file's folder
#   scripts/build/lib/cmake.sh VERSION DIR --absolute LIBDIR INCLUDEDIR       # a fixed place: the packages, install_lib.sh
#
# DIR gets pncryptConfig.cmake and pncryptConfigVersion.cmake (from packaging/cmake/*.in). --relative writes a
# relocatable file: the library's folder is two above the file's (LIBDIR/cmake/pncrypt), the header's folder
# INCLUDE-FROM-LIBDIR from there (e.g. ../include), resolved to absolute paths when CMake reads the file, so a
# program gets an absolute run path wherever the tree was unpacked. --absolute writes the given folders as they are
# (the Debian packages' /usr/lib/MULTIARCH and /usr/include: a fixed place reached through /lib on a merged-/usr
# system must still name /usr/include).
set -euo pipefail
usage() { echo "usage: scripts/build/lib/cmake.sh VERSION DIR --relative INCLUDE-FROM-LIBDIR | --absolute LIBDIR INCLUDEDIR" >&2; exit 64; }
[ $# -ge 4 ] || usage
version=$1 dir=$2 mode=$3
case "$mode" in
    --relative)
        [ $# -eq 4 ] || usage
        # shellcheck disable=SC2016  # CMake's variables, written as they are
        location='get_filename_component(_pncrypt_libdir "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
get_filename_component(_pncrypt_includedir "${_pncrypt_libdir}/'"$4"'" ABSOLUTE)' ;;
    --absolute)
        [ $# -eq 5 ] || usage
        for folder in "$4" "$5"; do
            case "$folder" in /*) ;; *) echo "cmake.sh: --absolute needs absolute folders, not '$folder'" >&2; exit 64 ;; esac
        done
        location="set(_pncrypt_libdir \"$4\")
set(_pncrypt_includedir \"$5\")" ;;
    *) usage ;;
esac
templates="$(cd "$(dirname "$0")/../../../packaging/cmake" && pwd)"
mkdir -p "$dir"
for file in pncryptConfig pncryptConfigVersion; do
    LOCATION="$location" VERSION="$version" MAJOR="${version%%.*}" awk '
        { gsub(/@VERSION@/, ENVIRON["VERSION"]); gsub(/@MAJOR@/, ENVIRON["MAJOR"]) }
        /^@LOCATION@$/ { print ENVIRON["LOCATION"]; next }
        { print }' "$templates/$file.cmake.in" > "$dir/$file.cmake"
done
