#!/usr/bin/env python3
"""pubnub_peer.py: the real PubNub Python SDK (pubnub==10.8.0 from PyPI) as a long-running interop peer.

Run it with the venv made by scripts/build/make_venv.sh:

    scripts/build/make_venv.sh                      # once: creates .venv with pubnub==10.8.0
    .venv/bin/python scripts/vectors/pubnub_peer.py   # then talk to it over stdin/stdout

PROTOCOL: one JSON object per line on stdin, exactly one JSON object per line on stdout in reply, in order.
Nothing else is ever written to stdout (SDK logging and warnings go to stderr). End of input or
{"op":"quit"} ends the process. Every request may carry "id" (any JSON value); the reply echoes it.

Replies: {"ok": true, ...results...} or {"ok": false, "error": "<type>: <message>", "category": C}
where C is "decryption", "unknown_cryptor", "encryption" (from the SDK's PubNubException text) or "other"
(the SDK raised something else: ValueError, binascii.Error, ... - itself a quirk worth knowing).

Common request fields:
  "scheme": "legacy" | "legacy-random-iv" | "acrh" | "auto"    (legacy33 is not supported by the SDK)
  "key":    the cipherKey string
  "iv_hex": optional 32 hex chars: make the SDK's random IV generator return this IV for this one request
            (the SDK code path is unchanged; only secrets.token_bytes / secrets.token_urlsafe are stubbed).
            For "via":"cryptodome" / "filecrypto" the IV must be 16 ASCII characters, as that path makes
            its IVs out of text.
  "via":    which SDK code path to use, see each op.

Ops:
  {"op":"ping"}                                   -> {"ok":true,"sdk":"10.8.0"} (the installed package version)
  {"op":"encrypt","scheme","key", "text"|"data_b64", "via"?, "iv_hex"?}
        -> {"ok":true,"data_b64": <Base64 of the output bytes>}
        via "module" (default): the SDK CryptoModule (LegacyCryptoModule for the legacy schemes, with
            use_random_initialization_vector = (scheme == "legacy-random-iv"); AesCbcCryptoModule for acrh).
            "text" goes through module.encrypt(str) (the message path); "data_b64" through
            module.encrypt_file(bytes) (the same bytes, no Base64). Empty input is refused by the SDK.
        via "cryptodome": PubNubCryptodome.encrypt(key, text) - the legacy message path the SDK uses for
            publish when only config.cipher_key is set; legacy schemes and "text" only. Its random IVs are
            16 URL-safe ASCII characters.
  {"op":"decrypt","scheme","key","data_b64", "via"?}
        -> {"ok":true,"data_b64": <Base64 of the plaintext bytes>}
        via "module" (default): module.decrypt_file(bytes) (binary mode). The SDK always looks for a PNED
            header first; without one it uses the legacy cryptor with the scheme's IV mode ("acrh" and
            "auto" fall back to the fixed IV). So "acrh" here is NOT acrh-only: that is how the SDK works.
        via "cryptor": the legacy cryptor directly (PubNubLegacyCryptor.decrypt, binary mode), no header
            detection; legacy schemes only.
  {"op":"decrypt_message","scheme","key","message": "<Base64 text>", "via"?}
        -> {"ok":true,"value": <what the SDK hands the application>}
        via "module" (default): the subscribe/history path, module.decrypt(str): decrypts, then json.loads,
            keeping the text when it does not parse. via "cryptodome": PubNubCryptodome.decrypt(key, str).
  {"op":"publish_payload","scheme","key","message": <any JSON value>, "via"?, "iv_hex"?}
        -> {"ok":true,"payload": "\"<b64>\"", "base64": "<b64>", "json": <the text that was encrypted>}
        Builds a real Publish endpoint (POST) and returns its body (build_data): json.dumps(message),
        encrypted, Base64, wrapped in quotes. Default via: "cryptodome" for legacy schemes (what the SDK
        does when config.cipher_key is set and no crypto_module), "module" for acrh (config.crypto_module =
        AesCbcCryptoModule). via "module" with a legacy scheme sets config.crypto_module = LegacyCryptoModule.
  {"op":"json_dumps","message": <any JSON value>}  -> {"ok":true,"text": <the SDK's JSON text>}
        (pubnub.utils.write_value_as_string: json.dumps with ", " / ": " separators and \\uXXXX escapes)
  {"op":"encrypt_file","scheme","key","in": path, "out": path, "via"?, "iv_hex"?}
  {"op":"decrypt_file","scheme","key","in": path, "out": path, "via"?}
        -> {"ok":true,"bytes": <size written>}
        via "module" (default): module.encrypt_file / module.decrypt_file (what send_file/download_file do
            with config.cipher_key). Scheme "legacy" gives a static-IV file without IV prefix (the SDK really
            does that when use_random_initialization_vector is False).
        via "filecrypto": PubNubFileCrypto (what send_file/download_file do with a per-call cipher_key):
            legacy random-IV file format, IV of 16 URL-safe ASCII characters; scheme "legacy-random-iv" only.
  {"op":"quit"}                                   -> {"ok":true} and exit

Example:
  $ printf '%s\\n' '{"op":"publish_payload","scheme":"legacy","key":"enigma","message":"hello"}' \\
      | .venv/bin/python scripts/vectors/pubnub_peer.py
  {"ok": true, "payload": "\\"BQ2Ywm6XtvTCGCFPTY6FJw==\\"", "base64": "BQ2Ywm6XtvTCGCFPTY6FJw==", "json": "\\"hello\\""}
"""

