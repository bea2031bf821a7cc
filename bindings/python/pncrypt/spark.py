"""pncrypt on Spark: encrypt, decrypt and rekey a DataFrame column of PubNub wire texts.

    from pncrypt import spark as pnspark
    out = pnspark.rekey(df, "message", keys=[old_a, old_b], to_key=new_key, to_scheme="acrh")
    out.groupBy("pncrypt_status").count().show()              # ok / current / failed

Each function returns a new DataFrame with the result column and two string columns: `pncrypt_status`, "ok",
"current" (rekey only: the row was already under `to_key` and `to_scheme`, and is unchanged) or "failed" (the row
could not be processed: its input stays unchanged, and decrypt's and encrypt's output is null); and
`pncrypt_reason`, null unless the row failed, else why, named as the library's status names it (the "reason" of
its status JSON): "notBase64", "wrongKeyOrCorrupt" (every failure that depends on the key: bad padding, text that
is not UTF-8 or not JSON; which check failed is never told), "ambiguous", "malformedHeader", "unknownCryptor",
"notEncrypted" (a null or empty cell, for decrypt and rekey), "emptyPlaintext" (encrypt). With on_error="fail",
the action that computes the DataFrame raises instead, on the first failed row (naming its partition, row and
reason, never its content).

A key per channel: `decrypt` and `rekey` take channel_keys={"ch-a": key_a, "ch-b": key_b, "*": rest} instead of
keys=, and read each row only with the keys of its channel, the string in column `channel_col` ("channel"): a row
under another channel's key is "failed" (wrongKeyOrCorrupt), even though that key is in the job.

In local mode Spark's Python workers run PYSPARK_PYTHON, or `python3` when it is not set, which is not the
driver's Python when that is a virtual environment's: the functions then give the workers the driver's
interpreter (classic Spark; PYSPARK_PYTHON unset), or fail at once naming PYSPARK_PYTHON when the workers' Python
cannot import pncrypt (a Spark Connect server started without it). On a cluster every worker needs a Python with
pncrypt installed, named by PYSPARK_PYTHON (or `spark.pyspark.python`).

The work runs on Arrow batches (`DataFrame.mapInArrow`), one batch call into libpncrypt per Arrow batch, so it
works the same on classic Spark and on Spark Connect, and needs only the pncrypt wheel (which carries the
library) installed on the workers: no binary to ship, no process per partition. Keys travel to the workers inside
the job, as every value a function closes over does: use Spark's own means (an encrypted RPC channel,
`spark.authenticate`, `spark.io.encryption.enabled`) on a shared cluster.

Decryption follows the library's decision procedure: a row is decrypted only when exactly one (key, scheme)
reading qualifies (valid padding, and valid UTF-8 for text); with several keys, or legacy data that could be read
with either IV, a row no single reading explains is "failed" rather than a guess among them. CBC has no
integrity check, so a row of bytes (decrypt with binary=True) that allows one reading only (a PNED header, one
headerless block, an explicit scheme) and was made under another key passes the padding check about once in 256:
it is "ok" with garbage (about 20 of 5,000 foreign rows). Text (the default) also needs valid UTF-8, which keeps
such garbage out far more often (docs/security.md, "Residual risk", has the measured figures).
"""
import json
import os
import subprocess
import sys

import pncrypt

__all__ = ["encrypt", "decrypt", "rekey", "STATUS", "REASON"]

#: The status column every function adds.
STATUS = "pncrypt_status"
#: The reason column every function adds: null, or why the row failed (the library's reason name).
REASON = "pncrypt_reason"
_ADDED = (STATUS, REASON)

_ON_ERROR = ("mark", "fail")


class RowFailed(pncrypt.Error):
    """A failed row under on_error="fail": `partition` and `row` (its position in the partition)."""

    def __init__(self, action, partition, row, reason=None):
        super().__init__(pncrypt.E_DECRYPTION if action != "encrypt" else pncrypt.E_ENCRYPTION,
                         f"pncrypt.spark.{action}: row {row} of partition {partition} failed"
                         f"{f': {reason}' if reason else ''} (on_error=\"fail\"; on_error=\"mark\" marks it "
                         "\"failed\" in pncrypt_status instead)")
        self.partition = partition
        self.row = row


