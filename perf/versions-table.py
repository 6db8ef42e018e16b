#!/usr/bin/env python3
"""The Trilinos-versions table of docs/benchmarks.md from perf/versions.sh's two CSVs.

    perf/versions-table.py bench-13.csv bench-16.csv

One row per matrix and P: each version's Tpetra time and Tpetra 16.1 / Tpetra 13.2, then for each
other algorithm in the CSVs (trident, summa, auto: the drop-in's default) its time / Tpetra's on
each version. A product whose check failed is marked; a missing run shows as "-".
"""
import csv
import sys


def load(path):
    rows = {}
    try:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                rows[(r["matrix"], int(r["P"]), r["algo"])] = r
    except FileNotFoundError:
        pass
    return rows


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    v13, v16 = load(argv[1]), load(argv[2])
    keys = sorted({(m, p) for (m, p, _) in list(v13) + list(v16)}, key=lambda k: (k[1], k[0]))

    def t(rows, m, p, algo):
        r = rows.get((m, p, algo))
        if r is None:
            return None, ""
        mark = "" if r["check"] in ("pass", "off") else " (check " + r["check"] + ")"
        return float(r["time_s"]), mark

    def ratio(rows, m, p, algo):
        a, mark = t(rows, m, p, algo)
        b, _ = t(rows, m, p, "tpetra")
        return "-" if a is None or b is None else "%.2f%s" % (a / b, mark)

    others = [a for a in ("trident", "summa", "auto", "auto-cold")
              if any(k[2] == a for k in list(v13) + list(v16))]
    head = ["matrix", "P", "Tpetra 13.2 s", "Tpetra 16.1 s", "16.1 / 13.2"]
    for a in others:
        name = a[0].upper() + a[1:]
        head += ["%s / Tpetra 13.2" % name, "%s / Tpetra 16.1" % name]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    fmt = lambda x: "-" if x is None else "%.4f" % x
    for m, p in keys:
        a, _ = t(v13, m, p, "tpetra")
        b, _ = t(v16, m, p, "tpetra")
        cells = [m, str(p), fmt(a), fmt(b), "-" if a is None or b is None else "%.2f" % (b / a)]
        for algo in others:
            cells += [ratio(v13, m, p, algo), ratio(v16, m, p, algo)]
        print("| " + " | ".join(cells) + " |")

if __name__ == "__main__":
    main(sys.argv)
