#!/usr/bin/env python3
"""Writes Vectors/readings.json: lists of readings (`--scheme auto,legacy33`, docs/formats.md section 1), the one
decision over every reading the list names.

    python3 scripts/vectors/gen_reading_vectors.py     # rewrites Vectors/readings.json (needs `cryptography`)

Every vector is read with `scheme` "auto,legacy33" (`legacy_scheme` "rule": the headerless rule for auto's part)
unless it says otherwise, as text (`content` "text"): iOS 3.3 string leaves (the public legacy33 vectors of
spec.json) and today's messages (the public legacy, legacy-random-iv and acrh vectors of spec.json) come back whole
in one pass; a ciphertext that qualifies under two readings is `ambiguous`, never delivered. That ciphertext is
found here by a search that is the same on every run: the first five-letter word, in the order of
`random.Random(SEED)`, whose legacy33 encryption under `enigma` also decrypts under legacy (the fixed IV and
`enigma`'s hex SHA-256 key) with valid padding to valid UTF-8: about one word in 500,000 (docs/security.md,
"Lists of readings"). The same ciphertext read as legacy33 alone is a plain legacy33 text.
"""

import json
import os
import random
import string
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pnref  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "Vectors", "readings.json")
SPEC = os.path.join(ROOT, "Vectors", "spec.json")
KEY = "enigma"
LIST = "auto,legacy33"
SEED = 59
FIXED_IV = b"0123456789012345"


def text_of(data):
    """`data` as text, None when it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def ambiguous_word():
    """The first word (as described above) whose legacy33 ciphertext is also valid UTF-8 text under legacy."""
    rng = random.Random(SEED)
    key33 = pnref.legacy33_key(KEY)
    key_legacy = pnref.legacy_key(KEY)
    tries = 0
    while True:
        tries += 1
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(5)).encode()
        sealed = pnref.cbc_encrypt(key33, FIXED_IV, word)
        try:
            other = pnref.cbc_decrypt(key_legacy, FIXED_IV, sealed)
        except pnref.PNError:
            continue
        if text_of(other) is not None:
            return word, sealed, other, tries


def main():
    spec = json.load(open(SPEC))["vectors"]
    vectors = []
    for v in spec:
        if v["expect"] != "ok" or v["scheme"] == "auto" or text_of(pnref.plaintext_of(v)) is None:
            continue
        vectors.append({"id": "readings-" + v["id"][len("spec-"):], "scheme": LIST, "legacy_scheme": "rule",
                        "content": "text", "key": v["key"], "plaintext": v["plaintext"],
                        "ciphertext": v["ciphertext"], "expect": "ok",
                        "source": "spec.json " + v["id"] + " read with " + LIST})
    word, sealed, other, tries = ambiguous_word()
    source = (f"scripts/vectors/gen_reading_vectors.py: word {tries:,} of random.Random({SEED}), legacy33 under {KEY}; under"
              f" legacy it reads as {len(other)} bytes of UTF-8 ({other.hex()})")
    vectors.append({"id": "readings-ambiguous-legacy-legacy33", "scheme": LIST, "legacy_scheme": "rule",
                    "content": "text", "key": KEY, "ciphertext": pnref.b64(sealed), "expect": "decryption_error",
                    "reason": "ambiguous", "source": source})
    vectors.append({"id": "readings-ambiguous-read-as-legacy33", "scheme": "legacy33", "content": "text",
                    "key": KEY, "plaintext": word.decode(), "ciphertext": pnref.b64(sealed), "expect": "ok",
                    "source": source})
    vectors.append({"id": "readings-ambiguous-read-as-legacy", "scheme": "legacy", "content": "text",
                    "key": KEY, "plaintext_b64": pnref.b64(other), "ciphertext": pnref.b64(sealed),
                    "expect": "ok", "source": source})
    doc = {"description": "Lists of readings (--scheme auto,legacy33): iOS 3.3 texts and today's read in one pass,"
                          " and a ciphertext two readings of the list qualify for, which is ambiguous",
           "source": "scripts/vectors/gen_reading_vectors.py", "vectors": vectors}
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{OUT}: {len(vectors)} vectors (ambiguous word after {tries:,} tries)")


if __name__ == "__main__":
    main()
