#!/usr/bin/env python3
"""spark_bench.py: rows per second per core of three ways to rekey an archive on Spark, in the same run.

1. binding:  pncrypt.spark.rekey (mapInArrow over libpncrypt's batch rekey, inside the Python workers)
2. pipe:     RDD.pipe through `pncrypt message rekey --lines --jobs 1` (one CLI process per partition)
3. SDK UDF:  a pandas UDF calling the PubNub Python SDK (LegacyCryptoModule.decrypt, AesCbcCryptoModule.encrypt)

Spark runs in local mode with one core (local[1]), so rows per second is per core. The archive is N messages of
about 100 bytes under an old key with the fixed IV (legacy), one NDJSON line each (`"<Base64>"`), read from the
same text file by every route, split into the same number of partitions (no shuffle); each route rekeys every
row to acrh under a new key and the result is counted (nothing written). Each route runs twice on the whole
archive to warm up (JVM, Python workers, page cache), then the routes take turns for ROUNDS rounds; each route's
best round is reported.

    python3 -m venv /tmp/sb && /tmp/sb/bin/pip install "pncrypt-*.whl[spark]" "pandas<3" pubnub==10.8.0
    swift build -c release --product pncrypt --static-swift-stdlib --scratch-path .build-static
    /tmp/sb/bin/python scripts/bench/spark_bench.py --pncrypt .build-static/release/pncrypt --rows 200000
"""
import argparse
import json
import os
import sys
import tempfile
import time

OLD, NEW = "the old key", "the new key"


def sdk_modules():
    import logging
    import warnings
    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    from pubnub.pnconfiguration import PNConfiguration
    from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule
    old, new = PNConfiguration(), PNConfiguration()
    for config, key in ((old, OLD), (new, NEW)):
        config.publish_key = config.subscribe_key = "demo"
        config.user_id = "pncrypt-bench"
        config.cipher_key = key
        config.use_random_initialization_vector = False
    return LegacyCryptoModule(old), AesCbcCryptoModule(new)


_MODULES = None


def sdk_rekey(series):
    """The SDK UDF: each wire text decrypted with the old key (legacy, fixed IV), then encrypted under the new key
    (acrh), as one row at a time through the SDK's CryptoModule API."""
    global _MODULES
    if _MODULES is None:
        _MODULES = sdk_modules()
    old, new = _MODULES
    out = []
    for text in series:
        value = old.decrypt(text[1:-1])
        out.append('"' + new.encrypt(json.dumps(value, ensure_ascii=False, separators=(",", ":"))) + '"')
    import pandas as pd
    return pd.Series(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pncrypt", default=".build-static/release/pncrypt", help="the pncrypt binary")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sdk-rows", type=int, default=50_000, help="rows for the (slow) SDK route")
    options = parser.parse_args()
    pncrypt_binary = os.path.abspath(options.pncrypt)

    import pncrypt
    from pncrypt import spark as pnspark
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import pandas_udf

    os.environ["PYSPARK_PYTHON"] = sys.executable
    work = tempfile.mkdtemp(prefix="pncrypt-spark-bench-")
    old_key_file, new_key_file = os.path.join(work, "old.key"), os.path.join(work, "new.key")
    for path, key in ((old_key_file, OLD), (new_key_file, NEW)):
        with open(path, "w") as f:
            f.write(key + "\n")

    def archive(rows):
        path = os.path.join(work, f"archive-{rows}.ndjson")
        messages = [json.dumps({"n": i, "text": f"message {i} ünïcödé 漢語", "user": f"user-{i % 97}",
                                "ts": 17000000000000000 + i}, ensure_ascii=False, separators=(",", ":"))
                    for i in range(rows)]
        texts = pncrypt.CryptoModule(OLD, scheme="legacy").encrypt_many(messages)
        with open(path, "w") as f:
            f.write("".join(f'"{t}"\n' for t in texts))
        return path

    spark = (SparkSession.builder.master("local[1]").appName("pncrypt-spark-bench")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    command = " ".join([pncrypt_binary, "message", "rekey", "--lines", "--quiet", "--jobs", "1",
                        "--key-file", old_key_file, "--to-key-file", new_key_file, "--to-scheme", "acrh"])
    sdk_udf = pandas_udf(sdk_rekey, "string")

    def read(path):
        # The same split as textFile(minPartitions=N): N file splits, no shuffle (checked once, untimed).
        spark.conf.set("spark.sql.files.maxPartitionBytes", str(os.path.getsize(path) // options.partitions + 1))
        return spark.read.text(path)

    def binding(path):
        df = read(path)
        out = pnspark.rekey(df, "value", keys=[OLD], to_key=NEW, to_scheme="acrh", on_error="fail")
        return out.filter(out.pncrypt_status == "ok").count()

    def pipe(path):
        rdd = spark.sparkContext.textFile(path, minPartitions=options.partitions)
        out = rdd.pipe(command, env=env, checkCode=True)
        return out.filter(lambda line: line.startswith('"UE5FRAFBQ1JI')).count()

    def sdk(path):
        df = read(path)
        out = df.select(sdk_udf(df.value).alias("value"))
        return out.filter(out.value.startswith('"UE5FRAFBQ1JI')).count()

    routes = [("binding (pncrypt.spark.rekey)", binding, options.rows),
              ("pipe (RDD.pipe, pncrypt message rekey --lines)", pipe, options.rows),
              ("Python SDK in a pandas UDF", sdk, options.sdk_rows)]
    # Warm-up: every route twice (JVM JIT, Python workers, page cache), so no route pays for going first; then
    # the rounds interleave the routes, so that a busy minute on a shared machine hits them all alike.
    paths = {}
    for name, route, rows in routes:
        paths[name] = archive(rows)
        assert read(paths[name]).rdd.getNumPartitions() == options.partitions
        for _ in range(2):
            assert route(paths[name]) == rows, name          # and every row rekeyed
    best = {}
    for _ in range(options.rounds):
        for name, route, rows in routes:
            started = time.perf_counter()
            count = route(paths[name])
            elapsed = time.perf_counter() - started
            assert count == rows, (name, count)
            best[name] = min(best.get(name, elapsed), elapsed)
    results = [(name, rows, best[name]) for name, _, rows in routes]
    spark.stop()
    base = results[0][1] / results[0][2]
    print(f"local[1] (one core), {options.partitions} partitions, best of {options.rounds}; "
          f"pncrypt {pncrypt.library_version()}")
    for name, rows, elapsed in results:
        rate = rows / elapsed
        print(f"{name:50s} {rows:>8,} rows {elapsed:7.2f} s {rate:>10,.0f} rows/s per core  "
              f"{rate / base:5.2f}x the binding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
