#!/usr/bin/env python3
"""Writes Vectors/channel-keys/channel-keys.json: a fetch messages (v3) and a subscribe response whose messages the
real PubNub Python SDK (pubnub==10.8.0) encrypted, each channel under its own cipher key (issue 47 item 3;
pubnub/swift#161), for the per-channel key tests of every shell (CLI, Swift, C, Python).

    .venv/bin/python scripts/vectors/gen_channel_key_vectors.py    # rewrites Vectors/channel-keys/channel-keys.json

Every ciphertext is the body of a real Publish endpoint (scripts/vectors/pubnub_peer.py's publish_payload: the SDK's
own code); the expected decrypted bodies are built here from the messages given to the SDK (not from pncrypt).
One message of channel "ch-a" is encrypted under "ch-b"'s key: read with the channel map it must fail (the one
public decryption failure, its status naming "ch-a"), while the rest decrypt. The SDK draws IVs at random, so
the file changes on every run; the vectors stay valid.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# Not in Vectors/envelopes/, whose every file `pncrypt conformance` reads as envelope vectors.
OUT = os.path.join(ROOT, "Vectors", "channel-keys", "channel-keys.json")

KEYS = {"ch-a": "key-a 🔑", "ch-b": "key-b"}
# (channel, the key's channel, scheme, message)
MESSAGES = [
    ("ch-a", "ch-a", "acrh", {"text": "hello from a", "n": 1}),
    ("ch-a", "ch-b", "acrh", "under b's key"),          # the wrong channel's key: must fail
    ("ch-a", "ch-a", "legacy", "a, legacy"),
    ("ch-b", "ch-b", "legacy", {"text": "hello from b"}),
    ("ch-b", "ch-b", "legacy-random-iv", ["b", 2]),
]
WRONG = 1   # the index in MESSAGES of the message under the wrong channel's key


def sdk_ciphertexts(messages, keys):
    """The SDK's publish body (Base64) of each (channel, the key's channel, scheme, message) of `messages`, under
    `keys[the key's channel]` (scripts/vectors/pubnub_peer.py's publish_payload)."""
    requests = [{"op": "publish_payload", "scheme": scheme, "key": keys[key_channel], "message": message}
                for (_, key_channel, scheme, message) in messages]
    peer = subprocess.run([sys.executable, os.path.join(HERE, "pubnub_peer.py")], check=True, text=True,
                          input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True)
    replies = [json.loads(line) for line in peer.stdout.splitlines()]
    assert len(replies) == len(messages) and all(r["ok"] for r in replies), replies
    return [r["base64"] for r in replies]


def main():
    ciphertexts = sdk_ciphertexts(MESSAGES, KEYS)

    v3 = {"status": 200, "error": False, "error_message": "", "channels": {}}
    v3_plain = json.loads(json.dumps(v3))
    subscribe = {"t": {"t": "17000000000000000", "r": 12}, "m": []}
    subscribe_plain = json.loads(json.dumps(subscribe))
    statuses = {"v3": [], "subscribe": []}
    counters = {}
    for number, ((channel, _, _, message), ciphertext) in enumerate(zip(MESSAGES, ciphertexts)):
        timetoken = str(17000000000000001 + number)
        index = counters.get(channel, 0)
        counters[channel] = index + 1
        delivered = ciphertext if number == WRONG else message   # passthrough keeps the failure as it was
        v3["channels"].setdefault(channel, []).append({"message": ciphertext, "timetoken": timetoken})
        v3_plain["channels"].setdefault(channel, []).append({"message": delivered, "timetoken": timetoken})
        item = {"a": "1", "f": 0, "i": "publisher", "p": {"t": timetoken, "r": 12}, "k": "demo", "c": channel,
                "d": ciphertext}
        subscribe["m"].append(item)
        subscribe_plain["m"].append(dict(item, d=delivered))
        if number == WRONG:
            statuses["v3"].append({"index": index, "channel": channel, "timetoken": timetoken})
            statuses["subscribe"].append({"index": number, "channel": channel, "timetoken": timetoken})
    vectors = {
        "description": "Per-channel cipher keys: messages the PubNub Python SDK encrypted, each channel under its own"
                       " key; one message of ch-a under ch-b's key (it must fail). Decrypted bodies are for"
                       " --on-error passthrough. Made by scripts/vectors/gen_channel_key_vectors.py.",
        "source": "pubnub==10.8.0 (Python SDK), publish bodies",
        "keys": KEYS,
        "v3": {"encrypted": v3, "decrypted": v3_plain, "statuses": statuses["v3"]},
        "subscribe": {"encrypted": subscribe, "decrypted": subscribe_plain, "statuses": statuses["subscribe"]},
    }
    with open(OUT, "w", encoding="utf-8") as out:
        json.dump(vectors, out, ensure_ascii=False, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
