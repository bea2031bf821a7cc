#!/usr/bin/env bash
# docs/pncrypt.1, the man page, made from the command definitions by swift-argument-parser's generate-manual
# plugin (one page with every subcommand), so that it never says what the code does not.
#
#   scripts/build/gen_man.sh           # regenerate docs/pncrypt.1 (after changing a command, an option or a help text)
#   scripts/build/gen_man.sh --check   # exit 1 when docs/pncrypt.1 is stale (CI), showing what differs
#   man -l docs/pncrypt.1        # read it
#
# The plugin builds the package (debug, in .build, as `swift build` does) and runs `pncrypt
# --experimental-dump-help`. Two changes to its output: empty lines (paragraphs in help texts) become `.Pp`, which
# mdoc wants; and the date (`.Dd`) is today's only when something else changed, so that regenerating an up-to-date
# page changes nothing and --check never fails on the date alone. The plugin's EXIT STATUS (`.Ex -std`, "0 on
# success, >0 on error") is replaced by README.md's exit status table, row for row, and ENVIRONMENT, FILES and SEE
# ALSO sections are added (below): --check fails when the README's table changes and the page does not.
set -euo pipefail
cd "$(dirname "$0")/../.."

case "${1:-}" in
    "") check=0 ;;
    --check) check=1 ;;
    *) echo "usage: scripts/build/gen_man.sh [--check]" >&2; exit 64 ;;
esac
PAGE=docs/pncrypt.1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-man.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "gen_man.sh: generating the man page (swift package generate-manual)..." >&2
swift package --allow-writing-to-directory "$WORK" generate-manual --configuration debug \
    --date "$(date -u +%Y-%m-%d)" --output-directory "$WORK" > "$WORK/plugin.log" 2>&1 \
    || { cat "$WORK/plugin.log" >&2; echo "gen_man.sh: the generate-manual plugin failed" >&2; exit 1; }
[ -s "$WORK/pncrypt.1" ] || { cat "$WORK/plugin.log" >&2; echo "gen_man.sh: no pncrypt.1 was made" >&2; exit 1; }
sed 's/^$/.Pp/' "$WORK/pncrypt.1" > "$WORK/body.1"

# The README's exit status table (the rows of `| status | when |` under "## Exit status") as an mdoc list: code
# spans lose their backticks; a line that would start with a dot is escaped.
exit_status() {
    awk '
        /^## / { inside = ($0 == "## Exit status"); next }
        inside && /^\| / && !/^\| status / && !/^\|---/ {
            line = $0
            sub(/^\| /, "", line); sub(/ \|$/, "", line)
            split_at = index(line, " | ")
            code = substr(line, 1, split_at - 1); text = substr(line, split_at + 3)
            gsub(/`/, "", text); gsub(/\\/, "\\e", text)
            print ".It " code
            print (text ~ /^[.\047]/ ? "\\&" : "") text
            rows++
        }
        END { if (rows == 0) exit 1 }
    ' README.md
}
rows=$(exit_status) || { echo "gen_man.sh: no exit status table under '## Exit status' in README.md" >&2; exit 1; }

# Everything after the plugin's EXIT STATUS heading is replaced.
awk '/^\.Sh "EXIT STATUS"/ { exit } { print }' "$WORK/body.1" > "$WORK/new.1"
cat >> "$WORK/new.1" <<EOF_SECTIONS
.Sh ENVIRONMENT
.Bl -tag -width Ds
.It Ev PNCRYPT_KEY
The cipher key when no
.Fl -key
or
.Fl -key-file
is given (before the prompt on the terminal). Its bytes are the key exactly; a key that is not valid UTF-8 is
refused (exit 64). Unlike
.Fl -key ,
it is not visible in the process list.
.It Ev PNCRYPT_TO_KEY
The new key of
.Cm message rekey
when neither
.Fl -to-key
nor
.Fl -to-key-file
is given.
.It Ev TMPDIR
The folder of the unlinked temporary files that hold output for standard output until it is verified
.Po
.Cm gunzip ,
.Cm decrypt Fl -binary Fl -gunzip ,
line mode with
.Fl -on-error Cm fail
.Pc
and that copy ciphertext read from standard input; default
.Pa /tmp .
.El
.Sh FILES
.Bl -tag -width Ds
.It Pa /dev/tty
Where the key is asked for, without echo, when no key is given.
.It Pa PATH
The output of
.Fl o Ar PATH
is written to a temporary file in the same folder and renamed into place only on success; on failure or a signal
it is removed and PATH is left as it was.
.El
.Sh "EXIT STATUS"
.Bl -tag -width 6n
$rows
.El
.Sh "SEE ALSO"
.Xr gzip 1 ,
.Xr openssl-enc 1
.Pp
README.md, docs/cli.md (examples, input and output rules, keys) and docs/security.md (the security model) in the
pncrypt sources.
EOF_SECTIONS

# Everything but the date.
body() { grep -v '^\.Dd ' "$1"; }
if [ -f "$PAGE" ] && cmp -s <(body "$PAGE") <(body "$WORK/new.1"); then
    echo "gen_man.sh: $PAGE is up to date" >&2
    exit 0
fi
if [ "$check" -eq 1 ]; then
    echo "gen_man.sh: $PAGE is stale (the commands changed): run scripts/build/gen_man.sh and commit $PAGE" >&2
    diff -u --label "$PAGE" --label generated <(body "$PAGE" 2>/dev/null || true) <(body "$WORK/new.1") \
        | head -40 >&2 || true
    exit 1
fi
mkdir -p docs
cp "$WORK/new.1" "$PAGE"
echo "gen_man.sh: wrote $PAGE" >&2
