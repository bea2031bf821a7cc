"""Records read with their channel's keys through the Python binding (message_decrypt_channels,
decrypt_many_channels, rekey_channels, rekey_many_channels over pncrypt_field_*_channels) and pncrypt.spark's
channel column: the export of Vectors/channel-keys/records.json (messages the PubNub Python SDK encrypted, each
channel under its own key, one record of ch-a under ch-b's key) and exports the SDK makes here.
Run: PNCRYPT_LIB=PREFIX/lib/libpncrypt.so python -m pytest."""
import json
import pathlib

import pytest

import pncrypt
import pncrypt.spark
from sdk_support import sdk_module

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = json.loads((ROOT / "Vectors" / "channel-keys" / "records.json").read_text(encoding="utf-8"))
KEYS = VECTORS["keys"]
WRONG = VECTORS["statuses"][0]["line"] - 1


def test_sdk_export_each_record_with_its_channel():
    for index, (record, expected) in enumerate(zip(VECTORS["export"], VECTORS["decrypted"])):
        text, status = pncrypt.message_decrypt_channels(record, KEYS, "/message")
        assert text == expected
        assert (status is not None) == (index == WRONG)
        if status is not None:
            assert status.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
            assert json.loads(status.json)["channel"] == "ch-a"
    with pytest.raises(pncrypt.Error) as failure:
        pncrypt.message_decrypt_channels(VECTORS["export"][WRONG], KEYS, "/message", on_error="fail")
    assert failure.value.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
    # Both keys for every channel (one ring): the foreign record decrypts; the map is what refuses it.
    with pncrypt.CryptoModule(KEYS["ch-a"]) as both:
        both.add_key(KEYS["ch-b"])
        assert both.message_decrypt(VECTORS["export"][WRONG], field="/message")[1] is None
    # The batch: the same records, the foreign one None (or its Error).
    with pncrypt.ChannelKeys(KEYS) as keys:
        records = pncrypt.decrypt_many_channels(VECTORS["export"], keys, "/message", on_error="none")
    assert records == [None if i == WRONG else line for i, line in enumerate(VECTORS["decrypted"])]
    with pytest.raises(pncrypt.Error) as failure:
        pncrypt.decrypt_many_channels(VECTORS["export"], KEYS, "/message")
    assert failure.value.index == WRONG


def test_rekey_then_the_new_key_alone():
    with pncrypt.CryptoModule("the new key") as to:
        result = pncrypt.rekey_many_channels(VECTORS["export"], KEYS, to, "/message")
        assert result.statuses == ["failed" if i == WRONG else "rekeyed" for i in range(len(VECTORS["export"]))]
        assert result.texts[WRONG] == VECTORS["export"][WRONG]
        one = pncrypt.rekey_channels(VECTORS["export"][0], KEYS, to, "/message")
        with pytest.raises(pncrypt.Error):
            pncrypt.rekey_channels(VECTORS["export"][WRONG], KEYS, to, "/message")
    back = pncrypt.decrypt_many_channels(result.texts + [one], {"*": "the new key"}, "/message", on_error="none")
    assert back == [None if i == WRONG else line for i, line in enumerate(VECTORS["decrypted"])] \
        + [VECTORS["decrypted"][0]]


def test_no_channel_field_and_no_key():
    record = VECTORS["export"][0]
    for where in ("/room", "/timetoken"):  # missing; not a string
        with pytest.raises(pncrypt.Error) as failure:
            pncrypt.message_decrypt_channels(record, KEYS, "/message", channel_field=where)
        assert failure.value.code == pncrypt.E_INVALID_VALUE and where in str(failure.value)
    text, status = pncrypt.message_decrypt_channels(record, {"ch-b": KEYS["ch-b"]}, "/message", on_error="marker")
    assert status.code == pncrypt.E_INVALID_KEY and 'no key for channel "ch-a"' in str(status)
    assert json.loads(text)["message"] == "DECRYPTION_ERROR"


def sdk_export(keys, plan):
    """An export the SDK makes here: for each (channel, scheme, message) a record of the channel, its message
    encrypted by the SDK under the channel's key; and the expected decrypted records."""
    export, plain = [], []
    for number, (channel, scheme, message) in enumerate(plan):
        wire = sdk_module(scheme, keys[channel]).encrypt(json.dumps(message))
        export.append(json.dumps({"timetoken": 17000000000000000 + number, "channel": channel, "message": wire}))
        plain.append(json.dumps({"timetoken": 17000000000000000 + number, "channel": channel,
                                 "message": message}, separators=(", ", ": ")).replace(
            json.dumps(message), json.dumps(message, separators=(",", ":"), ensure_ascii=False)))
    return export, plain


PLAN = [("ch-a", "acrh", {"n": 0}), ("ch-b", "legacy", "one"), ("ch-b", "acrh", [2]), ("ch-a", "legacy", 3)]


def test_export_made_by_the_sdk_now():
    keys = {"ch-a": "alpha", "ch-b": "beta"}
    export, plain = sdk_export(keys, PLAN)
    assert pncrypt.decrypt_many_channels(export, keys, "/message") == plain
    swapped = {"ch-a": keys["ch-b"], "ch-b": keys["ch-a"]}
    assert pncrypt.decrypt_many_channels(export, swapped, "/message", on_error="none") == [None] * len(PLAN)


def test_spark_worker_channel_column():
    """pncrypt.spark's channel worker as each Arrow batch runs it (no Spark needed): wire texts with a channel
    column, and records."""
    keys = {"ch-a": "alpha", "ch-b": "beta"}
    wires = [sdk_module(scheme, keys[channel]).encrypt(json.dumps(message)) for channel, scheme, message in PLAN]
    channels = [channel for channel, _, _ in PLAN]
    expected = [json.dumps(message, separators=(",", ":")) for _, _, message in PLAN]
    outputs, statuses, reasons = pncrypt.spark._channel_worker(keys, None)()(wires + [wires[0], None],
                                                                            channels + ["ch-b", "ch-a"])
    assert outputs == expected + [None, None]
    assert statuses == ["ok"] * len(PLAN) + ["failed", "failed"]
    assert reasons == [None] * len(PLAN) + ["wrongKeyOrCorrupt", "notEncrypted"]
    # A null channel, a channel with no key.
    _, statuses, reasons = pncrypt.spark._channel_worker({"ch-a": "alpha"}, None)()([wires[0], wires[1]],
                                                                                  [None, "ch-b"])
    assert reasons == ["invalidValue", "invalidKey"]
    # Records (field=) and rekey: the new key alone reads every row.
    export, plain = sdk_export(keys, PLAN)
    assert pncrypt.spark._channel_worker(keys, "/message")()(export, channels)[0] == plain
    moved, statuses, _ = pncrypt.spark._channel_worker(keys, None, "new key")()(wires, channels)
    assert statuses == ["ok"] * len(PLAN)
    with pncrypt.CryptoModule("new key") as new:
        assert [new.decrypt(text) for text in moved] == [json.dumps(m) for _, _, m in PLAN]
    _, again, _ = pncrypt.spark._channel_worker({"*": "new key"}, None, "new key")()(moved, channels)
    assert again == ["current"] * len(PLAN)
