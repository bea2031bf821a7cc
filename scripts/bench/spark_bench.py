#!/usr/bin/env python3
"""spark_bench.py: rows per second per core of pncrypt.spark against other ways to decrypt, encrypt and rekey on Spark.

For each operation of --ops (decrypt, encrypt, rekey; all by default), in the same run:

1. binding:  pncrypt.spark.decrypt / .encrypt / .rekey (mapInArrow over libpncrypt's batch calls, inside the
             Python workers)
2. pipe:     RDD.pipe through `pncrypt message decrypt / encrypt / rekey --lines --jobs 1` (one CLI process per
             partition; encrypt with --verbatim, so that the JSON text is encrypted as given, as the other routes
             do; --no-pipe leaves this route out)
3. SDK UDF:  a pandas UDF calling the PubNub Python SDK (pubnub 10.8.0) one row at a time: decrypt is
             LegacyCryptoModule.decrypt (fixed IV) and json.dumps of the value it returns (the SDK parses the JSON:
             the text is what the other routes deliver); encrypt is AesCbcCryptoModule.encrypt of the JSON text
             (acrh); rekey is both

Spark runs in local mode with one core (local[1]), so rows per second is per core. The data: N messages of about
100 bytes (JSON objects). decrypt and rekey read them encrypted under an old key with the fixed IV (legacy), one
NDJSON line each (`"<Base64>"`); encrypt reads their JSON text, one line each. Every route reads the same kind
of text file, split into the same number of partitions (no shuffle); decrypt delivers the JSON text, encrypt
the acrh text under a new key, rekey moves each row to acrh under the new key; the result is counted (rows whose
output looks right: the binding's "ok" rows), nothing written. The binding's decrypt reads with scheme="auto" (its
default: both legacy readings are checked, the one decision procedure), or --decrypt-scheme legacy (the SDK's
one reading). The SDK route is slow: it runs on --sdk-rows rows (fewer than --rows), so compare rows per second.

Before timing, every route's output is checked on a sample of rows (untimed): decrypt gives exactly each row's
plaintext, encrypt and rekey give acrh texts that the SDK's AesCbcCryptoModule decrypts back to the message (so
no route is measured broken). Each route then runs twice on its whole input to warm up (JVM, Python workers, page
cache), then the routes take turns for --rounds rounds; each route's best round is reported, and the binding's
rate divided by each other route's. local[1] runs one task at a time, but the JVM, the Python worker and (pipe)
the CLI process of a task overlap, so a route may use more than one core: each round also counts the CPU seconds
of the driver and every process under it (CpuMeter: /proc sampled every 20 ms), and rows per CPU second are
reported beside the wall-clock rate (best round of each).

    python3 -m venv /tmp/sb && /tmp/sb/bin/pip install "pncrypt-*.whl[spark]" "pandas<3" pubnub==10.8.0
    swift build -c release --product pncrypt --static-swift-stdlib --scratch-path .build-static
    /tmp/sb/bin/python scripts/bench/spark_bench.py --pncrypt .build-static/release/pncrypt \\
        --rows 1000000 --sdk-rows 100000 [--ops decrypt,encrypt,rekey] [--no-pipe] [--json results.json]
"""
import argparse
import json
import os
import sys
import tempfile
import time

OLD, NEW = "the old key", "the new key"
OPS = ("decrypt", "encrypt", "rekey")
ACRH = "UE5FRAFBQ1JI"  # the Base64 of every acrh text's header start ("PNED" 1 "ACRH")


def message(i):
    """Message i of every input: a JSON object of about 100 bytes (compact, key order kept)."""
    return json.dumps({"n": i, "text": f"message {i} ünïcödé 漢語", "user": f"user-{i % 97}",
                       "ts": 17000000000000000 + i}, ensure_ascii=False, separators=(",", ":"))


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


def _sdk():
    global _MODULES
    if _MODULES is None:
        _MODULES = sdk_modules()
    return _MODULES


def _compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sdk_decrypt(series):
    """The SDK UDF for decrypt: each wire text (`"<Base64>"`) decrypted with the old key (legacy, fixed IV); the
    SDK returns the parsed value, written back as compact JSON text."""
    old, _ = _sdk()
    import pandas as pd
    return pd.Series([_compact(old.decrypt(text[1:-1])) for text in series])


def sdk_encrypt(series):
    """The SDK UDF for encrypt: each JSON text encrypted as it is under the new key (acrh, Base64)."""
    _, new = _sdk()
    import pandas as pd
    return pd.Series([new.encrypt(text) for text in series])


def sdk_rekey(series):
    """The SDK UDF for rekey: each wire text decrypted with the old key (legacy, fixed IV), then encrypted under the
    new key (acrh), as one row at a time through the SDK's CryptoModule API."""
    old, new = _sdk()
    import pandas as pd
    return pd.Series(['"' + new.encrypt(_compact(old.decrypt(text[1:-1]))) + '"' for text in series])


