#!/usr/bin/env bash
# lines_jobs.sh: `pncrypt message decrypt --lines` with --jobs 2 against --jobs 1 on the same NDJSON file, and
# against the machine's limit: two `--jobs 1` processes at once, each on one half of the file (as the table row
# "`--lines --jobs 2`" of docs/performance.md defines it). Wall time of each, best of ROUNDS; the three take
# turns in every round (their order rotates), so that a busy minute on a shared machine hits them all alike.
#
#   scripts/bench/lines_jobs.sh [PNCRYPT] [LINES] [ROUNDS] [SCHEME]
#   scripts/bench/lines_jobs.sh .build-static/release/pncrypt 1000000 3 acrh
#
# The file: LINES messages of about 100 bytes (JSON objects, as spark_bench.py's), encrypted by the same binary in
# SCHEME (acrh, or legacy: fixed IV) under one key, one wire JSON string a line. Output goes to /dev/null; every
# run must decrypt every line (its exit status is checked).
set -euo pipefail
PNCRYPT=$(realpath "${1:-.build-static/release/pncrypt}")
LINES=${2:-1000000}
ROUNDS=${3:-3}
SCHEME=${4:-acrh}
work=$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-lines-jobs.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf 'bench key\n' > "$work/key"

python3 - "$LINES" > "$work/plain.ndjson" <<'PY'
import json, sys
out = sys.stdout
for i in range(int(sys.argv[1])):
    out.write(json.dumps({"n": i, "text": f"message {i} ünïcödé 漢語", "user": f"user-{i % 97}",
                          "ts": 17000000000000000 + i}, ensure_ascii=False, separators=(",", ":")) + "\n")
PY
"$PNCRYPT" message encrypt --lines --quiet --key-file "$work/key" --scheme "$SCHEME" --verbatim \
    -i "$work/plain.ndjson" -o "$work/wire.ndjson"
half=$(( LINES / 2 ))
head -n "$half" "$work/wire.ndjson" > "$work/a.ndjson"
tail -n +"$(( half + 1 ))" "$work/wire.ndjson" > "$work/b.ndjson"
decrypt=("$PNCRYPT" message decrypt --lines --quiet --key-file "$work/key")

now() { date +%s.%N; }
one() { "${decrypt[@]}" --jobs 1 -i "$work/wire.ndjson" > /dev/null 2>> "$work/stderr"; }
two() { "${decrypt[@]}" --jobs 2 -i "$work/wire.ndjson" > /dev/null 2>> "$work/stderr"; }
halves() {
    "${decrypt[@]}" --jobs 1 -i "$work/a.ndjson" > /dev/null 2>> "$work/stderr" & local a=$!
    "${decrypt[@]}" --jobs 1 -i "$work/b.ndjson" > /dev/null 2>> "$work/stderr" & local b=$!
    wait "$a" && wait "$b"
}
declare -A best=()
routes=(one two halves)
one; two; halves   # warm-up (page cache)
for (( r = 0; r < ROUNDS; r++ )); do
    for (( k = 0; k < 3; k++ )); do
        route=${routes[$(( (r + k) % 3 ))]}
        start=$(now); "$route"; end=$(now)
        t=$(echo "$end - $start" | bc -l)
        if [[ -z ${best[$route]:-} ]] || (( $(echo "$t < ${best[$route]}" | bc -l) )); then best[$route]=$t; fi
        printf 'round %d %-7s %.3f s\n' "$(( r + 1 ))" "$route" "$t" >&2
    done
done
rate() { echo "$LINES / $1" | bc -l; }
printf '%s lines (%s, %s bytes), best of %s, wall time; %s\n' "$LINES" "$SCHEME" \
    "$(stat -c %s "$work/wire.ndjson")" "$ROUNDS" "$("$PNCRYPT" --version)"
printf '%-40s %7.3f s %10.0f lines/s\n' "--jobs 1" "${best[one]}" "$(rate "${best[one]}")"
printf '%-40s %7.3f s %10.0f lines/s\n' "--jobs 2" "${best[two]}" "$(rate "${best[two]}")"
printf '%-40s %7.3f s %10.0f lines/s\n' "two --jobs 1 on the halves (the limit)" "${best[halves]}" \
    "$(rate "${best[halves]}")"
printf -- '--jobs 2 / --jobs 1: %.2fx; --jobs 2 / the limit: %.2f; the limit / --jobs 1: %.2fx\n' \
    "$(echo "${best[one]} / ${best[two]}" | bc -l)" "$(echo "${best[halves]} / ${best[two]}" | bc -l)" \
    "$(echo "${best[one]} / ${best[halves]}" | bc -l)"
