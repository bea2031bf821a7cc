#!/usr/bin/env python3
"""The message path's L1 instruction-cache misses over every alignment of the binary (issue 34).

callgrind's I1 misses for one build are a lottery: the shared libraries (libswiftCore, libcrypto, libc) sit at
fixed offsets modulo 4 KB, the bench binary's code moves against them with every change, and a message's hot code
fills about three quarters of a 32 KB 8-way cache. A cache set that holds more than 8 of the lines a message runs
misses on each of them every message (least recently used, in a loop); the other sets do not miss once warm.

This runs the bench's decrypt (or encrypt) under callgrind with --dump-instr=yes, collects the 64-byte lines run
at least once per message (the working set), and counts, for each of the 64 shifts of the binary's lines against
the libraries' (every alignment modulo 4 KB), the lines in sets holding more than 8. It prints that count at the
build's own alignment (compare it with callgrind's own simulation, also printed) and its distribution over the 64
alignments: the figure a change of code size or layout should be judged by, not one build's draw.

    scripts/bench/i1_layouts.py [--scheme legacy|acrh] [--encrypt] [--messages N] [--binary PATH]

Needs valgrind and a release build of pncrypt-bench (swift build -c release --product pncrypt-bench).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

LINES_PER_SET = 8  # a 32 KB, 8-way, 64-byte-line L1 instruction cache: 64 sets
SETS = 64


def working_set(profile, per_message, binary_name):
    """The lines run at least once per message, as (is_ours, line number), from a --dump-instr=yes profile."""
    position = re.compile(r'^(0x[0-9a-f]+|\+\d+|-\d+|\*)\s+(0x[0-9a-f]+|\+\d+|-\d+|\*|\d+)\s+(\d+)')
    names, objects, lines = {}, None, set()
    address, after_call = 0, False
    for text in open(profile, encoding='utf-8', errors='replace'):
        if text.startswith(('ob=', 'cob=')):
            match = re.match(r'\((\d+)\)(?: (.*))?', text.split('=', 1)[1].strip())
            if match.group(2):
                names[match.group(1)] = match.group(2)
            if text.startswith('ob='):
                objects = names.get(match.group(1), '')
            continue
        if text.startswith('calls='):
            after_call = True  # the next cost line is a call's inclusive cost, not an instruction of its own
            continue
        match = position.match(text)
        if not match:
            continue
        step = match.group(1)
        if step.startswith('0x'):
            address = int(step, 16)
        elif step.startswith('+'):
            address += int(step[1:])
        elif step.startswith('-'):
            address -= int(step[1:])
        if after_call:
            after_call = False
            continue
        if int(match.group(3)) >= per_message:
            lines.add((os.path.basename(objects) == binary_name, address >> 6))
    return lines


def missing_lines(lines, shift):
    """Lines in sets holding more than LINES_PER_SET when the binary's lines move by `shift` lines."""
    sets = collections.Counter(((line + shift) if ours else line) % SETS for ours, line in lines)
    return sum(count for count in sets.values() if count > LINES_PER_SET)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--scheme', default='legacy', choices=['legacy', 'acrh'])
    parser.add_argument('--encrypt', action='store_true', help='the publish path instead of the receive path')
    parser.add_argument('--messages', type=int, default=20000)
    parser.add_argument('--binary', default='.build/release/pncrypt-bench')
    args = parser.parse_args()
    verb = 'encrypt' if args.encrypt else 'decrypt'
    function = f'$s13pncrypt_bench5SuiteV11MessageWorkV7{verb}yS2iKF'
    with tempfile.TemporaryDirectory() as folder:
        profile = os.path.join(folder, 'callgrind.out')
        run = subprocess.run(['valgrind', '--tool=callgrind', '--dump-instr=yes', '--cache-sim=yes',
                              f'--callgrind-out-file={profile}', f'--toggle-collect={function}', args.binary,
                              '--messages', str(args.messages), '--scheme', args.scheme, '--no-baseline',
                              '--only', f'message.{verb}'],
                             capture_output=True, text=True)
        if run.returncode != 0 or not os.path.exists(profile):
            sys.exit(f'callgrind failed ({run.returncode}): {run.stderr[-2000:]}')
        measured = re.search(r'I1\s+misses:\s+([\d,]+)', run.stderr)
        lines = working_set(profile, args.messages, os.path.basename(args.binary))
    ours = sum(1 for is_ours, _ in lines if is_ours)
    counts = sorted(missing_lines(lines, shift) for shift in range(SETS))
    print(f'{args.scheme} {verb}: {len(lines)} lines run per message ({ours} the binary\'s, {len(lines) - ours} the '
          f'libraries\'); {SETS * LINES_PER_SET} fit in the cache')
    if measured:
        print(f'callgrind\'s simulation, this build: {int(measured.group(1).replace(",", "")) / args.messages:.1f} '
              f'I1 misses per message ')
    print(f'lines in over-full sets, this alignment: {missing_lines(lines, 0)}; over the {SETS} alignments: '
          f'min {counts[0]}, median {counts[SETS // 2]}, 90th percentile {counts[SETS * 9 // 10]}, '
          f'max {counts[-1]}')


if __name__ == '__main__':
    main()
