#!/usr/bin/env python3
"""Writes Vectors/spec.json, Vectors/negative.json, Vectors/generated.json and (with --large) Vectors/large.json.

    python3 scripts/vectors/gen_vectors.py            # spec.json, negative.json, generated.json
    python3 scripts/vectors/gen_vectors.py --large    # also large.json
    python3 scripts/vectors/gen_vectors.py --check    # regenerate in memory and fail if any file on disk differs

Needs only the system python3 with the `cryptography` package and the `openssl` command. Output is
deterministic: no randomness, every IV and every pseudo-random byte comes from SHA-256 of a fixed label.

Every vector is verified before it is written:
  * against the model in scripts/vectors/pnref.py (cryptography): decrypt(ciphertext) == plaintext, and when `iv`
    is given encrypt(plaintext, iv) == ciphertext; negatives must fail in the stated category and reason;
  * every `ok` vector's AES-CBC payload is recomputed with `openssl enc` in a subprocess (encrypt and decrypt)
    and must match byte for byte.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # keep scripts/__pycache__ out of the work tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pnref  # noqa: E402
from pnref import IV0, b64, cbc_encrypt, cbc_encrypt_raw, encrypt_bytes, make_header  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTORS = os.path.join(ROOT, "Vectors")
GEN = "generated: scripts/vectors/gen_vectors.py (python cryptography, cross-checked with openssl enc)"


# ------------------------------------------------------------------------------------------- helpers
def prng(label: str, n: int) -> bytes:
    """Deterministic pseudo-random bytes: SHA-256(label || counter) blocks."""
    out = bytearray()
    counter = 0
    seed = label.encode("utf-8")
    while len(out) < n:
        out += hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        counter += 1
    return bytes(out[:n])


def fixed_iv(label: str) -> bytes:
    return prng("iv:" + label, 16)


TEXT_POOL = ('{"text":"Hello, PubNub!","n":[1,2.5,-3e7],"ok":true,"nil":null} Привет мир 世界 漢語 '
             'ÇÈ°∂@#$%^&*()! 🔑🚀 "quoted" \\u6f22\\u8a9e / \\/ tab\there ')


def text_of_length(n: int, start: int) -> str:
    """UTF-8 text of exactly n bytes, drawn from TEXT_POOL (multi-byte characters included)."""
    out, size, i = [], 0, start
    while size < n:
        ch = TEXT_POOL[i % len(TEXT_POOL)]
        i += 1
        b = len(ch.encode("utf-8"))
        if size + b > n:
            ch, b = "x", 1
        out.append(ch)
        size += b
    s = "".join(out)
    assert len(s.encode("utf-8")) == n
    return s


def openssl_cbc(key: bytes, iv: bytes, data: bytes, decrypt=False) -> bytes:
    cipher = {16: "-aes-128-cbc", 32: "-aes-256-cbc"}[len(key)]
    cmd = ["openssl", "enc", cipher, "-K", key.hex(), "-iv", iv.hex()]
    if decrypt:
        cmd.append("-d")
    r = subprocess.run(cmd, input=data, capture_output=True, check=True)
    return r.stdout


def openssl_check(v):
    """For an `ok` vector: recompute the AES-CBC part with the openssl CLI, both directions."""
    data = pnref.b64decode_strict(v["ciphertext"])
    pt = pnref.plaintext_of(v)
    scheme = v["scheme"]
    if scheme == "auto":
        header = pnref.parse_header(data)
        if header is None:
            scheme, iv, ct = "legacy", IV0, data
        elif header[0] == pnref.LEGACY_ID:
            scheme, iv, ct = "legacy", IV0, data[header[2]:]
        else:
            scheme, iv, ct = "acrh", header[1], data[header[2]:]
    elif scheme in ("legacy", "legacy33"):
        iv, ct = IV0, data
    elif scheme == "legacy-random-iv":
        iv, ct = data[:16], data[16:]
    else:
        _, iv, hlen = pnref.parse_header(data)
        ct = data[hlen:]
    key = pnref.scheme_key(scheme, v["key"])
    assert openssl_cbc(key, iv, pt) == ct, f"{v['id']}: openssl encrypt differs"
    assert openssl_cbc(key, iv, ct, decrypt=True) == pt, f"{v['id']}: openssl decrypt differs"


def vec(id, scheme, key, plaintext, ciphertext=None, iv=None, expect="ok", reason=None, source=None, note=None):
    """Builds a vector dict in the file's field order. plaintext: str -> `plaintext`, bytes -> `plaintext_b64`."""
    v = {"id": id, "scheme": scheme, "key": key}
    if iv is not None:
        v["iv"] = iv.hex()
    if isinstance(plaintext, str):
        v["plaintext"] = plaintext
    elif plaintext is not None:
        v["plaintext_b64"] = b64(plaintext)
    if ciphertext is not None:
        v["ciphertext"] = ciphertext if isinstance(ciphertext, str) else b64(ciphertext)
    v["expect"] = expect
    if reason:
        v["reason"] = reason
    if source:
        v["source"] = source
    if note:
        v["note"] = note
    return v


