#!/usr/bin/env bash
# The C interface tested from C (issue 15): installs libpncrypt into a temporary prefix with install_lib.sh,
# builds Tests/C/test_pncrypt.c through pkg-config, and runs it on every vector of Vectors/spec.json and
# Vectors/negative.json (converted at test time by Tests/C/vectors_to_lines.py; the envelope vectors by
# Tests/C/envelopes_to_lines.py; the record export the PubNub Python SDK encrypted, Vectors/records/export.json, by
# Tests/C/records_to_lines.py), three ways, side by side (valgrind takes one core):
#   1. under `env -i` (no environment, no Swift toolchain on the library path);
#   2. built with -fsanitize=address (the test program; the library is the release build);
#   3. under valgrind --leak-check=full --error-exitcode=1 (suppressions: Tests/C/valgrind.supp).
# (A plain run as well would differ from run 1 only in the environment, which no check reads: issue 56.)
# Prints "c: N passed, N failed" last (the counts of run 1; runs 2-3 must pass too or the script fails).
# Also checks that the library exports exactly the header's pncrypt_ functions (nm -D), that every numbered
# constant of the header is pinned by hand in test_pncrypt.c, compiles and runs the example
# program of docs/c-and-python.md (its ```c block, extracted here, so the doc cannot drift from the library), and
# runs the surface test the same three ways: every function of the header called with NULL pointers, zero lengths
# and one-byte inputs (generated from the header by Tests/C/gen_surface_test.py, which fails on a function that
# has no argument shapes in its table).
# Needs cc, pkg-config, python3, valgrind, nm. Environment: PNCRYPT_TEST_C_PREFIX to reuse an installed prefix
# (skips install_lib.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-test-c.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

PREFIX="${PNCRYPT_TEST_C_PREFIX:-$WORK/prefix}"
[ -n "${PNCRYPT_TEST_C_PREFIX:-}" ] || scripts/build/install_lib.sh "$PREFIX" >/dev/null
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

python3 Tests/C/vectors_to_lines.py Vectors/spec.json Vectors/negative.json > "$WORK/vectors.txt"
python3 Tests/C/vectors_to_lines.py Vectors/python-sdk.json > "$WORK/sdk-vectors.txt"
python3 Tests/C/envelopes_to_lines.py Vectors/envelopes/envelopes.json Vectors/envelopes/recorded.json \
    > "$WORK/envelope-vectors.txt"
python3 Tests/C/records_to_lines.py Vectors/records/export.json > "$WORK/record-vectors.txt"
python3 Tests/C/channel_keys_to_lines.py Vectors/channel-keys/channel-keys.json Vectors/channel-keys/records.json \
    > "$WORK/channel-key-vectors.txt"
FLAGS=(-std=c99 -O1 -g -Wall -Wextra -Werror -pthread)
# The tarball's relocatable pncrypt.pc gives no run path (scripts/build/lib/pkgconfig.sh says why): the prefix's lib
# folder, absolute, as README's "Use from C" does (install_lib.sh's file gives the same one).
FLAGS+=(-Wl,-rpath,"$(cd "$PREFIX/lib" && pwd)")
# shellcheck disable=SC2046  # pkg-config output is meant to be split
cc "${FLAGS[@]}" -o "$WORK/test_pncrypt" Tests/C/test_pncrypt.c $(pkg-config --cflags --libs pncrypt)
# shellcheck disable=SC2046
cc "${FLAGS[@]}" -fsanitize=address -fno-omit-frame-pointer -o "$WORK/test_pncrypt_asan" Tests/C/test_pncrypt.c \
    $(pkg-config --cflags --libs pncrypt)
python3 Tests/C/gen_surface_test.py include/pncrypt.h > "$WORK/surface.c"
# shellcheck disable=SC2046
cc "${FLAGS[@]}" -o "$WORK/surface" "$WORK/surface.c" $(pkg-config --cflags --libs pncrypt)
# shellcheck disable=SC2046
cc "${FLAGS[@]}" -fsanitize=address -fno-omit-frame-pointer -o "$WORK/surface_asan" "$WORK/surface.c" \
    $(pkg-config --cflags --libs pncrypt)

# run NAME COMMAND...: runs the test in a fresh work directory; its output goes to $WORK/NAME.log.
# start NAME COMMAND...: runs COMMAND in the background, its output in $WORK/NAME.log, its status in $WORK/NAME.rc,
# with a folder of its own for the files it writes ($WORK/files-NAME, its last argument or the one after the vectors).
start() {
    local name=$1
    shift
    rm -rf "$WORK/files-$name"
    mkdir "$WORK/files-$name"
    ( set +e; "$@" > "$WORK/$name.log" 2>&1; echo $? > "$WORK/$name.rc" ) &
}
# finish NAME: reports a finished run (after `wait`); a failure sets status.
finish() {
    local name=$1
    if [ "$(cat "$WORK/$name.rc")" = 0 ]; then
        echo "c: $name: $(tail -1 "$WORK/$name.log")" >&2
    else
        grep -v '^==' "$WORK/$name.log" | grep -E '^FAIL|passed' | head -20 >&2 || true
        grep -E 'ERROR SUMMARY|definitely lost|indirectly lost|Invalid|AddressSanitizer|runtime error' \
            "$WORK/$name.log" | head -20 >&2 || true
        tail -3 "$WORK/$name.log" >&2
        echo "c: $name failed (log: $name.log)" >&2
        status=1
    fi
}
# run NAME COMMAND...: the vector test, started; surface NAME COMMAND...: the surface test, started.
run() {
    local name=$1
    shift
    start "$name" "$@" "$WORK/vectors.txt" "$WORK/files-$name" "$WORK/sdk-vectors.txt" \
        "$WORK/envelope-vectors.txt" "$WORK/record-vectors.txt" "$WORK/channel-key-vectors.txt"
}
surface() {
    local name=$1
    shift
    start "$name" "$@" "$WORK/files-$name"
}
status=0
# Only the C interface is exported: every global symbol is a pncrypt_ function of version PNCRYPT_0 (or that
# version's own node), and every function the header declares is among them.
LIB=$(find "$PREFIX/lib" -maxdepth 1 -type f -name 'libpncrypt.so.*.*' | head -1)
nm -D --defined-only --extern-only "$LIB" | awk '{ print $3 }' | sort > "$WORK/exported.txt"
if grep -v -E '^(pncrypt_[a-z0-9_]+@@PNCRYPT_0|PNCRYPT_0)$' "$WORK/exported.txt" >&2; then
    echo "c: symbols other than pncrypt_ are exported (above)" >&2
    status=1
