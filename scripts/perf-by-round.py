#!/usr/bin/env python3
"""Splits one process's perf profile by the path each round ran, and prints where two paths differ.

Two paths measured in two processes drift apart (on this project's machines, bare URLSession alone
moved 462-780 us of CPU a request from one process to the next within an hour); measured in the
same process, seconds apart, they do not. So:

    RETRYFLOW_ROUND_TIMES=1 perf record -k CLOCK_MONOTONIC -F 2999 -g -o perf.data -- \\
        .build/benchmarks/release/retryflow-bench __nginx handler,retry 3000 64 8 > rounds.txt
    perf script -i perf.data --no-demangle -F comm,tid,time,ip,sym,dso > samples.txt
    scripts/perf-by-round.py rounds.txt samples.txt handler retry [dso|sym|callers=REGEX] [ROWS]

prints, for each library (`dso`, the default), leaf function (`sym`), or the first caller outside
Swift's runtime of the leaf functions matching REGEX (`callers=swift_retain`), the samples in each
path's rounds and their difference, largest growth first. With F samples a second (`-F`) and N
requests in all of a path's rounds, a difference of D samples is D / F / N seconds a request.
nginx's own samples are left out (the same server serves both paths).
"""

import collections
import re
import sys


def read_rounds(path):
    """[(path name, start, end)] from `round NAME START END` lines (CLOCK_MONOTONIC seconds)."""
    rounds = []
    for line in open(path):
        fields = line.split()
        if len(fields) == 4 and fields[0] == "round":
            rounds.append((fields[1], float(fields[2]), float(fields[3])))
    if not rounds:
        sys.exit(f"{path}: no `round` lines: run retryflow-bench with RETRYFLOW_ROUND_TIMES=1")
    return rounds


def read_samples(path):
    """[(time, comm, [(symbol, library)])] from `perf script -F comm,tid,time,ip,sym,dso`."""
    samples = []
    current = None
    for line in open(path, errors="replace"):
        if not line.strip():
            if current:
                samples.append(current)
            current = None
            continue
        if not line[0].isspace():
            stamp = re.search(r"(\d+\.\d+):", line)
            if not stamp:
                continue
            current = (float(stamp.group(1)), line.split()[0], [])
            continue
        if current is None:
            continue
        parts = line.strip().split(None, 1)
        rest = parts[1] if len(parts) > 1 else "?"
        match = re.match(r"(.*) \((.*)\)$", rest)
        symbol, library = (match.group(1), match.group(2)) if match else (rest, "?")
        current[2].append((symbol, library.split("/")[-1]))
    if current:
        samples.append(current)
    return samples


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    rounds = read_rounds(sys.argv[1])
    samples = read_samples(sys.argv[2])
    first, second = sys.argv[3], sys.argv[4]
    mode = sys.argv[5] if len(sys.argv) > 5 else "dso"
    pattern = None
    if mode.startswith("callers="):
        mode, pattern = "callers", re.compile(mode.split("=", 1)[1])
    elif mode not in ("dso", "sym"):
        sys.exit(f"unknown mode {mode}: dso, sym or callers=REGEX")
    rows = int(sys.argv[6]) if len(sys.argv) > 6 else 20
    runtime = re.compile(r"^(swift_|_swift|__swift|_ZN5swift)")

    def path_at(time):
        for name, start, end in rounds:
            if start <= time <= end:
                return name
        return None

    counts = {first: collections.Counter(), second: collections.Counter()}
    seconds = collections.Counter()
    for name, start, end in rounds:
        seconds[name] += end - start
    totals = collections.Counter()
    for time, comm, frames in samples:
        name = path_at(time)
        if name not in counts or comm == "nginx" or not frames:
            continue
        totals[name] += 1
        symbol, library = frames[0]
        if mode == "dso":
            key = library
        elif mode == "sym":
            key = symbol
        else:
            if not pattern.search(symbol):
                continue
            key = next((f for f, _ in frames[1:] if not runtime.match(f)), "?")
        counts[name][key[:110]] += 1
    pairs = min(sum(1 for r in rounds if r[0] == first), sum(1 for r in rounds if r[0] == second))
    print(f"samples: {first} {totals[first]} in {seconds[first]:.1f} s, {second} {totals[second]} in {seconds[second]:.1f} s; {pairs} rounds each")
    keys = set(counts[first]) | set(counts[second])
    for key in sorted(keys, key=lambda k: -(counts[second][k] - counts[first][k]))[:rows]:
        print(f"{counts[first][key]:7d} {counts[second][key]:7d} {counts[second][key] - counts[first][key]:+7d}  {key}")


if __name__ == "__main__":
    main()
