#!/usr/bin/env python3
"""Measures the residual risk table of docs/security.md: how often a wrong key yields a plaintext, per mode
(bytes, text, message) and per number of readings, through the Python binding (libpncrypt, so the C library and
the Swift library's one decision procedure under it) and the pncrypt CLI.

    PNCRYPT_LIB=PREFIX/lib/libpncrypt.so.0 .venv/bin/python scripts/checks/residual_risk.py [--trials N]
        [--cli PATH [--cli-trials N] [--cli-only]]
    python3 scripts/checks/residual_risk.py --text-rule     # exact figures per length, no library needed

Each row decrypts a ciphertext made under one key with N other keys ("wrong-key-0", ...), the same keys every
run; acrh ciphertexts get a fresh random IV each run, so their counts move by a few around N/255. "delivered" counts trials that returned a plaintext (with
success), "ambiguous" those refused as ambiguous. With --cli, the CLI is measured too, on foreign ciphertexts:
--binary on files of an IV and one block (one process each, so keep --cli-trials small), `decrypt` (text) on as
many one-block texts, and `message decrypt --lines` on N messages of one block (auto) and of three blocks
(--scheme legacy), each in one run. Not part of the tests (it takes minutes); rerun it when the decision
changes.
"""
import argparse
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))
try:
    import pncrypt  # noqa: E402
except Exception as error:  # --text-rule needs no library; the measurements say why it is missing
    pncrypt = None
    _IMPORT_ERROR = error

KEY = "residual-risk-key"


def deterministic_blocks(label, count):
    """`count` 16-byte blocks that are the same every run (SHA-256 in counter mode over `label`)."""
    return [hashlib.sha256(f"{label}/{i}".encode()).digest()[:16] for i in range(count)]


def cases():
    """(name, module scheme, decrypt scheme, Base64 text, readings) for ciphertexts made under KEY."""
    acrh = pncrypt.CryptoModule(KEY)
    legacy = pncrypt.CryptoModule(KEY, "legacy")
    legacy33 = pncrypt.CryptoModule(KEY, "legacy33")
    one = b'"hi"'  # one block of plaintext: JSON text, UTF-8
    three = json.dumps({"text": "x" * 30}).encode()  # three blocks
    return [
        ("acrh (PNED header), 1 block", "acrh", "auto", acrh.encrypt(one), "one"),
        ("acrh (PNED header), 3 blocks", "acrh", "auto", acrh.encrypt(three), "one"),
        ("legacy, 1 block, auto", "acrh", "auto", legacy.encrypt(one), "one"),
        ("legacy, 3 blocks, auto", "acrh", "auto", legacy.encrypt(three), "two (fixed IV, IV first)"),
        ("legacy, 3 blocks, scheme legacy", "acrh", "legacy", legacy.encrypt(three), "one"),
        ("legacy33 module, 1 block", "legacy33", "auto", legacy33.encrypt(one), "one"),
        ("legacy33 module, 3 blocks", "legacy33", "auto", legacy33.encrypt(three), "one"),
        # Lists of readings (issue 59, item 7): auto's readings and legacy33's at once.
        ("legacy33, 1 block, auto,legacy33", "acrh", "auto,legacy33", legacy33.encrypt(one),
         "two (legacy, legacy33)"),
        ("legacy, 3 blocks, auto,legacy33", "acrh", "auto,legacy33", legacy.encrypt(three),
         "three (both legacy IVs, legacy33)"),
        ("acrh (PNED header), 1 block, auto,legacy33", "acrh", "auto,legacy33", acrh.encrypt(one), "one"),
    ]


