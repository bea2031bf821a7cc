#!/usr/bin/env python3
"""pubnub_python.py: the PubNub Python SDK (pubnub==10.8.0) as a `pncrypt conformance` peer.

    scripts/build/make_venv.sh                                    # once: .venv with pubnub==10.8.0
    pncrypt conformance --peer ".venv/bin/python examples/peers/pubnub_python.py" --junit report.xml

Measured so with Python 3.11 (the venv's packages from PyPI, as CI has them): 6,108 checks agree, 0 fail,
638 skipped, 27 known differences (DIFFERENCES below). CI runs it (CLIConformanceTests).

The protocol is docs/conformance.md: one JSON request a line on standard input, one JSON answer a line on standard
output, binary values as Base64. Every answer echoes the request's "id". Only the SDK's own calls do the
cryptography and the JSON; this file maps requests onto them:

  scheme "legacy", "legacy-random-iv": the SDK's legacy cryptor (PubNubLegacyCryptor, random IV off or on) in a
      module of its own (PubNubCryptoModule), so an explicit scheme reads only its own format;
  scheme "acrh": a module with only the SDK's AES-CBC cryptor (PubNubAesCbcCryptor): headerless data is an
      unknown cryptor, as the protocol defines; the SDK's AesCbcCryptoModule would read it as legacy;
  scheme "auto": the SDK's LegacyCryptoModule (legacy_scheme "legacy" or "legacy-random-iv": how its legacy
      cryptor is set) or the AES-CBC-only module (legacy_scheme "none"); "rule" is not something the SDK does.
  publish: a real Publish endpoint's POST body (build_data): config.cipher_key for the legacy schemes (the SDK's
      default path, PubNubCryptodome), config.crypto_module = AesCbcCryptoModule for acrh.
  A fixed IV ("iv") is given to the SDK by replacing its random sources (secrets.token_bytes, token_urlsafe) for
  that one request; the SDK's code path is unchanged.
Nothing but answers goes to standard output: the SDK's logging is off and warnings are silenced.
"""

import base64
import binascii
import contextlib
import json
import logging
import secrets
import sys
import warnings

logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")

# pubnub.pnconfiguration must be imported before pubnub.pubnub (a circular import in the SDK)
from pubnub.pnconfiguration import PNConfiguration  # noqa: E402
from pubnub.pubnub import PubNub  # noqa: E402
from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule, PubNubCryptoModule  # noqa: E402
from pubnub.crypto_core import PubNubAesCbcCryptor, PubNubLegacyCryptor  # noqa: E402
from pubnub.exceptions import PubNubException  # noqa: E402
from pubnub.models.consumer.history import PNFetchMessagesResult, PNHistoryResult  # noqa: E402
from pubnub.models.server.subscribe import SubscribeMessage  # noqa: E402
from pubnub.workers import BaseMessageWorker  # noqa: E402

try:
    from importlib.metadata import version as _dist_version
    SDK_VERSION = _dist_version("pubnub")
except Exception:  # pragma: no cover
    SDK_VERSION = "unknown"

SCHEMES = ["legacy", "legacy-random-iv", "acrh", "auto"]
LEGACY = ("legacy", "legacy-random-iv")
OPS = ["hello", "encrypt", "decrypt", "encrypt_text", "decrypt_text", "publish", "decrypt_message",
       "decrypt_envelope"]


class Refused(Exception):
    """The request is wrong for this adapter (not an SDK failure)."""


class Unsupported(Exception):
    """The SDK has no way to do what is asked."""


def config_for(key, random_iv=False):
    if not isinstance(key, str) or not key:
        raise Refused("key must be a non-empty string")
    c = PNConfiguration()
    c.publish_key = "demo"
    c.subscribe_key = "demo"
    c.user_id = "pncrypt-conformance"
    c.cipher_key = key
    c.use_random_initialization_vector = random_iv
    return c


def module_for(req, encrypting=False):
    """The SDK module for the request's scheme (see the docstring)."""
    scheme, key = req.get("scheme"), req.get("key")
    if scheme in LEGACY:
        cryptor = PubNubLegacyCryptor(key, scheme == "legacy-random-iv")
        return PubNubCryptoModule({PubNubLegacyCryptor.CRYPTOR_ID: cryptor}, cryptor)
    if scheme == "acrh":
        cryptor = PubNubAesCbcCryptor(key)
        return PubNubCryptoModule({PubNubAesCbcCryptor.CRYPTOR_ID: cryptor}, cryptor)
    if scheme == "auto":
        if encrypting:
            raise Refused("auto is decrypt-only")
        legacy = req.get("legacy_scheme", "legacy")
        if legacy in LEGACY:
            return LegacyCryptoModule(config_for(key, legacy == "legacy-random-iv"))
        if legacy == "none":
            return module_for({"scheme": "acrh", "key": key})
        raise Unsupported(f"legacy_scheme {legacy!r}: the SDK reads headerless data with one legacy cryptor")
    raise Unsupported(f"scheme {scheme!r}")


