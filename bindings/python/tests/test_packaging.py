"""How the package finds libpncrypt: the bundled copy (wheels, `pip install ./bindings/python`), PNCRYPT_LIB as
an override, and a clear ImportError when nothing loads."""
import os
import pathlib
import subprocess
import sys

import pytest

import pncrypt

SOURCE_PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "pncrypt"


def run_python(code, **env):
    environment = {k: v for k, v in os.environ.items() if k != "PNCRYPT_LIB"}
    environment.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment,
                          cwd=str(pathlib.Path(pncrypt.__file__).parents[1]))


def test_a_library_that_cannot_load_is_an_import_error_saying_what_was_tried_and_what_to_do():
    result = run_python("import pncrypt", PNCRYPT_LIB="/nonexistent/libpncrypt.so.0")
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: pncrypt: cannot load libpncrypt"), last
    assert "PNCRYPT_LIB=/nonexistent/libpncrypt.so.0" in last
    assert "scripts/build/build_wheel.sh" in last and "pip install ./bindings/python" in last


def test_pncrypt_lib_overrides_the_bundled_library():
    # The override is taken as given, even with a bundled library present: loading it fails, and the error says
    # it was PNCRYPT_LIB's.
    result = run_python("import pncrypt", PNCRYPT_LIB="/some/where/lib.so")
    assert "ImportError" in result.stderr and "PNCRYPT_LIB=/some/where/lib.so" in result.stderr
    assert "bundled" not in result.stderr.strip().splitlines()[-1]


@pytest.mark.skipif(pathlib.Path(pncrypt.__file__).resolve().parent == SOURCE_PACKAGE,
                    reason="runs only against an installed package (a wheel), not the source tree")
def test_installed_package_loads_its_bundled_library_without_pncrypt_lib_skipped_in_the_source_tree():
    code = ("import pncrypt, os; path, tried = pncrypt._find_library(); "
            "print(path == pncrypt._BUNDLED, os.path.dirname(path) == os.path.dirname(pncrypt.__file__), "
            "pncrypt.CryptoModule('enigma', scheme='legacy').encrypt(b'yay!'))")
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "q/xJqqN6qbiZMXYmiQC1Fw=="]


@pytest.mark.skipif(pathlib.Path(pncrypt.__file__).resolve().parent == SOURCE_PACKAGE,
                    reason="runs only against an installed package (a wheel), not the source tree")
def test_bundled_library_needs_no_swift_runtime_skipped_in_the_source_tree():
    # The wheel is for machines without Swift: the runtime is linked in, so no libswift* is a dependency.
    needed = subprocess.run(["ldd", pncrypt._BUNDLED], capture_output=True, text=True, check=True).stdout
    assert "libcrypto" in needed and "swift" not in needed, needed
