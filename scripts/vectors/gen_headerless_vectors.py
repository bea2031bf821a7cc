#!/usr/bin/env python3
"""Writes Vectors/headerless.json: the headerless rule (docs/formats.md section 1) on texts encrypted by the real
PubNub Python SDK (pubnub==10.8.0), with both legacy IV settings.

    scripts/build/make_venv.sh                                   # once: .venv with pubnub==10.8.0 + cryptography
    .venv/bin/python scripts/vectors/gen_headerless_vectors.py     # rewrites Vectors/headerless.json

Every vector is `auto` with `legacy_scheme` "rule" (no legacy scheme named: both legacy readings are tried and the
rule decides). `content` "text": decrypted as text (UTF-8 required), the plaintext must come back whole, from data
written with the fixed IV (`PubNubCryptodome`, use_random_iv=False) and with a random one (the SDK's legacy
cryptor, random IV). `content` "bytes": read by the files' rule, so the plaintext comes back whole too: a fixed-IV
text is read as such (its first block is text), anything else as random-IV data, the SDKs' binary format (bytes have
nothing else that tells the readings apart, and an `ambiguous` answer there would be a padding oracle). Texts are sentences of 2 to 10 blocks
in several scripts, the first block cut at every kind of place; the SDK draws its IVs, so the file changes on
every run (the vectors stay valid: each records the SDK's IV, and the independent model checks it).
"""

import base64
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pnref  # noqa: E402
from headerless_texts import texts  # noqa: E402
import pubnub_peer as peer  # noqa: E402

from pubnub.crypto import PubNubCryptodome  # noqa: E402
from pubnub.crypto_core import PubNubLegacyCryptor  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "Vectors", "headerless.json")
SDK = f"pubnub (Python SDK) {peer.SDK_VERSION} from PyPI"

def sdk_encrypt(key, plaintext, random_iv):
    """The SDK's legacy message encryption: PubNubCryptodome for the fixed IV (the publish path of a client with
    use_random_initialization_vector False), the legacy cryptor for a random IV (random bytes)."""
    if random_iv:
        payload = PubNubLegacyCryptor(key, True).encrypt(plaintext.encode())
        assert payload["data"][:16] == payload["cryptor_data"]  # IV first, then the ciphertext
        return payload["data"]
    cfg = peer.config_for("legacy", key)
    return base64.b64decode(PubNubCryptodome(cfg).encrypt(key, plaintext, use_random_iv=False))


def main():
    vectors = []
    key = "sdk-key"
    for i, plain in enumerate(texts(60, 30)):
        for scheme in ("legacy", "legacy-random-iv"):
            data = sdk_encrypt(key, plain, scheme == "legacy-random-iv")
            # The independent model decrypts it in the scheme the SDK used.
            check = {"id": "x", "scheme": scheme, "key": key, "plaintext": plain, "ciphertext": pnref.b64(data),
                     "expect": "ok"}
            check["iv"] = (data[:16] if scheme == "legacy-random-iv" else pnref.IV0).hex()
            pnref.check_vector(check)
            base = {"scheme": "auto", "legacy_scheme": "rule", "key": key, "plaintext": plain,
                    "ciphertext": pnref.b64(data), "source": f"{SDK}: {scheme}"}
            vectors.append(dict(id=f"headerless-text-{scheme}-{i}", content="text", expect="ok", **base))
            vectors.append(dict(id=f"headerless-bytes-{scheme}-{i}", content="bytes", expect="ok", **base))
    doc = {
        "description": "The headerless rule (docs/formats.md section 1): texts of 2 to 10 blocks in several scripts,"
                       " encrypted by the Python SDK with the fixed IV and with a random one, read with no legacy"
                       " scheme named: as text and as bytes both come back whole (bytes: the fixed-IV reading when its"
                       " first block is text, else the random-IV reading, as files are read).",
        "source": SDK,
        "vectors": vectors,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {len(vectors)} vectors to {OUT}")


if __name__ == "__main__":
    main()
