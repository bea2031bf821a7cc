#!/usr/bin/env python3
"""Where the bytes of a binary go, by the module that defines each symbol (docs/performance.md, "Binary size").

    scripts/bench/size_report.py BINARY...        # an unstripped pncrypt or libpncrypt (.build-dist/release/...)

Sums the sizes `nm --size-sort -S` gives each defined symbol (code and data), grouped by the Swift module in its
mangled name ($s + the module's length and name; the standard substitutions S*, s are the standard library),
the Swift runtime's C and C++ functions (swift_*, swift::, llvm::), and the rest (C). A generic specialized for
our code is counted under the generic's module. What no symbol covers (metadata records, string tables, unwind
tables, ELF headers) is the last line: the file's size as `strip` would leave it (without .symtab, .strtab and
debug sections) minus the symbols' sum. Needs nm and readelf (binutils).
"""
import os
import re
import subprocess
import sys

GROUPS = [
    ("Swift runtime and standard library", re.compile(
        r"^(Swift|_Concurrency|_StringProcessing|_RegexParser|Synchronization|Glibc|SwiftGlibc|_SwiftConcurrencyShims"
        r"|Distributed|Observation|Dispatch|runtime \(C, C\+\+\))$")),
    ("swift-argument-parser", re.compile(r"^ArgumentParser")),
    ("FoundationEssentials", re.compile(r"^(FoundationEssentials|_FoundationCShims|_FoundationCollections)$")),
    ("Foundation, ICU", re.compile(r"^(Foundation|FoundationInternationalization|_FoundationICU|CoreFoundation|ICU)$")),
    ("pncrypt (PNCrypt layers, files, CLI or C interface)", re.compile(
        r"^(PNCrypt\w*|pncrypt|CPNCrypt|PNCryptVectors)$")),
]


def module(name):
    """The module a symbol belongs to, or a category for non-Swift symbols."""
    if name.startswith("_$s"):
        name = name[1:]
    if name.startswith("$s"):
        rest = name[2:]
        match = re.match(r"(\d+)", rest)
        if match:
            length = int(match.group(1))
            return rest[len(match.group(1)):len(match.group(1)) + length]
        if rest.startswith(("So", "SC")):
            return "imported C types"
        if rest.startswith(("S", "s")):
            return "Swift"
        return "Swift (other)"
    if "icu_" in name or name.startswith(("icudt", "u_", "ucol_", "ubrk_", "uloc_", "ures_", "ucnv_", "utrans_")):
        return "ICU"
    if name.startswith(("_ZN5swift", "_ZNK5swift", "_ZN4llvm", "_ZNK4llvm", "swift_", "_swift_", "__swift")) \
            or re.match(r"_Z\w*swift", name):
        return "runtime (C, C++)"
    return "other (C)"


def report(path):
    out = subprocess.run(["nm", "--size-sort", "-S", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    sizes = {}
    seen = set()
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) != 4:
            continue
        address, size, kind, name = parts
        if kind in "bB" or (address, size) in seen:  # .bss takes no file space; aliases count once
            continue
        seen.add((address, size))
        key = module(name)
        sizes[key] = sizes.get(key, 0) + int(size, 16)
    total = sum(sizes.values())
    # The file as `strip` leaves it: without the symbol and string tables and debug sections.
    sections = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout
    removed = 0
    for match in re.finditer(r"\]\s+(\.\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", sections):
        if match.group(1) in (".symtab", ".strtab") or match.group(1).startswith(".debug"):
            removed += int(match.group(2), 16)
    file_size = os.path.getsize(path) - removed
    grouped = {}
    for key, size in sizes.items():
        label = next((label for label, pattern in GROUPS if pattern.match(key)), "other")
        grouped.setdefault(label, []).append((key, size))
    print(f"{path}: {file_size / 1e6:.2f} MB without symbol tables and debug sections ({os.path.getsize(path):,} "
          f"bytes in all); symbols {total / 1e6:.2f} MB")
    for label, _ in GROUPS + [("other", None)]:
        members = sorted(grouped.get(label, []), key=lambda item: -item[1])
        if not members:
            continue
        size = sum(s for _, s in members)
        detail = ", ".join(f"{k} {s / 1e6:.2f}" for k, s in members[:6])
        print(f"  {label}: {size / 1e6:.2f} MB ({detail})")
    print(f"  not in a symbol (metadata, strings, unwind tables, headers): {(file_size - total) / 1e6:.2f} MB")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for argument in sys.argv[1:]:
        report(argument)