def verify_all(vectors, use_openssl=True):
    seen = set()
    for v in vectors:
        assert v["id"] not in seen, f"duplicate id {v['id']}"
        seen.add(v["id"])
        if v["expect"] != "ok":
            assert "reason" in v, v["id"]
        pnref.check_vector(v)
        if v["expect"] == "ok" and use_openssl:
            openssl_check(v)


def render(description, source, vectors, compact=False):
    head = json.dumps({"description": description, "source": source}, ensure_ascii=False)[:-1]
    if compact:
        lines = [json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in vectors]
    else:
        lines = [json.dumps(v, ensure_ascii=False) for v in vectors]
    return head + ', "vectors": [\n' + ",\n".join(lines) + "\n]}\n"


# ----------------------------------------------------------------------------------------- spec.json
S_GO = "pubnub/go utils/crypto_test.go; pubnub/c-sharp EncryptionTests.cs; pubnub/objective-c v3.4.3 PNCryptoHelperTest.m"
S_PY = "pubnub/python tests/unit/test_crypto.py"
S_SWIFT = "pubnub/swift CryptoTests.swift"
S_SWIFT_SUB = "pubnub/swift subscribe fixture"
S_OBJC33 = "pubnub/objective-c v3.4.3 PNCryptoHelperTest.m (compat branch)"

# Copied from docs/formats.md section 7 (the only hand-typed data in this script).
SPEC_LEGACY_ENIGMA = [
    ("yay", "yay!", "q/xJqqN6qbiZMXYmiQC1Fw=="),
    ("quoted-yay", '"yay!"', "Wi24KS4pcTzvyuGOHubiXg=="),
    ("empty-array", "[]", "Ns4TB41JjT2NCXaGLWSPAQ=="),
    ("empty-object", "{}", "IDjZE9BHSjcX67RddfCYYg=="),
    ("hello-world", '"Hello World"', "06UDjczkvAAYcqWfNwkOiQ=="),
    ("foo-bar", '{"foo":{"bar":"foobar"}}', "GsvkCYZoYylL5a7/DKhysDjNbwn+BtBtHj2CvzC4Y4g="),
    ("complicated", '{"this stuff":{"can get":"complicated!"}}',
     "zMqH/RTPlC8yrAZ2UhpEgLKUVzkMI2cikiaVg30AyUu7B6J0FLqCazRzDOmrsFsF"),
    ("seven-eight", '["seven","eight",{"food":"Cheeseburger","drink":"Coffee"}]',
     "A3Q8UJ2N/QmCI3x6qDcEwZZbfvNki7Ai7NWUiJiivR9YG+JSaIpFUT5dFY3AJVr5Fg8ZM+dydjDqFPyx/NZQpQ=="),
    # the 14 literal bytes "\u6f22\u8a9e" with backslashes and quotes, not the two CJK characters
    ("escaped-unicode", '"\\u6f22\\u8a9e"', "+BY5/miAA8aeuhVl4d13Kg=="),
    ("hello-world-16", '"Hello World!!!"', "rIKjG91Y47aBhhUu6HPb0E2jCXt51dlaD/cRDvvyEjE="),
]
SPEC_LEGACY33_ENIGMA = [
    ("hello-world", "Hello World", "UzIyeVhanI+QnyaNqVob2A=="),
    ("seven", "seven", "0ZRaiDryY0rdklgVVU80pQ=="),
    ("eight", "eight", "Ti5YyHCCUEjg/op0Zm393w=="),
    ("cheeseburger", "Cheeseburger", "zu9G3gtmiAxYLpehtuQngw=="),
    ("coffee", "Coffee", "vJYgOIZdbL4rRqdigAcujA=="),
    ("xcode", "X-code->ÇÈ°∂@#$%^&*()!", "e/T2o0Y2ebkCZ4kqmYniQvZ7vsyY3lryf+7VNNWgecI="),
    ("objective-c", "Objective-c", "iJcNzxkNtWw1ktbExVn9xg=="),
]


