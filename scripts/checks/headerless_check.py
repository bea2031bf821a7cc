#!/usr/bin/env python3
"""The headerless rule at scale on texts the real PubNub Python SDK encrypts (docs/formats.md section 1).

    PNCRYPT_LIB=PREFIX/lib/libpncrypt.so.0 .venv/bin/python scripts/checks/headerless_check.py [COUNT]

COUNT texts (default 1,000,000) of 2 to 10 blocks in twelve scripts (scripts/vectors/headerless_texts.py), each encrypted by the SDK's legacy cryptor with the fixed IV and with a
random one, read with no scheme named through the batch call `decrypt_many(text=True, on_error="return")`, in
batches of 10,000. Prints, for each IV setting, how many came back whole, wrong, and ambiguous; exits 1 on any
wrong plaintext.
"""
import os
import sys
import time

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python", "tests"))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "vectors"))
import pncrypt  # noqa: E402
import headerless_texts  # noqa: E402
import test_headerless as suite  # noqa: E402  (the SDK's encryption)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    module = pncrypt.CryptoModule(suite.KEY)
    failed = False
    for random_iv in (False, True):
        whole = wrong = ambiguous = 0
        started = time.monotonic()
        for start in range(0, count, 10_000):
            texts = headerless_texts.texts(min(10_000, count - start), seed=start + (7 if random_iv else 0))
            sealed = [suite.sdk_encrypt(text, random_iv) for text in texts]
            for text, got in zip(texts, module.decrypt_many(sealed, text=True, on_error="return")):
                if isinstance(got, pncrypt.Error):
                    if got.code == pncrypt.E_AMBIGUOUS:
                        ambiguous += 1
                    else:
                        wrong += 1
                elif got == text:
                    whole += 1
                else:
                    wrong += 1
        name = "random IV" if random_iv else "fixed IV"
        print(f"{name}: {count} SDK texts: {whole} whole, {wrong} wrong, {ambiguous} ambiguous"
              f" ({time.monotonic() - started:.0f} s)")
        failed = failed or wrong > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
