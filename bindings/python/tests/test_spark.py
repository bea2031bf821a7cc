"""pncrypt.spark in Spark's local mode, on a mixed archive made by the real PubNub Python SDK (pubnub==10.8.0):
rows under two old keys in both legacy schemes, rows already current (acrh under the new key), and rows that
cannot be decrypted. The results are checked with the SDK. Needs pyspark, pandas, pyarrow and Java (.ci/run
installs them into the venv it tests the wheel in)."""
import base64
import contextlib
import hashlib
import json
import os
import secrets
import sys

import pytest

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install ./bindings/python[spark])")

import pncrypt  # noqa: E402
from pncrypt import spark as pnspark  # noqa: E402
from sdk_support import legacy_key, sdk_module, unpad  # noqa: E402
from Cryptodome.Cipher import AES  # noqa: E402  (installed with pubnub)

OLD_A, OLD_B, NEW, STRANGER = "old key A", "old key B", "the new key", "a key nobody has"
IV0 = b"0123456789012345"
@contextlib.contextmanager
def sdk_iv(iv):
    """The SDK's random IV source returns `iv` (its code path is unchanged): the rows are the same on every run, so
    every expected outcome below is certain, not right 255 times in 256."""
    saved = secrets.token_bytes
    secrets.token_bytes = lambda n=None: iv
    try:
        yield
    finally:
        secrets.token_bytes = saved


def qualifying_readings(text, keys):
    """Every (key, reading) under which `text` decrypts to a message (valid padding, UTF-8 and JSON), computed
    here with Cryptodome, independently of pncrypt: the precondition that makes each row's outcome certain."""
    try:
        data = base64.b64decode(text, validate=True)
    except Exception:
        return []
    found = []
    for key in keys:
        if data[:4] == b"PNED":
            candidates = [("acrh", hashlib.sha256(key.encode()).digest(), data[10:26], data[26:])] \
                if data[4:10] == b"\x01ACRH\x10" else []
        else:
            candidates = [("legacy", legacy_key(key), IV0, data),
                          ("legacy-random-iv", legacy_key(key), data[:16], data[16:])]
        for name, aes_key, iv, body in candidates:
            if len(body) == 0 or len(body) % 16 or len(iv) != 16:
                continue
            plain = unpad(AES.new(aes_key, AES.MODE_CBC, iv).decrypt(body))
            if plain is None:
                continue
            try:
                json.loads(plain.decode("utf-8"))
            except ValueError:
                continue
            found.append((key, name))
    return found


def message(i):
    return json.dumps({"n": i, "text": f"message {i} ünïcödé 漢語", "user": f"user-{i % 7}"},
                      ensure_ascii=False, separators=(",", ":"))


#: The reason each failing row of the archive gives (pncrypt_reason): the library's names.
FAILED_REASONS = {}


def library_reason(text, keys, action):
    """The reason the library's single call gives for `text` (None when it succeeds): rekey to NEW, or decrypt
    as text, with `keys`. The Spark column must say the same."""
    if text is None:
        return "notEncrypted"
    module = pncrypt.CryptoModule(keys[0])
    for key in keys[1:]:
        module.add_key(key)
    try:
        if action == "rekey":
            module.rekey(text, pncrypt.CryptoModule(NEW))
        else:
            module.decrypt(text, text=True)
    except pncrypt.Error as error:
        return pncrypt.reason(error.code)
    return None


def make_archive():
    """Rows (id, text, expected status, plaintext or None), made by the SDK with fixed IVs."""
    rows = []
    i = 0
    for key in (OLD_A, OLD_B):
        for scheme in ("legacy", "legacy-random-iv", "legacy", "legacy-random-iv", "legacy"):
            for _ in range(3):
                plain = message(i)
                with sdk_iv(hashlib.sha256(f"iv {i}".encode()).digest()[:16]):
                    text = sdk_module(scheme, key).encrypt(plain)
                rows.append((i, text, "ok", plain))
                i += 1
    for _ in range(6):
        plain = message(i)
        with sdk_iv(hashlib.sha256(f"iv {i}".encode()).digest()[:16]):
            text = sdk_module("acrh", NEW).encrypt(plain)
        rows.append((i, text, "current", plain))
        i += 1
    with sdk_iv(b"\x07" * 16):
        stranger = sdk_module("legacy", STRANGER).encrypt(message(999))
    header = base64.b64decode(rows[-1][1])
    failing = [
        "not Base64 at all!",                                               # not Base64
        base64.b64encode(b"fifteen bytes!!").decode(),                       # not whole blocks
        base64.b64encode(b"PNED\x01ACRB" + header[9:]).decode(),             # unknown cryptor
        base64.b64encode(header[:20]).decode(),                              # header cut short
        stranger,                                                            # a key nobody has
        None,                                                                # a null cell
    ]
    for text in failing:
        rows.append((i, text, "failed", None))
        i += 1
    FAILED_REASONS.update(zip([row[0] for row in rows[-len(failing):]],
                              ["notBase64", "wrongKeyOrCorrupt", "unknownCryptor", "malformedHeader",
                               "wrongKeyOrCorrupt", "notEncrypted"]))
    # The precondition: exactly the intended reading qualifies for every good row, none for the others.
    for row_id, text, status, _ in rows:
        readings = qualifying_readings(text, [OLD_A, OLD_B, NEW]) if text else []
        assert len(readings) == (0 if status == "failed" else 1), (row_id, readings)
    return rows


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("pncrypt-spark-test")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "3")
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "7")   # several batches per partition
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def archive():
    return make_archive()


