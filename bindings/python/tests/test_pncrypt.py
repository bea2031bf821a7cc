"""The Python binding against the real PubNub Python SDK (pubnub==10.8.0, in the venv of scripts/make_venv.sh)
and the SPEC vectors (Vectors/spec.json). Run: PNCRYPT_LIB=PREFIX/lib/libpncrypt.so python -m pytest."""
import base64
import json
import logging
import os
import pathlib
import threading
import warnings

import pytest

import pncrypt

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
from pubnub.pnconfiguration import PNConfiguration  # noqa: E402  (before pubnub.pubnub: circular import)
from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule  # noqa: E402
from pubnub.exceptions import PubNubException  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
SDK_SCHEMES = ["legacy", "legacy-random-iv", "acrh"]  # legacy33 is not in the SDK
KEY = "pncrypt-python-key"
PLAINTEXTS = [b"x", b"yay!", b"exactly sixteen!", "ünïcödé 漢語 🔑".encode(), bytes(range(256)) * 3]


def sdk_module(scheme, key=KEY):
    config = PNConfiguration()
    config.publish_key = config.subscribe_key = "demo"
    config.user_id = "pncrypt-pytest"
    config.cipher_key = key
    config.use_random_initialization_vector = scheme == "legacy-random-iv"
    return AesCbcCryptoModule(config) if scheme == "acrh" else LegacyCryptoModule(config)


# ---- Bytes, every scheme both ways -------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", SDK_SCHEMES)
@pytest.mark.parametrize("data", PLAINTEXTS, ids=lambda d: f"{len(d)}B")
def test_ours_to_sdk(scheme, data):
    text = pncrypt.CryptoModule(KEY, scheme).encrypt(data)
    assert sdk_module(scheme).decrypt_file(base64.b64decode(text)) == data


@pytest.mark.parametrize("scheme", SDK_SCHEMES)
@pytest.mark.parametrize("data", PLAINTEXTS, ids=lambda d: f"{len(d)}B")
def test_sdk_to_ours(scheme, data):
    text = base64.b64encode(sdk_module(scheme).encrypt_file(data)).decode()
    ours = pncrypt.CryptoModule(KEY, scheme)
    assert ours.decrypt(text, scheme=scheme) == data
    if scheme != "legacy-random-iv":  # auto reads a header, else the fixed IV
        assert ours.decrypt(text) == data


@pytest.mark.parametrize("scheme", SDK_SCHEMES)
def test_sdk_message_path_to_ours(scheme):
    """module.encrypt(str), what the SDK publishes with a CryptoModule."""
    message = {"text": "hello", "n": 13406746729185766, "tags": ["a", "b"]}
    text = sdk_module(scheme).encrypt(json.dumps(message))
    assert json.loads(pncrypt.CryptoModule(KEY, scheme).decrypt(text, scheme=scheme)) == message


# ---- Messages --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", SDK_SCHEMES)
def test_message_encrypt_to_sdk(scheme):
    message = {"text": "Hello from pncrypt", "user": "alice", "timetoken": 13406746729185766, "ok": True}
    wire = pncrypt.CryptoModule(KEY, scheme).message_encrypt(json.dumps(message, separators=(",", ":")))
    assert wire.startswith('"') and wire.endswith('"')
    assert sdk_module(scheme).decrypt(json.loads(wire)) == message


@pytest.mark.parametrize("scheme", SDK_SCHEMES)
def test_message_decrypt_from_sdk(scheme):
    message = {"text": "from the SDK", "list": [1, 2.5, None], "nested": {"k": "ü"}}
    wire = json.dumps(sdk_module(scheme).encrypt(json.dumps(message)))
    text, status = pncrypt.CryptoModule(KEY, scheme).message_decrypt(wire)
    assert status is None
    assert json.loads(text) == message


def test_message_policies():
    m = pncrypt.CryptoModule("enigma", "legacy")
    bad = '"q/xJqqN6qbiZMXYm"'  # 12 bytes: not whole AES blocks
    text, status = m.message_decrypt(bad, on_error="marker")
    assert text == '"DECRYPTION_ERROR"' and status.code == pncrypt.E_WRONG_KEY_OR_CORRUPT and status.message
    text, status = m.message_decrypt(bad)
    assert text == bad and status.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
    with pytest.raises(pncrypt.Error) as caught:
        m.message_decrypt(bad, on_error="fail")
    assert caught.value.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
    assert m.message_decrypt("42") == ("42", None)
    with pytest.raises(pncrypt.Error) as caught:
        m.message_decrypt('{"a":')
    assert caught.value.code == pncrypt.E_INVALID_JSON
    with pytest.raises(pncrypt.Error):
        m.message_decrypt(bad, on_error="ignore")
    assert m.message_encrypt('"Hello World"') == '"06UDjczkvAAYcqWfNwkOiQ=="'


# ---- Files -----------------------------------------------------------------------------------------------

FILE_DATA = os.urandom((1 << 20) * 2 + 5)