def _check(df, col, output, on_error):
    if col not in df.columns:
        raise ValueError(f"pncrypt.spark: no column {col!r} in the DataFrame (columns: {', '.join(df.columns)})")
    if on_error not in _ON_ERROR:
        raise ValueError(f"pncrypt.spark: on_error must be one of {', '.join(_ON_ERROR)}, not {on_error!r}")
    if output in _ADDED:
        raise ValueError(f"pncrypt.spark: the output column cannot be {output!r} (the status and reason columns "
                         f"are {STATUS!r} and {REASON!r})")
    _local_python(df)


_checked_pythons = {}


def _local_python(df):
    """Makes sure that Spark's Python workers can import pncrypt when they run on this machine (local mode), on the
    driver, before any job runs. Classic Spark takes the workers' interpreter from `SparkContext.pythonExec`
    (PYSPARK_PYTHON when the context started, else `python3`) for each function it ships: with PYSPARK_PYTHON
    unset it becomes this interpreter (sys.executable, which imports pncrypt). Otherwise (PYSPARK_PYTHON set, or a
    local Spark Connect server, whose workers run the PYSPARK_PYTHON of its start), that interpreter is asked to
    import pncrypt once, and a failure is raised here, naming PYSPARK_PYTHON, instead of a ModuleNotFoundError
    in every task."""
    try:
        from pyspark import SparkContext
    except ImportError:  # a Spark Connect client without classic Spark: the server is elsewhere
        return
    context = SparkContext._active_spark_context  # this process's: classic, or a local Connect server's
    if context is None or not str(context.master).startswith("local"):
        return  # a cluster, or a remote Connect server: its workers' Python is the cluster's (docs/bulk-work.md)
    classic = not type(df).__module__.startswith("pyspark.sql.connect")
    if classic:
        if os.environ.get("PYSPARK_PYTHON") is None and context.pythonExec == "python3":
            context.pythonExec = sys.executable
        python = context.pythonExec
    else:
        python = os.environ.get("PYSPARK_PYTHON") or os.environ.get("PYSPARK_DRIVER_PYTHON") or "python3"
    if python == sys.executable:
        return
    if python not in _checked_pythons:
        try:
            probe = subprocess.run([python, "-c", "import pncrypt"], capture_output=True, text=True, timeout=120)
            failure = None if probe.returncode == 0 else (probe.stderr.strip().splitlines() or ["failed"])[-1]
        except (OSError, subprocess.SubprocessError) as error:
            failure = str(error)
        _checked_pythons[python] = failure
    failure = _checked_pythons[python]
    if failure is not None:
        told = os.environ.get("PYSPARK_PYTHON")
        raise RuntimeError(
            f"pncrypt.spark: Spark's Python workers run {python!r} "
            f"({f'PYSPARK_PYTHON={told}' if told else 'PYSPARK_PYTHON is not set'}), which cannot import pncrypt "
            f"({failure}); set PYSPARK_PYTHON={sys.executable} (this Python) before the Spark session starts, or "
            "install pncrypt for that Python")


def _schema(df, output, output_type):
    """The result's schema: the input's, with `output` (replaced in place or added), the status and reason
    columns."""
    from pyspark.sql.types import StringType, StructField, StructType
    fields = [f for f in df.schema.fields if f.name not in _ADDED]
    names = [f.name for f in fields]
    if output in names:
        fields[names.index(output)] = StructField(output, output_type, True)
    else:
        fields.append(StructField(output, output_type, True))
    fields.append(StructField(STATUS, StringType(), False))
    fields.append(StructField(REASON, StringType(), True))
    return StructType(fields)


def _partition_id():
    from pyspark import TaskContext
    context = TaskContext.get()
    return context.partitionId() if context is not None else -1