def spec_vectors():
    out = []
    for name, pt, ct in SPEC_LEGACY_ENIGMA:
        out.append(vec(f"spec-legacy-{name}", "legacy", "enigma", pt, ct, IV0, source=S_GO))
    out.append(vec("spec-legacy-random-iv-yay", "legacy-random-iv", "enigma", "yay!",
                   "MTIzNDU2Nzg5MDEyMzQ1NjdnONoCgo0wbuMGGMmfMX0=", b"1234567890123456", source=S_SWIFT))

    def iv_prefix(ct):  # random-IV output: IV || ciphertext
        return pnref.b64decode_strict(ct)[:16]

    def iv_header(ct):  # acrh output: 10-byte header, 16-byte IV, ciphertext
        return pnref.b64decode_strict(ct)[10:26]

    ct = "OtYBNABjeAZ9X4A91FQLFBo4th8et/pIAsiafUSw2+L8iWqJlte8x/eCL5cyjzQa"
    out.append(vec("spec-legacy-mycipherkey", "legacy", "myCipherKey",
                   "Hello world encrypted with legacyModuleStaticIv", ct, IV0, source=S_PY))
    ct = "T3J9iXI87PG9YY/lhuwmGRZsJgA5y8sFLtUpdFmNgrU1IAitgAkVok6YP7lacBiVhBJSJw39lXCHOLxl2d98Bg=="
    out.append(vec("spec-legacy-random-iv-mycipherkey", "legacy-random-iv", "myCipherKey",
                   "Hello world encrypted with legacyModuleRandomIv", ct, iv_prefix(ct), source=S_PY))
    ct = ("UE5FRAFBQ1JIEKzlyoyC/jB1hrjCPY7zm+X2f7skPd0LBocV74cRYdrkRQ2BPKeA22gX/98pMqvcZtFB6TCGp3Zf1M8F730nlfk=")
    out.append(vec("spec-acrh-mycipherkey", "acrh", "myCipherKey",
                   "Hello world encrypted with aesCbcModule", ct, iv_header(ct), source=S_PY))
    ct = "UE5FRAFBQ1JIEAAAAAAAAAAAAAAAAAAAAABbjKTFb0xLzByXntZkq2G7lHIGg5ZdQd73GwVG6o3ftw=="
    out.append(vec("spec-acrh-mycipherkey-zero-iv", "acrh", "myCipherKey",
                   "We are the knights who say NI!", ct, iv_header(ct), source=S_PY))
    ct = "UE5FRAFBQ1JIEGOmGQMIMXD+91V+5hTxm7p7uEUhEEYohYLQz5fEGITC"
    out.append(vec("spec-acrh-pubnubenigma", "acrh", "pubnubenigma", '"Test Message"', ct, iv_header(ct),
                   source=S_SWIFT_SUB))
    for name, pt, ct in SPEC_LEGACY33_ENIGMA:
        out.append(vec(f"spec-legacy33-{name}", "legacy33", "enigma", pt, ct, IV0, source=S_OBJC33))
    # the same public messages read through `auto` (no header -> legacy fixed IV; header -> acrh)
    for v in list(out):
        if v["scheme"] in ("legacy", "acrh"):
            a = {k: v[k] for k in ("scheme", "key", "plaintext", "ciphertext", "expect", "source")}
            a = {"id": v["id"].replace("spec-", "spec-auto-", 1), **a, "scheme": "auto"}
            out.append(a)
    return out


