"""pncrypt.spark on Spark Connect: a local Connect server (SparkSession.builder.remote("local[2]")), in its own
process so that it does not meet the classic session of test_spark.py. Needs pyspark[connect]."""
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install ./bindings/python[spark])")
pytest.importorskip("grpc", reason="Spark Connect's client is not installed (pip install pyspark[connect])")

import pncrypt  # noqa: E402

SCRIPT = textwrap.dedent('''
    import json, os, sys
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    import pncrypt
    from pncrypt import spark as pnspark
    spark = SparkSession.builder.remote("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    assert type(spark).__module__ == "pyspark.sql.connect.session", type(spark)
    result = {}
    df = spark.createDataFrame([(1, '{"a":1}'), (2, ""), (3, None)], "id long, plain string")
    rows = pnspark.encrypt(df, "plain", key="k", output="wire").orderBy("id").collect()
    result["encrypt"] = [(r.wire and pncrypt.CryptoModule("k").decrypt(r.wire), r.pncrypt_status)
                         for r in rows]
    if hasattr(pncrypt.CryptoModule, "rekey_many"):
        old = pncrypt.CryptoModule("old", scheme="legacy")
        wire = spark.createDataFrame([(1, old.encrypt('{"a":1}')), (2, "junk")], "id long, message string")
        rows = pnspark.rekey(wire, "message", keys=["old"], to_key="new").orderBy("id").collect()
        result["rekey"] = [(pncrypt.CryptoModule("new").decrypt(rows[0].message), rows[0].pncrypt_status),
                           (rows[1].message, rows[1].pncrypt_status)]
        try:
            pnspark.rekey(wire, "message", keys=["old"], to_key="new", on_error="fail").collect()
            result["fail"] = "no error"
        except Exception as error:
            result["fail"] = str(error)
    spark.stop()
    print(json.dumps(result))
''')


def test_encrypt_and_rekey_run_on_spark_connect():
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300,
                          cwd=str(pathlib.Path(pncrypt.__file__).parents[1]))
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["encrypt"] == [['{"a":1}', "ok"], [None, "failed"], [None, "failed"]]
    assert result["rekey"] == [['{"a":1}', "ok"], ["junk", "failed"]]
    assert re.search(r"pncrypt\.spark\.rekey: row \d+ of partition \d+ failed", result["fail"]), \
        result["fail"][:2000]