import base64
import contextlib
import json
import logging
import secrets
import sys
import warnings

logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")

# pubnub.pnconfiguration must be imported before pubnub.pubnub (circular import in the SDK)
from pubnub.pnconfiguration import PNConfiguration  # noqa: E402
from pubnub.pubnub import PubNub  # noqa: E402
from pubnub import utils as pn_utils  # noqa: E402
from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule, PubNubCryptodome, PubNubFileCrypto  # noqa: E402
from pubnub.crypto_core import PubNubLegacyCryptor  # noqa: E402
from pubnub.exceptions import PubNubException  # noqa: E402

try:
    from importlib.metadata import version as _dist_version
    SDK_VERSION = _dist_version("pubnub")  # PubNub.SDK_VERSION still says "10.4.0" in the 10.8.0 package
except Exception:  # pragma: no cover
    SDK_VERSION = "unknown"
LEGACY_SCHEMES = ("legacy", "legacy-random-iv")
ALL_SCHEMES = ("legacy", "legacy-random-iv", "acrh", "auto")


class Refused(Exception):
    """The request itself is wrong (not an SDK failure)."""


def config_for(scheme, key):
    if scheme not in ALL_SCHEMES:
        raise Refused(f"scheme must be one of {', '.join(ALL_SCHEMES)} (the SDK has no legacy33)")
    if not isinstance(key, str) or not key:
        raise Refused("key must be a non-empty string")
    c = PNConfiguration()
    c.publish_key = "demo"
    c.subscribe_key = "demo"
    c.user_id = "pncrypt-peer"
    c.cipher_key = key
    c.use_random_initialization_vector = scheme == "legacy-random-iv"
    return c


def module_for(scheme, config):
    return LegacyCryptoModule(config) if scheme in LEGACY_SCHEMES else AesCbcCryptoModule(config)


@contextlib.contextmanager
def fixed_iv(iv_hex):
    """Stubs the SDK's IV sources for one request. The SDK calls secrets.token_bytes(16) (crypto_core) and
    secrets.token_urlsafe(16)[:16] (crypto.PubNubCryptodome); both modules use the shared `secrets` module."""
    if iv_hex is None:
        yield
        return
    iv = bytes.fromhex(iv_hex)
    if len(iv) != 16:
        raise Refused("iv_hex must be 32 hex characters")
    saved = secrets.token_bytes, secrets.token_urlsafe

    def token_bytes(n=None):
        assert n == 16, n
        return iv

    def token_urlsafe(n=None):
        try:
            return iv.decode("ascii")
        except UnicodeDecodeError:
            raise Refused("this path makes IVs from text: iv_hex must be 16 ASCII characters") from None

    secrets.token_bytes, secrets.token_urlsafe = token_bytes, token_urlsafe
    try:
        yield
    finally:
        secrets.token_bytes, secrets.token_urlsafe = saved


def b64(data):
    return base64.b64encode(data).decode("ascii")


def input_bytes(req):
    if "data_b64" in req:
        return base64.b64decode(req["data_b64"], validate=True), False
    if "text" in req:
        return req["text"], True
    raise Refused('give "text" or "data_b64"')


def op_encrypt(req):
    scheme, via = req.get("scheme"), req.get("via", "module")
    config = config_for(scheme, req.get("key"))
    if scheme == "auto":
        raise Refused("auto is decrypt-only")
    data, is_text = input_bytes(req)
    with fixed_iv(req.get("iv_hex")):
        if via == "module":
            module = module_for(scheme, config)
            if is_text:
                out = base64.b64decode(module.encrypt(data))
            else:
                out = module.encrypt_file(data)
        elif via == "cryptodome":
            if scheme not in LEGACY_SCHEMES or not is_text:
                raise Refused('via "cryptodome" takes a legacy scheme and "text"')
            out = base64.b64decode(PubNubCryptodome(config).encrypt(config.cipher_key, data,
                                                                    use_random_iv=scheme == "legacy-random-iv"))
        else:
            raise Refused('via must be "module" or "cryptodome"')
    return {"data_b64": b64(out)}


def op_decrypt(req):
    scheme, via = req.get("scheme"), req.get("via", "module")
    config = config_for(scheme, req.get("key"))
    data = base64.b64decode(req.get("data_b64", ""), validate=True)
    if via == "module":
        out = module_for(scheme, config).decrypt_file(data)
    elif via == "cryptor":
        if scheme not in LEGACY_SCHEMES:
            raise Refused('via "cryptor" takes a legacy scheme')
        cryptor = PubNubLegacyCryptor(config.cipher_key, scheme == "legacy-random-iv")
        out = cryptor.decrypt({"data": data}, binary_mode=True)
    else:
        raise Refused('via must be "module" or "cryptor"')
    return {"data_b64": b64(out)}


