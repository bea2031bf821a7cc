"""Responses through the Python binding (pncrypt_envelope_decrypt): the envelope vectors of
Vectors/envelopes/envelopes.json and recorded.json (bodies, recorded.json's recorded from the network by SDKs'
integration tests, whose messages the PubNub Python SDK encrypted in place), and a v3 body built here from messages
the SDK encrypts now. Run: PNCRYPT_LIB=PREFIX/lib/libpncrypt.so python -m pytest."""
import json
import pathlib

import pytest

import pncrypt
from sdk_support import sdk_module

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = [v for name in ("envelopes.json", "recorded.json")
           for v in json.loads((ROOT / "Vectors" / "envelopes" / name).read_text(encoding="utf-8"))["vectors"]]


def location(status):
    return {k: v for k, v in json.loads(status).items() if k in ("index", "channel", "timetoken")}


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_envelope_vector(vector):
    m = pncrypt.CryptoModule(vector["key"], "acrh")
    text, statuses = m.envelope_decrypt(vector["encrypted"])
    assert text == vector["decrypted"]
    assert [location(s) for s in statuses] == vector["failures"]
    assert all(json.loads(s)["reason"] == "wrongKeyOrCorrupt" for s in statuses)
    if vector["failures"]:
        with pytest.raises(pncrypt.Error) as failure:
            m.envelope_decrypt(vector["encrypted"], on_error="fail")
        assert failure.value.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
    else:
        assert m.envelope_decrypt(vector["encrypted"], on_error="fail") == (vector["decrypted"], [])
    other = "history" if vector["format"] == "subscribe" else "subscribe"
    with pytest.raises(pncrypt.Error) as refused:
        m.envelope_decrypt(vector["encrypted"], format=other)
    assert refused.value.code == pncrypt.E_INVALID_JSON


@pytest.mark.parametrize("scheme", ["legacy", "legacy-random-iv", "acrh"])
def test_v3_from_sdk(scheme):
    messages = [{"text": "one"}, "two", [3, {"four": None}]]
    items = [{"message": sdk_module(scheme, "k").encrypt(json.dumps(message)), "timetoken": f"1700000000000000{i}",
              "uuid": "u"} for i, message in enumerate(messages)]
    body = json.dumps({"status": 200, "error": False, "error_message": "", "channels": {"ch": items}},
                      separators=(",", ":"))
    text, statuses = pncrypt.CryptoModule("k", scheme).envelope_decrypt(body, format="v3")
    assert statuses == []
    assert [item["message"] for item in json.loads(text)["channels"]["ch"]] == messages
    assert [item["timetoken"] for item in json.loads(text)["channels"]["ch"]] == [i["timetoken"] for i in items]