@contextlib.contextmanager
def fixed_iv(iv_hex):
    """The SDK's random IV sources return `iv_hex` for one request."""
    if iv_hex is None:
        yield
        return
    iv = bytes.fromhex(iv_hex)
    if len(iv) != 16:
        raise Refused("iv must be 32 hex digits")
    saved = secrets.token_bytes, secrets.token_urlsafe

    def token_urlsafe(n=None):
        try:
            return iv.decode("ascii")
        except UnicodeDecodeError:
            raise Unsupported("this SDK path makes IVs out of text: the IV must be 16 ASCII characters") from None

    secrets.token_bytes, secrets.token_urlsafe = (lambda n=None: iv), token_urlsafe
    try:
        yield
    finally:
        secrets.token_bytes, secrets.token_urlsafe = saved


def b64(data):
    return base64.b64encode(data).decode("ascii")


def unb64(text):
    if not isinstance(text, str):
        raise Refused('"data" must be a Base64 string')
    return base64.b64decode(text, validate=True)


def op_encrypt(req):
    module = module_for(req, encrypting=True)
    with fixed_iv(req.get("iv")):
        return {"data": b64(module.encrypt_file(unb64(req.get("data"))))}


def op_decrypt(req):
    return {"data": b64(module_for(req).decrypt_file(unb64(req.get("data"))))}


def op_encrypt_text(req):
    text = req.get("text")
    if not isinstance(text, str):
        raise Refused('"text" must be a string')
    module = module_for(req, encrypting=True)
    with fixed_iv(req.get("iv")):
        return {"data": module.encrypt(text)}


def op_decrypt_text(req):
    # The SDK's string path hands over json.loads of the plaintext when that parses, else the text: a "value".
    return {"value": module_for(req).decrypt(req.get("data"))}


def op_publish(req):
    scheme = req.get("scheme")
    if scheme not in ("legacy", "legacy-random-iv", "acrh"):
        raise Unsupported(f"publish with scheme {scheme!r}")
    try:
        message = json.loads(req.get("message"))
    except (TypeError, ValueError) as e:
        raise Refused(f'"message" must be JSON text: {e}') from None
    config = config_for(req.get("key"), scheme == "legacy-random-iv")
    if scheme == "acrh":
        config.crypto_module = AesCbcCryptoModule(config)
    pubnub = PubNub(config)
    try:
        with fixed_iv(req.get("iv")):
            body = pubnub.publish().channel("conformance").message(message).use_post(True).build_data()
    finally:
        with contextlib.suppress(Exception):
            pubnub.stop()
    return {"body": body}


def sdk_for(req):
    """A PubNub instance configured as a receiving application of that scheme would be."""
    scheme = req.get("scheme")
    if scheme not in ("legacy", "legacy-random-iv", "acrh"):
        raise Unsupported(f"receiving with scheme {scheme!r}")
    config = config_for(req.get("key"), scheme == "legacy-random-iv")
    if scheme == "acrh":
        config.crypto_module = AesCbcCryptoModule(config)
    return config, PubNub(config)


def receive(pubnub, payload):
    """The subscribe worker's decryption of one payload: (value, error)."""
    worker = BaseMessageWorker(pubnub)
    worker._listener_manager = None
    return worker._process_message(payload)


def op_decrypt_message(req):
    try:
        payload = json.loads(req.get("message"))
    except (TypeError, ValueError) as e:
        raise Refused(f'"message" must be JSON text: {e}') from None
    _, pubnub = sdk_for(req)
    try:
        value, error = receive(pubnub, payload)
    finally:
        with contextlib.suppress(Exception):
            pubnub.stop()
    return {"message": value, "error": error is not None}


def op_decrypt_envelope(req):
    fmt, text = req.get("format"), req.get("body")
    if not isinstance(text, str):
        raise Refused('"body" must be the response text')
    body = json.loads(text)
    config, pubnub = sdk_for(req)
    messages = []
    try:
        if fmt == "v2":
            if config.crypto_module is not None:
                # endpoints/history.py passes config.crypto, a module here, to PNHistoryItemResult.decrypt, which
                # calls crypto.decrypt(cipher_key, entry): a module's decrypt takes one argument (a TypeError).
                raise Unsupported("pubnub 10.8.0's history (v2) cannot decrypt with a crypto module (acrh)")
            result = PNHistoryResult.from_json(body, crypto=config.crypto, include_timetoken=True,
                                               include_meta=True, cipher=config.cipher_key)
            messages = [{"message": m.entry, "error": m.error is not None} for m in result.messages]
        elif fmt == "v3":
            result = PNFetchMessagesResult.from_json(body, include_message_actions=True,
                                                     crypto_module=pubnub.crypto)
            for items in result.channels.values():
                messages += [{"message": m.message, "error": m.error is not None} for m in items]
        elif fmt == "subscribe":
            for item in body.get("m", []):
                message = SubscribeMessage.from_json(item)
                if "-pnpres" in (message.channel or "") or message.type not in (None, 0, 4):
                    continue
                value, error = receive(pubnub, message.payload)
                messages.append({"message": value, "error": error is not None})
        else:
            raise Unsupported(f"format {fmt!r}")
    finally:
        with contextlib.suppress(Exception):
            pubnub.stop()
    return {"messages": messages}


