#!/usr/bin/env python3
"""Writes Vectors/records/export.json: a record export (one JSON record per line, the message in a field) whose
messages the real PubNub Python SDK (pubnub==10.8.0) encrypted, for the --field tests of the C library
(Tests/C/test_pncrypt.c, through Tests/C/records_to_lines.py) and the Python binding.

    scripts/build/make_venv.sh && .venv/bin/python scripts/vectors/gen_record_vectors.py > Vectors/records/export.json

Each message text is encrypted by the SDK's CryptoModule (module.encrypt(str), its message path; LegacyCryptoModule
with a fixed or random IV, AesCbcCryptoModule for acrh) and put in a record of one of several shapes (odd spacing,
key orders, escapes, nested fields). The texts are written as pncrypt's compact style writes them, so "decrypted" (the
record with the field replaced by its plaintext) is exactly what a field decryption gives. A record without the field
is in the export too (its "pointer" names a field it lacks, "decrypted" is null).
"""
import json
import logging
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
from pubnub.pnconfiguration import PNConfiguration  # noqa: E402
from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule  # noqa: E402

KEY = "record-export-key"
SCHEMES = ["legacy", "legacy-random-iv", "acrh"]
PLAINTEXTS = [
    '"Hello World"',
    '{"text":"héllo 漢語 😀 \\"q\\"","n":1.10}',
    '[1e400,-0.5,{"nested":{"deep":[true,null,"\\u0001"]}}]',
    "12345678901234567890",
]
# (pointer, shape): %s is the field's JSON text.
SHAPES = [
    ("/message", '{"channel":"ch","message":%s,"timetoken":"17000000000000000","publisher":"u"}'),
    ("/message", '{ "timetoken" : 17000000000000001 ,  "message" :   %s ,"meta":{"a":[1.10,1e400]} }'),
    ("/payload/text", '{"publisher":"\\u00e9\\/x","payload":{"kind":"chat", "text":%s}}'),
    ("/items/1", '{"items":[0 , %s, {"x":[]}],"a/b":1}'),
    ("/a~1b", '{"a/b": %s ,"c":null}'),
]
MISSING = '{"channel":"ch","text":"no message here","timetoken":"17000000000000002"}'


def module(scheme):
    config = PNConfiguration()
    config.publish_key = config.subscribe_key = "demo"
    config.user_id = "pncrypt-records"
    config.cipher_key = KEY
    config.use_random_initialization_vector = scheme == "legacy-random-iv"
    return AesCbcCryptoModule(config) if scheme == "acrh" else LegacyCryptoModule(config)


def main():
    import pubnub
    records = []
    for scheme in SCHEMES:
        sdk = module(scheme)
        for index, plaintext in enumerate(PLAINTEXTS):
            pointer, shape = SHAPES[(len(records)) % len(SHAPES)]
            ciphertext = sdk.encrypt(plaintext)
            assert sdk.decrypt(ciphertext) is not None
            records.append({"scheme": scheme, "pointer": pointer, "plaintext": plaintext, "ciphertext": ciphertext,
                            "record": shape % json.dumps(ciphertext), "decrypted": shape % plaintext})
            if len(records) == 2:
                records.append({"scheme": scheme, "pointer": "/message", "plaintext": None, "ciphertext": None,
                                "record": MISSING, "decrypted": None})
    version = getattr(pubnub, "__version__", None) or "10.8.0"
    out = {"description": "A record export (one JSON record per line) whose messages the real PubNub Python SDK "
                          "encrypted (CryptoModule.encrypt on the message text): legacy fixed IV, legacy random IV "
                          "and acrh. 'decrypted' is the record with the field replaced by the plaintext. Regenerate: "
                          "scripts/build/make_venv.sh && .venv/bin/python scripts/vectors/gen_record_vectors.py",
           "source": f"generated: scripts/vectors/gen_record_vectors.py (pubnub (Python SDK) {version} from PyPI)",
           "key": KEY, "records": records}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