def check(op, route, pairs):
    """Checks a route's (input, output) pairs: decrypt gives each row's plaintext, encrypt and rekey an acrh text the
    SDK reads back as the message."""
    old, new = _sdk()
    assert pairs, (op, route, "no rows")
    for given, out in pairs:
        if op == "decrypt":
            n = json.loads(out)["n"]
            assert out == message(n), (op, route, given, out)
            assert _compact(old.decrypt(given.strip('"'))) == out, (op, route, given)
        else:
            wire = out.strip('"')
            assert wire.startswith(ACRH), (op, route, out)
            expected = json.loads(given) if op == "encrypt" else old.decrypt(given.strip('"'))
            assert new.decrypt(wire) == expected, (op, route, given, out)


class CpuMeter:
    """CPU seconds (user + system) of this process and every process under it while a route runs: the JVM, Spark's
    Python daemon and workers, and the pipe route's CLI processes. Spark's daemon ignores SIGCHLD, so an ended
    worker's time reaches no parent: the tree is sampled from /proc every 20 ms instead, each process counted from
    its first sample (0 if it started during the run) to its last; the last 20 ms of a process that ends is missed.
    The sampler's own CPU is left out."""

    def __init__(self):
        import threading
        self.tick = os.sysconf("SC_CLK_TCK")
        self.first, self.last = self.sample(), {}
        self.driver = sum(os.times()[:2])
        self.sampler_cpu = 0.0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def sample(self):
        """{pid: user + system ticks} of every process under this one (not this one)."""
        by_parent = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                by_parent.setdefault(int(fields[1]), []).append((int(entry), int(fields[11]) + int(fields[12])))
        found, todo = {}, [os.getpid()]
        while todo:
            for pid, ticks in by_parent.get(todo.pop(), ()):
                found[pid] = ticks
                todo.append(pid)
        return found

    def run(self):
        while True:
            self.last.update(self.sample())
            if self.done.wait(0.02):
                break
        self.last.update(self.sample())
        self.sampler_cpu = time.thread_time()

    def stop(self):
        self.done.set()
        self.thread.join()
        children = sum(ticks - self.first.get(pid, 0) for pid, ticks in self.last.items()) / self.tick
        return children + sum(os.times()[:2]) - self.driver - self.sampler_cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pncrypt", default=".build-static/release/pncrypt", help="the pncrypt binary (pipe route)")
    parser.add_argument("--ops", default=",".join(OPS), help="operations, joined by commas (default: all three)")
    parser.add_argument("--rows", type=int, default=200_000, help="rows for the binding and pipe routes")
    parser.add_argument("--sdk-rows", type=int, default=50_000, help="rows for the (slow) SDK route")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-pipe", action="store_true", help="leave the RDD.pipe route out")
    parser.add_argument("--decrypt-scheme", default="auto", choices=("auto", "legacy"),
                        help="the binding's decrypt scheme (auto: its default)")
    parser.add_argument("--sample", type=int, default=500, help="rows of each route's output checked, untimed")
    parser.add_argument("--json", help="also write the results to this file")
    options = parser.parse_args()
    ops = [op.strip() for op in options.ops.split(",") if op.strip()]
    for op in ops:
        if op not in OPS:
            parser.error(f"--ops: unknown operation {op!r} (known: {', '.join(OPS)})")
    pncrypt_binary = os.path.abspath(options.pncrypt)
    if not options.no_pipe and not os.access(pncrypt_binary, os.X_OK):
        parser.error(f"--pncrypt: no executable {pncrypt_binary} (or --no-pipe)")

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

    files = {}

    def data(kind, rows):
        """The input file: `wire` (legacy texts under OLD, `"<Base64>"` lines) or `plain` (the JSON texts)."""
        if (kind, rows) not in files:
            path = os.path.join(work, f"{kind}-{rows}.ndjson")
            messages = [message(i) for i in range(rows)]
            if kind == "wire":
                lines = [f'"{t}"' for t in pncrypt.CryptoModule(OLD, scheme="legacy").encrypt_many(messages)]
            else:
                lines = messages
            with open(path, "w") as f:
                f.write("".join(line + "\n" for line in lines))
            files[kind, rows] = path
        return files[kind, rows]

    spark = (SparkSession.builder.master("local[1]").appName("pncrypt-spark-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    cli = [pncrypt_binary, "message"]
    commands = {
        "decrypt": cli + ["decrypt", "--lines", "--quiet", "--jobs", "1", "--key-file", old_key_file],
        "encrypt": cli + ["encrypt", "--lines", "--quiet", "--jobs", "1", "--key-file", new_key_file,
                          "--scheme", "acrh", "--verbatim"],
        "rekey": cli + ["rekey", "--lines", "--quiet", "--jobs", "1", "--key-file", old_key_file,
                        "--to-key-file", new_key_file, "--to-scheme", "acrh"],
    }
    udfs = {"decrypt": pandas_udf(sdk_decrypt, "string"), "encrypt": pandas_udf(sdk_encrypt, "string"),
            "rekey": pandas_udf(sdk_rekey, "string")}
    looks_right = {"decrypt": '{"n":', "encrypt": ACRH, "rekey": '"' + ACRH}   # what each output starts with

    def read(path):
        # The same split as textFile(minPartitions=N): N file splits, no shuffle (checked once, untimed).
        spark.conf.set("spark.sql.files.maxPartitionBytes", str(os.path.getsize(path) // options.partitions + 1))
        return spark.read.text(path)

    # Each route builds its output for an op and a file: (the rows counted, a sample of (input, output) pairs).
    def binding(op):
        def build(path):
            df = read(path)
            if op == "decrypt":
                out = pnspark.decrypt(df, "value", keys=[OLD], scheme=options.decrypt_scheme, on_error="fail")
                column = "value_decrypted"
            elif op == "encrypt":
                out = pnspark.encrypt(df, "value", key=NEW, scheme="acrh", on_error="fail")
                column = "value_encrypted"
            else:
                out = pnspark.rekey(df, "value", keys=[OLD], to_key=NEW, to_scheme="acrh", output="rekeyed",
                                    on_error="fail")
                column = "rekeyed"
            ok = out.filter(out.pncrypt_status == "ok")
            return (lambda: ok.count(),
                    lambda n: [(r["value"], r[column]) for r in ok.select("value", column).limit(n).collect()])
        return build

    def pipe(op):
        command = " ".join(commands[op])

        def build(path):
            rdd = spark.sparkContext.textFile(path, minPartitions=options.partitions)
            out = rdd.pipe(command, env=env, checkCode=True)
            start = '"' + ACRH if op == "encrypt" else looks_right[op]   # the CLI writes the wire JSON

            def sample(n):  # the first n lines through the same command (one line out per line in, in order)
                given = rdd.take(n)
                return list(zip(given, spark.sparkContext.parallelize(given, 1).pipe(command, env=env,
                                                                                     checkCode=True).collect()))
            return lambda: out.filter(lambda line: line.startswith(start)).count(), sample
        return build

    def sdk(op):
        def build(path):
            df = read(path)
            out = df.select(df.value, udfs[op](df.value).alias("out"))
            ok = out.filter(out.out.startswith(looks_right[op]))
            return (lambda: ok.count(),
                    lambda n: [(r["value"], r["out"]) for r in ok.limit(n).collect()])
        return build

    routes = []   # (op, route name, build, rows)
    for op in ops:
        routes.append((op, f"binding (pncrypt.spark.{op})", binding(op), options.rows))
        if not options.no_pipe:
            routes.append((op, f"pipe (RDD.pipe, pncrypt message {op} --lines)", pipe(op), options.rows))
        routes.append((op, "Python SDK in a pandas UDF", sdk(op), options.sdk_rows))

    # Check, then warm up: every route twice (JVM JIT, Python workers, page cache), so no route pays for going
    # first; then the rounds interleave the routes, so that a busy minute on a shared machine hits them all alike.
    runs = {}
    for op, name, build, rows in routes:
        path = data("plain" if op == "encrypt" else "wire", rows)
        assert read(path).rdd.getNumPartitions() == options.partitions
        count, sample = build(path)
        check(op, name, sample(options.sample))
        for _ in range(2):
            assert count() == rows, (op, name)          # and every row done
        runs[op, name] = count
        print(f"checked and warmed up: {op:8s} {name}", file=sys.stderr, flush=True)
    best, best_cpu = {}, {}
    for round_ in range(options.rounds):
        for op, name, _, rows in routes:
            meter, started = CpuMeter(), time.perf_counter()
            count = runs[op, name]()
            elapsed, cpu = time.perf_counter() - started, meter.stop()
            assert count == rows, (op, name, count)
            best[op, name] = min(best.get((op, name), elapsed), elapsed)
            best_cpu[op, name] = min(best_cpu.get((op, name), cpu), cpu)
        print(f"round {round_ + 1} of {options.rounds} done", file=sys.stderr, flush=True)
    spark.stop()

    print(f"local[1] (one core), {options.partitions} partitions, best of {options.rounds}; "
          f"pncrypt {pncrypt.library_version()}; binding decrypt scheme {options.decrypt_scheme}")
    results = []
    for op in ops:
        mine = [(name, rows, best[op, name], best_cpu[op, name]) for o, name, _, rows in routes if o == op]
        base, base_cpu = mine[0][1] / mine[0][2], mine[0][1] / mine[0][3]
        for name, rows, elapsed, cpu in mine:
            rate, cpu_rate = rows / elapsed, rows / cpu
            print(f"{op:8s} {name:50s} {rows:>9,} rows {elapsed:6.2f} s {rate:>9,.0f} rows/s per core "
                  f"(binding {base / rate:5.2f}x); {cpu:6.2f} CPU s {cpu_rate:>9,.0f} rows per CPU s "
                  f"(binding {base_cpu / cpu_rate:5.2f}x)")
            results.append({"op": op, "route": name, "rows": rows, "seconds": round(elapsed, 3),
                            "rows_per_second": round(rate), "binding_ratio": round(base / rate, 2),
                            "cpu_seconds": round(cpu, 3), "rows_per_cpu_second": round(cpu_rate),
                            "binding_cpu_ratio": round(base_cpu / cpu_rate, 2)})
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"partitions": options.partitions, "rounds": options.rounds,
                       "decrypt_scheme": options.decrypt_scheme, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
