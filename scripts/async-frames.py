#!/usr/bin/env python3
"""Async frame sizes of a Swift binary, largest first (docs/benchmarks.md, waiting-memory).

Every async function has an "async function pointer" (symbol ending in `Tu`): a relative address
and the size of the context (frame) the caller allocates for it on the task's allocator. A parked
task keeps the allocator slabs its deepest chain of frames took, so these sizes explain its memory.

    scripts/async-frames.py .build/release/retryflow-bench [SUBSTRING]
"""
import struct
import subprocess
import sys


def sections(binary):
    """(address, file offset, size) of every section."""
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[0].startswith("[") and fields[0] != "[Nr]":
            try:
                found.append((int(fields[3], 16), int(fields[4], 16), int(fields[5], 16)))
            except ValueError:
                pass
    return [s for s in found if s[0]]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: async-frames.py BINARY [SUBSTRING]")
    binary, wanted = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    data = open(binary, "rb").read()
    table = sections(binary)
    symbols = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines()
    sizes = []
    for line in symbols:
        fields = line.split()
        if len(fields) != 3 or not fields[2].endswith("Tu"):
            continue
        address = int(fields[0], 16)
        for start, offset, size in table:
            if start <= address < start + size:
                at = offset + address - start
                _, context = struct.unpack("<iI", data[at:at + 8])
                sizes.append((context, fields[2]))
                break
    names = subprocess.run(
        ["swift", "demangle", "--simplified"], input="\n".join(n for _, n in sizes), capture_output=True, text=True
    ).stdout.splitlines()
    for (context, _), name in sorted(zip(sizes, names), reverse=True):
        if wanted in name:
            try:
                print(f"{context:6d}  {name.replace('async function pointer to ', '')}")
            except BrokenPipeError:
                return


if __name__ == "__main__":
    main()
