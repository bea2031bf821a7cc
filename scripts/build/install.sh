#!/usr/bin/env bash
# Builds the pncrypt command in release and installs it under PREFIX, with its man page and shell completions:
#
#   PREFIX/bin/pncrypt
#   PREFIX/share/man/man1/pncrypt.1                         (docs/pncrypt.1: scripts/build/gen_man.sh)
#   PREFIX/share/bash-completion/completions/pncrypt        (bash-completion loads it on demand)
#   PREFIX/share/zsh/site-functions/_pncrypt                (in zsh's $fpath for /usr and /usr/local)
#   PREFIX/share/fish/vendor_completions.d/pncrypt.fish
#
#   scripts/build/install.sh /usr/local          # then: man pncrypt; pncrypt <TAB>
#   scripts/build/install.sh ~/.local            # a user install (add ~/.local/bin to PATH)
#
# The Swift runtime is linked statically, so the binary runs without a Swift toolchain (it needs libc, libstdc++,
# libcrypto 3 and zlib). It is installed stripped (strip from binutils: no symbol table; 0.2.0 on Linux x86_64:
# about 32 MB -> 17 MB; it links no Foundation, docs/performance.md), once the stripped copy has run. The
# completions are the ones swift-argument-parser generates (`pncrypt --generate-completion-script
# SHELL`). The C library is installed separately: scripts/build/install_lib.sh PREFIX; scripts/build/dist.sh makes both into
# a tarball and .deb packages. The build is scripts/build/lib/build.sh's, shared with dist.sh and install_lib.sh (one
# folder, .build-dist, one set of flags), so its flags never touch .build. Environment: PNCRYPT_INSTALL_SCRATCH or
# PNCRYPT_BUILD_SCRATCH (build folder), PNCRYPT_INSTALL_BINARY (install this already built pncrypt instead of
# building one; the tests use it).
set -euo pipefail

# --help: the comment above, without its '#'.
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    -*) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
esac
cd "$(dirname "$0")/../.."

[ $# -eq 1 ] || { echo "usage: scripts/build/install.sh PREFIX" >&2; exit 64; }
[ -f docs/pncrypt.1 ] || { echo "install.sh: docs/pncrypt.1 is missing: run scripts/build/gen_man.sh" >&2; exit 1; }
mkdir -p "$1"
PREFIX="$(cd "$1" && pwd)"
SCRATCH="${PNCRYPT_INSTALL_SCRATCH:-${PNCRYPT_BUILD_SCRATCH:-.build-dist}}"

command -v strip >/dev/null 2>&1 || { echo "install.sh: strip is missing (apt-get install binutils)" >&2; exit 1; }
if [ -n "${PNCRYPT_INSTALL_BINARY:-}" ]; then
    BUILT="$PNCRYPT_INSTALL_BINARY"
else
    # The shared release build (scripts/build/lib/build.sh: the same folder and flags as scripts/build/dist.sh).
    BUILT="$(PNCRYPT_BUILD_SCRATCH="$SCRATCH" scripts/build/lib/build.sh pncrypt)/pncrypt"
fi
[ -x "$BUILT" ] || { echo "install.sh: $BUILT was not built" >&2; exit 1; }

# A stripped copy (no symbol table or debug information) makes the completions, before anything is installed: a
# binary that cannot run installs nothing.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp "$BUILT" "$WORK/pncrypt"
strip "$WORK/pncrypt"
for shell in bash zsh fish; do
    "$WORK/pncrypt" --generate-completion-script "$shell" > "$WORK/$shell"
    [ -s "$WORK/$shell" ] || { echo "install.sh: no $shell completion script" >&2; exit 1; }
done

install -d "$PREFIX/bin" "$PREFIX/share/man/man1" "$PREFIX/share/bash-completion/completions" \
    "$PREFIX/share/zsh/site-functions" "$PREFIX/share/fish/vendor_completions.d"
install -m 0755 "$WORK/pncrypt" "$PREFIX/bin/pncrypt"
install -m 0644 docs/pncrypt.1 "$PREFIX/share/man/man1/pncrypt.1"
install -m 0644 "$WORK/bash" "$PREFIX/share/bash-completion/completions/pncrypt"
install -m 0644 "$WORK/zsh" "$PREFIX/share/zsh/site-functions/_pncrypt"
install -m 0644 "$WORK/fish" "$PREFIX/share/fish/vendor_completions.d/pncrypt.fish"
echo "$PREFIX/bin/pncrypt"
