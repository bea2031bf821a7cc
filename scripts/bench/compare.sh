#!/usr/bin/env bash
# pncrypt side by side with other programs, on this machine, in one go (issue 6). Prints time ratios
# (pncrypt / other: lower is better; targets: encrypt <= 1.10, decrypt <= 1.15, gzip <= 1.10), message rates
# (pncrypt / Python SDK: higher is better; target >= 30) and peak RSS (target <= 32 MiB for files).
#
#   files     pncrypt encrypt|decrypt --binary   vs  openssl enc [-d] -aes-256-cbc -K .. -iv ..   (file to file)
#   gzip      pncrypt gzip|gunzip                vs  gzip -6 | gzip -d                          (file to file)
#   messages  pncrypt's library (pncrypt-bench --messages N)  vs  the Python SDK's CryptoModule
#             (scripts/vectors/python_messages.py in .venv), legacy and acrh
#   binding   pncrypt's Python binding (bindings/python over libpncrypt, installed into a temporary prefix by
#             scripts/build/install_lib.sh)  vs  the Python SDK's CryptoModule, on the same N messages
#             (python_messages.py; target >= 10x), one library call per message ("binding") and one per batch
#             of N ("batch": encrypt_many / decrypt_many), each two ways: "objects" (Python object <-> the wire
#             text, json.dumps / json.loads per message on both sides) and "text" (JSON text <-> Base64, what
#             CryptoModule.encrypt / decrypt do; the SDK's decrypt also parses the JSON, ours returns bytes)
#   reference pncrypt's library (pncrypt-bench --messages N --scheme legacy|acrh)  vs  a C++ program doing the same
#             work with OpenSSL EVP (one reused context, the IV reset per message), OpenSSL's Base64 block codec
#             and simdjson (DOM parse with UTF-8 validation; minify to write): scripts/bench/reference/message_ref.cpp,
#             built with g++ -O2 when libsimdjson-dev is installed (apt-get install libsimdjson-dev); the same
#             ~100-byte message and count, runs alternating (issue 34 targets: decrypt >= 0.65x, encrypt >= 1.0x)
#
# Each pair runs RUNS times, alternating, best time kept. Outputs are removed before every run, so both sides
# create a fresh file. Temporary files live in one directory under $TMPDIR, removed on exit.
# Environment: PNCRYPT_COMPARE_MB (file size, default 512), PNCRYPT_COMPARE_GZIP_MB (default 64),
# PNCRYPT_COMPARE_RUNS (default 3), PNCRYPT_COMPARE_MESSAGES (default 100000), PNCRYPT_COMPARE_ONLY=binding
# (only the Python binding's figures: no files, gzip or pncrypt-bench) or =reference (only the C++ reference row).
set -euo pipefail
cd "$(dirname "$0")/../.."

SIZE_MB=${PNCRYPT_COMPARE_MB:-512}
GZIP_MB=${PNCRYPT_COMPARE_GZIP_MB:-64}
RUNS=${PNCRYPT_COMPARE_RUNS:-3}
MESSAGES=${PNCRYPT_COMPARE_MESSAGES:-100000}
ONLY=${PNCRYPT_COMPARE_ONLY:-}
case "$ONLY" in ""|binding|reference) ;;
    *) echo "compare.sh: PNCRYPT_COMPARE_ONLY is empty, binding or reference" >&2; exit 64 ;;
esac

for tool in openssl gzip python3 /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "compare.sh: needs $tool (apt-get install openssl gzip python3 time)" >&2; exit 1; }
done

[ "$ONLY" = reference ] || [ -x .venv/bin/python ] || scripts/build/make_venv.sh >&2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pncrypt-compare.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# reference_figures BENCH: pncrypt's legacy and acrh message rates against the C++ reference, RUNS times
# alternating, best kept. Skipped, saying why, without g++ or simdjson.
reference_figures() {
    if ! command -v g++ >/dev/null || [ ! -f /usr/include/simdjson.h ]; then
        echo
        echo "(no C++ reference row: needs g++ and libsimdjson-dev)"
        return
    fi
    g++ -O2 -std=c++17 scripts/bench/reference/message_ref.cpp -o "$WORK/message_ref" -lsimdjson -lcrypto
    echo "timing $MESSAGES messages each way (legacy, acrh), pncrypt and the C++ reference alternating," \
        "$RUNS runs..." >&2
    for _ in $(seq "$RUNS"); do
        for scheme in legacy acrh; do
            "$1" --messages "$MESSAGES" --scheme "$scheme" --no-baseline --json >> "$WORK/ref.ours.$scheme"
            "$WORK/message_ref" "$MESSAGES" both "$scheme" >> "$WORK/ref.cpp.$scheme"
        done
    done
    echo
    printf '%-34s %10s %10s %8s\n' "C++ reference (msg/s)" pncrypt "C++" "÷ C++"
    for scheme in legacy acrh; do
        read -r oe od ce cd < <(python3 - "$WORK/ref.ours.$scheme" "$WORK/ref.cpp.$scheme" <<'EOF'
import json, sys
ours = {}
for line in open(sys.argv[1]):
    for r in json.loads(line)["results"]:
        kind = r["name"].split(".")[1]
        ours[kind] = max(ours.get(kind, 0), r["value"])
cpp = [json.loads(line) for line in open(sys.argv[2])]
print(ours["encrypt"], ours["decrypt"], max(r["encrypt"] for r in cpp), max(r["decrypt"] for r in cpp))
EOF
)
        printf '%-34s %10.0f %10.0f %8.3f\n' "$scheme encrypt ($MESSAGES)" "$oe" "$ce" "$(ratio "$oe" "$ce")"
        printf '%-34s %10.0f %10.0f %8.3f\n' "$scheme decrypt ($MESSAGES)" "$od" "$cd" "$(ratio "$od" "$cd")"
    done
}

