#!/usr/bin/env python3
"""Writes Vectors/contract.json: every example row of PubNub's cross-SDK contract scenarios for the crypto module
(`cryptor-module.feature`, public in pubnub/c-sharp under src/UnitTests/AcceptanceTests/Features/Encryption/),
with the files made again here by the real PubNub Python SDK (pubnub==10.8.0 from PyPI). PubNub's own asset files
are not copied: the SDK writes the fixed-IV files byte for byte as the contract's assets; random IVs differ from
the assets' but the files are equivalent.

    scripts/build/make_venv.sh                                    # once: .venv with pubnub==10.8.0 + cryptography
    .venv/bin/python scripts/vectors/gen_contract_vectors.py        # rewrites Vectors/contract.json

Sources (the contract's `file.txt`, `file.jpg`, `empty-file.txt`): file.txt is the 16 bytes `Well hello there`
(docs/formats.md section 3); file.jpg is a 3,000-byte stand-in made here (a JPEG start marker, then
pseudo-random bytes); empty-file.txt is empty.

Who makes each encrypted file:
  * file-cryptor-legacy-{civ,riv}.*: PubNubCryptoModule with PubNubLegacyCryptor(use_random_iv=False/True),
    encrypt_file; file-cryptor-v1-acrh.*: the module with PubNubAesCbcCryptor.
  * file-legacy-riv.*, empty-file-legacy-riv.txt: the SDK's old file functions (PubNubFileCrypto.encrypt).
  * file-legacy-civ.*: the SDK's PubNubLegacyCryptor(use_random_iv=False).encrypt (the bare cryptor).
  * empty-file-cryptor-*.txt, empty-file-legacy-civ.txt: the SDK's CryptoModule refuses to encrypt empty data, so
    these (what older clients wrote for an empty file: one block of padding) are made by scripts/vectors/pnref.py.
  * The header negatives are built by hand from a valid acrh file (PNED alone, version 0x0A, a 3-byte id, ACRB).
Every file the SDK must read is checked: the SDK decrypts each `ok` file to its source, and refuses each negative.

Row to vector: `scheme` is `auto` (a module: a PNED header picks the cryptor) with `legacy_scheme` the module's
legacy cryptor (`legacy` for a constant vector, `legacy-random-iv` for a random one, `none` for a module with
only the acrh cryptor); an explicit scheme where the contract decrypts with "legacy code". `mode` is `binary`
(one-shot) or `stream`. Encryption rows ("I encrypt ... Then successfully decrypt with legacy code") are `ok`
vectors of the explicit scheme (encrypting with their IV must give the SDK's bytes); encrypting the empty file is
an `encryption_error` (docs/formats.md section 3: the contract's empty-file rows; the SDK agrees).
"""

import base64
import hashlib
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pnref  # noqa: E402
import pubnub_peer as peer  # noqa: E402

from pubnub.crypto import PubNubCryptoModule, PubNubFileCrypto  # noqa: E402
from pubnub.crypto_core import PubNubAesCbcCryptor, PubNubLegacyCryptor  # noqa: E402
from pubnub.pnconfiguration import PNConfiguration  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "Vectors", "contract.json")
KEY = "pubnubenigma"
SDK = f"pubnub (Python SDK) {peer.SDK_VERSION} from PyPI"
FEATURE = "pubnub/c-sharp src/UnitTests/AcceptanceTests/Features/Encryption/cryptor-module.feature"


def stand_in_jpg() -> bytes:
    out, block = b"\xff\xd8\xff\xe0", b"contract file.jpg stand-in"
    while len(out) < 3000:
        block = hashlib.sha256(block).digest()
        out += block
    return out[:3000]


SOURCES = {"file.txt": b"Well hello there", "file.jpg": stand_in_jpg(), "empty-file.txt": b""}

legacy_fixed = PubNubLegacyCryptor(KEY, use_random_iv=False)
legacy_random = PubNubLegacyCryptor(KEY, use_random_iv=True)
aes = PubNubAesCbcCryptor(KEY)


def module(default, *others):
    cryptors = {c.CRYPTOR_ID: c for c in (default,) + others}
    return PubNubCryptoModule(cryptors, default)


def payload_bytes(payload) -> bytes:
    return payload if isinstance(payload, bytes) else payload["data"]