def frame(spark, rows):
    from pyspark.sql.types import LongType, StringType, StructField, StructType
    schema = StructType([StructField("id", LongType(), False), StructField("message", StringType(), True)])
    return spark.createDataFrame([(row_id, text) for row_id, text, _, _ in rows], schema).repartition(3)


def by_id(df, *columns):
    return {row["id"]: tuple(row[c] for c in columns) for row in df.collect()}


def test_rekey_moves_both_legacy_schemes_under_two_old_keys_keeps_current_and_failed_rows(spark, archive):
    out = pnspark.rekey(frame(spark, archive), "message", keys=[OLD_A, OLD_B], to_key=NEW, to_scheme="acrh")
    # Each evaluation draws fresh IVs: pin one (as a job pins it by writing the result once).
    out = out.localCheckpoint(eager=True)
    assert out.columns == ["id", "message", "pncrypt_status", "pncrypt_reason"]
    result = by_id(out, "message", "pncrypt_status")
    reasons = {k: v for k, (v,) in by_id(out, "pncrypt_reason").items()}
    new_module = sdk_module("acrh", NEW)
    for row_id, text, expected, plain in archive:
        got, status = result[row_id]
        assert status == expected, (row_id, status)
        # Why a row failed, as the library names it; the key-dependent failures are all one reason.
        assert reasons[row_id] == FAILED_REASONS.get(row_id), (row_id, reasons[row_id])
        assert reasons[row_id] == (library_reason(text, [OLD_A, OLD_B], "rekey") if expected == "failed"
                                   else None), row_id
        if expected == "ok":
            assert got.startswith("UE5FRAFBQ1JIE") and got != text
            # The real SDK reads the result with the new key only.
            assert new_module.decrypt(got) == json.loads(plain), row_id
            assert qualifying_readings(got, [OLD_A, OLD_B, NEW]) == [(NEW, "acrh")]
        else:
            assert got == text, row_id                     # current and failed rows are left as they were
    # Idempotent: a second run changes nothing.
    again = by_id(pnspark.rekey(out, "message", keys=[OLD_A, OLD_B], to_key=NEW), "message", "pncrypt_status")
    assert {k: v[1] for k, v in again.items()} == {
        row_id: ("failed" if expected == "failed" else "current") for row_id, _, expected, _ in archive}
    assert {k: v[0] for k, v in again.items()} == {k: v[0] for k, v in result.items()}


def test_rekey_with_on_error_fail_raises_on_the_first_failed_row_naming_partition_and_row(spark, archive):
    out = pnspark.rekey(frame(spark, archive), "message", keys=[OLD_A, OLD_B], to_key=NEW, on_error="fail")
    with pytest.raises(Exception, match=r"pncrypt\.spark\.rekey: row \d+ of partition \d+ failed: "
                                        r"(notBase64|wrongKeyOrCorrupt|unknownCryptor|malformedHeader|notEncrypted) "):
        out.collect()
    good = [row for row in archive if row[2] != "failed"]
    statuses = by_id(pnspark.rekey(frame(spark, good), "message", keys=[OLD_A, OLD_B], to_key=NEW,
                                   on_error="fail"), "pncrypt_status")
    assert sorted(set(s for (s,) in statuses.values())) == ["current", "ok"]


def test_decrypt_gives_the_plaintext_or_null_with_a_status_and_keeps_the_input(spark, archive):
    # After the rekey every good row is acrh: decrypt with the new key and an old one (never both qualify).
    rekeyed = pnspark.rekey(frame(spark, archive), "message", keys=[OLD_A, OLD_B], to_key=NEW)
    out = pnspark.decrypt(rekeyed.drop("pncrypt_status"), "message", keys=[NEW, OLD_A], output="plain")
    assert out.columns == ["id", "message", "plain", "pncrypt_status", "pncrypt_reason"]
    result = by_id(out, "message", "plain", "pncrypt_status", "pncrypt_reason")
    for row_id, text, expected, plain in archive:
        got, decrypted, status, reason = result[row_id]
        if expected == "failed":
            assert (got, decrypted, status) == (text, None, "failed"), row_id
            assert reason == FAILED_REASONS[row_id] == library_reason(text, [NEW, OLD_A], "decrypt"), row_id
        else:
            assert (decrypted, status, reason) == (plain, "ok", None), row_id


