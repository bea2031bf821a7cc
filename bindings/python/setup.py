"""Builds the pncrypt wheel with libpncrypt inside it (pncrypt/libpncrypt.so.0).

Where the library comes from, first match wins:

1. PNCRYPT_WHEEL_LIB=PATH: an already built libpncrypt.so (for example what `scripts/build/install_lib.sh PREFIX`
   installed as PREFIX/lib/libpncrypt.so.0): copied as it is (no second build).
2. The repository this folder sits in (bindings/python of a pncrypt checkout; or PNCRYPT_SOURCE_DIR) and a Swift
   toolchain on PATH: `scripts/build/install_lib.sh` builds it in release, the Swift runtime linked statically, into a
   temporary prefix (the shared build folder .build-dist stays, so a rebuild only relinks).

The wheel is tagged py3-none-<platform> (the library is native code; the Python part is the same for every
Python 3). At run time the library needs only libc, libstdc++, libcrypto (OpenSSL 3) and libz. A release wheel is
this one after `auditwheel repair` (scripts/build/build_wheel.sh): tagged manylinux, with its own libcrypto and libz.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 has its own; older ones use the wheel package's.
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - depends on the build environment
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = "libpncrypt.so.0"


def _repository():
    """The pncrypt checkout this folder belongs to, or None (an sdist unpacked elsewhere)."""
    root = os.environ.get("PNCRYPT_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
    if os.path.exists(os.path.join(root, "Package.swift")) and os.path.exists(
            os.path.join(root, "scripts", "build", "install_lib.sh")):
        return root
    return None


def _build_library(work):
    """Returns the path of a libpncrypt to bundle, building it when needed."""
    given = os.environ.get("PNCRYPT_WHEEL_LIB")
    if given:
        if not os.path.isfile(given):
            sys.exit(f"pncrypt: PNCRYPT_WHEEL_LIB={given} is not a file")
        return os.path.realpath(given)
    root = _repository()
    if root is None:
        sys.exit("pncrypt: no libpncrypt to bundle: build from a pncrypt checkout (bindings/python) with a Swift "
                 "toolchain on PATH (PNCRYPT_SOURCE_DIR names the checkout when the build runs elsewhere), or set "
                 "PNCRYPT_WHEEL_LIB to a built libpncrypt.so (scripts/build/install_lib.sh PREFIX makes one)")
    if shutil.which("swift") is None:
        sys.exit("pncrypt: building libpncrypt needs a Swift toolchain on PATH (https://swift.org/install); "
                 "or set PNCRYPT_WHEEL_LIB to a built libpncrypt.so, or install a prebuilt wheel "
                 "(scripts/build/build_wheel.sh makes one)")
    prefix = os.path.join(work, "prefix")
    print("pncrypt: building libpncrypt with scripts/build/install_lib.sh (release; several minutes the first time)",
          file=sys.stderr)
    subprocess.run([os.path.join(root, "scripts", "build", "install_lib.sh"), prefix], check=True,
                   stdout=sys.stderr)
    return os.path.realpath(os.path.join(prefix, "lib", BUNDLED))


class BuildWithLibrary(build_py):
    """build_py that also puts libpncrypt into the package (stripped when `strip` exists)."""

    def run(self):
        super().run()
        with tempfile.TemporaryDirectory(prefix="pncrypt-lib-") as work:
            source = _build_library(work)
            target = os.path.join(self.build_lib, "pncrypt", BUNDLED)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
            os.chmod(target, 0o755)
            if shutil.which("strip") and not os.environ.get("PNCRYPT_WHEEL_NO_STRIP"):
                # Keeps the dynamic symbol table (the pncrypt_ functions): 17.0 MB -> 9.4 MB.
                subprocess.run(["strip", "--strip-unneeded", target], check=True)


class BinaryDistribution(Distribution):
    """Says the package holds native code, so the wheel is not pure and its files go to platlib."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """A platform wheel for any Python 3: py3-none-<platform> (auditwheel repair makes it manylinux)."""

    def get_tag(self):
        platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        return "py3", "none", platform


setup(distclass=BinaryDistribution, cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel})
