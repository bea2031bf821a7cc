"""pncrypt.spark with the driver's Python in a virtual environment and PYSPARK_PYTHON unset (issue 30): Spark's
local workers would run `python3` from PATH, which cannot import pncrypt. Classic Spark gets the driver's
interpreter; a local Spark Connect server, whose workers' Python is fixed when it starts, fails at once naming
PYSPARK_PYTHON. Each job runs in a fresh venv made here (no pip: a .pth file lends it this Python's packages), with
a PATH whose python3 is the system's."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import venv

import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install ./bindings/python[spark])")

import pncrypt  # noqa: E402

JOB = textwrap.dedent('''
    import json, sys
    from pyspark.sql import SparkSession
    from pncrypt import spark as pnspark
    import pncrypt
    builder = SparkSession.builder.config("spark.ui.enabled", "false")
    connect = sys.argv[1] == "connect"
    spark = (builder.remote("local[1]") if connect else builder.master("local[1]")).getOrCreate()
    df = spark.createDataFrame([(1, '{"a":1}'), (2, "")], "id long, plain string")
    try:
        rows = pnspark.encrypt(df, "plain", key="k", output="wire").orderBy("id").collect()
        print(json.dumps([(r.wire and pncrypt.CryptoModule("k").decrypt(r.wire, text=True), r.pncrypt_status,
                           r.pncrypt_reason) for r in rows]))
    finally:
        spark.stop()
''')


def system_python3():
    for candidate in ("/usr/bin/python3", "/bin/python3"):
        if os.path.exists(candidate):
            return candidate
    return None


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    """A venv with no packages of its own, and a .pth file that puts this Python's import path in it (pyspark,
    pyarrow, pandas and pncrypt, installed or from the source tree): as `pip install ./bindings/python[spark]`
    into a fresh venv would, without the download."""
    root = tmp_path_factory.mktemp("venv") / "fresh"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root)
    python = root / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    here = [path for path in sys.path if path and os.path.isdir(path)]
    package = str(pathlib.Path(pncrypt.__file__).resolve().parents[1])
    pathlib.Path(site, "lent.pth").write_text("\n".join([package] + here) + "\n")
    return python


def run_job(python, mode):
    """Runs JOB with `python` as a user would: PYSPARK_PYTHON unset, PATH without any venv."""
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH", "VIRTUAL_ENV",
                                   "SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")}
    java = shutil.which("java")
    environment["PATH"] = os.pathsep.join(([os.path.dirname(os.path.realpath(java))] if java else [])
                                          + ["/usr/bin", "/bin"])
    return subprocess.run([str(python), "-c", JOB, mode], capture_output=True, text=True, env=environment,
                          timeout=300, cwd=str(python.parents[1]))


@pytest.mark.skipif(system_python3() is None, reason="needs a system python3 that does not have pncrypt")
def test_classic_local_mode_runs_with_the_drivers_python_without_pyspark_python(fresh_venv):
    assert subprocess.run([system_python3(), "-c", "import pncrypt"], capture_output=True,
                          env={"PATH": "/usr/bin:/bin"}).returncode != 0, "the system python3 has pncrypt"
    done = run_job(fresh_venv, "classic")
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    assert rows == [['{"a":1}', "ok", None], [None, "failed", "emptyPlaintext"]]


@pytest.mark.skipif(system_python3() is None, reason="needs a system python3 that does not have pncrypt")
def test_local_spark_connect_fails_at_once_naming_pyspark_python(fresh_venv):
    pytest.importorskip("grpc", reason="Spark Connect's client is not installed (pip install pyspark[connect])")
    done = run_job(fresh_venv, "connect")
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: pncrypt.spark: Spark's Python workers run 'python3' (PYSPARK_PYTHON is "
                           "not set), which cannot import pncrypt"), done.stderr[-3000:]
    assert f"set PYSPARK_PYTHON={fresh_venv} (this Python) before the Spark session starts" in last, last
