#!/usr/bin/env python3
"""Times the PubNub Python SDK's message path, for scripts/compare.sh: N messages encrypted and N decrypted.

Encrypt: json.dumps(message) -> CryptoModule.encrypt -> the JSON string literal sent on the wire.
Decrypt: the wire literal -> json.loads -> CryptoModule.decrypt (which parses the JSON plaintext).
The message is the one `pncrypt-bench` uses. Prints one JSON line: {"scheme", "count", "encrypt", "decrypt"}
(messages per second). Usage: python_messages.py [N] [legacy|acrh]
"""
import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")
from pubnub.pnconfiguration import PNConfiguration  # noqa: E402  (before pubnub.pubnub: circular import)
from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule  # noqa: E402

count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
scheme = sys.argv[2] if len(sys.argv) > 2 else "legacy"
config = PNConfiguration()
config.publish_key = config.subscribe_key = "demo"
config.user_id = "pncrypt-compare"
config.cipher_key = "bench-key"
config.use_random_initialization_vector = False
module = LegacyCryptoModule(config) if scheme == "legacy" else AesCbcCryptoModule(config)
message = {"text": "Hello from pncrypt, message 42", "user": "alice", "timetoken": 13406746729185766,
           "tags": ["news", "sport"], "ok": True}

start = time.perf_counter()
for _ in range(count):
    wire = json.dumps(module.encrypt(json.dumps(message, separators=(",", ":"))))
encrypt = count / (time.perf_counter() - start)

start = time.perf_counter()
for _ in range(count):
    value = module.decrypt(json.loads(wire))
decrypt = count / (time.perf_counter() - start)
assert value == message, value
print(json.dumps({"scheme": scheme, "count": count, "encrypt": round(encrypt), "decrypt": round(decrypt)}))
