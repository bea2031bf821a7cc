#!/usr/bin/env python3
"""Counts the library's public surface: the public declarations and public types that Swift's symbol graphs list
for the library's targets (synthesized members such as `!=` left out), per target and in total.

    scripts/checks/public_surface.py            # builds the symbol graphs (swift package dump-symbol-graph), then counts
    scripts/checks/public_surface.py --list     # also lists every declaration, by target
    scripts/checks/public_surface.py --no-build # counts the graphs already in .build

The same count before and after a change is how the size of the API is compared (CHANGELOG, closing notes).
"""
import glob
import json
import os
import subprocess
import sys

TYPES = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias", "swift.actor"}
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def library_targets():
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                        capture_output=True, text=True).stdout)
    names = [t["name"] for t in package["targets"] if t["type"] == "regular" and not (t.get("path") or "").startswith("Tests")]
    shells = {"CPNCrypt", "PNCryptVectors", "PNCryptFiles"}
    return [n for n in names if n.startswith("PNCrypt") and n not in shells]


def main():
    if "--no-build" not in sys.argv:
        # Exits non-zero when a module has no graph to give (PNCryptAppleCrypto has no code off Apple platforms);
        # every library target's graph is checked for below instead.
        subprocess.run(["swift", "package", "dump-symbol-graph", "--minimum-access-level", "public"], cwd=root,
                       stdout=subprocess.DEVNULL)
    graphs = glob.glob(os.path.join(root, ".build", "*", "symbolgraph"))
    if not graphs:
        sys.exit("no symbol graphs under .build: run without --no-build")
    folder = graphs[0]
    total = types_total = 0
    for target in library_targets():
        symbols = {}
        for path in glob.glob(os.path.join(folder, f"{target}.symbols.json")) + \
                glob.glob(os.path.join(folder, f"{target}@*.symbols.json")):
            for symbol in json.load(open(path))["symbols"]:
                precise = symbol["identifier"]["precise"]
                if symbol["accessLevel"] == "public" and "SYNTHESIZED" not in precise:
                    symbols[precise] = symbol
        if not glob.glob(os.path.join(folder, f"{target}.symbols.json")) and target != "PNCryptAppleCrypto":
            sys.exit(f"no symbol graph for {target}: run without --no-build")
        types = sum(1 for s in symbols.values() if s["kind"]["identifier"] in TYPES)
        print(f"{target}: {len(symbols)} public declarations, {types} public types")
        if "--list" in sys.argv:
            for s in sorted(symbols.values(), key=lambda s: ".".join(s["pathComponents"])):
                print(f"    {s['kind']['identifier']:<20} {'.'.join(s['pathComponents'])}")
        total += len(symbols)
        types_total += types
    print(f"total: {total} public declarations, {types_total} public types")


main()
