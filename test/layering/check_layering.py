#!/usr/bin/env python3
"""The folders of src/trident include each other without a cycle, and the core includes no
Tpetra, MueLu or adapter header: a folder's headers and sources name the folders they depend
on, and those dependencies must form a DAG (core at the bottom, algorithms near the top)."""
import os
import re
import sys

root = os.path.join(sys.argv[1], "src", "trident")
include = re.compile(r'#include\s+[<"](?:trident/([a-z]+)/|(Tpetra|MueLu|Trident_)\w*)')
deps, bad = {}, []
for folder in sorted(os.listdir(root)):
    path = os.path.join(root, folder)
    if not os.path.isdir(path):
        continue
    deps[folder] = set()
    for name in os.listdir(path):
        if not name.endswith((".hpp", ".cpp", ".cu")):
            continue
        for line in open(os.path.join(path, name), encoding="utf-8"):
            m = include.match(line.strip())
            if m and m.group(1) and m.group(1) != folder:
                deps[folder].add(m.group(1))
            elif m and m.group(2):
                bad.append(f"src/trident/{folder}/{name}: {line.strip()}")


def cycle_from(start):
    stack, on_path = [(start, iter(sorted(deps.get(start, ()))))], [start]
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            on_path.pop()
        elif nxt in on_path:
            return on_path[on_path.index(nxt):] + [nxt]
        else:
            stack.append((nxt, iter(sorted(deps.get(nxt, ())))))
            on_path.append(nxt)
    return None


cycles = {tuple(c) for c in (cycle_from(f) for f in deps) if c}
for c in sorted(cycles):
    print("include cycle: " + " -> ".join(c))
for b in bad:
    print("the core includes an adapter or Tpetra header: " + b)
for f in sorted(deps):
    print(f"{f} -> {' '.join(sorted(deps[f])) or '(nothing)'}")
sys.exit(1 if cycles or bad else 0)
