"""plaintext="text" (issue 59, item 4): messages the real PubNub Python SDK (pubnub==10.8.0) encrypted from a raw
string (its crypto module's encrypt(str) with a str that is not JSON). By default (plaintext="json") they fail as a
wrong key does; with plaintext="text" they are delivered as the JSON string the SDK hands its application, in
message_decrypt, field=, envelope_decrypt and pncrypt.spark's workers; a wrong key still fails."""
import json

import pytest

import pncrypt
from pncrypt import spark as pnspark
from sdk_support import sdk_module

KEY = "raw-string-key"
RAWS = ["hello raw world", "héllo 漢語 😀 \"q\" \\", "12 monkeys"]
SCHEMES = ["legacy", "legacy-random-iv", "acrh"]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_raw_strings_from_the_sdk(scheme):
    sdk = sdk_module(scheme, KEY)
    strict = pncrypt.CryptoModule(KEY, scheme)
    text = pncrypt.CryptoModule(KEY, scheme, plaintext="text")
    wrong = pncrypt.CryptoModule("another-key", scheme, plaintext="text")
    for raw in RAWS:
        wire = json.dumps(sdk.encrypt(raw))
        assert sdk.decrypt(json.loads(wire)) == raw  # what the SDK hands its application
        message, status = strict.message_decrypt(wire)
        assert status is not None and status.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
        out, status = text.message_decrypt(wire)
        assert status is None and json.loads(out) == raw
        _, status = wrong.message_decrypt(wire)
        assert status is not None and status.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
        record = '{"channel":"ch","message":%s,"t":1}' % wire
        out, status = text.message_decrypt(record, field="/message")
        assert status is None and json.loads(out)["message"] == raw
        response, statuses = text.envelope_decrypt("[[%s],1,2]" % wire)
        assert statuses == [] and json.loads(response)[0] == [raw]


def test_json_plaintexts_stay_values_and_unknown_names_are_refused():
    m = pncrypt.CryptoModule(KEY, plaintext="text")
    wire = m.message_encrypt('{"a":[1,"b"]}')
    assert m.message_decrypt(wire) == ('{"a":[1,"b"]}', None)
    with pytest.raises(pncrypt.Error) as raised:
        pncrypt.CryptoModule(KEY, plaintext="yaml")
    assert raised.value.code == pncrypt.E_ARGUMENT and "json, text" in str(raised.value)


def test_spark_workers_take_plaintext():
    """pncrypt.spark.decrypt(..., field=, plaintext="text"): the per-partition work (no Spark needed)."""
    sdk = sdk_module("acrh", KEY)
    records = ['{"message":%s}' % json.dumps(sdk.encrypt(raw)) for raw in RAWS]
    outputs, statuses, reasons = pnspark._decrypt_worker([KEY], "auto", False, "/message", "text")()(records)
    assert statuses == ["ok"] * len(RAWS) and [json.loads(o)["message"] for o in outputs] == RAWS
    _, statuses, reasons = pnspark._decrypt_worker([KEY], "auto", False, "/message")()(records)
    assert statuses == ["failed"] * len(RAWS) and reasons == ["wrongKeyOrCorrupt"] * len(RAWS)
