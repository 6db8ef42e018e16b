#!/usr/bin/env python3
"""MueLu's Galerkin products as fit data for the machine model (apps/plan/fit-model.py).

  python3 apps/plan/muelu-products.py [--coarse-only] BUILD NP LAMBDA ROUNDS PROBLEM_ARGS... > muelu.log

Runs trident-muelu-solve (PROBLEM_ARGS: --laplace=3d --n=40, --matrix=bcsstk13.mtx, ...) once
with "auto" counting every product (TRIDENT_AUTO_COUNT=1, --explain: each algorithm's counts)
and ROUNDS times with each algorithm named, and prints, per product (level, A*P or R*(AP)), a block
in trident-bench's format: the counts as an "[auto] chose" line and each algorithm's least wall
time on rank 0 over the rounds. A product inside a multigrid setup is one cold call between
others (its operands just built, ranks arriving at different times), which repeated trials of
one product in trident-bench do not show; fitting on both keeps small products honest.
--coarse-only leaves out level 1: its products are the process's first Trident calls, whose
named-algorithm times include one-time set-up (the group communicators), and the bound settles
them for Tpetra before any model time is compared.
"""
import os
import re
import subprocess
import sys

ALGOS = ["tpetra", "summa", "trident"]


def run(build, np, lam, args, algo, count):
    exe = os.path.join(build, "apps/muelu-solve/trident-muelu-solve")
    cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", "-np", str(np), exe,
           "--ranks-per-group=%d" % lam, "--explain"] + args + (["--algorithm=" + algo] if algo else [])
    env = dict(os.environ)
    if count:
        env["TRIDENT_AUTO_COUNT"] = "1"
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600).stdout
    products = {}
    for m in re.finditer(r"^  level (\d+) (A\*P|R\*\(AP\)): (\w+) ([\d.e+-]+) s; (.*)$", out, re.M):
        products["L%s %s" % (m.group(1), m.group(2))] = (m.group(3), float(m.group(4)), m.group(5))
    if not products:
        sys.exit("muelu-products: no products in the output of " + " ".join(cmd) + "\n" + out)
    return products


def main():
    argv = sys.argv[1:]
    coarse_only = bool(argv) and argv[0] == "--coarse-only"
    if coarse_only:
        argv = argv[1:]
    if len(argv) < 5:
        sys.exit(__doc__)
    build, np, lam, rounds = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    args = argv[4:]
    counted = run(build, np, lam, args, None, True)
    best = {}
    for _ in range(rounds):
        for a in ALGOS:
            for key, (ran, t, _) in run(build, np, lam, args, a, False).items():
                best.setdefault(key, {})
                best[key][ran] = min(best[key].get(ran, t), t)
    name = "muelu" + "".join(a.replace("--", ":") for a in args).replace("/", "_")
    for key, (_, _, reason) in counted.items():
        if key not in best or "madds" not in reason or (coarse_only and key.startswith("L1 ")):
            continue
        print("trident-bench: matrix %s/%s:" % (name, key.replace(" ", "/")))
        print("  [auto] " + reason)
        for a in ALGOS:
            if a in best[key]:
                print("%-8s %9.6f s" % (a, best[key][a]))


if __name__ == "__main__":
    main()
