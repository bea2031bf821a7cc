"""Lists of readings (issue 59, item 7): an archive that mixes iOS 3.3 messages with messages the real PubNub
Python SDK (pubnub==10.8.0) encrypted is read in one pass with "auto,legacy33" (CryptoModule(reading=...),
decrypt(scheme=...), decrypt_many, pncrypt.spark.decrypt), each message delivered only when exactly one reading of
the list qualifies; each scheme alone still fails the other's messages."""
import json
import os
import sys

import pytest

import pncrypt
from sdk_support import sdk_module

KEY = "enigma"
# pubnub/objective-c v3.4.3's iOS 3.3 vectors (Vectors/spec.json): a string leaf, and an object of leaves.
IOS33 = [('"UzIyeVhanI+QnyaNqVob2A=="', "Hello World"),
         ('["0ZRaiDryY0rdklgVVU80pQ==",{"food":"zu9G3gtmiAxYLpehtuQngw=="}]', ["seven", {"food": "Cheeseburger"}])]
# Under legacy with enigma this reads as 30643283711 (JSON); under legacy33 as 15 bytes of UTF-8 (readings.json).
BOTH = '"DcKD1fpHi3rSu3L+8qhjWQ=="'
MESSAGES = [{"text": "hello from the Python SDK", "n": 1}, "a plain string", [1, 2.5, "três"]]


def archive():
    """[(wire JSON text, message)]: the SDK's messages in its three schemes, with the iOS 3.3 ones between them."""
    rows = []
    for scheme in ("acrh", "legacy", "legacy-random-iv"):
        module = sdk_module(scheme, KEY)
        for message in MESSAGES:
            rows.append((json.dumps(module.encrypt(json.dumps(message))), message))
    for i, row in enumerate(IOS33):
        rows.insert(1 + 4 * i, row)
    return rows


@pytest.mark.parametrize("reading", ["auto,legacy33", ["auto", "legacy33"], ("legacy33", "auto")])
def test_one_pass_reads_ios33_beside_the_sdk_messages(reading):
    with pncrypt.CryptoModule(KEY, reading=reading) as module:
        for wire, message in archive():
            text, status = module.message_decrypt(wire, on_error="fail")
            assert status is None and json.loads(text) == message, wire
        record = json.dumps({"channel": "ch", "message": json.loads(IOS33[0][0]), "timetoken": "17000000000000000"})
        text, status = module.message_decrypt(record, field="/message")
        assert status is None and json.loads(text)["message"] == "Hello World"


def test_each_scheme_alone_fails_the_others_messages():
    rows = archive()
    with pncrypt.CryptoModule(KEY) as auto, pncrypt.CryptoModule(KEY, reading="legacy33") as ios33:
        for wire, message in rows:
            old = wire in dict(IOS33)
            _, status = (auto if old else ios33).message_decrypt(wire)
            assert status is not None, wire
            _, status = (ios33 if old else auto).message_decrypt(wire)
            assert status is None, wire


def test_two_readings_of_the_list_are_the_one_failure():
    with pncrypt.CryptoModule(KEY) as auto, pncrypt.CryptoModule(KEY, reading="auto,legacy33") as both:
        assert auto.message_decrypt(BOTH) == ("30643283711", None)
        text, status = both.message_decrypt(BOTH, on_error="marker")
        assert text == '"DECRYPTION_ERROR"' and status.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
        # As text: both readings are UTF-8, and the list names them.
        with pytest.raises(pncrypt.Error) as error:
            both.decrypt("lrLRTcyN7e9GMUAo9cJxFA==", scheme="auto,legacy33")
        assert error.value.code == pncrypt.E_AMBIGUOUS and "legacy, legacy33" in str(error.value)
        assert both.decrypt("lrLRTcyN7e9GMUAo9cJxFA==", scheme="legacy33") == "gmgav"


def test_texts_and_batches_take_the_list():
    with pncrypt.CryptoModule(KEY) as module:
        modern = module.encrypt("today's")
        assert module.decrypt("UzIyeVhanI+QnyaNqVob2A==", scheme=["auto", "legacy33"]) == "Hello World"
        assert module.decrypt(modern, scheme="auto,legacy33") == "today's"
        with pytest.raises(pncrypt.Error) as error:
            module.decrypt(modern, scheme="legacy33")
        assert "not a whole number" in str(error.value)
        assert module.decrypt_many(["UzIyeVhanI+QnyaNqVob2A==", modern], scheme="auto,legacy33",
                                   text=True) == ["Hello World", "today's"]


@pytest.mark.parametrize("reading, words", [("auto,auto", "names auto twice"),
                                            ("auto,legacy", "beside auto, which already reads it"),
                                            ("auto,", "has an empty item"), ("auto,nope", "'nope', not a scheme")])
def test_a_list_that_cannot_be_read_says_what_to_change(reading, words):
    with pytest.raises(pncrypt.Error) as error:
        pncrypt.CryptoModule(KEY, reading=reading)
    assert error.value.code == pncrypt.E_ARGUMENT and words in str(error.value)
    with pncrypt.CryptoModule(KEY) as module, pytest.raises(pncrypt.Error) as error:
        module.decrypt("UzIyeVhanI+QnyaNqVob2A==", scheme=reading)
    assert error.value.code == pncrypt.E_ARGUMENT and "auto,legacy33" in str(error.value)


def test_spark_reads_the_list(request):
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install ./bindings/python[spark])")
    from pyspark.sql import SparkSession
    from pyspark.sql.types import LongType, StringType, StructField, StructType
    from pncrypt import spark as pnspark
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("pncrypt-readings-test")
               .config("spark.ui.enabled", "false").getOrCreate())
    rows = archive()
    records = [json.dumps({"channel": "ch", "message": json.loads(wire)}) for wire, _ in rows]
    schema = StructType([StructField("id", LongType(), False), StructField("record", StringType(), True)])
    frame = session.createDataFrame(list(enumerate(records)), schema)
    out = pnspark.decrypt(frame, "record", keys=[KEY], scheme="auto,legacy33", field="/message", output="plain")
    got = {row["id"]: (row["plain"], row["pncrypt_status"]) for row in out.collect()}
    for i, (_, message) in enumerate(rows):
        plain, status = got[i]
        assert status == "ok" and json.loads(plain)["message"] == message, i
    texts = session.createDataFrame([(0, "UzIyeVhanI+QnyaNqVob2A==")], ["id", "text"])
    row = pnspark.decrypt(texts, "text", keys=[KEY], scheme="auto,legacy33", output="plain").collect()[0]
    assert (row["plain"], row["pncrypt_status"]) == ("Hello World", "ok")
    with pytest.raises(pncrypt.Error):
        pnspark.decrypt(texts, "text", keys=[KEY], scheme="auto,auto")