# binding_figures: the Python binding (single calls and batches) against the SDK, on the same messages.
binding_figures() {
    echo "installing libpncrypt for the Python binding..." >&2
    scripts/build/install_lib.sh "$WORK/prefix" >/dev/null
    echo "timing $MESSAGES messages through the Python binding and the SDK (once each)..." >&2
    for scheme in legacy acrh; do
        for path in sdk binding batch; do
            PNCRYPT_LIB="$WORK/prefix/lib/libpncrypt.so.0" .venv/bin/python scripts/vectors/python_messages.py \
                "$MESSAGES" "$scheme" "$path" > "$WORK/py.$path.$scheme"
        done
    done
    echo
    printf '%-34s %10s %10s %7s %10s %7s\n' "Python binding (msg/s)" "Python SDK" binding ratio batch ratio
    for scheme in legacy acrh; do
        for row in "encrypt objects:encrypt" "decrypt objects:decrypt" "encrypt text:text_encrypt" \
                   "decrypt text:text_decrypt"; do
            read -r sdk one many < <(python3 -c '
import json, sys
key = sys.argv[1]
print(*(json.load(open(p))[key] for p in sys.argv[2:]))' "${row#*:}" "$WORK/py.sdk.$scheme" "$WORK/py.binding.$scheme" \
                "$WORK/py.batch.$scheme")
            printf '%-34s %10.0f %10.0f %7.1f %10.0f %7.1f\n' "$scheme ${row%%:*} ($MESSAGES)" "$sdk" "$one" \
                "$(ratio "$one" "$sdk")" "$many" "$(ratio "$many" "$sdk")"
        done
    done
}

if [ "$ONLY" = binding ]; then
    binding_figures
    exit 0
fi

echo "building release..." >&2
swift build -c release --product pncrypt-bench >/dev/null
BENCH="$(swift build -c release --show-bin-path)/pncrypt-bench"
if [ "$ONLY" = reference ]; then
    reference_figures "$BENCH"
    exit 0
fi
swift build -c release --product pncrypt >/dev/null
BIN="$(swift build -c release --show-bin-path)/pncrypt"

KEY=compare-key
# openssl takes the raw key and IV: the same AES-256-CBC work on the same bytes.
KEYHEX=$(printf '%s' "$KEY" | sha256sum | cut -c1-64)
IVHEX=000102030405060708090a0b0c0d0e0f

echo "making a ${SIZE_MB} MiB random file and ${GZIP_MB} MiB of JSON text..." >&2
head -c $((SIZE_MB << 20)) /dev/urandom > "$WORK/plain.bin"
python3 - "$WORK/text.json" $((GZIP_MB << 20)) <<'EOF'
import random, sys
random.seed(6)
words = ["alice", "bob", "news", "sport", "weather", "hello", "pubnub", "channel", "message", "ok"]
out, size, lines = open(sys.argv[1], "w"), int(sys.argv[2]), []
total = 0
while total < size:
    line = ('{"message":{"text":"%s %s %d","user":"%s-%d"},"timetoken":%d},\n'
            % (random.choice(words), random.choice(words), random.randrange(100000), random.choice(words),
               random.randrange(97), 13406746729185766 + random.randrange(1000000)))
    lines.append(line)
    total += len(line)
    if len(lines) == 10000:
        out.write("".join(lines))
        lines = []
out.write("".join(lines))
out.close()
EOF
truncate -s $((GZIP_MB << 20)) "$WORK/text.json"

# run NAME COMMAND...: runs once, removing $WORK/out.NAME first; appends "seconds rss_kb" to $WORK/times.NAME.
run() {
    local name=$1
    shift
    rm -f "$WORK/out.$name"
    sync
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@"
    cat "$WORK/time" >> "$WORK/times.$name"
}
best() { sort -n "$WORK/times.$1" | head -1 | cut -d' ' -f1; }
peak() { sort -k2 -n "$WORK/times.$1" | tail -1 | awk '{printf "%.1f", $2 / 1024}'; }

# Ciphertexts to decrypt, made once.
"$BIN" encrypt --binary --scheme acrh --key "$KEY" -i "$WORK/plain.bin" -o "$WORK/sealed.pncrypt"
openssl enc -aes-256-cbc -K "$KEYHEX" -iv "$IVHEX" -in "$WORK/plain.bin" -out "$WORK/sealed.openssl"
gzip -6 -c "$WORK/text.json" > "$WORK/text.json.gz"

echo "timing files and gzip, best of $RUNS..." >&2
for _ in $(seq "$RUNS"); do
    run enc_ours "$BIN" encrypt --binary --scheme acrh --key "$KEY" -i "$WORK/plain.bin" -o "$WORK/out.enc_ours"
    run enc_openssl openssl enc -aes-256-cbc -K "$KEYHEX" -iv "$IVHEX" -in "$WORK/plain.bin" -out "$WORK/out.enc_openssl"
    run dec_ours "$BIN" decrypt --binary --key "$KEY" -i "$WORK/sealed.pncrypt" -o "$WORK/out.dec_ours"
    run dec_openssl openssl enc -d -aes-256-cbc -K "$KEYHEX" -iv "$IVHEX" -in "$WORK/sealed.openssl" \
        -out "$WORK/out.dec_openssl"
    run gz_ours "$BIN" gzip --level 6 -i "$WORK/text.json" -o "$WORK/out.gz_ours"
    run gz_gzip sh -c 'gzip -6 -c "$1" > "$2"' sh "$WORK/text.json" "$WORK/out.gz_gzip"
    run gunz_ours "$BIN" gunzip -i "$WORK/text.json.gz" -o "$WORK/out.gunz_ours"
    run gunz_gzip sh -c 'gzip -d -c "$1" > "$2"' sh "$WORK/text.json.gz" "$WORK/out.gunz_gzip"
done
cmp -s "$WORK/plain.bin" "$WORK/out.dec_ours" && cmp -s "$WORK/plain.bin" "$WORK/out.dec_openssl" \
    && cmp -s "$WORK/text.json" "$WORK/out.gunz_ours" && cmp -s "$WORK/text.json" "$WORK/out.gunz_gzip" \
    || { echo "compare.sh: an output differs from its input" >&2; exit 1; }
rm -f "$WORK"/out.* "$WORK/plain.bin" "$WORK"/sealed.*

echo "timing $MESSAGES messages each way (pncrypt best of $RUNS; the Python SDK once)..." >&2
for scheme in legacy acrh; do
    for _ in $(seq "$RUNS"); do
        "$BENCH" --messages "$MESSAGES" --scheme "$scheme" --json >> "$WORK/bench.$scheme"
    done
    .venv/bin/python scripts/vectors/python_messages.py "$MESSAGES" "$scheme" > "$WORK/python.$scheme"
done
messages() {  # messages SCHEME: "ours_enc ours_dec evp64_enc evp64_dec py_enc py_dec"
    python3 - "$WORK/bench.$1" "$WORK/python.$1" <<'EOF'
import json, sys
best = {}
for line in open(sys.argv[1]):
    for r in json.loads(line)["results"]:
        kind = r["name"].split(".")[1]
        old = best.get(kind, (0, 0))
        best[kind] = (max(old[0], r["value"]), max(old[1], r["baseline_value"] or 0))
py = json.load(open(sys.argv[2]))
print(best["encrypt"][0], best["decrypt"][0], best["encrypt"][1], best["decrypt"][1], py["encrypt"], py["decrypt"])
EOF
}

echo
printf '%-34s %10s %10s %8s %10s %10s\n' "files and gzip (seconds)" pncrypt other ratio "RSS MiB" "other MiB"
row() {
    printf '%-34s %10s %10s %8s %10s %10s\n' "$1" "$(best "$2")" "$(best "$3")" "$(ratio "$(best "$2")" "$(best "$3")")" \
        "$(peak "$2")" "$(peak "$3")"
}
row "encrypt ${SIZE_MB} MiB vs openssl enc" enc_ours enc_openssl
row "decrypt ${SIZE_MB} MiB vs openssl enc -d" dec_ours dec_openssl
row "gzip -6 ${GZIP_MB} MiB JSON vs gzip" gz_ours gz_gzip
row "gunzip ${GZIP_MB} MiB JSON vs gzip -d" gunz_ours gunz_gzip
echo
printf '%-34s %10s %10s %8s %12s %8s\n' "messages (msg/s)" pncrypt "Python SDK" ratio "EVP+Base64" "÷ ours"
for scheme in legacy acrh; do
    read -r oe od be bd pe pd < <(messages "$scheme")
    printf '%-34s %10.0f %10.0f %8.1f %12.0f %8.2f\n' "$scheme encrypt ($MESSAGES)" "$oe" "$pe" "$(ratio "$oe" "$pe")" \
        "$be" "$(ratio "$be" "$oe")"
    printf '%-34s %10.0f %10.0f %8.1f %12.0f %8.2f\n' "$scheme decrypt ($MESSAGES)" "$od" "$pd" "$(ratio "$od" "$pd")" \
        "$bd" "$(ratio "$bd" "$od")"
done
reference_figures "$BENCH"
binding_figures