def _mapper(action, col, output, on_error, make_worker, binary=False, channel_col=None):
    """The function mapInArrow runs on each partition: per Arrow batch, the values of `col` go through
    `work(values) -> (outputs, statuses, reasons)` (one library batch call; with `channel_col`,
    `work(values, channels)`), and the batch comes back with `output`, the status and the reason columns.
    `make_worker()` builds the modules once per partition, on the worker."""

    def run(batches):
        import pyarrow as pa
        work = make_worker()
        partition = _partition_id()
        seen = 0
        for batch in batches:
            names = batch.schema.names
            values = batch.column(names.index(col)).to_pylist()
            if channel_col is None:
                outputs, statuses, reasons = work(values)
            else:
                outputs, statuses, reasons = work(values, batch.column(names.index(channel_col)).to_pylist())
            if on_error == "fail" and "failed" in statuses:
                first = statuses.index("failed")
                raise RowFailed(action, partition, seen + first, reasons[first])
            seen += len(values)
            columns = [batch.column(i) for i, name in enumerate(names) if name not in _ADDED]
            kept = [name for name in names if name not in _ADDED]
            result = pa.array(outputs, type=pa.binary() if binary else pa.string())
            if output in kept:
                columns[kept.index(output)] = result
            else:
                columns.append(result)
                kept.append(output)
            columns.append(pa.array(statuses, type=pa.string()))
            columns.append(pa.array(reasons, type=pa.string()))
            kept += [STATUS, REASON]
            yield pa.RecordBatch.from_arrays(columns, names=kept)

    return run


def _present(values):
    """The positions of the cells that hold something (null and empty cells are failed rows)."""
    return [i for i, v in enumerate(values) if v is not None and len(v) > 0]


# A null or empty cell: nothing to encrypt, nothing encrypted.
_EMPTY_PLAINTEXT = pncrypt.reason(pncrypt.E_EMPTY_PLAINTEXT)
_NOT_ENCRYPTED = pncrypt.reason(pncrypt.E_NOT_ENCRYPTED)


def _reasons(codes):
    """The reason of each item of a batch: None for 0, else the library's name of the code."""
    return [pncrypt.reason(code) if code else None for code in codes]


def _field_check(field):
    """A `field=` argument, checked on the driver: None, or a valid JSON Pointer (an invalid one raises here, saying
    what a pointer looks like, instead of failing every row on the workers)."""
    if field is None:
        return None
    with pncrypt.CryptoModule("k") as module:
        try:
            module.message_encrypt('{"x":1}', field=field)
        except pncrypt.Error as error:
            if error.code == pncrypt.E_ARGUMENT:
                raise ValueError(f"pncrypt.spark: field: {error}") from None
    return field


def encrypt(df, col, key, scheme="acrh", output=None, on_error="mark", field=None):
    """Encrypts column `col` (strings, as UTF-8, or binary) with `key` in `scheme` ("acrh" by default; "legacy",
    "legacy-random-iv", "legacy33"). `output` (default `<col>_encrypted`; `col` itself for a string column, where
    a failed row keeps its input) holds the Base64 wire text, null for a failed row. Null and empty cells are
    "failed" (empty data cannot be encrypted in any scheme).
    With field= (an RFC 6901 JSON Pointer, "/message"), `col` holds JSON records (one line of an export each):
    each record's field value, exactly as given, is encrypted as a message and `output` holds the record with the
    field replaced by the wire JSON, every other byte kept; a record without the field is "failed"."""
    output = output or f"{col}_encrypted"
    _check(df, col, output, on_error)
    in_place = output == col
    if in_place and df.schema[col].dataType.typeName() != "string":
        raise ValueError("pncrypt.spark.encrypt: only a string column can be encrypted in place (output=col)")
    pncrypt.CryptoModule(key, scheme=scheme).close()  # a bad key or scheme fails here, not on the workers
    make_worker = _encrypt_worker(key, scheme, in_place, _field_check(field))
    from pyspark.sql.types import StringType
    return df.mapInArrow(_mapper("encrypt", col, output, on_error, make_worker), _schema(df, output, StringType()))