def make_files():
    files = {}
    for name, data in SOURCES.items():
        stem, ext = name.rsplit(".", 1)
        if data:
            files[f"file-cryptor-legacy-civ.{ext}"] = module(legacy_fixed).encrypt_file(data)
            files[f"file-cryptor-legacy-riv.{ext}"] = module(legacy_random).encrypt_file(data)
            files[f"file-cryptor-v1-acrh.{ext}"] = module(aes).encrypt_file(data)
            files[f"file-legacy-riv.{ext}"] = PubNubFileCrypto(PNConfiguration()).encrypt(KEY, data)
            files[f"file-legacy-civ.{ext}"] = payload_bytes(legacy_fixed.encrypt(data))
        else:
            iv = os.urandom(16)
            files["empty-file-cryptor-legacy-civ.txt"] = pnref.seal("legacy", KEY, b"")
            files["empty-file-cryptor-legacy-riv.txt"] = pnref.seal("legacy-random-iv", KEY, b"", iv)
            files["empty-file-cryptor-v1-acrh.txt"] = pnref.seal("acrh", KEY, b"", iv)
            files["empty-file-legacy-civ.txt"] = pnref.seal("legacy", KEY, b"")
            files["empty-file-legacy-riv.txt"] = PubNubFileCrypto(PNConfiguration()).encrypt(KEY, b"")
    acrh = files["file-cryptor-v1-acrh.jpg"]
    files["file-cryptor-no-version.txt"] = b"PNED"
    files["file-cryptor-unknown-acrh.jpg"] = acrh[:4] + b"\x0a" + acrh[5:]
    files["file-cryptor-v1-short.txt"] = b"PNED\x01ACR"
    files["file-cryptor-v1-unknown.txt"] = acrh[:5] + b"ACRB" + acrh[9:]
    return files


def source_of(file):
    return "file.jpg" if file.endswith(".jpg") else ("empty-file.txt" if file.startswith("empty") else "file.txt")