@pytest.mark.parametrize("scheme", ["legacy-random-iv", "acrh"])
def test_files_both_ways(scheme, tmp_path):
    src, sealed, opened = tmp_path / "plain.bin", tmp_path / "sealed.bin", tmp_path / "opened.bin"
    src.write_bytes(FILE_DATA)
    ours = pncrypt.CryptoModule(KEY, scheme)
    ours.encrypt_file(src, sealed)
    assert sdk_module(scheme).decrypt_file(sealed.read_bytes()) == FILE_DATA
    sealed.write_bytes(sdk_module(scheme).encrypt_file(FILE_DATA))
    ours.decrypt_file(sealed, opened)
    assert opened.read_bytes() == FILE_DATA
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opened.bin", "plain.bin", "sealed.bin"]


def test_legacy_file_to_sdk(tmp_path):
    """pncrypt's legacy file format (today the random-IV one, as SDK file sharing writes; the fixed-IV format
    once `--binary --scheme legacy` writes it) reads in the SDK configured for that format."""
    src, sealed = tmp_path / "plain.bin", tmp_path / "sealed.bin"
    src.write_bytes(FILE_DATA)
    pncrypt.CryptoModule(KEY, "legacy").encrypt_file(src, sealed)
    random_iv = sealed.stat().st_size == (len(FILE_DATA) // 16 + 1) * 16 + 16
    sdk = sdk_module("legacy-random-iv" if random_iv else "legacy")
    assert sdk.decrypt_file(sealed.read_bytes()) == FILE_DATA


def test_sdk_fixed_iv_file_to_ours(tmp_path):
    sealed, opened = tmp_path / "sealed.bin", tmp_path / "opened.bin"
    sealed.write_bytes(sdk_module("legacy").encrypt_file(FILE_DATA))
    pncrypt.CryptoModule(KEY, "legacy").decrypt_file(sealed, opened, scheme="legacy")
    assert opened.read_bytes() == FILE_DATA


def test_file_failures_leave_nothing(tmp_path):
    src, sealed, opened = tmp_path / "plain.bin", tmp_path / "sealed.bin", tmp_path / "opened.bin"
    src.write_bytes(FILE_DATA)
    m = pncrypt.CryptoModule(KEY)
    m.encrypt_file(src, sealed)
    sealed.write_bytes(sealed.read_bytes()[:-1])
    with pytest.raises(pncrypt.Error) as caught:
        m.decrypt_file(sealed, opened)
    assert caught.value.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
    assert not opened.exists()
    with pytest.raises(pncrypt.Error) as caught:
        m.encrypt_file(tmp_path / "missing", opened)
    assert caught.value.code == pncrypt.E_FILE_NOT_FOUND
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.bin", "sealed.bin"]


# ---- SPEC vectors ----------------------------------------------------------------------------------------

SPEC = json.loads((ROOT / "Vectors" / "spec.json").read_text(encoding="utf-8"))["vectors"]


@pytest.mark.parametrize("vector", SPEC, ids=[v["id"] for v in SPEC])
def test_spec_vector(vector):
    plaintext = vector["plaintext"].encode() if "plaintext" in vector else base64.b64decode(vector["plaintext_b64"])
    scheme = vector["scheme"]
    m = pncrypt.CryptoModule(vector["key"], "acrh" if scheme == "auto" else scheme)
    assert m.decrypt(vector["ciphertext"], scheme=scheme) == plaintext
    if scheme in ("legacy", "legacy33"):
        assert m.encrypt(plaintext) == vector["ciphertext"]
    if scheme in SDK_SCHEMES:
        assert sdk_module(scheme, vector["key"]).decrypt_file(base64.b64decode(m.encrypt(plaintext))) == plaintext


# ---- Errors and threads ----------------------------------------------------------------------------------

def test_errors():
    with pytest.raises(pncrypt.Error) as caught:
        pncrypt.CryptoModule("")
    assert caught.value.code == pncrypt.E_INVALID_KEY and caught.value.message
    with pytest.raises(pncrypt.Error) as caught:
        pncrypt.CryptoModule("k", "rot13")
    assert caught.value.code == pncrypt.E_ARGUMENT
    m = pncrypt.CryptoModule("k")
    with pytest.raises(pncrypt.Error) as caught:
        m.encrypt(b"")
    assert caught.value.code == pncrypt.E_EMPTY_PLAINTEXT
    with pytest.raises(pncrypt.Error) as caught:
        m.decrypt("*not base64*")
    assert caught.value.code == pncrypt.E_NOT_BASE64
    with pytest.raises(pncrypt.Error) as caught:
        m.decrypt("abc\0def")
    assert caught.value.code == pncrypt.E_ARGUMENT
    m.close()
    with pytest.raises(pncrypt.Error):
        m.encrypt(b"closed")
    assert pncrypt.library_version().count(".") == 2


def test_threads_share_one_module():
    m = pncrypt.CryptoModule(KEY)
    sealed = m.encrypt(b"shared between threads")
    failures = []

    def work():
        for _ in range(300):
            if m.decrypt(sealed) != b"shared between threads":
                failures.append(1)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
