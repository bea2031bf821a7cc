#!/usr/bin/env python3
"""Writes Vectors/channel-keys/records.json: a record export (one {"channel", "message", "timetoken"} record a line,
as a history export holds them) of two channels whose messages the real PubNub Python SDK (pubnub==10.8.0)
encrypted, each channel under its own cipher key (issue 59, item 1), for the per-channel record tests of every shell
(CLI, Swift, C, Python).

    .venv/bin/python scripts/vectors/gen_channel_record_vectors.py    # rewrites Vectors/channel-keys/records.json

Every ciphertext is the body of a real Publish endpoint (scripts/vectors/pubnub_peer.py's publish_payload: the SDK's own
code). The expected lines are built here from the messages given to the SDK (not from pncrypt): each record with
its message replaced by the message as compact JSON, every other byte kept. One record of "ch-a" holds a message
under "ch-b"'s key, a key of the same run: read with the channel keys it must fail (the one public decryption
failure, its status naming "ch-a"; --on-error passthrough keeps it as it was), while the rest decrypt. The SDK
draws IVs at random, so the file changes on every run; the vectors stay valid.
"""

import json
import os

from gen_channel_key_vectors import KEYS, ROOT, sdk_ciphertexts

OUT = os.path.join(ROOT, "Vectors", "channel-keys", "records.json")

# (channel, the key's channel, scheme, message), in timetoken order, the channels interleaved as in an export
MESSAGES = [
    ("ch-a", "ch-a", "acrh", {"text": "hello from a", "n": 1}),
    ("ch-b", "ch-b", "legacy", {"text": "hello from b"}),
    ("ch-a", "ch-b", "acrh", "under b's key"),          # the other channel's key: must fail
    ("ch-b", "ch-b", "legacy-random-iv", ["b", 2]),
    ("ch-a", "ch-a", "legacy", "a, legacy é"),
]
WRONG = 2   # the index in MESSAGES of the record under the other channel's key


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def main():
    export, decrypted, statuses = [], [], []
    for number, ((channel, _, _, message), wire) in enumerate(zip(MESSAGES, sdk_ciphertexts(MESSAGES, KEYS))):
        timetoken = 17000000000000001 + number
        # Python's json.dumps spacing, the timetoken an exact 17-digit number, as a script's export writes them.
        head = f'{{"channel": {json.dumps(channel)}, "message": '
        tail = f', "timetoken": {timetoken}, "publisher": "sdk-{number}"}}'
        export.append(head + json.dumps(wire) + tail)
        if number == WRONG:
            decrypted.append(export[-1])
            statuses.append({"line": number + 1, "channel": channel, "reason": "wrongKeyOrCorrupt"})
        else:
            decrypted.append(head + compact(message) + tail)
    vectors = {
        "description": "A two-channel record export: messages the PubNub Python SDK encrypted, each channel under"
                       " its own key; one record of ch-a under ch-b's key (it must fail). Decrypted lines are for"
                       " --on-error passthrough. Made by scripts/vectors/gen_channel_record_vectors.py.",
        "source": "pubnub==10.8.0 (Python SDK), publish bodies",
        "keys": KEYS,
        "messages": [message for (_, _, _, message) in MESSAGES],
        "export": export,
        "decrypted": decrypted,
        "statuses": statuses,
    }
    with open(OUT, "w", encoding="utf-8") as out:
        json.dump(vectors, out, ensure_ascii=False, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
