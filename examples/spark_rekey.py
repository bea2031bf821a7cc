#!/usr/bin/env python3
"""spark_rekey.py: key rotation of an NDJSON message archive on Spark, with `pncrypt message rekey` as a filter.

Line mode is a filter (NDJSON in, NDJSON out, one line per line, in order), so Spark runs it unchanged as a stage:
each partition of the archive is piped through one `pncrypt message rekey` process (RDD.pipe), and the result is
checked by decrypting it with the new key and comparing it with the original messages, line by line.

It is an example (run by hand, not in CI). In Spark's local mode on one machine:

    python3 -m venv .venv-spark && .venv-spark/bin/pip install pyspark      # Java 17 must be installed
    swift build -c release --product pncrypt
    .venv-spark/bin/python examples/spark_rekey.py --pncrypt .build/release/pncrypt --messages 200000

On a cluster, install pncrypt on every worker (or ship it with --files) and read the archive from shared storage;
nothing else changes. Keys are read from files (not the command line, which other users can see).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run(args, **kwargs):
    return subprocess.run(args, check=True, **kwargs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pncrypt", default=".build/release/pncrypt", help="the pncrypt binary")
    parser.add_argument("--messages", type=int, default=200_000, help="messages in the generated archive")
    parser.add_argument("--partitions", type=int, default=8, help="partitions of the archive")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (keys, archive, result)")
    options = parser.parse_args()
    pncrypt = os.path.abspath(options.pncrypt)

    from pyspark import SparkConf, SparkContext

    work = tempfile.mkdtemp(prefix="pncrypt-spark-")
    old_a, old_b, new = (os.path.join(work, name) for name in ("old-a.key", "old-b.key", "new.key"))
    for path, key in ((old_a, "old key A"), (old_b, "old key B"), (new, "the new key")):
        with open(path, "w") as f:
            f.write(key + "\n")

    # 1. The archive as an export would have it: half under old key A with the fixed IV (legacy), half under
    #    old key B with random IVs, interleaved; the plaintext kept aside for the check.
    plain = os.path.join(work, "plain.ndjson")
    with open(plain, "w") as f:
        for i in range(options.messages):
            f.write(json.dumps({"n": i, "text": f"message {i} ünïcödé 漢語", "user": f"user-{i % 97}"},
                               ensure_ascii=False, separators=(",", ":")) + "\n")
    halves = []
    for key, scheme in ((old_a, "legacy"), (old_b, "legacy-random-iv")):
        out = os.path.join(work, f"archive-{scheme}.ndjson")
        run([pncrypt, "message", "encrypt", "--lines", "--quiet", "--key-file", key, "--scheme", scheme,
             "-i", plain, "-o", out])
        with open(out) as f:
            halves.append(f.read().splitlines())
    archive = os.path.join(work, "archive.ndjson")
    with open(archive, "w") as f:
        for i in range(options.messages):
            f.write(halves[i % 2][i] + "\n")

    # 2. Spark, local mode, one core per worker thread: each partition piped through one rekey process.
    conf = SparkConf().setMaster("local[*]").setAppName("pncrypt-rekey").set("spark.ui.enabled", "false")
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    rekey = [pncrypt, "message", "rekey", "--lines", "--quiet", "--jobs", "1", "--key-file", old_a,
             "--key-file", old_b, "--to-key-file", new, "--to-scheme", "acrh"]
    started = time.time()
    lines = sc.textFile(archive, minPartitions=options.partitions)
    rekeyed = lines.pipe(" ".join(rekey), checkCode=True)
    out_dir = os.path.join(work, "rekeyed")
    rekeyed.saveAsTextFile(out_dir)
    elapsed = time.time() - started
    partitions = lines.getNumPartitions()
    sc.stop()

    # 3. The check: the parts in order are the archive rekeyed; decrypted with the new key only (acrh only), they
    #    are the original messages, line for line.
    parts = sorted(p for p in os.listdir(out_dir) if p.startswith("part-"))
    result = os.path.join(work, "rekeyed.ndjson")
    with open(result, "wb") as f:
        for part in parts:
            with open(os.path.join(out_dir, part), "rb") as p:
                f.write(p.read())
    decrypted = subprocess.run([pncrypt, "message", "decrypt", "--lines", "--quiet", "--key-file", new,
                                "--scheme", "acrh", "--on-error", "fail", "-i", result],
                               check=True, capture_output=True).stdout
    with open(plain, "rb") as f:
        expected = f.read()
    same = decrypted == expected
    with open(result) as f:
        all_acrh = all(line.startswith('"UE5FRAFBQ1JI') for line in f)
    # A rerun over the result changes nothing.
    again = subprocess.run(rekey[:3] + rekey[5:] + ["-i", result], check=True, capture_output=True)
    with open(result, "rb") as f:
        idempotent = again.stdout == f.read()
    print(f"{options.messages} messages in {partitions} partitions rekeyed by Spark in {elapsed:.1f} s; "
          f"decrypted with the new key they match the originals: {same}; all acrh: {all_acrh}; "
          f"rerun unchanged: {idempotent} ({again.stderr.decode().strip()})")
    if options.keep:
        print(f"work folder: {work}")
    else:
        shutil.rmtree(work)
    return 0 if same and all_acrh and idempotent else 1


if __name__ == "__main__":
    sys.exit(main())
