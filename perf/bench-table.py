#!/usr/bin/env python3
"""Markdown tables of docs/benchmarks.md from trident-bench CSVs (--csv=FILE), so that a table is
refreshed by re-running its command, not rewritten by hand.

    perf/bench-table.py KIND [--algos=tpetra,summa,trident] [--p=N] CSV [CSV ...]

KIND:
  time  per matrix: each algorithm's time (s), then Trident's time over each other algorithm's
  gi    per matrix: each algorithm's Gi bytes received, summed over ranks (MB), and Trident's
        bytes over each other algorithm's (exact counts: any one row of a matrix gives them)
  p1    per matrix: each algorithm's time, Trident / the first algorithm, and Trident's out phase
        (assembling C) over its local multiply

A matrix's time is the median over the CSV rows of that matrix and algorithm (each row is one
process's median over its --trials, so several runs appended to one CSV give the median of
processes' medians). Rows whose check failed are left out and the matrix is marked. --p keeps
one rank count when a CSV holds several. Rows appear in the order of first appearance.
"""
import csv
import statistics
import sys


def parse(argv):
    if len(argv) < 3 or argv[1] not in ("time", "gi", "p1"):
        sys.exit(__doc__)
    kind, algos, p, files = argv[1], None, None, []
    for a in argv[2:]:
        if a.startswith("--algos="):
            algos = a.split("=", 1)[1].split(",")
        elif a.startswith("--p="):
            p = a.split("=", 1)[1]
        else:
            files.append(a)
    return kind, algos, p, files


def load(files, p):
    rows, order, failed = {}, [], set()
    for path in files:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if p is not None and r["P"] != p:
                    continue
                m = r["matrix"]
                if m not in order:
                    order.append(m)
                if r.get("check", "off") == "FAIL":
                    failed.add(m)
                    continue
                rows.setdefault((m, r["algo"]), []).append(r)
    return rows, order, failed


def median(rows, key):
    return statistics.median(float(r[key]) for r in rows)


def cells(kind, rows, m, algos):
    got = {a: rows.get((m, a)) for a in algos}
    if kind == "gi":
        vals = {a: (median(v, "gi_bytes_total") / 1e6 if v else None) for a, v in got.items()}
        fmt = "%.2f"
    else:
        vals = {a: (median(v, "time_s") if v else None) for a, v in got.items()}
        fmt = "%.4f"
    out = [fmt % vals[a] if vals[a] is not None else "-" for a in algos]
    t = vals.get("trident")
    others = [a for a in algos if a != "trident"][: 1 if kind == "p1" else None]
    rfmt = "%.3f" if kind == "gi" else "%.2f"  # Gi ratios are exact: a third digit is information
    out += [rfmt % (t / vals[a]) if t is not None and vals[a] else "-" for a in others]
    if kind == "p1":
        tr = got.get("trident")
        local = median(tr, "time_local_s") if tr else 0
        out.append("%.2f" % (median(tr, "time_out_s") / local) if tr and local > 0 else "-")
    return out


def header(kind, algos):
    unit = "Gi MB" if kind == "gi" else "s"
    cols = ["matrix"] + ["%s %s" % (a, unit) for a in algos]
    others = [a for a in algos if a != "trident"][: 1 if kind == "p1" else None]
    cols += ["trident / %s" % a for a in others]
    if kind == "p1":
        cols.append("out / local")
    return "| " + " | ".join(cols) + " |\n" + "|---" * len(cols) + "|"


def main(argv):
    kind, algos, p, files = parse(argv)
    rows, order, failed = load(files, p)
    if algos is None:
        seen = []
        for (_, a) in rows:
            if a not in seen:
                seen.append(a)
        algos = seen
    if "trident" not in algos:
        sys.exit("bench-table.py: the tables compare Trident with the others: no trident rows")
    print(header(kind, algos))
    for m in order:
        name = m + (" (check failed)" if m in failed else "")
        print("| " + " | ".join([name] + cells(kind, rows, m, algos)) + " |")


if __name__ == "__main__":
    main(sys.argv)