def main():
    files = make_files()
    vectors = []

    def add(id, scenario, file, expect, scheme="auto", legacy_scheme=None, mode="binary", reason=None,
            plaintext=None, iv=None):
        v = {"id": id, "scheme": scheme, "key": KEY}
        if legacy_scheme:
            v["legacy_scheme"] = legacy_scheme
        v["mode"] = mode
        if iv is not None:
            v["iv"] = iv.hex()
        if plaintext is not None:
            v["plaintext_b64"] = pnref.b64(plaintext)
        if file in files:
            v["ciphertext"] = pnref.b64(files[file])
        v["expect"] = expect
        if reason:
            v["reason"] = reason
        v["scenario"] = scenario
        v["note"] = f"contract file {file}" + (f" -> {source_of(file)}" if expect == "ok" else "")
        vectors.append(v)

    # 1. AES-CBC cryptor data header can be processed (a module with only the acrh cryptor).
    s1 = "AES-CBC cryptor data header can be processed"
    for file, expect, reason in [
        ("file-legacy-civ.jpg", pnref.UNKNOWN, "unknownCryptor"),
        ("file-cryptor-no-version.txt", pnref.DECRYPTION, "malformedHeader"),
        ("file-cryptor-unknown-acrh.jpg", pnref.UNKNOWN, "unknownCryptor"),
        ("file-cryptor-v1-short.txt", pnref.DECRYPTION, "malformedHeader"),
        ("file-cryptor-v1-unknown.txt", pnref.UNKNOWN, "unknownCryptor"),
        ("file-cryptor-v1-acrh.jpg", "ok", None),
        ("empty-file-cryptor-v1-acrh.txt", "ok", None),
    ]:
        plaintext = SOURCES[source_of(file)] if expect == "ok" else None
        add(f"contract-header-{file}", s1, file, expect, legacy_scheme="none", reason=reason, plaintext=plaintext)

    # 2, 3. Data (and stream data) encrypted with the legacy cryptor is decryptable with legacy code.
    for mode, scenario, vectors_ in [
        ("binary", "Data encrypted with legacy AES-CBC cryptor is decryptable with legacy implementation",
         ("random", "constant")),
        ("stream", "Stream data encrypted with legacy AES-CBC cryptor is decryptable with legacy implementation",
         ("random",)),
    ]:
        for name in ("file.jpg", "file.txt", "empty-file.txt"):
            for vector in vectors_:
                scheme = "legacy-random-iv" if vector == "random" else "legacy"
                id = f"contract-encrypt-{mode}-{vector}-{name}"
                data = SOURCES[name]
                if not data:
                    add(id, scenario, None, pnref.ENCRYPTION, scheme=scheme, mode=mode, reason="emptyPlaintext",
                        plaintext=data)
                    continue
                file = f"file-cryptor-legacy-{'riv' if vector == 'random' else 'civ'}.{name.split('.')[1]}"
                sealed = files[file]
                iv = sealed[:16] if vector == "random" else pnref.IV0
                add(id, scenario, file, "ok", scheme=scheme, mode=mode, plaintext=data, iv=iv)

    # 4, 5. Cryptor is able to process sample files (as binary, as stream).
    sample = [
        ("legacy", "constant", "file-cryptor-legacy-civ.jpg"), ("legacy", "random", "file-cryptor-legacy-riv.jpg"),
        ("legacy", "constant", "file-cryptor-legacy-civ.txt"), ("legacy", "random", "file-cryptor-legacy-riv.txt"),
        ("legacy", "constant", "empty-file-cryptor-legacy-civ.txt"),
        ("legacy", "random", "empty-file-cryptor-legacy-riv.txt"),
        ("legacy", "constant", "file-legacy-civ.jpg"), ("legacy", "random", "file-legacy-riv.jpg"),
        ("legacy", "constant", "file-legacy-civ.txt"), ("legacy", "random", "file-legacy-riv.txt"),
        ("legacy", "constant", "empty-file-legacy-civ.txt"), ("legacy", "random", "empty-file-legacy-riv.txt"),
        ("acrh", "-", "file-cryptor-v1-acrh.jpg"), ("acrh", "-", "file-cryptor-v1-acrh.txt"),
        ("acrh", "-", "empty-file-cryptor-v1-acrh.txt"),
    ]
    for mode in ("binary", "stream"):
        scenario = f"Cryptor is able to process sample files as {mode}"
        for cryptor, vector, file in sample:
            if mode == "stream" and vector == "constant":
                continue  # the contract's stream scenario has only random-vector rows
            legacy = {"constant": "legacy", "random": "legacy-random-iv", "-": "none"}[vector]
            add(f"contract-sample-{mode}-{cryptor}-{vector}-{file}", scenario, file, "ok", legacy_scheme=legacy,
                mode=mode, plaintext=SOURCES[source_of(file)])

    # 6. A crypto module can handle encrypted data from different cryptors.
    s6 = "Crypto module can handle encrypted data from different cryptors"
    for default, vector, file in [("legacy", "constant", "file-cryptor-legacy-civ.jpg"),
                                  ("acrh", "random", "file-legacy-riv.jpg"),
                                  ("legacy", "constant", "empty-file-cryptor-legacy-civ.txt"),
                                  ("acrh", "random", "empty-file-legacy-riv.txt")]:
        legacy = "legacy" if vector == "constant" else "legacy-random-iv"
        add(f"contract-mixed-{default}-{file}", s6, file, "ok", legacy_scheme=legacy,
            plaintext=SOURCES[source_of(file)])

    check(vectors, files)
    doc = {"description": "PubNub's cross-SDK crypto module contract scenarios (every example row of "
                          "cryptor-module.feature), with files made by the real Python SDK.",
           "source": f"{FEATURE}; files: {SDK} (scripts/vectors/gen_contract_vectors.py)",
           "vectors": vectors}
    with open(OUT, "w") as f:
        f.write(render(doc))
    print(f"contract.json: {len(vectors)} vectors verified and written")


def check(vectors, files):
    """The SDK reads every file as the contract says; the independent model agrees with every vector."""
    modules = {"legacy": module(legacy_fixed, aes), "legacy-random-iv": module(legacy_random, aes),
               "none": module(aes)}
    for v in vectors:
        if v["expect"] == "ok" and v["scheme"] == "auto":
            data = base64.b64decode(v["ciphertext"])
            got = modules[v["legacy_scheme"]].decrypt_file(data)
            assert got == base64.b64decode(v["plaintext_b64"]), v["id"]
        elif v["expect"] in (pnref.UNKNOWN, pnref.DECRYPTION):
            try:
                modules["none"].decrypt_file(base64.b64decode(v.get("ciphertext", "")))
            except Exception:
                pass
            else:
                raise AssertionError(f"{v['id']}: the SDK decrypted a file the contract refuses")
        if v["scheme"] != "auto" or v.get("legacy_scheme") in (None, "legacy"):
            legacy = dict(v, scheme=v["scheme"])
            pnref.check_vector(legacy)


def render(doc):
    lines = ",\n".join(json.dumps(v, ensure_ascii=False) for v in doc["vectors"])
    head = json.dumps({k: doc[k] for k in ("description", "source")}, ensure_ascii=False)[:-1]
    return f'{head}, "vectors": [\n{lines}\n]}}\n'


if __name__ == "__main__":
    main()
