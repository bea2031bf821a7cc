#!/usr/bin/env python3
"""Writes Vectors/python-sdk.json: ciphertexts made by the real PubNub Python SDK (pubnub==10.8.0).

    scripts/build/make_venv.sh                                  # once: .venv with pubnub==10.8.0 + cryptography
    .venv/bin/python scripts/vectors/gen_python_sdk_vectors.py    # rewrites Vectors/python-sdk.json
    .venv/bin/python scripts/vectors/gen_python_sdk_vectors.py --cross-check-only   # no writing

The SDK draws its IVs at random, so the file changes on every run (the vectors stay valid); each vector
records the IV the SDK chose (taken from its output), so the checker verifies both directions.

What is recorded, all through the SDK's own code:
  * publish: the body of a real Publish endpoint (`pubnub.publish()...use_post(True).build_data()`), for
    several messages, on the SDK's three message paths: PubNubCryptodome (config.cipher_key only; fixed IV or
    its URL-safe-text random IV), LegacyCryptoModule (random-byte IV) and AesCbcCryptoModule (acrh).
    `plaintext` is exactly the text the SDK encrypted (its json.dumps output), `ciphertext` the Base64
    between the quotes.
  * strings: CryptoModule.encrypt(str) called directly on non-JSON text.
  * files: PubNubFileCrypto.encrypt (legacy random-IV file format), CryptoModule.encrypt_file for the legacy
    module (random and fixed IV) and the AesCbc module (acrh), at small sizes, binary data.

Every vector is checked before it is written: the independent model (scripts/vectors/pnref.py, python cryptography)
must decrypt it to the recorded plaintext and re-encrypt it to the same bytes with the recorded IV, and the
SDK itself must decrypt it back (message paths: to the original message).

Cross-check (always run): the SDK must decrypt every `ok` vector of Vectors/spec.json, generated.json and
large.json in the schemes it supports (not legacy33) to the expected plaintext.
"""

import argparse
import base64
import hashlib
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pnref  # noqa: E402  (needs `cryptography`: scripts/build/make_venv.sh installs it in the venv)
import pubnub_peer as peer  # noqa: E402  (imports the SDK in the right order, silences its logging)

from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule, PubNubCryptodome, PubNubFileCrypto  # noqa: E402
from pubnub.crypto_core import PubNubLegacyCryptor  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "Vectors", "python-sdk.json")
SDK = f"pubnub (Python SDK) {peer.SDK_VERSION} from PyPI"

MESSAGES = [
    ("hello", "hello"),
    ("yay", "yay!"),
    ("empty-string", ""),
    ("object", {"text": "Hello, PubNub!", "n": 1, "ok": True, "nothing": None}),
    ("seven-eight", ["seven", "eight", {"food": "Cheeseburger", "drink": "Coffee"}]),
    ("unicode", {"greeting": "Привет 世界 🔑", "path": "a/b", "quote": "\"q\""}),
    ("timetoken", {"timetoken": 13406746729185766}),
    ("number", 42),
    ("float", 3.5),
    ("null", None),
    ("long-text", "The quick brown fox jumps over the lazy dog. " * 8),
]
STRINGS = [
    ("yay", "yay!"),
    ("hello-world", "Hello World"),
    ("unicode", "ключ 🔑 漢語"),
    ("sixteen", "exactly 16 bytes"),
]
FILE_SIZES = [1, 15, 16, 17, 100, 1000, 5000]
KEYS = ["enigma", "ключ🔑"]


def file_bytes(label, n):
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(f"{label}:{i}".encode()).digest()
        i += 1
    return bytes(out[:n])


def iv_of(scheme, data):
    if scheme in ("legacy", "legacy33"):
        return pnref.IV0
    if scheme == "legacy-random-iv":
        return data[:16]
    header = pnref.parse_header(data)
    return header[1]


def vector(vid, scheme, key, plaintext, data, source, note=None):
    v = {"id": vid, "scheme": scheme, "key": key, "iv": iv_of(scheme, data).hex()}
    if isinstance(plaintext, str):
        v["plaintext"] = plaintext
    else:
        v["plaintext_b64"] = pnref.b64(plaintext)
    v["ciphertext"] = pnref.b64(data)
    v["expect"] = "ok"
    v["source"] = source
    if note:
        v["note"] = note
    pnref.check_vector(v)
    return v


