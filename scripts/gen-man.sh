#!/usr/bin/env bash
# docs/pncrypt.1, the man page, made from the command definitions by swift-argument-parser's generate-manual
# plugin (one page with every subcommand), so that it never says what the code does not.
#
#   scripts/gen-man.sh           # regenerate docs/pncrypt.1 (after changing a command, an option or a help text)
#   scripts/gen-man.sh --check   # exit 1 when docs/pncrypt.1 is stale (CI), showing what differs
#   man -l docs/pncrypt.1        # read it
#
# The plugin builds the package (debug, in .build, as `swift build` does) and runs `pncrypt
# --experimental-dump-help`. Two changes to its output: empty lines (paragraphs in help texts) become `.Pp`, which
# mdoc wants; and the date (`.Dd`) is today's only when something else changed, so that regenerating an up-to-date
# page changes nothing and --check never fails on the date alone.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
    "") check=0 ;;
    --check) check=1 ;;
    *) echo "usage: scripts/gen-man.sh [--check]" >&2; exit 64 ;;
esac
PAGE=docs/pncrypt.1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-man.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "gen-man.sh: generating the man page (swift package generate-manual)..." >&2
swift package --allow-writing-to-directory "$WORK" generate-manual --configuration debug \
    --date "$(date -u +%Y-%m-%d)" --output-directory "$WORK" > "$WORK/plugin.log" 2>&1 \
    || { cat "$WORK/plugin.log" >&2; echo "gen-man.sh: the generate-manual plugin failed" >&2; exit 1; }
[ -s "$WORK/pncrypt.1" ] || { cat "$WORK/plugin.log" >&2; echo "gen-man.sh: no pncrypt.1 was made" >&2; exit 1; }
sed 's/^$/.Pp/' "$WORK/pncrypt.1" > "$WORK/new.1"

# Everything but the date.
body() { grep -v '^\.Dd ' "$1"; }
if [ -f "$PAGE" ] && cmp -s <(body "$PAGE") <(body "$WORK/new.1"); then
    echo "gen-man.sh: $PAGE is up to date" >&2
    exit 0
fi
if [ "$check" -eq 1 ]; then
    echo "gen-man.sh: $PAGE is stale (the commands changed): run scripts/gen-man.sh and commit $PAGE" >&2
    diff -u --label "$PAGE" --label generated <(body "$PAGE" 2>/dev/null || true) <(body "$WORK/new.1") \
        | head -40 >&2 || true
    exit 1
fi
mkdir -p docs
cp "$WORK/new.1" "$PAGE"
echo "gen-man.sh: wrote $PAGE" >&2