def measure_library(trials):
    rows = []
    for name, module_scheme, scheme, text, readings in cases():
        counts = {"bytes": [0, 0], "text": [0, 0], "message": [0, 0]}
        wire = json.dumps(text)
        # A list of readings is the module's reading of messages too.
        listed = "," in scheme
        for k in range(trials):
            m = pncrypt.CryptoModule(f"wrong-key-{k}", module_scheme, reading=scheme if listed else None)
            for mode, as_text in (("bytes", False), ("text", True)):
                result = m.decrypt_many([text], scheme=scheme, on_error="return", text=as_text)[0]
                if not isinstance(result, pncrypt.Error):
                    counts[mode][0] += 1
                elif result.code == pncrypt.E_AMBIGUOUS:
                    counts[mode][1] += 1
            if scheme == "auto" or listed:
                _, status = m.message_decrypt(wire, on_error="marker")
                if status is None:
                    counts["message"][0] += 1
                elif status.code == pncrypt.E_AMBIGUOUS:
                    counts["message"][1] += 1
        rows.append((name, readings, counts, scheme == "auto" or listed))
    # Two wrong keys on a one-reading ciphertext: two readings, each a wrong key.
    text = pncrypt.CryptoModule(KEY).encrypt(b'"hi"')
    counts = {"bytes": [0, 0], "text": [0, 0], "message": [0, 0]}
    for k in range(trials):
        m = pncrypt.CryptoModule(f"wrong-key-{k}")
        m.add_key(f"other-wrong-key-{k}")
        for mode, as_text in (("bytes", False), ("text", True)):
            result = m.decrypt_many([text], on_error="return", text=as_text)[0]
            if not isinstance(result, pncrypt.Error):
                counts[mode][0] += 1
            elif result.code == pncrypt.E_AMBIGUOUS:
                counts[mode][1] += 1
        _, status = m.message_decrypt(json.dumps(text), on_error="marker")
        if status is None:
            counts["message"][0] += 1
        elif status.code == pncrypt.E_AMBIGUOUS:
            counts["message"][1] += 1
    rows.append(("acrh, 1 block, two wrong keys", "two (one per key)", counts, True))
    return rows


def measure_cli(cli, trials, cli_trials):
    blocks = deterministic_blocks("residual-risk-cli", max(trials, cli_trials))
    with tempfile.TemporaryDirectory() as folder:
        # --binary reads a headerless file as the legacy random-IV file format: an IV and one block is one
        # reading.
        delivered_bytes = 0
        ivs = deterministic_blocks("residual-risk-cli-iv", cli_trials)
        for i in range(cli_trials):
            path = os.path.join(folder, "block")
            with open(path, "wb") as f:
                f.write(ivs[i] + blocks[i])
            run = subprocess.run([cli, "decrypt", "--binary", "--key", KEY, "-i", path], capture_output=True)
            delivered_bytes += run.returncode == 0
        messages = []
        for size, scheme in ((1, []), (3, ["--scheme", "legacy"])):
            pool = blocks if size == 1 else deterministic_blocks(f"residual-risk-cli-{size}", size * trials)
            data = [b"".join(pool[i:i + size]) for i in range(0, size * trials, size)]
            lines = "".join(json.dumps(base64.b64encode(b).decode()) + "\n" for b in data)
            run = subprocess.run([cli, "message", "decrypt", "--lines", "--key", KEY, "--on-error", "passthrough",
                                  "--allow-failures"] + scheme, input=lines.encode(), capture_output=True)
            messages.append(trials - sum(1 for line in run.stderr.decode().splitlines() if line.startswith("{")))
        texts = "".join(base64.b64encode(b).decode() + "\n" for b in blocks[:cli_trials])
        delivered_text = 0
        for line in texts.splitlines():
            run_text = subprocess.run([cli, "decrypt", "--key", KEY, line], capture_output=True)
            delivered_text += run_text.returncode == 0
    return delivered_bytes, delivered_text, messages


# RFC 3629's UTF-8, as an automaton: the states a byte sequence can be in (0: between characters; otherwise what
# the next bytes must be), and for each state and byte the next state (None: invalid). The library's check
# (`isValidUTF8`) accepts exactly this language: no overlong forms, no surrogates, nothing above U+10FFFF.
def _utf8_step(state, byte):
    continuation = 0x80 <= byte <= 0xBF
    if state == "start":
        if byte <= 0x7F:
            return "start"
        if 0xC2 <= byte <= 0xDF:
            return "cont1"
        if byte == 0xE0:
            return "e0"
        if byte == 0xED:
            return "ed"
        if 0xE1 <= byte <= 0xEF:
            return "cont2"
        if byte == 0xF0:
            return "f0"
        if 0xF1 <= byte <= 0xF3:
            return "cont3"
        if byte == 0xF4:
            return "f4"
        return None
    ranges = {"cont1": (0x80, 0xBF, "start"), "cont2": (0x80, 0xBF, "cont1"), "cont3": (0x80, 0xBF, "cont2"),
              "e0": (0xA0, 0xBF, "cont1"), "ed": (0x80, 0x9F, "cont1"), "f0": (0x90, 0xBF, "cont2"),
              "f4": (0x80, 0x8F, "cont2")}
    low, high, after = ranges[state]
    return after if continuation and low <= byte <= high else None


