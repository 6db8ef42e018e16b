#!/usr/bin/env python3
"""trident-mcl against Debian's mcl on one graph: time, peak RSS, identical clusters.

Usage: bench_vs_mcl.py GRAPH.mtx --trident BUILD/apps/mcl/trident-mcl [--np 1,2] [--trials 3]
                       [--mcl-threads 1,2] [--mcl-trials N] [--undirected] [--workdir DIR]
                       [--mpirun-args ARGS] [-- extra trident-mcl options]
The graph is written once as mcl's native matrix (0-based, column j = node j's neighbours; a
symmetric file expanded, --undirected adds the transpose of a general one), so both programs see
the same matrix and the same labels. mcl runs with each of --mcl-threads (-te T; default 1 and
the machine's cores, so that mcl and trident-mcl can be compared on the same cores) and the same
explicit pruning parameters trident-mcl uses by default. "vs mcl" is against mcl on as many
threads as the machine has cores (the largest of --mcl-threads). CPU is user+system time of all processes
(MPI ranks spin while they wait, so it overstates P > 1). Peak RSS is /usr/bin/time's maximum resident set
size: for mpirun it is the largest single process (one rank), which is what "per rank" means.
mpirun gets --mpirun-args, by default "--mca pml ob1": ob1 (shared memory through vader) is the PML
OpenMPI ends up with on one machine anyway, and naming it skips the cm PML's start-up probe for
PSM/PSM2 hardware (0.2 s of every job's MPI_Init on the machine of docs/benchmarks.md).
"""
import argparse, os, re, statistics, subprocess, sys, time

def read_mtx(path, undirected):
    with open(path) as f:
        header = f.readline().lower().split()
        pattern = header[3] == 'pattern'
        sym = header[4] in ('symmetric', 'hermitian')
        line = f.readline()
        while line.startswith('%'):
            line = f.readline()
        n, m, nnz = map(int, line.split())
        cols = [dict() for _ in range(m)]
        for line in f:
            p = line.split()
            if not p:
                continue
            i, j = int(p[0]) - 1, int(p[1]) - 1
            v = 1.0 if pattern else float(p[2])
            cols[j][i] = v
            if (sym or undirected) and i != j:
                if undirected and not sym and j in cols[i]:
                    continue  # keep an existing reverse edge's own weight
                cols[i][j] = v
    return n, cols

def write_mci(path, n, cols):
    with open(path, 'w') as f:
        f.write('(mclheader\nmcltype matrix\ndimensions %dx%d\n)\n(mclmatrix\nbegin\n' % (n, n))
        for j, c in enumerate(cols):
            if c:
                f.write('%d %s $\n' % (j, ' '.join('%d:%r' % (i, c[i]) for i in sorted(c))))
        f.write(')\n')

def write_mtx(path, n, cols):
    nnz = sum(len(c) for c in cols)
    with open(path, 'w') as f:
        f.write('%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n' % (n, n, nnz))
        for j, c in enumerate(cols):
            for i in sorted(c):
                f.write('%d %d %r\n' % (i + 1, j + 1, c[i]))

def canon(cl):
    cl = [sorted(c) for c in cl if c]
    cl.sort(key=lambda c: (-len(c), c))
    return cl

def read_native_clusters(path):
    txt = open(path).read()
    body = txt[txt.index('begin') + 5:]
    out = []
    for chunk in body.split('$')[:-1]:
        toks = chunk.split()
        out.append([int(t.split(':')[0]) for t in toks[1:]])
    return canon(out)

def read_label_clusters(path):
    return canon([[int(x) - 1 for x in l.split()] for l in open(path) if l.strip()])

