"""Per-channel keys through the Python binding (pncrypt_envelope_decrypt_channels, _rekey_channels): the bodies of
Vectors/channel-keys/channel-keys.json (messages the PubNub Python SDK encrypted, each channel under its own key, one
of ch-a under ch-b's key) and a subscribe body built here from messages the SDK encrypts now.
Run: PNCRYPT_LIB=PREFIX/lib/libpncrypt.so python -m pytest."""
import json
import pathlib

import pytest

import pncrypt
from sdk_support import sdk_module

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = json.loads((ROOT / "Vectors" / "channel-keys" / "channel-keys.json").read_text(encoding="utf-8"))
KEYS = VECTORS["keys"]


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def location(status):
    return {k: v for k, v in json.loads(status).items() if k in ("index", "channel", "timetoken")}


@pytest.mark.parametrize("format", ["v3", "subscribe"])
def test_sdk_bodies(format):
    body = VECTORS[format]
    text, statuses = pncrypt.envelope_decrypt_channels(compact(body["encrypted"]), dict(KEYS))
    assert json.loads(text) == body["decrypted"]
    assert [location(s) for s in statuses] == body["statuses"]
    assert [json.loads(s)["reason"] for s in statuses] == ["wrongKeyOrCorrupt"]
    with pytest.raises(pncrypt.Error) as failure:
        pncrypt.envelope_decrypt_channels(compact(body["encrypted"]), KEYS, on_error="fail")
    assert failure.value.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
    assert 'channel "ch-a"' in str(failure.value)
    # A ChannelKeys made once, with a CryptoModule, "ch-*" and "*" patterns: the same answer.
    with pncrypt.CryptoModule(KEYS["ch-a"]) as a:
        for patterns in ({"ch-a": a, "ch-*": KEYS["ch-b"]}, {"ch-a": [KEYS["ch-a"]], "*": KEYS["ch-b"]}):
            with pncrypt.ChannelKeys(patterns) as keys:
                assert pncrypt.envelope_decrypt_channels(compact(body["encrypted"]), keys) == (text, statuses)


def test_missing_channel_and_refusals():
    body = compact(VECTORS["subscribe"]["encrypted"])
    text, statuses = pncrypt.envelope_decrypt_channels(body, {"ch-a": KEYS["ch-a"]}, on_error="marker")
    missing = [json.loads(s) for s in statuses if json.loads(s)["reason"] == "invalidKey"]
    assert len(missing) == 2 and all(s["channel"] == "ch-b" for s in missing)
    assert all('no key for channel "ch-b"' in s["message"] for s in missing)
    assert [item["d"] for item in json.loads(text)["m"]][3:] == ["DECRYPTION_ERROR"] * 2
    for bad in ({}, {"a*b": "k"}, {"": "k"}):
        with pytest.raises(pncrypt.Error):
            pncrypt.envelope_decrypt_channels(body, bad)
    with pytest.raises(TypeError):
        pncrypt.envelope_decrypt_channels(body, [("ch-a", "k")])
    v2 = json.dumps([[pncrypt.CryptoModule("k", "legacy").message_encrypt('"hi"')], 1, 2])
    with pytest.raises(pncrypt.Error) as refused:
        pncrypt.envelope_decrypt_channels(v2, {"room": "k"})
    assert refused.value.code == pncrypt.E_ARGUMENT and "channel" in str(refused.value)
    assert pncrypt.envelope_decrypt_channels(v2, {"room": "k"}, channel="room") == ('[["hi"],1,2]', [])


@pytest.mark.parametrize("format", ["v3", "subscribe"])
def test_rekey_one_channel(format):
    body = compact(VECTORS[format]["encrypted"])
    with pncrypt.CryptoModule("the new key") as to:
        text, statuses = pncrypt.envelope_rekey_channels(body, {"ch-b": KEYS["ch-b"]}, to, only_channel="ch-b")
    assert statuses == []
    cut_in, cut_out = body.index('"ch-b"'), text.index('"ch-b"')
    assert cut_in == cut_out and body[:cut_in] == text[:cut_out] and body[cut_in:] != text[cut_out:]
    back, statuses = pncrypt.envelope_decrypt_channels(text, {"ch-a": KEYS["ch-a"], "ch-b": "the new key"})
    assert json.loads(back) == VECTORS[format]["decrypted"]
    assert [location(s) for s in statuses] == VECTORS[format]["statuses"]


def test_subscribe_from_sdk_now():
    keys = {"ch-a": "alpha", "ch-b": "beta"}
    plan = [("ch-a", "acrh", {"n": 0}), ("ch-b", "legacy", "one"), ("ch-b", "acrh", [2]), ("ch-a", "legacy", 3)]
    items = [{"c": channel, "d": sdk_module(scheme, keys[channel]).encrypt(json.dumps(message))}
             for channel, scheme, message in plan]
    body = compact({"t": {"t": "1", "r": 1}, "m": items})
    text, statuses = pncrypt.envelope_decrypt_channels(body, keys)
    assert statuses == []
    assert [item["d"] for item in json.loads(text)["m"]] == [message for _, _, message in plan]
    swapped = {"ch-a": keys["ch-b"], "ch-b": keys["ch-a"]}
    text, statuses = pncrypt.envelope_decrypt_channels(body, swapped)
    assert [json.loads(s)["channel"] for s in statuses] == [channel for channel, _, _ in plan]
