#!/usr/bin/env bash
# Builds the pncrypt Python wheel with libpncrypt inside it, for machines without Swift:
#
#   scripts/build-wheel.sh [OUTDIR]          # default OUTDIR: dist; prints the wheel's path
#   pip install dist/pncrypt-*.whl            # on any machine of the same platform (libcrypto 3 and libz needed)
#
# The wheel is tagged py3-none-<platform> (e.g. py3-none-linux_x86_64): one wheel for every Python 3 on that
# platform. The library is built by scripts/install-lib.sh (the shared release build of scripts/lib/build.sh,
# Swift runtime linked statically, build folder .build-dist, so a second run only relinks) and stripped, or taken
# from PNCRYPT_WHEEL_LIB (a libpncrypt.so already built: no second build; scripts/dist.sh passes its own).
# Environment: PYTHON (default python3), PNCRYPT_WHEEL_LIB.
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/.."
OUT="${1:-dist}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
PYTHON="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work" bindings/python/build' EXIT
# pip builds in the source tree (setup.py finds the repository through it), in an isolated environment with
# setuptools and wheel from PyPI.
"$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$work" ./bindings/python >&2
wheel="$(ls "$work"/pncrypt-*.whl)"
mv "$wheel" "$OUT/"
echo "$OUT/$(basename "$wheel")"