def config(key, random_iv):
    c = peer.config_for("legacy-random-iv" if random_iv else "legacy", key)
    return c


def publish_body(cfg, message):
    pubnub = peer.PubNub(cfg)
    try:
        return pubnub.publish().channel("pncrypt").message(message).use_post(True).build_data()
    finally:
        try:
            pubnub.stop()
        except Exception:
            pass


def publish_vectors():
    out = []
    paths = [
        # (id part, scheme, random IV config, crypto module class or None for PubNubCryptodome, source)
        ("cryptodome-static", "legacy", False, None,
         "PubNubCryptodome (publish with config.cipher_key, use_random_initialization_vector=False)"),
        ("cryptodome-random", "legacy-random-iv", True, None,
         "PubNubCryptodome (publish with config.cipher_key; default random IV of URL-safe text)"),
        ("legacy-module-static", "legacy", False, LegacyCryptoModule,
         "LegacyCryptoModule (publish with config.crypto_module, fixed IV)"),
        ("legacy-module-random", "legacy-random-iv", True, LegacyCryptoModule,
         "LegacyCryptoModule (publish with config.crypto_module, random IV)"),
        ("aescbc-module", "acrh", True, AesCbcCryptoModule,
         "AesCbcCryptoModule (publish with config.crypto_module)"),
    ]
    for key_i, key in enumerate(KEYS):
        for pname, scheme, random_iv, module_cls, how in paths:
            for mname, message in MESSAGES:
                cfg = config(key, random_iv)
                if module_cls is not None:
                    cfg.crypto_module = module_cls(cfg)
                body = publish_body(cfg, message)
                assert body[0] == body[-1] == '"', body
                text = peer.pn_utils.write_value_as_string(message)
                data = base64.b64decode(body[1:-1], validate=True)
                if pname.startswith("cryptodome-random"):
                    assert all(c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                               for c in data[:16]), "the SDK's text IV"
                # the SDK reads its own output back to the message
                if module_cls is None:
                    back = PubNubCryptodome(cfg).decrypt(key, body[1:-1], use_random_iv=random_iv)
                else:
                    back = (module_cls(cfg)).decrypt(body[1:-1])
                assert back == message or (message == "" and back == ""), (pname, message, back)
                out.append(vector(f"pysdk-publish-{pname}-k{key_i}-{mname}", scheme, key, text, data,
                                  f"{SDK}: {how}",
                                  note="the Publish body (POST) is this ciphertext between double quotes"))
    return out


def string_vectors():
    out = []
    for key_i, key in enumerate(KEYS):
        for scheme, module_cls, random_iv in (("legacy", LegacyCryptoModule, False),
                                              ("legacy-random-iv", LegacyCryptoModule, True),
                                              ("acrh", AesCbcCryptoModule, True)):
            module = module_cls(config(key, random_iv))
            for sname, s in STRINGS:
                enc = module.encrypt(s)
                back = module.decrypt(enc)
                assert back == s, (scheme, s, back)
                out.append(vector(f"pysdk-string-{scheme}-k{key_i}-{sname}", scheme, key, s,
                                  base64.b64decode(enc), f"{SDK}: {module_cls.__name__}.encrypt(str)"))
    return out


