#!/usr/bin/env python3
"""Turns Vectors/channel-keys/channel-keys.json (scripts/vectors/gen_channel_key_vectors.py: bodies whose messages the Python
SDK encrypted, each channel under its own key) into the line format Tests/C/test_pncrypt.c reads for its
per-channel key test (run by scripts/checks/test_c.sh at test time, so the C test reads the vector file as it is).

One body per line, 6 tab-separated fields, text in lowercase hex:
    format  key_a_hex  key_b_hex  encrypted_hex  decrypted_hex  status_prefix_hex
`encrypted` and `decrypted` (the body for PNCRYPT_ON_ERROR_PASSTHROUGH) are compact JSON; `status_prefix` is the
start of the one expected status line: {"index":N,"channel":"ch-a","timetoken":"...",

With a second file, Vectors/channel-keys/records.json (scripts/vectors/gen_channel_record_vectors.py: a two-channel record
export), one more line of the same 6 fields: the format "records", the keys, the export and its decrypted lines
(each line ending in "\n"), and the 0-based index of the record that must fail, as decimal text in hex.
"""
import json
import sys


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        vectors = json.load(f)
    keys = vectors["keys"]
    for format in ("v3", "subscribe"):
        body = vectors[format]
        (status,) = body["statuses"]
        prefix = compact(status)[:-1] + ","
        fields = [format] + [text.encode("utf-8").hex() for text in (
            keys["ch-a"], keys["ch-b"], compact(body["encrypted"]), compact(body["decrypted"]), prefix)]
        print("\t".join(fields))
    if len(sys.argv) > 2:
        with open(sys.argv[2], encoding="utf-8") as f:
            records = json.load(f)
        (status,) = records["statuses"]
        keys = records["keys"]
        print("\t".join(["records"] + [text.encode("utf-8").hex() for text in (
            keys["ch-a"], keys["ch-b"], "".join(line + "\n" for line in records["export"]),
            "".join(line + "\n" for line in records["decrypted"]), str(status["line"] - 1))]))


if __name__ == "__main__":
    main()
