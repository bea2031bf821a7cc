#!/usr/bin/env python3
"""spark_rekey.py: key rotation of an NDJSON message archive on Spark, with `pncrypt message rekey` as a filter.

Line mode is a filter (NDJSON in, NDJSON out, one line per line, in order), so Spark runs it as a stage: each
partition of the archive is piped through one `pncrypt message rekey --lines` process, as `RDD.pipe` does, and
the result is checked by decrypting it with the new key and comparing it with the original messages, line by line.
This is the CLI route; `pncrypt.spark` (the Python package, `pip install ./bindings/python[spark]`) does the same
inside the Python workers with no process per partition, and also runs on Spark Connect, which this route cannot
(Spark Connect has no RDD API).

Strict by default: a line no key decrypts (rekey copies it unchanged) fails its task, and so the job, with the
first status lines in the error; --allow-undecryptable lets such lines through, counted. Every status line is
printed on the executor's standard error with its partition (`{"partition":3,"line":17,...}`: the line number is
within that partition). The child process gets a small explicit environment (PATH, LANG, LC_ALL, TMPDIR; never
the keys, which stay in files).

In Spark's local mode on one machine:

    python3 -m venv .venv-spark && .venv-spark/bin/pip install pyspark      # Java 17 must be installed
    swift build -c release --product pncrypt --static-swift-stdlib --scratch-path .build-static
    .venv-spark/bin/python examples/spark_rekey.py \\
        --pncrypt .build-static/release/pncrypt --messages 200000

`--static-swift-stdlib` links the Swift runtime into the binary: `ldd .build-static/release/pncrypt` lists only
libc, libm, libstdc++, libgcc_s, libcrypto (OpenSSL 3) and libz, so the binary runs on workers without a Swift
toolchain (ship it with `spark-submit --files pncrypt,old.key,new.key` and use the file name). A plain release build
needs the toolchain's libswiftCore.so and friends on every worker.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# What the child process sees: enough to run (a PATH for anything it may start, the locale, a temporary
# folder), nothing else of the executor's environment.
CHILD_ENV_NAMES = ("PATH", "LANG", "LC_ALL", "TMPDIR")


def child_environment():
    env = {name: os.environ[name] for name in CHILD_ENV_NAMES if name in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return env


def run(args, **kwargs):
    return subprocess.run(args, check=True, **kwargs)


def rekey_partition(command, env, allow_undecryptable, counts):
    """The function each task runs: its lines through one rekey process (stdin to stdout, as RDD.pipe pipes them;
    through temporary files, so no pipe can deadlock and memory stays flat), then its status lines printed with
    the partition id, its counts added to the accumulators, and the task failed when a line was not decryptable
    (unless allowed)."""

    def rekey(partition, lines):
        with tempfile.TemporaryFile() as feed, tempfile.TemporaryFile() as output, \
                tempfile.TemporaryFile() as errors:
            for line in lines:
                feed.write(line.encode("utf-8") + b"\n")
            feed.seek(0)
            code = subprocess.run(command, stdin=feed, stdout=output, stderr=errors, env=env).returncode
            errors.seek(0)
            stderr = errors.read().decode("utf-8", "replace").splitlines()
            statuses = [json.dumps({"partition": partition, **json.loads(text)}, separators=(",", ":"))
                        for text in stderr if text.startswith("{")]
            for status in statuses:
                print(status, file=sys.stderr)
            if code != 0:
                raise RuntimeError(f"partition {partition}: pncrypt exited with {code}: " + " | ".join(stderr[-3:]))
            summary = next((t for t in reversed(stderr) if t.startswith("pncrypt: rekeyed")), "")
            numbers = [int(word.strip(",")) for word in summary.split() if word.strip(",").isdigit()]
            if len(numbers) != 3:
                raise RuntimeError(f"partition {partition}: no summary from pncrypt: " + " | ".join(stderr[-3:]))
            rekeyed, unchanged, current = numbers
            if unchanged and not allow_undecryptable:
                raise RuntimeError(f"partition {partition}: {unchanged} line(s) not decryptable (strict mode; "
                                   "--allow-undecryptable copies them unchanged): " + "; ".join(statuses[:3]))
            counts["rekeyed"].add(rekeyed)
            counts["unchanged"].add(unchanged)
            counts["current"].add(current)
            output.seek(0)
            for line in output:
                yield line.decode("utf-8").rstrip("\n")

    return rekey


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pncrypt", default=".build-static/release/pncrypt", help="the pncrypt binary")
    parser.add_argument("--messages", type=int, default=200_000, help="messages in the generated archive")
    parser.add_argument("--undecryptable", type=int, default=0,
                        help="lines under a key nobody has, mixed into the archive (strict mode fails on them)")
    parser.add_argument("--allow-undecryptable", action="store_true",
                        help="let lines no key decrypts through unchanged instead of failing the job")
    parser.add_argument("--partitions", type=int, default=8, help="partitions of the archive")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (keys, archive, result)")
    options = parser.parse_args()
    pncrypt = os.path.abspath(options.pncrypt)

    from pyspark import SparkConf, SparkContext

    work = tempfile.mkdtemp(prefix="pncrypt-spark-")
    old_a, old_b, new, lost = (os.path.join(work, name) for name in ("old-a.key", "old-b.key", "new.key", "lost"))
    for path, key in ((old_a, "old key A"), (old_b, "old key B"), (new, "the new key"), (lost, "a lost key")):
        with open(path, "w") as f:
            f.write(key + "\n")

    # 1. The archive as an export would have it: half under old key A with the fixed IV (legacy), half under
    #    old key B with random IVs, interleaved; the plaintext kept aside for the check. With --undecryptable N,
    #    N more lines under a key nobody has.
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
    lost_lines = []
    if options.undecryptable:
        lost_plain = os.path.join(work, "lost.ndjson")
        with open(lost_plain, "w") as f:
            for i in range(options.undecryptable):
                f.write(json.dumps({"lost": i}) + "\n")
        lost_lines = run([pncrypt, "message", "encrypt", "--lines", "--quiet", "--key-file", lost, "--scheme",
                          "acrh", "-i", lost_plain], capture_output=True, text=True).stdout.splitlines()
    archive = os.path.join(work, "archive.ndjson")
    with open(archive, "w") as f:
        for i in range(options.messages):
            f.write(halves[i % 2][i] + "\n")
        for line in lost_lines:
            f.write(line + "\n")

    # 2. Spark, local mode: each partition through one rekey process, one job per process (Spark runs one task
    #    per core).
    conf = SparkConf().setMaster("local[*]").setAppName("pncrypt-rekey").set("spark.ui.enabled", "false")
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    # --allow-failures: rekey exits 1 when it leaves a line unchanged; this job reads the counts from the summary
    # line itself and applies its own strict mode (with the statuses in the error).
    command = [pncrypt, "message", "rekey", "--lines", "--quiet", "--jobs", "1", "--allow-failures",
               "--key-file", old_a, "--key-file", old_b, "--to-key-file", new, "--to-scheme", "acrh"]
    counts = {name: sc.accumulator(0) for name in ("rekeyed", "unchanged", "current")}
    started = time.time()
    lines = sc.textFile(archive, minPartitions=options.partitions)
    rekeyed = lines.mapPartitionsWithIndex(
        rekey_partition(command, child_environment(), options.allow_undecryptable, counts))
    out_dir = os.path.join(work, "rekeyed")
    try:
        rekeyed.saveAsTextFile(out_dir)
    except Exception as error:  # py4j wraps the task's error; its first line names the partition
        reason = next((t for t in str(error).splitlines() if "RuntimeError: partition" in t), str(error)[:500])
        print(f"the job failed: {reason.strip()}", file=sys.stderr)
        sc.stop()
        if not options.keep:
            shutil.rmtree(work)
        return 1
    elapsed = time.time() - started
    partitions = lines.getNumPartitions()
    totals = {name: accumulator.value for name, accumulator in counts.items()}
    sc.stop()

    # 3. The check: the parts in order are the archive rekeyed; decrypted with the new key only (acrh only), they
    #    are the original messages, line for line (the lines no key reads were copied unchanged).
    parts = sorted(p for p in os.listdir(out_dir) if p.startswith("part-"))
    result = os.path.join(work, "rekeyed.ndjson")
    with open(result, "wb") as f:
        for part in parts:
            with open(os.path.join(out_dir, part), "rb") as p:
                f.write(p.read())
    with open(result) as f:
        result_lines = f.read().splitlines()
    good = os.path.join(work, "rekeyed-good.ndjson")
    with open(good, "w") as f:
        f.write("".join(line + "\n" for line in result_lines[:options.messages]))
    decrypted = subprocess.run([pncrypt, "message", "decrypt", "--lines", "--quiet", "--key-file", new,
                                "--scheme", "acrh", "--on-error", "fail", "-i", good],
                               check=True, capture_output=True).stdout
    with open(plain, "rb") as f:
        expected = f.read()
    same = decrypted == expected and result_lines[options.messages:] == lost_lines
    all_acrh = all(line.startswith('"UE5FRAFBQ1JI') for line in result_lines)
    # A rerun over the result changes nothing.
    again = subprocess.run(command[:3] + command[5:] + ["-i", result], capture_output=True)
    with open(result, "rb") as f:
        idempotent = again.stdout == f.read()
    print(f"{options.messages + len(lost_lines)} lines in {partitions} partitions through Spark in {elapsed:.1f} s: "
          f"rekeyed {totals['rekeyed']}, unchanged {totals['unchanged']}, already new {totals['current']}; "
          f"decrypted with the new key they match the originals: {same}; all acrh: {all_acrh}; "
          f"rerun unchanged: {idempotent} ({again.stderr.decode().strip().splitlines()[-1]})")
    if options.keep:
        print(f"work folder: {work}")
    else:
        shutil.rmtree(work)
    return 0 if same and all_acrh and idempotent else 1


if __name__ == "__main__":
    sys.exit(main())
