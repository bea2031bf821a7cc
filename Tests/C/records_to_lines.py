#!/usr/bin/env python3
"""Turns Vectors/records/export.json (a record export the PubNub Python SDK encrypted;
scripts/vectors/gen_record_vectors.py) into
the line format Tests/C/test_pncrypt.c reads for its --field test (run by scripts/checks/test_c.sh at test time).

One record per line, 6 tab-separated fields, text in lowercase hex ("-" for none: a record without the field):
    scheme  key_hex  pointer_hex  record_hex  decrypted_hex  plaintext_hex

Usage: records_to_lines.py Vectors/records/export.json > records.txt
"""
import json
import sys


def hexed(text):
    return "-" if text is None else text.encode("utf-8").hex()


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        vectors = json.load(f)
    for r in vectors["records"]:
        print("\t".join([r["scheme"], hexed(vectors["key"]), hexed(r["pointer"]), hexed(r["record"]),
                         hexed(r["decrypted"]), hexed(r["plaintext"])]))


if __name__ == "__main__":
    main()
