#!/usr/bin/env python3
"""Turns Vectors/*.json into the line format Tests/C/test_pncrypt.c reads (run by scripts/checks/test_c.sh at test time,
so the C test always reads the vector files as they are; nothing is copied by hand).

One vector per line, 8 tab-separated fields, byte strings in lowercase hex ("-" when absent):
    id  scheme  key_hex  iv_hex  plaintext_hex  ciphertext_hex  expect  reason
`ciphertext_hex` is the hex of the Base64 *text* (which negative vectors make deliberately invalid).

Usage: vectors_to_lines.py FILE.json... > vectors.txt
"""
import base64
import json
import sys


def hexed(data):
    return data.hex() if data else "-"


def main():
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            vectors = json.load(f)["vectors"]
        for v in vectors:
            if "plaintext_b64" in v:
                plaintext = base64.b64decode(v["plaintext_b64"])
            elif "plaintext" in v:
                plaintext = v["plaintext"].encode("utf-8")
            else:
                plaintext = None
            ciphertext = v["ciphertext"].encode("utf-8") if "ciphertext" in v else None
            fields = [v["id"], v["scheme"], v["key"].encode("utf-8").hex(), v.get("iv", "-"),
                      "-" if plaintext is None else (plaintext.hex() or "="),
                      "-" if ciphertext is None else (ciphertext.hex() or "="),
                      v["expect"], v.get("reason", "-")]
            print("\t".join(fields))


if __name__ == "__main__":
    main()