def utf8_probabilities(longest):
    """[P(n random bytes are valid UTF-8) for n in 0...longest], exactly (fractions of 256^n, as floats)."""
    from fractions import Fraction
    states = ["start", "cont1", "cont2", "cont3", "e0", "ed", "f0", "f4"]
    table = {s: {} for s in states}
    for s in states:
        for byte in range(256):
            t = _utf8_step(s, byte)
            if t is not None:
                table[s][t] = table[s].get(t, 0) + 1
    vector = {s: Fraction(int(s == "start")) for s in states}
    result = [Fraction(1)]
    for _ in range(longest):
        nxt = {s: Fraction(0) for s in states}
        for s, p in vector.items():
            if p:
                for t, count in table[s].items():
                    nxt[t] += p * count / 256
        vector = nxt
        result.append(vector["start"])
    return result


def text_rule_figures(blocks=(1, 2, 3, 4, 8, 16, 64)):
    """The chance that one wrong key's reading passes the text rule (PKCS#7 padding, then UTF-8 over the whole
    decrypted body: `--plaintext text`, text mode) for a ciphertext of each length, exactly: the decrypted blocks
    of a wrong key are uniform random bytes, padding p (1 to 16) is valid with chance 256^-p and the rest must be
    valid UTF-8 (the padding bytes are ASCII). Returns [(blocks, padding only, padding and UTF-8)]."""
    utf8 = utf8_probabilities(16 * max(blocks))
    rows = []
    for n in blocks:
        padding = sum(2.0 ** (-8 * p) for p in range(1, 17))
        text = sum(2.0 ** (-8 * p) * float(utf8[16 * n - p]) for p in range(1, 17))
        rows.append((n, padding, text))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--cli", help="path of the pncrypt binary to measure too")
    parser.add_argument("--cli-trials", type=int, default=1_000, help="one process per trial: bytes and text")
    parser.add_argument("--cli-only", action="store_true", help="skip the library rows")
    parser.add_argument("--text-rule", action="store_true",
                        help="print the exact per-length chance a wrong key passes padding and UTF-8, and stop")
    args = parser.parse_args()
    if args.text_rule:
        print("ciphertext blocks (bytes) | padding | padding and UTF-8 (the text rule, --plaintext text)")
        for n, padding, text in text_rule_figures():
            print(f"{n} ({16 * n}) | {padding:.3g} | {text:.3g}")
        return
    if pncrypt is None and not args.cli_only:
        sys.exit(f"residual_risk.py: the Python binding does not load ({_IMPORT_ERROR}): set PNCRYPT_LIB")
    rows = [] if args.cli_only else measure_library(args.trials)
    if rows:
        print(f"library (C and Python over the Swift library), {args.trials} wrong keys per row:")
        print("case | readings | bytes delivered/ambiguous | text | message (JSON)")
    for name, readings, counts, message in rows:
        cells = [f"{counts[m][0]}/{counts[m][1]}" for m in ("bytes", "text")]
        cells.append(f"{counts['message'][0]}/{counts['message'][1]}" if message else "-")
        print(f"{name} | {readings} | " + " | ".join(cells))
    if args.cli:
        b, t, m = measure_cli(args.cli, args.trials, args.cli_trials)
        print(f"cli, foreign ciphertexts, one key: --binary (IV + 1 block) {b} of {args.cli_trials}; "
              f"text (1 block) {t} of {args.cli_trials}; message --lines (1 block) {m[0]} of {args.trials}")
        print(f"cli, three-block foreign ciphertexts, --scheme legacy: message --lines {m[1]} of {args.trials}")


if __name__ == "__main__":
    main()
