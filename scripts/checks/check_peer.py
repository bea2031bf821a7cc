#!/usr/bin/env python3
"""Smoke test of scripts/vectors/pubnub_peer.py, driven the way an interop test drives it (a subprocess, JSON lines).

    scripts/build/make_venv.sh && .venv/bin/python scripts/checks/check_peer.py
    .venv/bin/python scripts/checks/check_peer.py --negatives    # also: how the SDK reads Vectors/negative.json

Checks the peer's answers against the independent model (scripts/vectors/pnref.py): fixed-IV encryption in every
scheme and path is byte-identical, decryption of model output gives the plaintext, files round-trip, the
publish body of "hello" is the wire form of docs/formats.md section 4. Ends with 'N passed, N failed'.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "vectors"))
import pnref  # noqa: E402


class Peer:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "pubnub_peer.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def __call__(self, **req):
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.write('{"op":"quit"}\n')
        self.proc.stdin.flush()
        self.proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--negatives", action="store_true", help="report how the SDK reads Vectors/negative.json")
    args = ap.parse_args()
    peer = Peer()
    passed = failed = 0

    def check(name, cond, detail=""):
        nonlocal passed, failed
        if cond:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {name} {detail}")

    r = peer(op="ping", id="p")
    check("ping", r == {"id": "p", "ok": True, "sdk": "10.8.0"}, r)

    iv = bytes(range(16))
    text_iv = b"ABCDEFGHIJKLMNOP"
    for key in ("enigma", "ключ🔑"):
        for pt in ("yay!", "exactly 16 bytes", '{"a": "\\u00e9"} and more than 32 bytes of text'):
            ptb = pt.encode()
            for scheme in ("legacy", "legacy-random-iv", "acrh"):
                want = pnref.encrypt_bytes(scheme, key, ptb, pnref.IV0 if scheme == "legacy" else iv)
                for field in ({"text": pt}, {"data_b64": pnref.b64(ptb)}):
                    r = peer(op="encrypt", scheme=scheme, key=key, iv_hex=iv.hex(), **field)
                    check(f"encrypt {scheme} {pt!r}", r.get("data_b64") == pnref.b64(want), r)
                r = peer(op="decrypt", scheme=scheme, key=key, data_b64=pnref.b64(want))
                check(f"decrypt {scheme} {pt!r}", r.get("data_b64") == pnref.b64(ptb), r)
                r = peer(op="decrypt_message", scheme=scheme, key=key, message=pnref.b64(want))
                check(f"decrypt_message {scheme} {pt!r}", r.get("value") == pt, r)
            want = pnref.encrypt_bytes("legacy-random-iv", key, ptb, text_iv)
            r = peer(op="encrypt", scheme="legacy-random-iv", key=key, text=pt, via="cryptodome",
                     iv_hex=text_iv.hex())
            check(f"encrypt cryptodome {pt!r}", r.get("data_b64") == pnref.b64(want), r)

    r = peer(op="publish_payload", scheme="legacy", key="enigma", message="hello")
    check("publish hello", r.get("payload") == '"BQ2Ywm6XtvTCGCFPTY6FJw=="' and r.get("json") == '"hello"', r)
    r = peer(op="publish_payload", scheme="acrh", key="enigma", message={"a": [1, "é"]}, iv_hex=iv.hex())
    want = pnref.encrypt_bytes("acrh", "enigma", b'{"a": [1, "\\u00e9"]}', iv)
    check("publish acrh", r.get("base64") == pnref.b64(want), r)
    r = peer(op="json_dumps", message={"a": "é/", "b": [1, 2.5, None, True]})
    check("json_dumps", r.get("text") == '{"a": "\\u00e9/", "b": [1, 2.5, null, true]}', r)
    r = peer(op="encrypt", scheme="acrh", key="k", text="")
    check("acrh empty", r.get("ok") is False and r.get("category") == "encryption", r)
    r = peer(op="decrypt", scheme="acrh", key="k", data_b64=pnref.b64(b"PNED\x02ACRH\x10" + iv + b"x" * 16))
    check("version 2", r.get("category") == "unknown_cryptor", r)

    with tempfile.TemporaryDirectory() as tmp:
        src, enc, back = (os.path.join(tmp, n) for n in ("in", "enc", "back"))
        data = bytes(range(256)) * 5 + b"tail"
        with open(src, "wb") as f:
            f.write(data)
        for scheme, via in (("acrh", "module"), ("legacy-random-iv", "module"), ("legacy-random-iv", "filecrypto")):
            r1 = peer(op="encrypt_file", scheme=scheme, key="enigma", **{"in": src, "out": enc}, via=via)
            with open(enc, "rb") as f:
                got = f.read()
            r2 = peer(op="decrypt_file", scheme=scheme, key="enigma", **{"in": enc, "out": back}, via=via)
            with open(back, "rb") as f:
                check(f"file {scheme} {via}", r1.get("ok") and r2.get("ok") and f.read() == data, (r1, r2))
            check(f"file {scheme} {via} model", pnref.decrypt_bytes(scheme, "enigma", got) == data)

    if args.negatives:
        with open(os.path.join(os.path.dirname(os.path.dirname(HERE)), "Vectors", "negative.json"), encoding="utf-8") as f:
            vectors = json.load(f)["vectors"]
        agree = 0
        for v in vectors:
            if v["scheme"] == "legacy33" or v["expect"] == "encryption_error":
                continue
            try:
                data = base64.b64decode(v["ciphertext"], validate=True)
            except Exception:
                continue  # the peer takes bytes: notBase64 vectors are about the text layer
            r = peer(op="decrypt", scheme=v["scheme"], key=v["key"], data_b64=pnref.b64(data))
            want = {"decryption_error": "decryption", "unknown_cryptor": "unknown_cryptor"}[v["expect"]]
            if r.get("category") == want:
                agree += 1
            else:
                got = f"ok, {len(base64.b64decode(r['data_b64']))} bytes" if r.get("ok") else r.get("error")
                print(f"SDK differs: {v['id']}: expected {v['expect']}, SDK: {got}")
        print(f"SDK agrees with {agree} negative vectors")

    peer.close()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
