"""field= (an RFC 6901 JSON Pointer) on the message functions, their batch forms and pncrypt.spark's workers: one
field of each JSON record (a line of a record export) encrypted, decrypted or rekeyed, every other byte kept. The
records' messages are encrypted by the real PubNub Python SDK (pubnub==10.8.0): now, and in Vectors/records/export.json
(scripts/vectors/gen_record_vectors.py). Run: PNCRYPT_LIB=PREFIX/lib/libpncrypt.so python -m pytest."""
import base64
import json
import pathlib

import pytest

import pncrypt
from pncrypt import spark as pnspark
from sdk_support import sdk_module

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXPORT = json.loads((ROOT / "Vectors" / "records" / "export.json").read_text(encoding="utf-8"))
KEY = EXPORT["key"]
SCHEMES = ["legacy", "legacy-random-iv", "acrh"]
# Messages as the SDK publishes them (json.dumps: ", " and ": ", \\u escapes), and texts given exactly.
MESSAGES = ["Hello World", {"text": "héllo 漢語 😀 \"q\"", "n": 1.5},
            [1, -0.5, {"nested": {"deep": [True, None]}}],
            12345678901234567890]
SHAPE = '{ "timetoken" : 17000000000000001 ,  "message" :   %s ,"meta":{"a":[1.10,1e400]}, "e":"\\u00e9\\/" }'
MISSING = '{"channel":"ch","text":"no message here"}'


def split(record, pointer="/message"):
    """(before, field, after) of a record of SHAPE: the field is the text between the fixed parts."""
    before, after = SHAPE.split("%s")
    assert record.startswith(before) and record.endswith(after), record
    return before, record[len(before):len(record) - len(after)], after


def sdk_plaintext(scheme, key, wire):
    """The bytes the SDK decrypts a field's wire JSON ("<Base64>") to."""
    return sdk_module(scheme, key).decrypt_file(base64.b64decode(json.loads(wire))).decode("utf-8")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_decrypt_field_of_sdk_messages(scheme):
    sdk = sdk_module(scheme, KEY)
    m = pncrypt.CryptoModule(KEY, scheme)
    for message in MESSAGES:
        record = SHAPE % json.dumps(sdk.encrypt(json.dumps(message)))
        text, status = m.message_decrypt(record, field="/message")
        assert status is None
        before, field, after = split(text)
        assert json.loads(field) == message
        assert (before, after) == tuple(SHAPE.split("%s"))


@pytest.mark.parametrize("record", [r for r in EXPORT["records"] if r["decrypted"]], ids=lambda r: r["pointer"])
def test_export_vectors(record):
    m = pncrypt.CryptoModule(KEY, record["scheme"])
    assert m.message_decrypt(record["record"], field=record["pointer"]) == (record["decrypted"], None)
    # Encrypted again exactly as given: the SDK decrypts the field to the same bytes; the rest is the record's.
    sealed = m.message_encrypt(record["decrypted"], field=record["pointer"])
    before, _, after = record["decrypted"].partition(record["plaintext"])
    assert sealed.startswith(before) and sealed.endswith(after)
    wire = sealed[len(before):len(sealed) - len(after)]
    assert sdk_plaintext(record["scheme"], KEY, wire) == record["plaintext"]
    # Rekeyed: the field moves to the new key, where the SDK reads the same plaintext.
    moved = m.rekey(record["record"], pncrypt.CryptoModule("new-key", "acrh"), field=record["pointer"])
    before, _, after = record["record"].partition(json.dumps(record["ciphertext"]))
    assert moved.startswith(before) and moved.endswith(after)
    assert sdk_plaintext("acrh", "new-key", moved[len(before):len(moved) - len(after)]) == record["plaintext"]


def test_batches_and_missing_fields():
    records = [r for r in EXPORT["records"] if r["pointer"] == "/message"]
    missing = [i for i, r in enumerate(records) if r["decrypted"] is None]
    assert missing
    m = pncrypt.CryptoModule(KEY, "acrh")
    texts = [r["record"] for r in records]
    out = m.decrypt_many(texts, on_error="none", field="/message")
    assert out == [r["decrypted"] for r in records]
    errors = m.decrypt_many(texts, on_error="return", field="/message")
    assert [i for i, e in enumerate(errors) if isinstance(e, pncrypt.Error)] == missing
    assert errors[missing[0]].code == pncrypt.E_INVALID_VALUE and '"/message"' in str(errors[missing[0]])
    with pytest.raises(pncrypt.Error) as raised:
        m.decrypt_many(texts, field="/message")
    assert raised.value.index == missing[0]
    to = pncrypt.CryptoModule("new-key", "acrh")
    result = m.rekey_many(texts, to, field="/message")
    assert result.failed == 1 and result.statuses[missing[0]] == "failed"
    assert result.texts[missing[0]] == records[missing[0]]["record"]
    assert [s for i, s in enumerate(result.statuses) if i not in missing] == ["rekeyed"] * (len(records) - 1)
    again = to.rekey_many(result.texts, to, field="/message")
    assert again.statuses.count("current") == len(records) - 1 and again.texts == result.texts
    plain = [r["decrypted"] for i, r in enumerate(records) if i not in missing]
    sealed = to.encrypt_many(plain, field="/message")
    assert to.decrypt_many(sealed, field="/message") == plain
    with pytest.raises(pncrypt.Error) as raised:
        to.encrypt_many(plain + [MISSING], field="/message")
    assert raised.value.code == pncrypt.E_INVALID_VALUE and raised.value.index == len(plain)
    # One record without the field: an error naming the pointer, whatever the call.
    for call in (lambda: m.message_decrypt(MISSING, field="/message"),
                 lambda: m.message_encrypt(MISSING, field="/message"),
                 lambda: m.rekey(MISSING, to, field="/message")):
        with pytest.raises(pncrypt.Error) as raised:
            call()
        assert raised.value.code == pncrypt.E_INVALID_VALUE and '"/message"' in str(raised.value)