# ------------------------------------------------------------------------------------- negative.json
NEG_KEY = "enigma"
WRONG_KEYS = [f"wrong-key-{i}" for i in range(64)]


def first_failing(scheme, data, keys=WRONG_KEYS):
    """The first key for which the model's decryption fails (bad padding), so the vector is a sure negative."""
    for k in keys:
        try:
            pnref.decrypt_bytes(scheme, k, data)
        except pnref.PNError:
            return k
    raise AssertionError("no failing key found")


def negative_vectors():
    out = []

    def neg(id, scheme, ct, expect, reason, key=NEG_KEY, note=None, plaintext=None, iv=None):
        out.append(vec(f"neg-{id}", scheme, key, plaintext, ct, iv=iv, expect=expect, reason=reason, note=note))

    D, U, E = pnref.DECRYPTION, pnref.UNKNOWN, pnref.ENCRYPTION
    msg = b'{"text":"negative vectors"}'  # 27 bytes -> 32 bytes of ciphertext
    iv = fixed_iv("negative")
    legacy = encrypt_bytes("legacy", NEG_KEY, msg)
    legacy33 = encrypt_bytes("legacy33", NEG_KEY, msg)
    lrandom = encrypt_bytes("legacy-random-iv", NEG_KEY, msg, iv)
    acrh = encrypt_bytes("acrh", NEG_KEY, msg, iv)
    header, ct = acrh[:26], acrh[26:]
    assert len(header) == 26 and len(ct) == 32
    by_scheme = {"legacy": legacy, "legacy33": legacy33, "legacy-random-iv": lrandom, "acrh": acrh, "auto": legacy}
    all5 = ("legacy", "legacy-random-iv", "acrh", "legacy33", "auto")

    # --- not Base64 (strict standard alphabet with '=' padding)
    for s in all5:
        good = b64(by_scheme[s])
        neg(f"{s}-notbase64-bad-char", s, good[:8] + "*" + good[9:], D, "notBase64",
            note="'*' is not in the Base64 alphabet")
        neg(f"{s}-notbase64-words", s, "this is not base64!", D, "notBase64")
        neg(f"{s}-notbase64-pad-in-middle", s, good[:6] + "==" + good[8:], D, "notBase64")
    unpadded = b64(legacy)
    assert unpadded.endswith("=")
    neg("legacy-notbase64-missing-padding", "legacy", unpadded.rstrip("="), D, "notBase64",
        note="length not a multiple of 4: padding is required")
    neg("legacy-notbase64-extra-padding", "legacy", unpadded + "=", D, "notBase64")
    urlsafe_src = next(b64(encrypt_bytes("legacy", NEG_KEY, msg + bytes([i]))) for i in range(256)
                       if "+" in b64(encrypt_bytes("legacy", NEG_KEY, msg + bytes([i])))
                       and "/" in b64(encrypt_bytes("legacy", NEG_KEY, msg + bytes([i]))))
    neg("legacy-notbase64-urlsafe-alphabet", "legacy", urlsafe_src.replace("+", "-").replace("/", "_"), D,
        "notBase64", note="URL-safe alphabet ('-', '_') is not accepted: standard alphabet only")

    # --- empty input
    neg("legacy-empty-input", "legacy", "", D, "wrongKeyOrCorrupt")
    neg("legacy33-empty-input", "legacy33", "", D, "wrongKeyOrCorrupt")
    neg("legacy-random-iv-empty-input", "legacy-random-iv", "", D, "wrongKeyOrCorrupt")
    neg("acrh-empty-input", "acrh", "", D, "malformedHeader", note="no PNED header at all")
    neg("auto-empty-input", "auto", "", D, "wrongKeyOrCorrupt", note="< 4 bytes: not a header, legacy fails")

    # --- unaligned / truncated ciphertexts
    neg("legacy-unaligned-17", "legacy", legacy[:17], D, "wrongKeyOrCorrupt")
    neg("legacy-unaligned-plus-1", "legacy", legacy + b"\x00", D, "wrongKeyOrCorrupt")
    neg("legacy-unaligned-15", "legacy", legacy[:15], D, "wrongKeyOrCorrupt")
    neg("legacy33-unaligned-31", "legacy33", legacy33[:31], D, "wrongKeyOrCorrupt")
    neg("legacy-random-iv-unaligned", "legacy-random-iv", lrandom[:-1], D, "wrongKeyOrCorrupt")
    neg("legacy-random-iv-shorter-than-iv", "legacy-random-iv", lrandom[:10], D, "wrongKeyOrCorrupt")
    neg("legacy-random-iv-iv-only", "legacy-random-iv", lrandom[:16], D, "wrongKeyOrCorrupt",
        note="16-byte IV and no ciphertext")
    neg("acrh-unaligned", "acrh", acrh[:-1], D, "wrongKeyOrCorrupt")
    neg("acrh-unaligned-plus-1", "acrh", acrh + b"\x00", D, "wrongKeyOrCorrupt")
    neg("auto-unaligned", "auto", legacy[:-1], D, "wrongKeyOrCorrupt")
    neg("auto-acrh-unaligned", "auto", acrh[:-1], D, "wrongKeyOrCorrupt")

    # --- wrong key (the key is chosen so that the padding check certainly fails)
    for s in all5:
        data = by_scheme[s]
        neg(f"{s}-wrong-key", s, data, D, "wrongKeyOrCorrupt", key=first_failing(s, data),
            note="encrypted with key 'enigma'")
    neg("auto-acrh-wrong-key", "auto", acrh, D, "wrongKeyOrCorrupt", key=first_failing("auto", acrh),
        note="encrypted with key 'enigma'")

    # --- bad PKCS#7 padding with the right key (built by encrypting unpadded blocks)
    bad_pads = {
        "pad-byte-0": b"sixteen byte msg" + b"fifteen bytes..\x00",
        "pad-byte-17": b"sixteen byte msg" + b"fifteen bytes..\x11",
        "pad-bytes-inconsistent": b"sixteen byte msg" + b"twelve bytes\x02\x04\x04\x04",
        "pad-byte-255": b"sixteen byte msg" + b"fifteen bytes..\xff",
    }
    pad_note = "strict PKCS#7: the Python SDK's legacy decrypt does not check padding bytes and accepts this"
    for name, blocks in bad_pads.items():
        neg(f"legacy-{name}", "legacy", cbc_encrypt_raw(pnref.legacy_key(NEG_KEY), IV0, blocks), D,
            "wrongKeyOrCorrupt", note=pad_note)
        neg(f"legacy33-{name}", "legacy33", cbc_encrypt_raw(pnref.legacy33_key(NEG_KEY), IV0, blocks), D,
            "wrongKeyOrCorrupt")
        neg(f"legacy-random-iv-{name}", "legacy-random-iv",
            iv + cbc_encrypt_raw(pnref.legacy_key(NEG_KEY), iv, blocks), D, "wrongKeyOrCorrupt", note=pad_note)
        neg(f"acrh-{name}", "acrh", header + cbc_encrypt_raw(pnref.acrh_key(NEG_KEY), iv, blocks), D,
            "wrongKeyOrCorrupt")

    # --- the wrong scheme for the data
    neg("acrh-on-legacy-data", "acrh", legacy, U, "unknownCryptor",
        note="explicit acrh decrypts only PNED data: headerless data needs the legacy cryptor (contract scenarios)")
    neg("acrh-on-legacy-random-iv-data", "acrh", lrandom, U, "unknownCryptor")
    for s, data, name in (("legacy", acrh, "acrh"), ("legacy", legacy33, "legacy33"),
                          ("legacy33", legacy, "legacy"), ("legacy-random-iv", acrh, "acrh")):
        try:
            pnref.decrypt_bytes(s, NEG_KEY, data)
            raise AssertionError(f"{s} on {name} data happens to decrypt: pick another message")
        except pnref.PNError:
            pass
        neg(f"{s}-on-{name}-data", s, data, D, "wrongKeyOrCorrupt")

    # --- rule 3: the header cut short at every length from 4 to 25 bytes
    for n in range(4, 26):
        for s in ("acrh", "auto"):
            neg(f"{s}-header-cut-{n}", s, acrh[:n], D, "malformedHeader",
                note=f"the first {n} bytes of a 26-byte PNED/ACRH header")
    # --- rule 5: complete header, nothing after it
    for s in ("acrh", "auto"):
        neg(f"{s}-header-only", s, header, D, "wrongKeyOrCorrupt", note="rule 5: empty ciphertext after the header")
        neg(f"{s}-long-form-header-only", s, make_header(iv, long_form=True), D, "wrongKeyOrCorrupt",
            note="rule 5, with the 0xFF 00 10 length form")

    # --- rule 2: unsupported versions
    for s in ("acrh", "auto"):
        for ver in (0, 2, 255):
            neg(f"{s}-version-{ver}", s, make_header(iv, version=ver) + ct, U, "unknownCryptor",
                note="rule 2" + ("; the Python SDK only rejects versions > 1 and accepts 0" if ver == 0 else ""))
        neg(f"{s}-version-2-cut", s, b"PNED\x02", U, "unknownCryptor",
            note="rule 2 is checked as soon as the version byte is read (Swift, Go and Python SDKs agree)")

    # --- rule 4: unknown cryptor ids
    for s in ("acrh", "auto"):
        neg(f"{s}-cryptor-acrb", s, make_header(iv, cryptor_id=b"ACRB") + ct, U, "unknownCryptor")
        neg(f"{s}-cryptor-ascii-0000", s, make_header(b"", cryptor_id=b"0000") + legacy, U, "unknownCryptor",
            note="ASCII '0000' is not the legacy id (four zero bytes); the Python SDK alone maps it to legacy")
        neg(f"{s}-cryptor-ffffffff", s, make_header(iv, cryptor_id=b"\xff\xff\xff\xff") + ct, U, "unknownCryptor")
        neg(f"{s}-cryptor-lowercase-acrh", s, make_header(iv, cryptor_id=b"acrh") + ct, U, "unknownCryptor")
    neg("acrh-cryptor-legacy-id", "acrh", make_header(b"", cryptor_id=pnref.LEGACY_ID) + legacy, U,
        "unknownCryptor", note="explicit acrh accepts only the ACRH cryptor; `auto` decrypts this as legacy")

    # --- metadata longer than the data / the 0xFF length form cut short
    for s in ("acrh", "auto"):
        neg(f"{s}-metadata-longer-than-data", s, header[:9] + bytes([64]) + iv + ct, D, "malformedHeader",
            note="announces 64 metadata bytes, 48 follow")
        neg(f"{s}-metadata-254-short", s, header[:9] + bytes([254]) + iv + ct, D, "malformedHeader")
        neg(f"{s}-long-form-65535-short", s, header[:9] + b"\xff\xff\xff" + iv + ct, D, "malformedHeader")
        neg(f"{s}-long-form-missing-both", s, header[:9] + b"\xff", D, "malformedHeader",
            note="0xFF announces two more length bytes; none follow")
        neg(f"{s}-long-form-missing-one", s, header[:9] + b"\xff\x00", D, "malformedHeader")
    # --- ACRH metadata (the IV) must be exactly 16 bytes
    for s in ("acrh", "auto"):
        for n in (0, 15, 17, 32):
            meta = prng("meta", n)
            neg(f"{s}-acrh-metadata-{n}", s, header[:9] + bytes([n]) + meta + ct, D, "malformedHeader",
                note=f"ACRH metadata is the 16-byte IV; {n} bytes announced and present")
        neg(f"{s}-acrh-long-form-metadata-17", s, header[:9] + b"\xff\x00\x11" + prng("meta", 17) + ct, D,
            "malformedHeader")

    # --- auto on fewer than 4 bytes: not a header, so legacy, which fails
    for n in (1, 2, 3):
        neg(f"auto-{n}-bytes", "auto", legacy[:n], D, "wrongKeyOrCorrupt")
    neg("auto-partial-sentinel", "auto", b"PNE", D, "wrongKeyOrCorrupt", note="3 bytes: too short for a header")
    neg("legacy-sentinel-only", "legacy", b"PNED", D, "wrongKeyOrCorrupt")

    # --- empty data cannot be encrypted, in any scheme (docs/formats.md section 3, PubNub's contract scenarios)
    for s in pnref.SCHEMES:
        neg(f"{s}-encrypt-empty", s, None, E, "emptyPlaintext", plaintext="")
        neg(f"{s}-encrypt-empty-b64", s, None, E, "emptyPlaintext", plaintext=b"")
    neg("acrh-encrypt-empty-with-iv", "acrh", None, E, "emptyPlaintext", plaintext="", iv=iv)
    return out


