#!/usr/bin/env python3
"""Times a Python message path, for scripts/compare.sh: N messages encrypted and N decrypted.

sdk (default), the PubNub Python SDK:
  Encrypt: json.dumps(message) -> CryptoModule.encrypt -> the JSON string literal sent on the wire.
  Decrypt: the wire literal -> json.loads -> CryptoModule.decrypt (which parses the JSON plaintext).
binding, pncrypt's Python binding (bindings/python, libpncrypt found through PNCRYPT_LIB or pkg-config), the same
  work from Python object to Python object:
  Encrypt: json.dumps(message) -> CryptoModule.message_encrypt -> the wire text.
  Decrypt: the wire text -> CryptoModule.message_decrypt -> json.loads of the plaintext JSON.
The message is the one `pncrypt-bench` uses. Prints one JSON line: {"scheme", "count", "encrypt", "decrypt",
"path"} (messages per second). Usage: python_messages.py [N] [legacy|acrh] [sdk|binding]
"""
import json
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")
count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
scheme = sys.argv[2] if len(sys.argv) > 2 else "legacy"
path = sys.argv[3] if len(sys.argv) > 3 else "sdk"
message = {"text": "Hello from pncrypt, message 42", "user": "alice", "timetoken": 13406746729185766,
           "tags": ["news", "sport"], "ok": True}

if path == "binding":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings", "python"))
    import pncrypt  # noqa: E402

    module = pncrypt.CryptoModule("bench-key", scheme)
    start = time.perf_counter()
    for _ in range(count):
        wire = module.message_encrypt(json.dumps(message, separators=(",", ":")))
    encrypt = count / (time.perf_counter() - start)

    start = time.perf_counter()
    for _ in range(count):
        text, status = module.message_decrypt(wire)
        value = json.loads(text)
    decrypt = count / (time.perf_counter() - start)
else:
    from pubnub.pnconfiguration import PNConfiguration  # noqa: E402  (before pubnub.pubnub: circular import)
    from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule  # noqa: E402

    config = PNConfiguration()
    config.publish_key = config.subscribe_key = "demo"
    config.user_id = "pncrypt-compare"
    config.cipher_key = "bench-key"
    config.use_random_initialization_vector = False
    module = LegacyCryptoModule(config) if scheme == "legacy" else AesCbcCryptoModule(config)

    start = time.perf_counter()
    for _ in range(count):
        wire = json.dumps(module.encrypt(json.dumps(message, separators=(",", ":"))))
    encrypt = count / (time.perf_counter() - start)

    start = time.perf_counter()
    for _ in range(count):
        value = module.decrypt(json.loads(wire))
    decrypt = count / (time.perf_counter() - start)
assert value == message, value
print(json.dumps({"scheme": scheme, "count": count, "encrypt": round(encrypt), "decrypt": round(decrypt),
                  "path": path}))
