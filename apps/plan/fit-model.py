#!/usr/bin/env python3
"""Fits the machine model's per-algorithm terms to trident-bench runs.

  python3 apps/plan/fit-model.py LOG [LOG...] > fit.txt

LOG: trident-bench output with --algos=tpetra,summa,trident,auto (one or more matrices), run with
TRIDENT_AUTO_COUNT=1 so that products the bound settles are counted too. A matrix
in several logs counts once, with each algorithm's least time over the logs (the run least
disturbed by other load on a shared machine). For each matrix, the "[auto] chose ..." line gives every algorithm's counts (busiest rank's multiply-adds,
entries, link bytes, messages: what the model sees), the table gives the measured time of each
algorithm. Per algorithm it fits, by least squares on the relative error (times span 1e-2..1e1 s),

    time = overhead + madds / rate + C entries * c_cost + entries * entry_cost + (link term, kept)

with every coefficient >= 0 (a term that would come out negative is dropped and the rest refitted),
prints the model-file lines, and the residual (predicted / measured) of every matrix.
"""
import re
import sys
from itertools import combinations

ALGOS = ["tpetra", "summa", "trident"]


def parse(paths):
    rows = []  # (matrix, {algo: (madds, C, entries, links_s)}, {algo: measured})
    for path in paths:
        cur, feats, meas = None, None, {}
        for line in open(path, errors="replace"):
            m = re.match(r"trident-bench: matrix (\S+):", line)
            if m:
                if cur and feats and meas:
                    rows.append((cur, feats, meas))
                cur, feats, meas = m.group(1), None, {}
                continue
            op = re.match(r"\s+op (\w+) \(", line)
            if op and cur and op.group(1) != "AA":  # one matrix, several products
                cur += " " + op.group(1) + (" muelu" if "MueLu" in line else "")
                continue
            if "[auto] chose" in line and "madds" in line:
                feats = {}
                for a in ALGOS:
                    f = re.search(a + r" [\d.e+-]+ s = fixed [\d.e+-]+ \+ kernel [\d.e+-]+ \(([\d.e+-]+) madds, ([\d.e+-]+) C\) "
                                  r"\+ entries [\d.e+-]+ \(([\d.e+-]+)\) \+ links ([\d.e+-]+) \(([\d.e+-]+) B"
                                  r"[^;]*\+ import [\d.e+-]+(?: \(([\d.e+-]+) rows(, owner slices)?\))?", line)
                    # A product the bound settled has no counts (rerun with TRIDENT_AUTO_COUNT=1).
                    if f:
                        g = f.groups()
                        # Trident with owner slices: its C entries are a feature of their own
                        # (trident_owner_c_cost), appended as the seventh.
                        owner = a == "trident" and g[6] is not None
                        v = [float(x or 0) for x in g[:6]]
                        c = v[1]
                        if owner:
                            v[1] = 0.0
                        feats[a] = tuple(v + ([c if owner else 0.0] if a == "trident" else []))
                if len(feats) < len(ALGOS):
                    feats = None
                continue
            t = re.match(r"(tpetra|summa|trident|auto)\s+([\d.]+)\s", line)
            if t and cur:
                meas[t.group(1)] = float(t.group(2))
        if cur and feats and meas:
            rows.append((cur, feats, meas))
    merged = {}
    for name, feats, meas in rows:
        if name not in merged:
            merged[name] = (feats, dict(meas))
        else:
            old = merged[name][1]
            for a, t in meas.items():
                old[a] = min(old.get(a, t), t)
    return [(name, f, m) for name, (f, m) in merged.items()]


def solve(A, b):
    n = len(b)
    M = [A[i][:] + [b[i]] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        if abs(M[p][c]) < 1e-300:
            return None
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c:
                f = M[r][c] / M[c][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]


def fit(X, y):
    """min sum ((X w - y)/y)^2 with w >= 0 over subsets of the columns; returns w (0 where dropped)."""
    k = len(X[0])
    best = None
    for size in range(k, 0, -1):
        for cols in combinations(range(k), size):
            Xs = [[x[c] / yy for c in cols] for x, yy in zip(X, y)]
            ys = [1.0] * len(y)
            AtA = [[sum(r[i] * r[j] for r in Xs) for j in range(size)] for i in range(size)]
            Atb = [sum(r[i] * t for r, t in zip(Xs, ys)) for i in range(size)]
            w = solve(AtA, Atb)
            if w is None or any(v < 0 for v in w):
                continue
            full = [0.0] * k
            for c, v in zip(cols, w):
                full[c] = v
            err = sum((sum(a * b for a, b in zip(x, full)) / yy - 1.0) ** 2 for x, yy in zip(X, y))
            if best is None or err < best[0]:
                best = (err, full)
    return best[1]


def features(a, f):
    """The fitted columns of algorithm a: 1 (overhead), multiply-adds, C, entries; Tpetra's import
    bytes and rows; Trident's C with owner slices."""
    x = [1.0, f[a][0], f[a][1], f[a][2]]
    if a == "tpetra":
        x += list(f[a][4:6])
    if a == "trident":
        x.append(f[a][6])
    return x


def main():
    rows = parse(sys.argv[1:])
    if not rows:
        sys.exit("fit-model: no matrices with an [auto] line and a table found")
    model = {}
    for a in ALGOS:
        # Tpetra: also a cost per byte and per row it imports (its import set-up), the model's
        # tpetra_import_cost and tpetra_import_row_cost (logs older than the row count give 0 rows).
        X = [features(a, f) for _, f, m in rows if a in m]
        y = [max(m[a], 1e-6) - f[a][3] for _, f, m in rows if a in m]
        w = fit(X, y)
        model[a] = w
        print("%s_overhead = %.4g" % (a, max(w[0], 1e-6)))
        print("%s_rate = %.4g" % (a, 1.0 / w[1] if w[1] > 0 else 1e12))
        print("%s_c_cost = %.4g" % (a, max(w[2], 1e-12)))
        print("%s_entry_cost = %.4g" % (a, max(w[3], 1e-12)))
        if a == "tpetra":
            print("tpetra_import_cost = %.4g" % max(w[4], 1e-12))
            print("tpetra_import_row_cost = %.4g" % max(w[5], 1e-12))
        if a == "trident" and any(f[a][6] > 0 for _, f, m in rows if a in m):
            print("trident_owner_c_cost = %.4g" % max(w[4], 1e-12))
    print("\n# matrix: measured s (predicted/measured) per algorithm; fastest measured; fitted choice")
    hits = 0
    for name, f, m in rows:
        pred = {a: sum(w * x for w, x in zip(model[a], features(a, f))) + f[a][3] for a in ALGOS}
        fastest = min(ALGOS, key=lambda a: m[a])
        choice = min(ALGOS, key=lambda a: pred[a])
        ok = m[choice] <= 1.1 * m[fastest]
        hits += ok
        print("# %-20s " % name + "  ".join("%s %.3g (%.2f)" % (a, m[a], pred[a] / m[a]) for a in ALGOS) +
              "  fastest %s  choice %s (%.2fx)%s" % (fastest, choice, m[choice] / m[fastest], "" if ok else "  MISS"))
    print("# fitted choice within 1.1x of the fastest on %d of %d" % (hits, len(rows)))


if __name__ == "__main__":
    main()