def _encrypt_worker(key, scheme, in_place, field):
    """`encrypt`'s worker factory: `make_worker()` builds the module on the worker and returns `work(values)`."""

    def make_worker():
        module = pncrypt.CryptoModule(key, scheme=scheme)

        def work(values):
            outputs = list(values) if in_place else [None] * len(values)   # in place, a failed row keeps its input
            statuses = ["failed"] * len(values)
            reasons = [_EMPTY_PLAINTEXT] * len(values)
            todo = _present(values)
            while todo:
                try:
                    texts = module.encrypt_many([values[i] for i in todo], field=field)
                except pncrypt.Error as error:
                    if error.index is None:
                        raise
                    reasons[todo[error.index]] = pncrypt.reason(error.code)
                    todo = todo[error.index + 1:]  # that item failed; the ones before it are redone
                    continue
                for i, text in zip(todo, texts):
                    outputs[i], statuses[i], reasons[i] = text, "ok", None
                break
            return outputs, statuses, reasons

        return work

    return make_worker


def decrypt(df, col, keys=None, output=None, scheme="auto", binary=False, on_error="mark", field=None,
            channel_keys=None, channel_col="channel", plaintext="json"):
    """Decrypts column `col` (Base64 wire texts) with any of `keys` (a list: the first is tried like the others;
    a row is decrypted only when exactly one key's reading qualifies). `scheme` "auto" reads a PNED header when
    there is one, else legacy; a list of readings, "auto,legacy33" or ["auto", "legacy33"], reads iOS 3.3 rows
    beside later ones in one pass (with field=, the records' messages too), each row decrypted only when exactly
    one reading of the list qualifies. `output` (default `<col>_decrypted`) is a string column (the plaintext must be
    valid UTF-8, or the row fails), or binary with binary=True, where only the padding is checked (a foreign row
    that one reading allows passes about once in 256, with garbage: see the module's docstring). A failed row's
    output is null.
    With field= (an RFC 6901 JSON Pointer, "/message"), `col` holds JSON records whose field is the wire message (a
    JSON string of Base64): `output` holds the record with the field replaced by the decrypted message (compact
    JSON), every other byte kept; a record without the field, or whose field does not decrypt, is "failed".
    With channel_keys= (instead of keys: a dict {pattern: keys} as pncrypt.ChannelKeys takes), each row is read
    only with the keys of its channel, the string in column `channel_col` ("channel" by default; patterns "name",
    "name*", "*" as for envelopes): a row under another channel's key fails ("wrongKeyOrCorrupt"), as does a row
    whose channel has no keys ("invalidKey") or is null ("invalidValue"). Each row's message must then be JSON
    (as a record's): `output` holds it as compact JSON (with field=, the record as above); scheme="auto" only.
    plaintext="text" (with field=): a field whose plaintext is UTF-8 but not JSON (a publisher that encrypted a raw
    string) is decrypted to a JSON string instead of failing, as `pncrypt.CryptoModule(..., plaintext="text")`;
    not with channel_keys= (the channel calls read JSON messages)."""
    output = output or f"{col}_decrypted"
    _check(df, col, output, on_error)
    if output == col:
        raise ValueError("pncrypt.spark.decrypt: output must differ from col (a failed row keeps its input)")
    if field is not None and binary:
        raise ValueError("pncrypt.spark.decrypt: field= gives records (text), not binary=True")
    pncrypt.CryptoModule("k", plaintext=plaintext).close()  # an unknown plaintext fails here, on the driver
    if channel_keys is not None:
        if plaintext != "json":
            raise ValueError("pncrypt.spark.decrypt: channel_keys= reads JSON messages: not with plaintext="
                             f"{plaintext!r} (decrypt each channel's rows with keys= and plaintext= instead)")
        _channel_check(df, keys, channel_keys, channel_col, scheme == "auto" and not binary)
        from pyspark.sql.types import StringType
        make_worker = _channel_worker(channel_keys, _field_check(field))
        return df.mapInArrow(_mapper("decrypt", col, output, on_error, make_worker, channel_col=channel_col),
                             _schema(df, output, StringType()))
    keys = _keys(keys)
    if _is_list(scheme):
        pncrypt.CryptoModule(keys[0], reading=scheme).close()  # a list that cannot be read fails here
    make_worker = _decrypt_worker(keys, scheme, binary, _field_check(field), plaintext)
    from pyspark.sql.types import BinaryType, StringType
    return df.mapInArrow(_mapper("decrypt", col, output, on_error, make_worker, binary=binary),
                         _schema(df, output, BinaryType() if binary else StringType()))


