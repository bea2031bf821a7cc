"""examples/spark_rekey.py (the CLI pipe route) in Spark's local mode: strict by default, status lines with the
partition, counts when undecryptable lines are allowed. Needs pyspark and a pncrypt binary in PNCRYPT_BIN
(.ci/run passes the one `swift test` built)."""
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install ./bindings/python[spark])")

EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "spark_rekey.py"
BINARY = os.environ.get("PNCRYPT_BIN")


def run_example(*args):
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    return subprocess.run([sys.executable, str(EXAMPLE), "--pncrypt", BINARY, "--messages", "300",
                           "--partitions", "3", *args], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.skipif(not BINARY, reason="PNCRYPT_BIN (a pncrypt binary) is not set")
def test_spark_rekey_example_fails_on_undecryptable_lines_unless_allowed_skipped_without_pncrypt_bin():
    strict = run_example("--undecryptable", "3")
    assert strict.returncode == 1, strict.stdout + strict.stderr
    failure = [line for line in strict.stderr.splitlines() if line.startswith("the job failed:")]
    assert failure and "line(s) not decryptable (strict mode" in failure[0], strict.stderr[-2000:]
    assert '{"partition":' in failure[0]

    allowed = run_example("--undecryptable", "3", "--allow-undecryptable")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr[-2000:]
    summary = allowed.stdout.strip().splitlines()[-1]
    assert "rekeyed 300, unchanged 3, already new 0" in summary, summary
    assert "match the originals: True; all acrh: True; rerun unchanged: True" in summary, summary
    statuses = [line for line in allowed.stderr.splitlines() if line.startswith('{"partition":')]
    assert len(statuses) == 3, allowed.stderr[-2000:]