def test_decrypt_of_one_legacy_scheme_read_explicitly(spark, archive):
    fixed = [row for row in archive if row[0] < 15 and base64.b64decode(row[1])[:4] != b"PNED"]
    out = by_id(pnspark.decrypt(frame(spark, fixed), "message", keys=[OLD_A], scheme="legacy",
                                output="plain"), "plain", "pncrypt_status", "pncrypt_reason")
    schemes = ["legacy", "legacy-random-iv", "legacy", "legacy-random-iv", "legacy"]
    for row_id, text, _, plain in fixed:
        if schemes[row_id // 3] == "legacy":
            assert out[row_id] == (plain, "ok", None), row_id
        else:
            # A random-IV row read with the fixed IV: its first block is garbage. The IVs are fixed, so whether
            # that garbage is valid UTF-8 is too; checked here with Cryptodome, so the expectation is certain.
            data = base64.b64decode(text)
            padded = AES.new(legacy_key(OLD_A), AES.MODE_CBC, IV0).decrypt(data)
            with pytest.raises(UnicodeDecodeError):
                padded[:-padded[-1]].decode("utf-8")
            # Not UTF-8 is a key-dependent failure: the one public reason, not which check failed.
            assert out[row_id] == (None, "failed", "wrongKeyOrCorrupt"), row_id


def test_encrypt_is_read_by_the_sdk_and_empty_or_null_cells_fail(spark):
    from pyspark.sql.types import LongType, StringType, StructField, StructType
    schema = StructType([StructField("id", LongType(), False), StructField("plain", StringType(), True)])
    rows = [(i, message(i)) for i in range(20)] + [(20, ""), (21, None)]
    df = spark.createDataFrame(rows, schema).repartition(3)
    for scheme in ("acrh", "legacy", "legacy-random-iv"):
        out = pnspark.encrypt(df, "plain", key=NEW, scheme=scheme, output="wire")
        assert out.columns == ["id", "plain", "wire", "pncrypt_status", "pncrypt_reason"]
        result = by_id(out, "plain", "wire", "pncrypt_status", "pncrypt_reason")
        module = sdk_module(scheme, NEW)
        for i, plain in rows:
            got_plain, wire, status, reason = result[i]
            assert got_plain == plain
            if plain:
                assert status == "ok" and reason is None and module.decrypt(wire) == json.loads(plain), (scheme, i)
            else:
                assert (wire, status, reason) == (None, "failed", "emptyPlaintext"), (scheme, i)
    with pytest.raises(Exception, match=r"pncrypt\.spark\.encrypt: row \d+ of partition \d+ failed"):
        pnspark.encrypt(df, "plain", key=NEW, on_error="fail").collect()
    # In place: the column becomes the wire text; a failed row keeps its input.
    in_place = by_id(pnspark.encrypt(df, "plain", key=NEW, output="plain"), "plain", "pncrypt_status")
    module = sdk_module("acrh", NEW)
    for i, plain in rows:
        wire, status = in_place[i]
        if plain:
            assert status == "ok" and module.decrypt(wire) == json.loads(plain), i
        else:
            assert (wire, status) == (plain, "failed"), i


def test_arguments_are_checked_on_the_driver(spark):
    from pyspark.sql.types import StringType, StructField, StructType
    df = spark.createDataFrame([("x",)], StructType([StructField("message", StringType(), True)]))
    with pytest.raises(ValueError, match="no column 'nope'"):
        pnspark.encrypt(df, "nope", key=NEW)
    with pytest.raises(ValueError, match="on_error must be one of mark, fail"):
        pnspark.encrypt(df, "message", key=NEW, on_error="ignore")
    with pytest.raises(ValueError, match="cannot be 'pncrypt_status'"):
        pnspark.encrypt(df, "message", key=NEW, output="pncrypt_status")
    with pytest.raises(ValueError, match="cannot be 'pncrypt_reason'"):
        pnspark.encrypt(df, "message", key=NEW, output="pncrypt_reason")
    with pytest.raises(pncrypt.Error):
        pnspark.encrypt(df, "message", key=NEW, scheme="rot13")
    binary = spark.createDataFrame([(b"x",)], "data binary")
    with pytest.raises(ValueError, match="only a string column can be encrypted in place"):
        pnspark.encrypt(binary, "data", key=NEW, output="data")
    with pytest.raises(ValueError, match="output must differ from col"):
        pnspark.decrypt(df, "message", keys=[NEW], output="message")


def test_field_of_records_through_decrypt_rekey_and_encrypt(spark):
    """field=: a column of records (a record export whose messages the SDK encrypted, Vectors/records/export.json)
    decrypted, rekeyed and encrypted in its field only; a record without the field is "failed"."""
    import pathlib
    from pyspark.sql.types import LongType, StringType, StructField, StructType
    export = json.loads((pathlib.Path(__file__).resolve().parents[3] / "Vectors" / "records" / "export.json")
                        .read_text(encoding="utf-8"))
    records = [r for r in export["records"] if r["pointer"] == "/message"]
    schema = StructType([StructField("id", LongType(), False), StructField("record", StringType(), True)])
    df = spark.createDataFrame([(i, r["record"]) for i, r in enumerate(records)], schema).repartition(2)
    result = by_id(pnspark.decrypt(df, "record", [export["key"]], field="/message"), "record_decrypted",
                   "pncrypt_status", "pncrypt_reason")
    for i, r in enumerate(records):
        if r["decrypted"] is None:
            assert result[i] == (None, "failed", "invalidValue"), i
        else:
            assert result[i] == (r["decrypted"], "ok", None), i
    moved = pnspark.rekey(df, "record", [export["key"]], NEW, field="/message")
    back = by_id(pnspark.decrypt(moved, "record", [NEW], field="/message"), "record_decrypted")
    assert [back[i][0] for i in range(len(records))] == [r["decrypted"] for r in records]
    plain = spark.createDataFrame([(i, r["decrypted"]) for i, r in enumerate(records) if r["decrypted"]], schema)
    sealed = by_id(pnspark.encrypt(plain, "record", key=NEW, output="wire", field="/message"), "record", "wire")
    module = pncrypt.CryptoModule(NEW)
    for i, (record, wire) in sealed.items():
        assert module.message_decrypt(wire, field="/message") == (record, None), i


def test_channel_column_reads_each_row_with_its_channel_keys(spark):
    """channel_keys= with a channel column: the two-channel export of Vectors/channel-keys/records.json (the SDK's
    messages, one record of ch-a under ch-b's key) as records (field=) and as wire texts; the foreign row fails
    although its key is in the run; rekey moves the others, which the new key alone then reads."""
    import pathlib
    from pyspark.sql.types import LongType, StringType, StructField, StructType
    vectors = json.loads((pathlib.Path(__file__).resolve().parents[3] / "Vectors" / "channel-keys" / "records.json")
                         .read_text(encoding="utf-8"))
    keys, wrong = vectors["keys"], vectors["statuses"][0]["line"] - 1
    rows = [(i, json.loads(line)["channel"], line, json.loads(line)["message"])
            for i, line in enumerate(vectors["export"])]
    schema = StructType([StructField("id", LongType(), False), StructField("channel", StringType(), True),
                         StructField("record", StringType(), True), StructField("wire", StringType(), True)])
    df = spark.createDataFrame(rows, schema).repartition(2)
    records = by_id(pnspark.decrypt(df, "record", channel_keys=keys, field="/message"), "record_decrypted",
                    "pncrypt_status", "pncrypt_reason")
    for i, line in enumerate(vectors["decrypted"]):
        assert records[i] == ((None, "failed", "wrongKeyOrCorrupt") if i == wrong else (line, "ok", None)), i
    wires = by_id(pnspark.decrypt(df, "wire", channel_keys=keys), "wire_decrypted", "pncrypt_status")
    for i, message in enumerate(vectors["messages"]):
        expected = (None, "failed") if i == wrong else (json.dumps(message, separators=(",", ":"),
                                                                   ensure_ascii=False), "ok")
        assert wires[i] == expected, i
    moved = pnspark.rekey(df, "wire", channel_keys=keys, to_key=NEW).localCheckpoint(eager=True)
    assert [s for _, (s,) in sorted(by_id(moved, "pncrypt_status").items())] == \
        ["failed" if i == wrong else "ok" for i in range(len(rows))]
    back = by_id(pnspark.decrypt(moved, "wire", channel_keys={"*": NEW}), "wire_decrypted")
    assert [back[i][0] for i in range(len(rows)) if i != wrong] == \
        [json.dumps(m, separators=(",", ":"), ensure_ascii=False) for i, m in enumerate(vectors["messages"])
         if i != wrong]
    with pytest.raises(ValueError):
        pnspark.decrypt(df, "wire", keys=[NEW], channel_keys=keys)
    with pytest.raises(ValueError):
        pnspark.decrypt(df, "wire", channel_keys=keys, channel_col="room")
