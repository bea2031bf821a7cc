#!/usr/bin/env python3
"""wrong_peer.py FAULT: the PubNub Python SDK's conformance adapter (examples/peers/pubnub_python.py) made wrong on
purpose, for CLIConformanceTests: `pncrypt conformance` must catch each fault and name the vectors it broke.

FAULT:
  flip     the plaintext of every "decrypt" answer for scheme "legacy" with the key "enigma" has its first byte
           flipped
  pad      "encrypt" with scheme "legacy" pads with zero bytes instead of PKCS#7 (the cipher is right)
  style    "publish" with scheme "legacy" writes the message compactly (",", ":"), not as the Python SDK does
  hang     the "decrypt" of the spec vector spec-legacy-hello-world (06UDjczkvAAYcqWfNwkOiQ==) never answers
  die      the "decrypt" of that vector exits with status 3 without answering
  garbage  the "decrypt" of that vector is answered with a line that is not JSON (and a terminal escape)
  flip-declared  flip, and hello declares "spec/spec-legacy-*/peer-decrypts" a known difference that "rejects":
                 a corrupted plaintext is not a rejection, so every flip still fails
  reject-declared  the same "decrypt" requests are refused with an error, and hello declares that difference
                 ("rejects"): each is a known difference and the run agrees
  refuse-all     every request but hello is refused with an error, and hello declares "rejects" for every check of
                 every family: the declared differences excuse more than agrees, so the run has not agreed
  corrupt        every judge gets a wrong answer, and hello declares every outcome for every check of every family
                 (but "accepts" outside "messages"): must-fail vectors are answered with a value (decrypted or
                 encrypted), published bodies hold another value, received messages and envelope messages come back
                 as another value, and a message under the wrong key comes back as a corrupted plaintext. None of it
                 may be excused.
  none     the adapter as it is
(Patterns that name no family, and declarations without an outcome, are tried with shell peers:
CLIConformanceHarnessTests.)
"""

import base64
import importlib.util
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTER = os.path.join(HERE, "..", "..", "examples", "peers", "pubnub_python.py")
spec = importlib.util.spec_from_file_location("pubnub_python", ADAPTER)
adapter = importlib.util.module_from_spec(spec)
spec.loader.exec_module(adapter)

from Cryptodome.Cipher import AES  # noqa: E402  (the SDK's own dependency)
from pubnub.crypto import PubNubCryptodome  # noqa: E402
import hashlib  # noqa: E402

FAULT = sys.argv[1] if len(sys.argv) > 1 else "none"
TARGET = "06UDjczkvAAYcqWfNwkOiQ=="


def legacy_zero_padded(key, plaintext):
    secret = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32].encode("ascii")
    padded = plaintext + b"\0" * (16 - len(plaintext) % 16 if len(plaintext) % 16 else 0)
    if not padded:
        padded = b"\0" * 16
    return AES.new(secret, AES.MODE_CBC, b"0123456789012345").encrypt(padded)


OUTCOMES = ["accepts", "rejects", "json-value", "null", "numbers-as-doubles", "scalars-as-text", "as-received",
            "same-value"]
FAMILIES = ["spec", "generated", "negative", "headerless", "large", "python-sdk", "contract", "styles", "publish",
            "messages", "envelopes"]
CORRUPTED = "corrupted plaintext"


def declarations():
    """What the fault's hello declares, or None to keep the adapter's."""
    if FAULT == "flip-declared":
        return [{"checks": ["spec/spec-legacy-*/peer-decrypts"], "outcome": "rejects", "reason": "flipped on purpose"}]
    if FAULT == "reject-declared":
        return [{"checks": ["spec/spec-legacy-*/peer-decrypts"], "outcome": "rejects",
                 "reason": "refused on purpose"}]
    if FAULT == "refuse-all":
        return [{"checks": [f + "/*" for f in FAMILIES], "outcome": "rejects", "reason": "refuses everything"}]
    if FAULT == "corrupt":
        return [{"checks": [f + "/*" for f in FAMILIES if outcome != "accepts" or f == "messages"],
                 "outcome": outcome, "reason": "excuses all it may"} for outcome in OUTCOMES]
    return None


def corrupt(req, reply):
    """The "corrupt" fault's answer to `req`, given the adapter's `reply`."""
    op = req.get("op")
    if op in ("decrypt", "decrypt_text") and not reply.get("ok") and not reply.get("unsupported"):
        # What must fail is answered with a value.
        if op == "decrypt":
            return {"id": req.get("id"), "ok": True, "data": base64.b64encode(CORRUPTED.encode()).decode()}
        return {"id": req.get("id"), "ok": True, "text": CORRUPTED}
    if op == "publish" and reply.get("ok"):
        return adapter.handle(dict(req, message=json.dumps(CORRUPTED)))
    if op == "decrypt_message":
        # A received message, or one under the wrong key, comes back as another value.
        return {"id": req.get("id"), "ok": True, "message": CORRUPTED}
    if op == "encrypt" and not reply.get("ok") and not reply.get("unsupported"):
        # What must fail to encrypt is answered with bytes.
        return {"id": req.get("id"), "ok": True, "data": base64.b64encode(CORRUPTED.encode()).decode()}
    if op == "decrypt_envelope" and not reply.get("unsupported"):
        count = len(reply["messages"]) if reply.get("ok") else 1
        return {"id": req.get("id"), "ok": True, "messages": [{"message": CORRUPTED, "error": False}] * count}
    return reply


def handle(req):
    op = req.get("op") if isinstance(req, dict) else None
    if FAULT == "refuse-all" and op != "hello":
        return {"id": req.get("id"), "ok": False, "error": "refused on purpose"}
    if FAULT == "reject-declared" and op == "decrypt" and req.get("scheme") == "legacy" \
            and req.get("key") == "enigma":
        return {"id": req.get("id"), "ok": False, "error": "refused on purpose"}
    if FAULT in ("hang", "die", "garbage") and op == "decrypt" and req.get("data") == TARGET \
            and req.get("scheme") == "legacy":
        if FAULT == "hang":
            time.sleep(3600)
        if FAULT == "die":
            os._exit(3)
        return None
    if FAULT == "pad" and op == "encrypt" and req.get("scheme") == "legacy":
        data = legacy_zero_padded(req["key"], base64.b64decode(req["data"]))
        return {"id": req.get("id"), "ok": True, "data": base64.b64encode(data).decode()}
    if FAULT == "style" and op == "publish" and req.get("scheme") == "legacy":
        text = json.dumps(json.loads(req["message"]), separators=(",", ":"))
        config = adapter.config_for(req["key"])
        body = PubNubCryptodome(config).encrypt(req["key"], text)
        return {"id": req.get("id"), "ok": True, "body": '"' + body + '"'}
    reply = adapter.handle(req)
    if op == "hello" and declarations() is not None:
        reply["differences"] = declarations()
    if FAULT == "corrupt":
        return corrupt(req, reply)
    if FAULT.startswith("flip") and op == "decrypt" and req.get("scheme") == "legacy" and req.get("key") == "enigma" \
            and reply.get("ok") and reply.get("data"):
        data = bytearray(base64.b64decode(reply["data"]))
        data[0] ^= 0x01
        reply["data"] = base64.b64encode(bytes(data)).decode()
    return reply


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        reply = handle(req)
        if reply is None:  # garbage
            sys.stdout.write("this is not JSON \x1b[31mred\x1b[0m\n")
        else:
            sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