# ------------------------------------------------------------------------------------ generated.json
GEN_KEYS = [
    ("ascii", "enigma"),
    ("one-char", "k"),
    ("unicode", "ключ🔑"),
    ("punct", ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~ \\u00e9'),
    ("long", "a-rather-long-cipher-key-with-many-characters-" * 6 + "end"),
]
GEN_LENGTHS = [0, 1, 15, 16, 17, 31, 32, 33, 48, 255, 256, 1000]


def gen_iv(label: str, n: int) -> bytes:
    specials = [bytes(16), b"\xff" * 16, b"1234567890123456"]
    return specials[n % 3] if n in (0, 16, 17) else fixed_iv(label)


def generated_vectors():
    out = []
    for scheme in pnref.SCHEMES:
        for ki, (kname, key) in enumerate(GEN_KEYS):
            for n in GEN_LENGTHS:
                for kind in ("text", "bin"):
                    vid = f"gen-{scheme}-{kname}-{kind}-{n}"
                    pt = text_of_length(n, start=7 * ki + n) if kind == "text" else prng(vid, n)
                    ptb = pt.encode("utf-8") if isinstance(pt, str) else pt
                    iv = IV0 if scheme in ("legacy", "legacy33") else gen_iv(vid, n)
                    if n == 0:
                        # Empty data cannot be encrypted; what older clients wrote for it still decrypts.
                        out.append(vec(vid, scheme, key, pt, None, iv, expect=pnref.ENCRYPTION,
                                       reason="emptyPlaintext"))
                        out.append(vec(vid + "-decrypt", scheme, key, pt, pnref.seal(scheme, key, ptb, iv), iv,
                                       note="one block of padding: decrypts to nothing; decrypt only"))
                        continue
                    out.append(vec(vid, scheme, key, pt, encrypt_bytes(scheme, key, ptb, iv), iv))
    # auto: header-less data is legacy fixed-IV, PNED/ACRH data is acrh
    for v in list(out):
        if v["expect"] == "ok" and v["scheme"] in ("legacy", "acrh") and v["id"].endswith(("-1", "-33", "-1000")):
            a = {"id": v["id"].replace("gen-", "gen-auto-", 1), "scheme": "auto"}
            a.update({k: v[k] for k in v if k not in ("id", "scheme", "iv")})
            out.append(a)
    # header edge cases that must be readable
    key = "enigma"
    for i, text in enumerate(['"long form length"', "x" * 40]):
        iv = fixed_iv(f"long-form-{i}")
        data = make_header(iv, long_form=True) + cbc_encrypt(pnref.acrh_key(key), iv, text.encode())
        assert data[9:12] == b"\xff\x00\x10"
        for s in ("acrh", "auto"):
            out.append(vec(f"gen-{s}-header-long-form-{i}", s, key, text, data,
                           note="metadata length in the 3-byte form FF 00 10; decrypt only (writers use 10)"))
    for s in ("acrh", "auto"):
        iv = fixed_iv(f"{s}-empty")
        out.append(vec(f"gen-{s}-decrypts-to-empty", s, key, "", pnref.seal("acrh", key, b"", iv),
                       note="acrh data that decrypts to nothing is empty (contract: empty-file-cryptor-v1-acrh)"))
    legacy_data = encrypt_bytes("legacy", key, b'"legacy behind a header"')
    out.append(vec("gen-auto-legacy-id-header", "auto", key, '"legacy behind a header"',
                   make_header(b"", cryptor_id=pnref.LEGACY_ID) + legacy_data,
                   note="PNED 01 00000000 00 + legacy ciphertext: the Swift and Go SDKs map id 00000000 to the "
                        "legacy cryptor; `auto` decrypts the rest as legacy fixed-IV"))
    return out


# ---------------------------------------------------------------------------------------- large.json
LARGE_SIZE = 1024 * 1024 + 5


def large_vectors():
    out = []
    for scheme in ("legacy-random-iv", "acrh"):
        vid = f"large-{scheme}-1mib-plus-5"
        pt = prng("large:" + scheme, LARGE_SIZE)
        iv = fixed_iv(vid)
        out.append(vec(vid, scheme, "large-vector-key", pt, encrypt_bytes(scheme, "large-vector-key", pt, iv), iv))
    return out


# ---------------------------------------------------------------------------------------------- main
FILES = {
    "spec.json": ("Every public test vector listed in docs/formats.md section 7, copied as written and verified with "
                  "python cryptography and openssl; plus the same messages read through `auto`.",
                  "docs/formats.md section 7", spec_vectors, False),
    "negative.json": ("Inputs that must fail: not Base64, cipher failures (unaligned, wrong key, bad padding), "
                      "every PNED header rule of docs/formats.md section 2, empty inputs, acrh empty-plaintext "
                      "encryption.",
                      GEN, negative_vectors, False),
    "generated.json": ("Every scheme at plaintext lengths 0..1000 with several keys, text and binary plaintexts and "
                       "fixed IVs, plus `auto` reads and header forms that must be accepted.",
                       GEN, generated_vectors, False),
    "large.json": (f"Multi-megabyte vectors: {LARGE_SIZE} bytes (1 MiB + 5) of deterministic pseudo-random data.",
                   GEN, large_vectors, True),
}


def build(name):
    description, source, fn, compact = FILES[name]
    vectors = fn()
    verify_all(vectors)
    for v in vectors:
        if v.get("source") == source:
            del v["source"]
    return render(description, source, vectors, compact=compact), vectors


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--large", action="store_true", help="also write Vectors/large.json (slower)")
    ap.add_argument("--only", choices=sorted(FILES), action="append", help="write only this file (repeatable)")
    ap.add_argument("--check", action="store_true", help="do not write; fail if a file on disk differs")
    args = ap.parse_args()
    names = args.only or [n for n in FILES if n != "large.json" or args.large]
    ids = {}
    status = 0
    for name in names:
        text, vectors = build(name)
        for v in vectors:
            assert v["id"] not in ids, f"id {v['id']} in {name} and {ids[v['id']]}"
            ids[v["id"]] = name
        path = os.path.join(VECTORS, name)
        if args.check:
            with open(path, encoding="utf-8") as f:
                same = f.read() == text
            print(f"{name}: {len(vectors)} vectors, {'up to date' if same else 'DIFFERS'}")
            status |= 0 if same else 1
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"{name}: {len(vectors)} vectors verified and written")
    sys.exit(status)


if __name__ == "__main__":
    main()