fi
# The exports are the header's functions exactly: a function exported but not declared is never called by the
# surface test (it reads the header), so none may be.
grep -oE '^PNCRYPT_API[^(]*\bpncrypt_[a-z0-9_]+\(' include/pncrypt.h | grep -oE 'pncrypt_[a-z0-9_]+' | sort -u \
    | sed 's/$/@@PNCRYPT_0/' > "$WORK/declared.txt"
grep -v -x 'PNCRYPT_0' "$WORK/exported.txt" > "$WORK/exported-functions.txt" || true
if ! diff "$WORK/declared.txt" "$WORK/exported-functions.txt" >&2; then
    echo "c: the library's exports (>) differ from the header's functions (<)" >&2
    status=1
fi
# Every numbered constant of the header (codes, policies, rekey outcomes) is pinned in test_pncrypt.c's hand-written
# table (pinned_numbers), which checks its value.
grep -oE '^#define PNCRYPT_(OK|E_[A-Z0-9_]+|ON_ERROR_[A-Z_]+|REKEY_[A-Z_]+)\b' include/pncrypt.h | cut -d' ' -f2 \
    | sort > "$WORK/constants.txt"
grep -oE '^    \{"PNCRYPT_[A-Z0-9_]+", ' Tests/C/test_pncrypt.c | grep -oE 'PNCRYPT_[A-Z0-9_]+' | sort \
    > "$WORK/pinned.txt"
if ! diff "$WORK/constants.txt" "$WORK/pinned.txt" >&2; then
    echo "c: the header's constants (<) differ from those pinned in Tests/C/test_pncrypt.c (>)" >&2
    status=1
fi
# The documented example, as a reader copies it: compiled with the same warnings, run plainly and under env -i;
# it prints the wire text (acrh, a PNED header) and the message it reads back.
awk '/^```c$/ { inside = 1; next } /^```$/ { if (inside) exit } inside' docs/c-and-python.md > "$WORK/app.c"
grep -q 'int main' "$WORK/app.c" || { echo "c: no complete C example in docs/c-and-python.md" >&2; status=1; }
# shellcheck disable=SC2046
if cc "${FLAGS[@]}" -o "$WORK/app" "$WORK/app.c" $(pkg-config --cflags --libs pncrypt) >&2 \
    && env -i "$WORK/app" > "$WORK/app.out" \
    && [ "$(sed -n 2p "$WORK/app.out")" = '{"text":"hi"}' ] && grep -q '^"UE5FRAFBQ1JIE' "$WORK/app.out"; then
    echo "c: example: docs/c-and-python.md's program printed $(tr '\n' ' ' < "$WORK/app.out")" >&2
else
    echo "c: the example program of docs/c-and-python.md failed (output: $(cat "$WORK/app.out" 2>/dev/null))" >&2
    status=1
fi
# The six runs side by side: the two under valgrind take longest, one core each; the others fill in around them.
run valgrind valgrind --quiet --leak-check=full --error-exitcode=1 \
    --suppressions="$ROOT/Tests/C/valgrind.supp" "$WORK/test_pncrypt"
surface surface-valgrind valgrind --quiet --leak-check=full --error-exitcode=1 \
    --suppressions="$ROOT/Tests/C/valgrind.supp" "$WORK/surface"
run env-i env -i "$WORK/test_pncrypt"
ASAN_OPTIONS=detect_leaks=1 run asan "$WORK/test_pncrypt_asan"
surface surface-env-i env -i "$WORK/surface"
ASAN_OPTIONS=detect_leaks=1 surface surface-asan "$WORK/surface_asan"
wait
for name in env-i asan valgrind surface-env-i surface-asan surface-valgrind; do
    finish "$name"
done
# The padding sweep's figures (docs/security.md), from the env -i run.
grep '^padding:' "$WORK/env-i.log" >&2 || true

surface_calls=$(tail -1 "$WORK/surface-env-i.log" | grep -Eo '[0-9]+ calls' | grep -Eo '[0-9]+' || echo 0)
counts=$(tail -1 "$WORK/env-i.log")
# The surface test's calls count as passed checks when every one of them returned as the header says.
if [ "$status" -eq 0 ] && [[ "$counts" =~ ^([0-9]+)\ passed,\ 0\ failed$ ]]; then
    counts="$(( BASH_REMATCH[1] + surface_calls )) passed, 0 failed"
fi
echo "c: ${counts}"
[ "$status" -eq 0 ] && [[ "$counts" == *" 0 failed" ]]
