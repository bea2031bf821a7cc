#!/usr/bin/env bash
# Creates (or reuses) a Python virtual environment with the real PubNub Python SDK, for
# scripts/vectors/pubnub_peer.py and scripts/vectors/gen_python_sdk_vectors.py.
#
#   scripts/build/make_venv.sh            # -> .venv at the repository root
#   scripts/build/make_venv.sh /tmp/pnv   # -> any path
#
# Idempotent: an existing venv that already has the pinned packages is left alone.
# Needs python3 (>= 3.9) with the venv module and access to PyPI. Prints the venv path on success.
set -euo pipefail

PUBNUB_VERSION="10.8.0"
CRYPTOGRAPHY_VERSION="48.0.0"   # for scripts/vectors/pnref.py, the independent check of SDK output
PYTEST_VERSION="8.3.4"          # for the Python binding's tests (bindings/python/tests)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${1:-$ROOT/.venv}"
PY="${PYTHON:-python3}"

die() { echo "make_venv.sh: $*" >&2; exit 1; }

command -v "$PY" >/dev/null 2>&1 || die "'$PY' not found. Install Python 3: apt-get install python3 python3-venv (Debian/Ubuntu), brew install python (macOS)."
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' \
    || die "$("$PY" --version 2>&1) is too old: Python >= 3.9 is needed."

have_all() {
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$PUBNUB_VERSION" "$CRYPTOGRAPHY_VERSION" "$PYTEST_VERSION" \
        <<'PYEOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
sys.exit(0 if (version("pubnub"), version("cryptography"), version("pytest")) == tuple(sys.argv[1:4]) else 1)
PYEOF
}

if have_all; then
    echo "$VENV"
    exit 0
fi

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV" 2>/dev/null || {
        rm -rf "$VENV"
        die "'$PY -m venv' failed. Install the venv module: apt-get install python3-venv (Debian/Ubuntu; for Python 3.X the package may be python3.X-venv)."
    }
fi

"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "pubnub==$PUBNUB_VERSION" "cryptography==$CRYPTOGRAPHY_VERSION" "pytest==$PYTEST_VERSION" \
    || die "pip could not install pubnub==$PUBNUB_VERSION, cryptography==$CRYPTOGRAPHY_VERSION and pytest==$PYTEST_VERSION into $VENV. PyPI must be reachable (check proxy settings: pip honours HTTPS_PROXY and PIP_INDEX_URL)."

have_all || die "the venv at $VENV still lacks pubnub==$PUBNUB_VERSION / cryptography==$CRYPTOGRAPHY_VERSION / pytest==$PYTEST_VERSION after pip install."
echo "$VENV"