def _decrypt_worker(keys, scheme, binary, field, plaintext="json"):
    """`decrypt`'s worker factory (see `_encrypt_worker`)."""

    def make_worker():
        # Records' messages are read as the module reads messages: a list of readings is its reading.
        module = _module(keys, reading=scheme if field is not None and _is_list(scheme) else None,
                         plaintext=plaintext)

        def batch(values):
            if field is None:
                return module._decrypt_batch(values, scheme, not binary)
            return module._field_batch(pncrypt._lib.pncrypt_field_decrypt_many, values, field,
                                       pncrypt.ON_ERROR_DEFAULT, "none")[:2]

        def work(values):
            todo = _present(values)
            if len(todo) == len(values):  # no null or empty cell: the batch as it is
                plain, codes = batch(values)
                return plain, ["failed" if code else "ok" for code in codes], _reasons(codes)
            outputs = [None] * len(values)
            statuses = ["failed"] * len(values)
            reasons = [_NOT_ENCRYPTED] * len(values)
            if todo:
                plain, codes = batch([values[i] for i in todo])
                for i, value, reason in zip(todo, plain, _reasons(codes)):
                    outputs[i], statuses[i], reasons[i] = value, "failed" if reason else "ok", reason
            return outputs, statuses, reasons

        return work

    return make_worker


def rekey(df, col, keys=None, to_key=None, to_scheme="acrh", output=None, on_error="mark", field=None,
          channel_keys=None, channel_col="channel"):
    """Re-encrypts column `col` (Base64 wire texts) from any of `keys` to `to_key` in `to_scheme`, in place by
    default (`output` names another column instead). Statuses: "ok" (rekeyed), "current" (already under
    `to_key` and `to_scheme`: unchanged), "failed" (unchanged). Idempotent: a second run reports "current".
    With field= (an RFC 6901 JSON Pointer, "/message"), `col` holds JSON records and each one's field (a JSON
    string of Base64) is moved, every other byte kept; a record without the field is "failed", unchanged.
    With channel_keys= (instead of keys), each row is read only with the old keys of its channel, the string in
    column `channel_col`, as `decrypt` reads it; a row that cannot be read so is "failed", unchanged."""
    output = output or col
    _check(df, col, output, on_error)
    if to_key is None:
        raise ValueError("pncrypt.spark.rekey: to_key is required (the new key)")
    pncrypt.CryptoModule(to_key, scheme=to_scheme).close()
    if channel_keys is not None:
        _channel_check(df, keys, channel_keys, channel_col, True)
        from pyspark.sql.types import StringType
        make_worker = _channel_worker(channel_keys, _field_check(field), to_key, to_scheme)
        return df.mapInArrow(_mapper("rekey", col, output, on_error, make_worker, channel_col=channel_col),
                             _schema(df, output, StringType()))
    keys = _keys(keys)
    make_worker = _rekey_worker(keys, to_key, to_scheme, _field_check(field))
    from pyspark.sql.types import StringType
    return df.mapInArrow(_mapper("rekey", col, output, on_error, make_worker), _schema(df, output, StringType()))


def _rekey_worker(keys, to_key, to_scheme, field):
    """`rekey`'s worker factory (see `_encrypt_worker`)."""

    def make_worker():
        source = _module(keys)
        target = pncrypt.CryptoModule(to_key, scheme=to_scheme)
        names = {"rekeyed": "ok", "current": "current", "failed": "failed"}

        def work(values):
            todo = _present(values)
            if len(todo) == len(values):  # no null or empty cell: the batch as it is
                result = source.rekey_many(values, target, field=field)
                return result.texts, [names[status] for status in result.statuses], _reasons(result.codes)
            outputs = list(values)
            statuses = ["failed"] * len(values)
            reasons = [_NOT_ENCRYPTED] * len(values)
            if todo:
                result = source.rekey_many([values[i] for i in todo], target, field=field)
                for i, text, status, reason in zip(todo, result.texts, result.statuses, _reasons(result.codes)):
                    outputs[i], statuses[i], reasons[i] = text, names[status], reason
            return outputs, statuses, reasons

        return work

    return make_worker