def timed(cmd, log):
    t0 = time.time()
    r = subprocess.run(['/usr/bin/time', '-v'] + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    dt = time.time() - t0
    open(log, 'w').write(r.stdout)
    if r.returncode != 0:
        sys.exit('failed: %s\n%s' % (' '.join(cmd), r.stdout[-3000:]))
    rss = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', r.stdout).group(1))
    cpu = sum(float(re.search(r'%s time \(seconds\): ([0-9.]+)' % k, r.stdout).group(1)) for k in ('User', 'System'))
    return dt, rss / 1024.0, cpu, r.stdout

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('graph')
    ap.add_argument('--trident', required=True)
    ap.add_argument('--np', default='1,2')
    ap.add_argument('--mcl-threads', default='1,%d' % os.cpu_count())
    ap.add_argument('--trials', type=int, default=3)
    ap.add_argument('--undirected', action='store_true')
    ap.add_argument('--workdir', default='/tmp/trident-mcl-bench')
    ap.add_argument('--skip-mcl', action='store_true')
    ap.add_argument('--mcl-trials', type=int, default=None, help='trials of mcl (default: --trials)')
    ap.add_argument('--mpirun-args', default='--mca pml ob1',
                    help='added to mpirun (default: name ob1, the PML a single machine runs on anyway)')
    ap.add_argument('extra', nargs='*')
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    name = os.path.basename(a.graph).replace('.mtx', '') + ('_undirected' if a.undirected else '')
    n, cols = read_mtx(a.graph, a.undirected)
    mci = os.path.join(a.workdir, name + '.mci')
    mtx = os.path.join(a.workdir, name + '.mtx')
    write_mci(mci, n, cols)
    write_mtx(mtx, n, cols)
    rows = []
    ref = None
    pruning = ['-I', '2.0', '-P', '10000', '-S', '1100', '-R', '1400', '-pct', '90']
    nps = [int(x) for x in a.np.split(',')]
    mclTrials = 0 if a.skip_mcl else (a.trials if a.mcl_trials is None else a.mcl_trials)
    threads = sorted({int(x) for x in a.mcl_threads.split(',')})
    # Trials alternate (mcl -te 1, mcl -te 2, P=1, P=2, mcl ...) so that every program sees the
    # same spells of the shared machine's load; CPU time too grows with the other cores' load.
    runs = {('mcl', t): ([], [], []) for t in threads}
    runs.update({p: ([], [], []) for p in nps})
    mclout = os.path.join(a.workdir, name + '.mclout')
    for t in range(max(mclTrials, a.trials)):
        if t < mclTrials:
            for th in threads:
                dt, rss, cpu, _ = timed(['mcl', mci, '-te', str(th)] + pruning + ['-o', mclout], mclout + '.log')
                for lst, x in zip(runs[('mcl', th)], (dt, rss, cpu)): lst.append(x)
        if t < a.trials:
            for p in nps:
                out = os.path.join(a.workdir, '%s.trident.np%d' % (name, p))
                cmd = ['mpirun', '--oversubscribe', '--allow-run-as-root', '--bind-to', 'none'] + a.mpirun_args.split() + \
                      ['-np', str(p), a.trident, mtx, '-o', out] + a.extra
                dt, rss, cpu, log = timed(cmd, out + '.log')
                for lst, x in zip(runs[p], (dt, rss, cpu)): lst.append(x)
    if mclTrials:
        ref = read_native_clusters(mclout)  # mcl's clusters do not depend on its thread count
        for th in threads:
            ts, rs, cs = runs[('mcl', th)]
            rows.append(('mcl -te %d' % th, th, statistics.median(ts), ts, max(rs), len(ref), '-', cs))
    for p in nps:
        ts, rs, cs = runs[p]
        got = read_label_clusters(os.path.join(a.workdir, '%s.trident.np%d' % (name, p)))
        same = 'yes' if ref is not None and got == ref else ('no' if ref is not None else '?')
        rows.append(('trident-mcl P=%d' % p, p, statistics.median(ts), ts, max(rs), len(got), same, cs))
    print('graph %s: n=%d nnz=%d, %d trials, load %s' % (name, n, sum(len(c) for c in cols), a.trials,
          open('/proc/loadavg').read().split()[0]))
    print('| program | wall median [s] | wall trials [s] | CPU median [s] | CPU trials [s] | vs mcl on all cores (wall / CPU) | peak RSS per process [MB] | clusters | identical to mcl |')
    print('|---|---|---|---|---|---|---|---|---|')
    mclRows = [r for r in rows if r[0].startswith('mcl')]
    base = mclRows[-1] if mclRows else None  # the most threads: the machine's cores
    for r in rows:
        cm = statistics.median(r[7])
        rel = '-' if base is None or r is base else '%.2f / %.2f' % (r[2] / base[2], cm / statistics.median(base[7]))
        print('| %s | %.2f | %s | %.2f | %s | %s | %.0f | %d | %s |' % (r[0], r[2], ' '.join('%.2f' % x for x in r[3]), cm,
                                                                  ' '.join('%.2f' % x for x in r[7]), rel,
                                                           r[4], r[5], r[6]))

if __name__ == '__main__':
    main()
