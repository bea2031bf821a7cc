#!/usr/bin/env python3
"""Turns Vectors/envelopes/envelopes.json (and recorded.json, same format) into the line format Tests/C/test_pncrypt.c
reads for its envelope test (run by scripts/checks/test_c.sh at test time, so the C test reads the vector files as they
are).

One vector per line, 6 tab-separated fields, text in lowercase hex:
    id  format  key_hex  encrypted_hex  decrypted_hex  status_prefixes_hex
`status_prefixes` is the start of each expected status line, joined by newlines: {"index":N,"channel":...,
"timetoken":...,"category":"decryption" (the location fields as the vector lists them); empty when every message
of the vector decrypts (written "=", as the other empty fields of Tests/C).

Usage: envelopes_to_lines.py Vectors/envelopes/envelopes.json [Vectors/envelopes/recorded.json] > vectors.txt
"""
import json
import sys


def hexed(text):
    return text.encode("utf-8").hex()


def main():
    vectors = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            vectors += json.load(f)["vectors"]
    for v in vectors:
        prefixes = ["{" + "".join(f'"{k}":{json.dumps(x, ensure_ascii=False)},' for k, x in failure.items())
                    + '"category":"decryption"' for failure in v["failures"]]
        fields = [v["id"], v["format"], hexed(v["key"]), hexed(v["encrypted"]), hexed(v["decrypted"]),
                  hexed("\n".join(prefixes)) or "="]
        print("\t".join(fields))


if __name__ == "__main__":
    main()