def _channel_check(df, keys, channel_keys, channel_col, supported):
    """The channel arguments, checked on the driver: channel_keys instead of keys, the channel column there, the
    patterns and keys valid (pncrypt.ChannelKeys refuses them here, not on the workers)."""
    if keys is not None:
        raise ValueError("pncrypt.spark: give keys= or channel_keys=, not both (channel_keys={'*': key} reads every "
                         "other channel)")
    if not supported:
        raise ValueError("pncrypt.spark.decrypt: channel_keys= reads messages (JSON text) by the rule: not with "
                         "binary=True or a scheme")
    if channel_col not in df.columns:
        raise ValueError(f"pncrypt.spark: no channel column {channel_col!r} in the DataFrame (columns: "
                         f"{', '.join(df.columns)}; channel_col= names it)")
    pncrypt.ChannelKeys(channel_keys).close()


def _channel_worker(channel_keys, field, to_key=None, to_scheme="acrh"):
    """The worker factory of decrypt (`to_key` None) and rekey with channel keys: each row becomes the record
    {"m": <the row's value>, "c": <its channel>} (the value as a JSON string, or with `field` the record itself,
    its pointer under "/m"), read by the library's record call with the channel at "/c" (last, so that a value
    cannot name another channel); the row's output is what the library gives in the value's place."""

    def make_worker():
        keys = pncrypt.ChannelKeys(channel_keys)
        target = None if to_key is None else pncrypt.CryptoModule(to_key, scheme=to_scheme)
        pointer = "/m" + (field or "")

        def work(values, channels):
            outputs = [None] * len(values) if target is None else list(values)
            statuses = ["failed"] * len(values)
            reasons = [_NOT_ENCRYPTED] * len(values)
            todo = _present(values)
            tails = [',"c":' + json.dumps(channels[i], ensure_ascii=False) + "}" for i in todo]
            records = [_HEAD + (values[i] if field else json.dumps(values[i], ensure_ascii=False)) + tail
                       for i, tail in zip(todo, tails)]
            if not records:
                return outputs, statuses, reasons
            out, codes, outcomes, _ = pncrypt._channel_batch(records, keys, pointer, "/c", "keep", to=target)
            for i, text, tail, code, outcome in zip(todo, out, tails, codes, outcomes):
                if code:
                    reasons[i] = pncrypt.reason(code)
                    continue
                inner = text[len(_HEAD):len(text) - len(tail)]
                outputs[i] = json.loads(inner) if target is not None and not field else inner
                statuses[i] = "current" if target is not None and outcome == pncrypt.REKEY_CURRENT else "ok"
                reasons[i] = None
            return outputs, statuses, reasons

        return work

    return make_worker


# The start of the record a channel worker makes of a row.
_HEAD = '{"m":'


def _keys(keys):
    if keys is None:
        raise ValueError("pncrypt.spark: keys= is required (or channel_keys= for a key per channel)")
    if isinstance(keys, (str, bytes)):
        keys = [keys]
    keys = list(keys)
    if not keys:
        raise ValueError("pncrypt.spark: keys must name at least one key")
    _module(keys).close()  # a bad key fails here, on the driver
    return keys


def _is_list(scheme):
    """Whether `scheme` is a list of readings ("auto,legacy33", or a list or tuple of names)."""
    return isinstance(scheme, (list, tuple)) or (isinstance(scheme, str) and "," in scheme)


def _module(keys, reading=None, plaintext="json"):
    module = pncrypt.CryptoModule(keys[0], reading=reading, plaintext=plaintext)
    for key in keys[1:]:
        module.add_key(key)
    return module