def op_decrypt_message(req):
    scheme, via = req.get("scheme"), req.get("via", "module")
    config = config_for(scheme, req.get("key"))
    message = req.get("message")
    if not isinstance(message, str):
        raise Refused('"message" must be the Base64 string')
    if via == "module":
        value = module_for(scheme, config).decrypt(message)
    elif via == "cryptodome":
        if scheme not in LEGACY_SCHEMES:
            raise Refused('via "cryptodome" takes a legacy scheme')
        value = PubNubCryptodome(config).decrypt(config.cipher_key, message,
                                                 use_random_iv=scheme == "legacy-random-iv")
    else:
        raise Refused('via must be "module" or "cryptodome"')
    if isinstance(value, bytes):
        return {"value_b64": b64(value)}
    return {"value": value}


def op_publish_payload(req):
    scheme = req.get("scheme")
    config = config_for(scheme, req.get("key"))
    if scheme == "auto":
        raise Refused("auto is decrypt-only")
    via = req.get("via", "module" if scheme == "acrh" else "cryptodome")
    if via == "module":
        config.crypto_module = module_for(scheme, config)
    elif via != "cryptodome" or scheme not in LEGACY_SCHEMES:
        raise Refused('via must be "module", or "cryptodome" with a legacy scheme')
    if "message" not in req:
        raise Refused('give "message"')
    pubnub = PubNub(config)
    try:
        with fixed_iv(req.get("iv_hex")):
            body = pubnub.publish().channel("pncrypt").message(req["message"]).use_post(True).build_data()
    finally:
        with contextlib.suppress(Exception):
            pubnub.stop()
    assert body.startswith('"') and body.endswith('"'), body
    return {"payload": body, "base64": body[1:-1], "json": pn_utils.write_value_as_string(req["message"])}


def op_json_dumps(req):
    if "message" not in req:
        raise Refused('give "message"')
    return {"text": pn_utils.write_value_as_string(req["message"])}


def _file_op(req, encrypt):
    scheme, via = req.get("scheme"), req.get("via", "module")
    config = config_for(scheme, req.get("key"))
    src, dst = req.get("in"), req.get("out")
    if not isinstance(src, str) or not isinstance(dst, str):
        raise Refused('give "in" and "out" paths')
    with open(src, "rb") as f:
        data = f.read()
    with fixed_iv(req.get("iv_hex") if encrypt else None):
        if via == "module":
            module = module_for(scheme, config)
            out = module.encrypt_file(data) if encrypt else module.decrypt_file(data)
        elif via == "filecrypto":
            if scheme != "legacy-random-iv":
                raise Refused('via "filecrypto" takes scheme "legacy-random-iv"')
            fc = PubNubFileCrypto(config)
            out = fc.encrypt(config.cipher_key, data) if encrypt else fc.decrypt(config.cipher_key, data)
        else:
            raise Refused('via must be "module" or "filecrypto"')
    with open(dst, "wb") as f:
        f.write(out)
    return {"bytes": len(out)}


OPS = {
    "ping": lambda req: {"sdk": SDK_VERSION},
    "encrypt": op_encrypt,
    "decrypt": op_decrypt,
    "decrypt_message": op_decrypt_message,
    "publish_payload": op_publish_payload,
    "json_dumps": op_json_dumps,
    "encrypt_file": lambda req: _file_op(req, True),
    "decrypt_file": lambda req: _file_op(req, False),
}


def sdk_category(exc):
    text = str(exc.get_error_message() if isinstance(exc, PubNubException) else exc).lower()
    if isinstance(exc, PubNubException):
        for needle, cat in (("unknown cryptor", "unknown_cryptor"), ("decryption", "decryption"),
                            ("encryption", "encryption")):
            if needle in text:
                return cat
    return "other"


def handle(req):
    if not isinstance(req, dict):
        return {"ok": False, "error": "Refused: a request is a JSON object", "category": "request"}
    op = req.get("op")
    reply = {}
    if "id" in req:
        reply["id"] = req["id"]
    if op == "quit":
        reply["ok"] = True
        return reply
    fn = OPS.get(op)
    try:
        if fn is None:
            raise Refused(f"unknown op {op!r}; ops: {', '.join(sorted(OPS))}, quit")
        result = fn(req)
        reply["ok"] = True
        reply.update(result)
    except Refused as e:
        reply.update(ok=False, error=f"Refused: {e}", category="request")
    except PubNubException as e:
        reply.update(ok=False, error=f"PubNubException: {e.get_error_message()}", category=sdk_category(e))
    except Exception as e:  # the SDK lets other exceptions escape; report them, keep serving
        reply.update(ok=False, error=f"{type(e).__name__}: {e}", category="other")
    return reply


def main():
    out = sys.stdout
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError as e:
            reply = {"ok": False, "error": f"Refused: not JSON: {e}", "category": "request"}
            req = None
        else:
            reply = handle(req)
        out.write(json.dumps(reply, ensure_ascii=False) + "\n")
        out.flush()
        if isinstance(req, dict) and req.get("op") == "quit":
            break


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(0)