@pytest.mark.parametrize("pointer", ["message", "/a~2"])
def test_invalid_pointer(pointer):
    with pytest.raises(pncrypt.Error) as raised:
        pncrypt.CryptoModule("k").message_decrypt("{}", field=pointer)
    assert raised.value.code == pncrypt.E_ARGUMENT and "RFC 6901" in str(raised.value)
    with pytest.raises(ValueError, match="RFC 6901"):
        pnspark._field_check(pointer)


def test_spark_workers_take_field():
    """The per-partition work of pncrypt.spark with field= (no Spark needed: the functions mapInArrow runs)."""
    records = [r for r in EXPORT["records"] if r["pointer"] == "/message"]
    values = [r["record"] for r in records] + [None]
    outputs, statuses, reasons = pnspark._decrypt_worker([KEY], "auto", False, "/message")()(values)
    assert outputs == [r["decrypted"] for r in records] + [None]
    assert statuses == ["failed" if r["decrypted"] is None else "ok" for r in records] + ["failed"]
    assert reasons[[r["decrypted"] for r in records].index(None)] == "invalidValue"
    moved, statuses, _ = pnspark._rekey_worker([KEY], "new-key", "acrh", "/message")()(values)
    assert statuses.count("ok") == len(records) - 1
    back, statuses, _ = pnspark._decrypt_worker(["new-key"], "auto", False, "/message")()(moved)
    assert back[:-1] == [r["decrypted"] for r in records]
    plain = [r["decrypted"] for r in records if r["decrypted"]]
    sealed, statuses, _ = pnspark._encrypt_worker("new-key", "acrh", False, "/message")()(plain)
    assert statuses == ["ok"] * len(plain)
    assert pncrypt.CryptoModule("new-key").decrypt_many(sealed, field="/message") == plain


def damaged(wire):
    """An SDK ciphertext with one middle Base64 character changed."""
    middle = len(wire) // 2
    return wire[:middle] + ("B" if wire[middle] == "A" else "A") + wire[middle + 1:]


def test_default_keeps_fields_not_decrypted():
    """Issue 59.5: by default a record's field that is not decrypted (never encrypted, damaged, another key) keeps
    its value, with a status saying why: the library's default for a record (ON_ERROR_DEFAULT), in message_decrypt,
    the batch call and pncrypt.spark's workers; "marker" only when asked for."""
    sdk_wire = sdk_module("legacy", KEY).encrypt(json.dumps("Hello World"))
    records = [SHAPE % '"a plain note"', SHAPE % '{"text":"never encrypted"}', SHAPE % json.dumps(damaged(sdk_wire))]
    m = pncrypt.CryptoModule(KEY, "legacy")
    other = pncrypt.CryptoModule("another-key", "legacy")
    for record in records + [SHAPE % json.dumps(sdk_wire)]:
        module = other if record == SHAPE % json.dumps(sdk_wire) else m
        text, status = module.message_decrypt(record, field="/message")
        assert text == record and status is not None and status.code <= pncrypt.E_DECRYPTION
        marked, _ = module.message_decrypt(record, on_error="marker", field="/message")
        assert '"DECRYPTION_ERROR"' in marked
        kept = module._field_batch(pncrypt._lib.pncrypt_field_decrypt_many, [record], "/message",
                                   pncrypt.ON_ERROR_DEFAULT, "keep")[0]
        assert kept == [record]
    # A whole message keeps the binding's own default (passthrough).
    assert other.message_decrypt(json.dumps(sdk_wire))[0] == json.dumps(sdk_wire)
    outputs, statuses, reasons = pnspark._decrypt_worker([KEY], "auto", False, "/message")()(records)
    assert statuses == ["failed"] * 3 and outputs == [None] * 3
    assert reasons == ["notBase64", "notEncrypted", "wrongKeyOrCorrupt"]