def file_vectors():
    out = []
    for key_i, key in enumerate(KEYS):
        for n in FILE_SIZES:
            data = file_bytes(f"file-{key_i}-{n}", n)
            cfg_r, cfg_s = config(key, True), config(key, False)
            cases = [
                ("filecrypto", "legacy-random-iv", PubNubFileCrypto(cfg_r).encrypt(key, data),
                 lambda d: PubNubFileCrypto(cfg_r).decrypt(key, d),
                 "PubNubFileCrypto.encrypt (send_file with a per-call cipher_key; IV of URL-safe text)"),
                ("legacy-module-random", "legacy-random-iv", LegacyCryptoModule(cfg_r).encrypt_file(data),
                 LegacyCryptoModule(cfg_r).decrypt_file,
                 "LegacyCryptoModule.encrypt_file (send_file with config.cipher_key, default random IV)"),
                ("legacy-module-static", "legacy", LegacyCryptoModule(cfg_s).encrypt_file(data),
                 LegacyCryptoModule(cfg_s).decrypt_file,
                 "LegacyCryptoModule.encrypt_file with use_random_initialization_vector=False: a fixed-IV "
                 "file without IV prefix (the fixed-IV file format of docs/formats.md section 3)"),
                ("aescbc-module", "acrh", AesCbcCryptoModule(cfg_r).encrypt_file(data),
                 AesCbcCryptoModule(cfg_r).decrypt_file, "AesCbcCryptoModule.encrypt_file"),
            ]
            for cname, scheme, enc, dec, how in cases:
                assert dec(enc) == data, (cname, n)
                out.append(vector(f"pysdk-file-{cname}-k{key_i}-{n}", scheme, key, data, enc, f"{SDK}: {how}"))
    return out


# ok vectors the SDK is known to read differently (asserted: if the SDK starts agreeing, this list is stale)
SDK_DIFFERS = {
    "gen-auto-legacy-id-header": "the SDK's legacy cryptor id is ASCII '0000' (crypto_core.py line 51), not the "
                                 "four zero bytes the Swift and Go SDKs use, so it says 'unknown cryptor error'",
}


def cross_check():
    """The SDK decrypts every ok vector in the other files (schemes it has) to the expected plaintext."""
    counts = {}
    for name in ("spec.json", "generated.json", "large.json"):
        path = os.path.join(ROOT, "Vectors", name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            vectors = json.load(f)["vectors"]
        n = 0
        for v in vectors:
            if v["expect"] != "ok" or v["scheme"] == "legacy33":
                continue
            data = base64.b64decode(v["ciphertext"], validate=True)
            key, scheme = v["key"], v["scheme"]
            try:
                if scheme in ("legacy", "legacy-random-iv"):
                    cryptor = PubNubLegacyCryptor(key, scheme == "legacy-random-iv")
                    got = cryptor.decrypt({"data": data}, binary_mode=True)
                else:  # acrh and auto: the module reads the header, or falls back to fixed-IV legacy
                    got = AesCbcCryptoModule(config(key, False)).decrypt_file(data)
            except Exception as e:
                got = e
            if v["id"] in SDK_DIFFERS:
                assert got != pnref.plaintext_of(v), f"the SDK now reads {v['id']}: update SDK_DIFFERS"
                print(f"cross-check: {name} {v['id']}: SDK differs as expected ({got!r}): {SDK_DIFFERS[v['id']]}")
                continue
            assert got == pnref.plaintext_of(v), f"the SDK decrypts {name} {v['id']} differently: {got!r}"
            n += 1
        counts[name] = n
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cross-check-only", action="store_true", help="only check the other files with the SDK")
    args = ap.parse_args()
    for name, n in cross_check().items():
        print(f"cross-check: the SDK decrypts all {n} applicable ok vectors of {name}")
    if args.cross_check_only:
        return
    vectors = publish_vectors() + string_vectors() + file_vectors()
    assert len({v["id"] for v in vectors}) == len(vectors)
    head = json.dumps({
        "description": ("Ciphertexts produced by the real PubNub Python SDK: publish bodies on its three message "
                        "paths, CryptoModule.encrypt on strings, and file encryption. IVs were chosen by the SDK "
                        "at random and are recorded from its output. Regenerate: scripts/build/make_venv.sh && "
                        ".venv/bin/python scripts/vectors/gen_python_sdk_vectors.py"),
        "source": f"generated: scripts/vectors/gen_python_sdk_vectors.py ({SDK})",
    }, ensure_ascii=False)[:-1]
    text = head + ', "vectors": [\n' + ",\n".join(json.dumps(v, ensure_ascii=False) for v in vectors) + "\n]}\n"
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"python-sdk.json: {len(vectors)} vectors verified and written")


if __name__ == "__main__":
    main()
