#!/usr/bin/env python3
"""Times a Python message path, for scripts/bench/compare.sh: N distinct messages encrypted and decrypted, two ways.

Objects (the keys "encrypt" and "decrypt"): a Python object to the text sent on the wire (a JSON string literal
  '"<Base64>"') and back to the object.
Text (the keys "text_encrypt" and "text_decrypt"): the message's JSON text (str) to Base64 (str) and back, what a
  CryptoModule does. The SDK's CryptoModule.decrypt also parses the JSON plaintext (it returns the object);
  pncrypt's text decryption returns bytes.

Paths:
sdk (default), the PubNub Python SDK's CryptoModule:
  objects: json.dumps -> module.encrypt -> json.dumps; json.loads -> module.decrypt (which parses the JSON).
  text:    module.encrypt(text); module.decrypt(base64).
binding, pncrypt's Python binding (bindings/python, libpncrypt found through PNCRYPT_LIB or pkg-config), one
  library call per message:
  objects: json.dumps -> message_encrypt; message_decrypt -> json.loads.
  text:    encrypt(text.encode()); decrypt(base64).
batch, the binding's batch methods, one library call per direction for all N:
  objects: json.dumps each -> encrypt_many -> quoted; decrypt_many (it accepts the quoted text) -> json.loads each.
  text:    encrypt_many(texts); decrypt_many(base64 texts).
The messages are pncrypt-bench's message with a counter in its text. Prints one JSON line: {"scheme", "count",
"path", "encrypt", "decrypt", "text_encrypt", "text_decrypt"} (messages per second).
Usage: python_messages.py [N] [legacy|acrh] [sdk|binding|batch]
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
messages = [{"text": f"Hello from pncrypt, message {i}", "user": "alice", "timetoken": 13406746729185766,
             "tags": ["news", "sport"], "ok": True} for i in range(count)]
texts = [json.dumps(m, separators=(",", ":")) for m in messages]
rates = {}


def timed(name, work):
    """Runs work() once, records messages per second under `name`, returns its result."""
    start = time.perf_counter()
    result = work()
    rates[name] = round(count / (time.perf_counter() - start))
    return result


if path in ("binding", "batch"):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))
    import pncrypt  # noqa: E402

    module = pncrypt.CryptoModule("bench-key", scheme)
    if path == "binding":
        wires = timed("encrypt", lambda: [module.message_encrypt(json.dumps(m, separators=(",", ":")))
                                          for m in messages])
        values = timed("decrypt", lambda: [json.loads(module.message_decrypt(w)[0]) for w in wires])
        sealed = timed("text_encrypt", lambda: [module.encrypt(t.encode()) for t in texts])
        opened = timed("text_decrypt", lambda: [module.decrypt(s) for s in sealed])
    else:
        wires = timed("encrypt", lambda: [f'"{s}"' for s in module.encrypt_many(
            [json.dumps(m, separators=(",", ":")) for m in messages])])
        values = timed("decrypt", lambda: [json.loads(p) for p in module.decrypt_many(wires)])
        sealed = timed("text_encrypt", lambda: module.encrypt_many(texts))
        opened = timed("text_decrypt", lambda: module.decrypt_many(sealed))
    assert opened == [t.encode() for t in texts], "text round trip"
else:
    from pubnub.pnconfiguration import PNConfiguration  # noqa: E402  (before pubnub.pubnub: circular import)
    from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule  # noqa: E402

    config = PNConfiguration()
    config.publish_key = config.subscribe_key = "demo"
    config.user_id = "pncrypt-compare"
    config.cipher_key = "bench-key"
    config.use_random_initialization_vector = False
    module = LegacyCryptoModule(config) if scheme == "legacy" else AesCbcCryptoModule(config)

    wires = timed("encrypt", lambda: [json.dumps(module.encrypt(json.dumps(m, separators=(",", ":"))))
                                      for m in messages])
    values = timed("decrypt", lambda: [module.decrypt(json.loads(w)) for w in wires])
    sealed = timed("text_encrypt", lambda: [module.encrypt(t) for t in texts])
    opened = timed("text_decrypt", lambda: [module.decrypt(s) for s in sealed])
    assert opened == messages, "text round trip (the SDK parses the JSON)"
assert values == messages, "object round trip"
assert all(w.startswith('"') and w.endswith('"') for w in wires)
print(json.dumps({"scheme": scheme, "count": count, "path": path, **rates}))
