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
  flip-declared  flip, and hello declares "spec-legacy-*/peer-decrypts" a known difference
  flip-star      flip, and hello declares "*" (which the harness ignores: it would excuse everything)
  none     the adapter as it is
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


def handle(req):
    op = req.get("op") if isinstance(req, dict) else None
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
    if FAULT in ("flip-declared", "flip-star") and op == "hello":
        pattern = "spec-legacy-*/peer-decrypts" if FAULT == "flip-declared" else "*"
        reply["differences"] = [{"checks": [pattern], "reason": "flipped on purpose"}]
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