# Where pubnub 10.8.0 differs from the vectors, each with the SDK code that does it (docs/conformance.md).
# Each difference names the checks it covers as FAMILY/PATTERN (the family written out: a vector file's name,
# "publish", "messages" or "envelopes"; "*" any run of characters) and the one outcome it excuses
# (docs/conformance.md, "Known differences"): a check it covers that disagrees in another way still fails.
DIFFERENCES = [
    {"reason": "the legacy cryptor's depad cuts as many bytes as the last byte says without checking the PKCS#7 "
               "padding (crypto_core.py, PubNubLegacyCryptor.depad): bad padding and most wrong keys decrypt "
               "to something in binary mode",
     "outcome": "accepts",
     "checks": ["negative/neg-legacy-pad-*/must-fail", "negative/neg-legacy-random-iv-pad-*/must-fail",
                "negative/neg-legacy-wrong-key/must-fail", "negative/neg-legacy-random-iv-wrong-key/must-fail",
                "negative/neg-auto-wrong-key/must-fail", "negative/neg-legacy-on-legacy33-data/must-fail"]},
    {"reason": "decode_header (crypto.py) takes any header version up to 1, 0 included, and reads the cryptor id "
               "as text, so a version-0 header or the id \"0000\" (the legacy cryptor's) is accepted",
     "outcome": "accepts",
     "checks": ["negative/neg-acrh-version-0/must-fail", "negative/neg-auto-version-0/must-fail",
                "negative/neg-auto-cryptor-ascii-0000/must-fail"]},
    {"reason": "PubNubCryptoModule.decrypt decodes Base64 with base64.b64decode, which is not strict "
               "(extra padding is accepted)",
     "outcome": "accepts",
     "checks": ["negative/neg-legacy-notbase64-extra-padding/must-fail"]},
    {"reason": "a PNED header with the legacy cryptor's id is read by the SDK as an unknown cryptor "
               "(Vectors/README.md, decisions)",
     "outcome": "rejects",
     "checks": ["generated/gen-auto-legacy-id-header/*"]},
    {"reason": "the legacy cryptor's string path returns json.loads of the plaintext and the module's decrypt "
               "calls json.loads again: a string message that holds JSON text arrives as that JSON's value",
     "outcome": "json-value",
     "checks": ["messages/message-string-json-looking/legacy/peer-receives",
                "messages/message-string-json-looking/legacy-random-iv/peer-receives",
                "styles/style-*-string-json-looking/peer-decrypts-text"]},
    {"reason": "history (v2) lets the decryption error of one message fail the whole response "
               "(models/consumer/history.py, PNHistoryItemResult.decrypt catches only binascii.Error)",
     "outcome": "rejects",
     "checks": ["envelopes/env-v2-*/peer-decrypts"]},
]


def op_hello(req):
    return {"name": "pubnub-python", "version": SDK_VERSION, "ops": OPS, "schemes": SCHEMES, "style": "python",
            "differences": DIFFERENCES}


HANDLERS = {
    "hello": op_hello,
    "encrypt": op_encrypt,
    "decrypt": op_decrypt,
    "encrypt_text": op_encrypt_text,
    "decrypt_text": op_decrypt_text,
    "publish": op_publish,
    "decrypt_message": op_decrypt_message,
    "decrypt_envelope": op_decrypt_envelope,
}


def handle(req):
    if not isinstance(req, dict):
        return {"ok": False, "error": "a request is a JSON object"}
    reply = {"id": req["id"]} if "id" in req else {}
    handler = HANDLERS.get(req.get("op"))
    try:
        if handler is None:
            raise Unsupported(f"op {req.get('op')!r}")
        reply.update(handler(req))
        reply["ok"] = True
    except Unsupported as e:
        reply.update(ok=False, unsupported=True, error=str(e))
    except Refused as e:
        reply.update(ok=False, error=f"refused: {e}")
    except PubNubException as e:
        reply.update(ok=False, error=f"PubNubException: {e.get_error_message()}")
    except (ValueError, TypeError, KeyError, IndexError, binascii.Error) as e:
        # The SDK lets these escape on bad data (a wrong key, padding, Base64): a failure all the same.
        reply.update(ok=False, error=f"{type(e).__name__}: {e}")
    return reply


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            reply = {"ok": False, "error": f"not JSON: {e}"}
        else:
            reply = handle(req)
        sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(0)
