#include "Trident_MCL.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <istream>
#include <map>
#include <numeric>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <memory>
#include <type_traits>
#include <utility>

#include <sys/resource.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <mpi.h>
#include <Teuchos_DefaultMpiComm.hpp>
#include <Teuchos_ParameterList.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_RowMatrixTransposer.hpp>
#include <Tpetra_Vector.hpp>

#include "Trident_MCLRows.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "PrunedSpGEMM.hpp"
#include "RoundedMeasure.hpp"
#include <trident/stats/PhaseTimer.hpp>
#include <trident/core/BigCount.hpp>
#include "Trident_ProductCounts.hpp"
#include "Trident_TpetraComm.hpp"

namespace Trident {
namespace mcl {

namespace {

using GO_ = long long;
using import_type = Tpetra::Import<LO, GO, Node>;
using vector_type = Tpetra::Vector<double, LO, GO, Node>;

using tpetra::rawComm;

double now() { return MPI_Wtime(); }

// mcl stores matrix values as float; values are rounded where mcl stores them.
inline double store(double v, bool flt) { return flt ? static_cast<double>(static_cast<float>(v)) : v; }

// Scratch of the column pruner, kept between columns so pruning allocates nothing per column.
// IV / VV: the column's index and value vectors (the fused kernel's RowCols / RowVals, or plain).
template <class IV, class VV>
struct PruneScratch {
  std::vector<double> w;  // kBar's working copy
  // The column's entries >= the cut, gathered in the measuring pass (pruneColumnImpl<true>): when no
  // recovery follows they are swapped in instead of selected in a second pass over the column.
  IV idx2;
  VV val2;
};

// mclvKBar(KBAR_SELECT_LARGE): the k-th largest value among those < ignore (k >= n: -FLT_MAX).
template <class VV>
double kBarLarge(const VV& v, std::size_t k, double ignore, std::vector<double>& w) {
  if (k >= v.size()) return -FLT_MAX;
  w.clear();
  for (double x : v)
    if (x < ignore) w.push_back(x);
  if (w.empty()) return FLT_MAX;  // cannot happen where mcl calls it
  if (w.size() <= k) return *std::min_element(w.begin(), w.end());
  std::nth_element(w.begin(), w.begin() + (k - 1), w.end(), std::greater<double>());
  return w[k - 1];
}

// mclvKBar(KBAR_SELECT_SMALL): the k-th smallest value among those >= ignore (k >= n: FLT_MAX).
template <class VV>
double kBarSmall(const VV& v, std::size_t k, double ignore, std::vector<double>& w) {
  if (k >= v.size()) return FLT_MAX;
  w.clear();
  for (double x : v)
    if (x >= ignore) w.push_back(x);
  if (w.empty()) return -FLT_MAX;
  if (w.size() <= k) return *std::max_element(w.begin(), w.end());
  std::nth_element(w.begin(), w.begin() + (k - 1), w.end());
  return w[k - 1];
}

// Keeps entries with value >= bar (mclvSelectGqBar); returns the kept mass.
template <class IV, class VV>
double selectGq(IV& idx, VV& val, double bar) {
  std::size_t w = 0;
  double mass = 0;
  for (std::size_t r = 0; r < val.size(); ++r) {
    if (val[r] >= bar) {
      mass += val[r];
      idx[w] = idx[r];
      val[w] = val[r];
      ++w;
    }
  }
  idx.resize(w);
  val.resize(w);
  return mass;
}

// Local CSR block of rows with global column indices.
struct LocalRows {
  std::vector<std::size_t> ptr{0};
  std::vector<GO_> col;
  std::vector<double> val;
  void clear() {
    ptr.assign(1, 0);
    col.clear();
    val.clear();
  }
};

Teuchos::RCP<crs_matrix_type> buildMatrix(const Teuchos::RCP<const map_type>& rowMap, const LocalRows& rows) {
  const std::size_t nloc = Compat::localNumElements(*rowMap);
  Teuchos::Array<std::size_t> counts(nloc);
  for (std::size_t i = 0; i < nloc; ++i) counts[i] = rows.ptr[i + 1] - rows.ptr[i];
  auto M = Teuchos::rcp(new crs_matrix_type(rowMap, counts()));
  for (std::size_t i = 0; i < nloc; ++i) {
    const std::size_t b = rows.ptr[i], e = rows.ptr[i + 1];
    if (e > b)
      M->insertGlobalValues(rowMap->getGlobalElement(static_cast<LO>(i)), static_cast<LO>(e - b),
                            rows.val.data() + b, rows.col.data() + b);
  }
  M->fillComplete(rowMap, rowMap);
  return M;
}

// mcl's inflation of one column: power, then normalize (mclvInflate).
template <class VV>
void inflate(VV& val, double power, bool flt) {
  double sum = 0;
  if (power == 2.0 && flt) {
    // A float's square is exact in double, so it equals pow(v, 2) (mcl's default inflation).
    for (double& v : val) {
      v = store(v * v, flt);
      sum += v;
    }
  } else {
    for (double& v : val) {
      v = store(std::pow(v, power), flt);
      sum += v;
    }
  }
  if (sum > 0)
    for (double& v : val) v = store(v / sum, flt);
}

void multiply(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C, const Options& opt) {
  auto params = Teuchos::rcp(new Teuchos::ParameterList());
  params->set("trident: algorithm", opt.algorithm);
  if (opt.ranks_per_group > 0) params->set("trident: ranks per group", opt.ranks_per_group);
  Trident::MatrixMatrix::Multiply(A, false, B, false, C, true, "trident-mcl", params);
}

MultiplyStats lastMultiplyStats() { return Trident::MatrixMatrix::lastStats(); }


// ---------------------------------------------------------------------------------------------
// Interpretation (rank 0): mclInterpret on the DAG, clmEnstrict (overlap: cut), sort revsize.
struct Interpretation {
  std::vector<std::vector<GO_>> clusters;
  long long overlap = 0, missing = 0;
};

// Out-adjacency (CSR) of the DAG: i -> j for every entry j kept in column i of the limit, each
// node's targets ascending.
struct Dag {
  std::vector<GO_> ptr, adj;
  GO_ begin(GO_ i) const { return ptr[i]; }
  GO_ end(GO_ i) const { return ptr[i + 1]; }
};

Dag buildDag(GO_ n, const std::vector<GO_>& src, const std::vector<GO_>& dst) {
  Dag g;
  g.ptr.assign(n + 1, 0);
  for (GO_ s : src) g.ptr[s + 1]++;
  for (GO_ i = 0; i < n; ++i) g.ptr[i + 1] += g.ptr[i];
  g.adj.resize(src.size());
  {
    std::vector<GO_> fill(g.ptr.begin(), g.ptr.end() - 1);
    for (std::size_t e = 0; e < src.size(); ++e) g.adj[fill[src[e]]++] = dst[e];
  }
  for (GO_ i = 0; i < n; ++i) std::sort(g.adj.begin() + g.ptr[i], g.adj.begin() + g.ptr[i + 1]);
  return g;
}

// Attractors: the nodes with a loop in the limit.
std::vector<char> findAttractors(GO_ n, const Dag& g) {
  std::vector<char> attr(n, 0);
  for (GO_ i = 0; i < n; ++i)
    attr[i] = std::binary_search(g.adj.begin() + g.begin(i), g.adj.begin() + g.end(i), i) ? 1 : 0;
  return attr;
}

GO_ findRoot(std::vector<GO_>& parent, GO_ x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

// Attractor systems: connected components of the (symmetrized) DAG restricted to attractors,
// in mcl's order (size descending, then lexicographic), each ascending.
std::vector<std::vector<GO_>> attractorSystems(GO_ n, const Dag& g, const std::vector<char>& attr) {
  std::vector<GO_> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (GO_ i = 0; i < n; ++i) {
    if (!attr[i]) continue;
    for (GO_ e = g.begin(i); e < g.end(i); ++e) {
      GO_ j = g.adj[e];
      if (attr[j]) {
        GO_ a = findRoot(parent, i), b = findRoot(parent, j);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
      }
    }
  }
  std::map<GO_, std::vector<GO_>> compMembers;  // root -> attractors (ascending)
  for (GO_ i = 0; i < n; ++i)
    if (attr[i]) compMembers[findRoot(parent, i)].push_back(i);
  std::vector<std::vector<GO_>> comps;
  comps.reserve(compMembers.size());
  for (auto& kv : compMembers) comps.push_back(std::move(kv.second));
  std::sort(comps.begin(), comps.end(), [](const std::vector<GO_>& a, const std::vector<GO_>& b) {
    if (a.size() != b.size()) return a.size() > b.size();
    return a < b;
  });
  return comps;
}

// Reach(v): ids of the attractor systems reachable from v (v included), over the whole DAG.
// Strongly connected components (iterative Tarjan) make this linear up to the set sizes: an SCC is
// finished only after every SCC it reaches, so their reach sets are complete when it is closed.
struct Reachability {
  std::vector<GO_> sccOf;               // each node's SCC, numbered in reverse topological order
  std::vector<std::vector<GO_>> reach;  // per SCC: the attractor systems it reaches, ascending
};

// Pops v's SCC off Tarjan's stack and records the attractor systems it reaches.
void closeScc(GO_ v, const Dag& g, const std::vector<char>& attr, const std::vector<GO_>& compOf,
              std::vector<GO_>& stack, std::vector<char>& onStack, Reachability& out) {
  GO_ id = static_cast<GO_>(out.reach.size());
  std::vector<GO_> members;
  while (true) {
    GO_ w = stack.back();
    stack.pop_back();
    onStack[w] = 0;
    out.sccOf[w] = id;
    members.push_back(w);
    if (w == v) break;
  }
  std::vector<GO_> r;
  for (GO_ w : members) {
    if (attr[w]) r.push_back(compOf[w]);
    for (GO_ f = g.begin(w); f < g.end(w); ++f) {
      GO_ s = out.sccOf[g.adj[f]];
      if (s >= 0 && s != id) r.insert(r.end(), out.reach[s].begin(), out.reach[s].end());
    }
  }
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  out.reach.push_back(std::move(r));
}

Reachability reachableSystems(GO_ n, const Dag& g, const std::vector<char>& attr, const std::vector<GO_>& compOf) {
  Reachability out;
  out.sccOf.assign(n, -1);
  std::vector<GO_> index(n, -1), low(n, 0);
  std::vector<char> onStack(n, 0);
  std::vector<GO_> stack;
  GO_ counter = 0;
  std::vector<std::pair<GO_, GO_>> work;  // (node, next edge offset)
  for (GO_ root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    work.emplace_back(root, g.begin(root));
    index[root] = low[root] = counter++;
    stack.push_back(root);
    onStack[root] = 1;
    while (!work.empty()) {
      GO_ v = work.back().first;
      GO_& e = work.back().second;
      if (e < g.end(v)) {
        GO_ w = g.adj[e++];
        if (index[w] < 0) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          onStack[w] = 1;
          work.emplace_back(w, g.begin(w));
        } else if (onStack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      // v done
      if (low[v] == index[v]) closeScc(v, g, attr, compOf, stack, onStack, out);
      work.pop_back();
      if (!work.empty()) {
        GO_ u = work.back().first;
        low[u] = std::min(low[u], low[v]);
      }
    }
  }
  return out;
}

// Puts every non-attractor into the first attractor system it reaches (overlap mode cut); nodes
// that reach none are collected into one extra cluster.
Interpretation assignToSystems(GO_ n, const Dag& g, const std::vector<char>& attr,
                               std::vector<std::vector<GO_>> cls, const Reachability& rs) {
  Interpretation out;
  std::vector<GO_> truants;
  std::vector<GO_> ids;
  for (GO_ d = 0; d < n; ++d) {
    if (attr[d]) continue;
    ids.clear();
    for (GO_ f = g.begin(d); f < g.end(d); ++f) {
      const auto& r = rs.reach[rs.sccOf[g.adj[f]]];
      ids.insert(ids.end(), r.begin(), r.end());
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    if (ids.empty()) {
      truants.push_back(d);
      continue;
    }
    // Overlap, mode cut: a node stays in the first cluster it occurs in.
    if (ids.size() > 1) out.overlap++;
    cls[ids[0]].push_back(d);
  }
  if (!truants.empty()) {
    out.missing = static_cast<long long>(truants.size());
    cls.push_back(truants);
  }
  for (auto& c : cls) std::sort(c.begin(), c.end());
  cls.erase(std::remove_if(cls.begin(), cls.end(), [](const std::vector<GO_>& c) { return c.empty(); }),
            cls.end());
  canonicalize(cls);
  out.clusters = std::move(cls);
  return out;
}

Interpretation interpret(GO_ n, const std::vector<GO_>& src, const std::vector<GO_>& dst) {
  const Dag g = buildDag(n, src, dst);
  const std::vector<char> attr = findAttractors(n, g);
  const std::vector<std::vector<GO_>> comps = attractorSystems(n, g, attr);
  std::vector<GO_> compOf(n, -1);
  for (std::size_t c = 0; c < comps.size(); ++c)
    for (GO_ a : comps[c]) compOf[a] = static_cast<GO_>(c);
  const Reachability rs = reachableSystems(n, g, attr, compOf);
  return assignToSystems(n, g, attr, comps, rs);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
namespace detail {

// vecMeasure of the un-pruned column: its largest value, its sum of squares (both for the chaos),
// and the count and mass of its entries >= cut.
struct ColumnMeasure {
  double maxval = 0, center = 0, massPrune = 0;
  std::size_t nPrune = 0;
};

// The measure of a column straight from the product: values first rounded where mcl stores them
// and zeros dropped (in place), the entries >= cut gathered into s.idx2 / s.val2 in column order.
// One pass without a branch per entry (written, then kept or overwritten): on MCL's heavy rows,
// tens of thousands of entries of which a few percent pass the cut, the pruner's branchy pass took
// 6.8 % of trident-mcl's samples on email-Enron. The sums run in column order as before, so the
// measure is mcl's to the bit; the cut's mass is summed afterwards over the gathered entries.
// With int columns and double values (the fused kernel's rows) the pass runs eight entries at a
// time where the CPU allows (RoundedMeasure.hpp); this loop finishes the row.
template <class IV, class VV>
ColumnMeasure measureRounded(IV& idx, VV& val, bool flt, double cut, PruneScratch<IV, VV>& s) {
  const std::size_t n = val.size();
  s.idx2.resize(n);
  s.val2.resize(n);
  auto* ip = idx.data();
  double* vp = val.data();
  auto* i2 = s.idx2.data();
  double* v2 = s.val2.data();
  RoundedMeasureState st;
  std::size_t k = 0;
  if constexpr (std::is_same_v<typename IV::value_type, int> && std::is_same_v<typename VV::value_type, double>)
    k = roundedMeasureVector(ip, vp, n, flt, cut, i2, v2, st);
  double center = st.center, maxval = st.maxval;
  std::size_t w = st.kept, kept = st.gathered;
  for (; k < n; ++k) {
    const double v = store(vp[k], flt);
    const auto c = ip[k];
    ip[w] = c;
    vp[w] = v;
    w += v != 0 ? 1 : 0;
    center += v * v;  // a zero adds +0.0: no change
    maxval = std::max(maxval, v);
    i2[kept] = c;
    v2[kept] = v;
    kept += static_cast<std::size_t>((v >= cut) & (v != 0));
  }
  idx.resize(w);
  val.resize(w);
  s.idx2.resize(kept);
  s.val2.resize(kept);
  ColumnMeasure m;
  m.maxval = maxval;
  m.center = center;
  m.nPrune = kept;
  for (std::size_t j = 0; j < kept; ++j) m.massPrune += v2[j];
  return m;
}

// The measure of a column as it is (nothing rounded or dropped, nothing gathered).
template <class VV>
ColumnMeasure measure(const VV& val, double cut) {
  ColumnMeasure m;
  for (double v : val) {
    m.center += v * v;
    if (v > m.maxval) m.maxval = v;
    if (v >= cut) {
      m.massPrune += v;
      ++m.nPrune;
    }
  }
  return m;
}

// Every branch first measures (count and mass of what a bar would keep) and then selects once, in
// place: mcl's order of decisions, with no copy of the column kept for a recovery that may not come.
// Masses are summed in column order as mclvSelectGqBar sums them, so the values are mcl's.
// RoundFirst: the column comes straight from the product: values are first rounded where mcl
// stores them and zeros dropped, in the same pass that measures the column.
template <bool RoundFirst, class IV, class VV>
double pruneColumnImpl(IV& idx, VV& val, typename IV::value_type self, const Options& opt, double* mass_kept,
                       PruneScratch<IV, VV>& s, std::size_t* n_nonzero = nullptr) {
  const bool flt = opt.float_values;
  const std::size_t R = opt.recover_number > 0 ? static_cast<std::size_t>(opt.recover_number) : 0;
  const std::size_t S = opt.select_number > 0 ? static_cast<std::size_t>(opt.select_number) : 0;
  const double pct = opt.recover_pct;
  const double cut = opt.prune_number > 0 ? 0.99999 / static_cast<double>(opt.prune_number) : 0.0;

  ColumnMeasure m;
  if constexpr (RoundFirst)
    m = measureRounded(idx, val, flt, cut, s);
  else
    m = measure(val, cut);
  const double maxval = m.maxval, center = m.center, massPrune = m.massPrune;
  const std::size_t nPrune = m.nPrune;
  const std::size_t nFull = val.size();
  if (n_nonzero) *n_nonzero = nFull;
  double massFinal = massPrune;
  if (R && nPrune < R && massPrune < pct) {
    // Recover to at most R entries from the un-pruned column.
    const double rbar = nFull > R ? kBarLarge(val, R - nPrune, cut, s.w) : 0.0;
    massFinal = selectGq(idx, val, rbar);
  } else {
    if (RoundFirst) {  // what selectGq(idx, val, cut) would leave, gathered in the pass above
      idx.swap(s.idx2);
      val.swap(s.val2);
    } else {
      selectGq(idx, val, cut);
    }
    if (!R && val.empty()) {  // emergency measure: a loop
      idx.assign(1, self);
      val.assign(1, 1.0);
      massFinal = 0;
    } else if (S && nPrune > S) {
      const double sbar =
          nPrune >= 2 * S ? kBarLarge(val, S, FLT_MAX, s.w) : kBarSmall(val, nPrune - S + 1, -FLT_MAX, s.w);
      double massSelect = 0;
      std::size_t nSelect = 0;
      for (double v : val)
        if (v >= sbar) {
          massSelect += v;
          ++nSelect;
        }
      if (R && nSelect < R && massSelect < pct) {
        const double rbar = nPrune > R ? kBarLarge(val, R - nSelect, sbar, s.w) : 0.0;
        massFinal = selectGq(idx, val, rbar);
      } else {
        selectGq(idx, val, sbar);
        massFinal = massSelect;
      }
    }
  }
  if (massFinal != 0)
    for (double& v : val) v = store(v / massFinal, flt);
  if (mass_kept) *mass_kept = massFinal;
  return (maxval - center) * static_cast<double>(val.size());
}

double pruneColumn(std::vector<long long>& idx, std::vector<double>& val, long long self, const Options& opt,
                   double* mass_kept) {
  PruneScratch<std::vector<long long>, std::vector<double>> s;
  return pruneColumnImpl<false>(idx, val, self, opt, mass_kept, s);
}

double pruneProductRow(std::vector<int>& idx, std::vector<double>& val, int self, const Options& opt,
                       double* mass_kept) {
  PruneScratch<std::vector<int>, std::vector<double>> s;
  return pruneColumnImpl<true>(idx, val, self, opt, mass_kept, s);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
namespace {

// Peak resident set of this process so far (getrusage), in MB.
double peakRssMb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux reports kB
}

// Resident set of this process now (/proc/self/statm), in MB; 0 where there is no /proc.
double currentRssMb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// mclDag's edges out of node g (one column of the limit, given as idx/val; both are consumed).
void dagEdges(GO_ g, std::vector<GO_>& idx, std::vector<double>& val, bool flt, std::vector<GO_>& edges) {
  if (idx.empty()) return;
  double self = 0, maxv = -DBL_MAX;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] == g) self = val[k];
    maxv = std::max(maxv, val[k]);
  }
  const double bar = self < maxv ? 0.999 * self + 0.001 * maxv : self / 1.01;
  selectGq(idx, val, bar);
  double sum = 0;
  for (double v : val) sum += v;
  if (sum != 0)
    for (double& v : val) v = store(v / sum, flt);
  selectGq(idx, val, 1.0 / static_cast<double>(val.size() + 1));
  for (GO_ c : idx) {
    edges.push_back(g);
    edges.push_back(c);
  }
}

// Moves whole rows of T between ranks so that every rank gets about the same number of
// multiply-adds in the coming expansion (row i's: the sum of the lengths of the rows its columns
// name), keeping the rows' global order (ranks take contiguous runs of it). Done only when the
// largest rank has more than 10% above the average; rows are independent, so the clustering does
// not change. Returns whether rows moved. Collective.
template <class M>
bool rebalance(M& T, std::vector<GO_>& gids, GO_ n, MPI_Comm comm) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  const std::size_t nloc = gids.size();
  std::vector<int> len(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < nloc; ++i) len[gids[i]] = static_cast<int>(T.rowptr[i + 1] - T.rowptr[i]);
  MPI_Allreduce(MPI_IN_PLACE, len.data(), static_cast<int>(n), MPI_INT, MPI_SUM, comm);
  std::vector<double> work(nloc, 0.0);
  double mine = 0;
  for (std::size_t i = 0; i < nloc; ++i) {
    for (std::int64_t q = T.rowptr[i]; q < T.rowptr[i + 1]; ++q) work[i] += len[T.col[q]];
    mine += work[i];
  }
  double total = 0, most = 0, before = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Exscan(&mine, &before, 1, MPI_DOUBLE, MPI_SUM, comm);
  if (me == 0) before = 0;
  if (total <= 0 || most * P <= 1.1 * total) return false;
  // Destination of each row: where the middle of its work falls on the global work line.
  std::vector<std::int64_t> rowsTo(P, 0), entsTo(P, 0);
  std::vector<int> dest(nloc);
  double acc = before;
  for (std::size_t i = 0; i < nloc; ++i) {
    const double mid = acc + 0.5 * work[i];
    acc += work[i];
    dest[i] = std::min(P - 1, std::max(0, static_cast<int>(mid * P / total)));
    rowsTo[dest[i]]++;
    entsTo[dest[i]] += T.rowptr[i + 1] - T.rowptr[i];
  }
  // dest is non-decreasing in i, so the rows for each rank are already contiguous and in order.
  std::vector<std::int64_t> lenOut(nloc);
  for (std::size_t i = 0; i < nloc; ++i) lenOut[i] = T.rowptr[i + 1] - T.rowptr[i];
  const std::vector<std::int64_t> rowsFrom = bigcount::exchangeCounts(rowsTo, comm);
  const std::vector<std::int64_t> entsFrom = bigcount::exchangeCounts(entsTo, comm);
  const std::int64_t nNew = std::accumulate(rowsFrom.begin(), rowsFrom.end(), std::int64_t{0});
  const std::int64_t eNew = std::accumulate(entsFrom.begin(), entsFrom.end(), std::int64_t{0});
  std::vector<GO_> gNew(static_cast<std::size_t>(nNew));
  std::vector<std::int64_t> lenNew(static_cast<std::size_t>(nNew));
  bigcount::alltoallv(gids.data(), rowsTo, gNew.data(), rowsFrom, MPI_LONG_LONG, comm);
  bigcount::alltoallv(lenOut.data(), rowsTo, lenNew.data(), rowsFrom, MPI_INT64_T, comm);
  M U(nNew, T.ncols);
  U.col.resize(static_cast<std::size_t>(eNew));
  U.val.resize(static_cast<std::size_t>(eNew));
  using V = typename decltype(T.val)::value_type;
  bigcount::alltoallv(T.col.data(), entsTo, U.col.data(), entsFrom, MPI_INT, comm);
  bigcount::alltoallv(T.val.data(), entsTo, U.val.data(), entsFrom,
                      std::is_same<V, float>::value ? MPI_FLOAT : MPI_DOUBLE, comm);
  for (std::int64_t i = 0; i < nNew; ++i) U.rowptr[i + 1] = U.rowptr[i] + lenNew[i];
  T = std::move(U);
  gids = std::move(gNew);
  return true;
}

long long globalSum(long long x, MPI_Comm comm) {
  long long y = 0;
  MPI_Allreduce(&x, &y, 1, MPI_LONG_LONG, MPI_SUM, comm);
  return y;
}

void logFusedHeader(std::ostream& log, GO_ n, long long nnz0, int P, bool hierarchical, const Options& opt) {
  log << "trident-mcl: n=" << n << " nnz=" << nnz0 << " P=" << P
      << " algorithm=fused (expansion and pruning in one pass, whole rows per rank"
      << (hierarchical ? "; rows fetched once per node over Gi, shared over Li" : "") << ") I=" << opt.inflation
      << " P(prune)=" << opt.prune_number << " S=" << opt.select_number << " R=" << opt.recover_number
      << " pct=" << opt.recover_pct * 100 << "; RSS " << currentRssMb() << " MB, peak so far " << peakRssMb()
      << " MB\n";
  log << " ite  nnz(in)     nnz(expand)  nnz(prune)   chaos     ph  t_exp   [fetch  mult]    t_prune  "
         "Gi_bytes      Li_bytes      maxrss_MB  flops (max/avg rank)\n";
}

void logFusedIteration(std::ostream& log, const IterationInfo& info) {
  log << std::setw(4) << info.iteration << "  " << std::setw(10) << info.nnz_before << "  " << std::setw(11)
      << info.nnz_expanded << "  " << std::setw(11) << info.nnz_pruned << "  " << std::setw(8) << std::fixed
      << std::setprecision(4) << info.chaos << "  " << std::setw(3) << info.phases << "  "
      << std::setprecision(3) << std::setw(6) << info.time_expand << " [" << std::setw(6) << info.time_fetch
      << " " << std::setw(6) << info.time_multiply << "]  " << std::setw(6) << info.time_prune << "  "
      << std::setw(12) << info.gi_bytes << "  " << std::setw(12) << info.li_bytes << "  " << std::setw(8)
      << std::setprecision(1) << info.peak_rss_mb << "  " << info.flops << " (" << std::setprecision(2)
      << info.flop_imbalance << ")\n"
      << std::defaultfloat << std::flush;
}

// Nothing un-pruned is stored; what a budget bounds here is B, the rows fetched for a phase
// (at most all of T: 12 bytes an entry plus B's row offsets).
int fusedPhases(const Options& opt, long long nnzBefore, GO_ n) {
  int phases = 1;
  if (opt.force_phases > 0) {
    phases = opt.force_phases;
  } else if (opt.memory_budget_mb > 0) {
    const double bytes = 12.0 * static_cast<double>(nnzBefore) + 8.0 * static_cast<double>(n + 1);
    phases = static_cast<int>(std::min(1e6, std::ceil(bytes / (opt.memory_budget_mb * 1024.0 * 1024.0))));
    phases = std::max(phases, 1);
  }
  return phases;
}

// Contiguous row slices with about equal numbers of entries of T.
template <class M>
std::vector<std::int64_t> sliceByEntries(const M& T, int phases, std::size_t nloc) {
  std::vector<std::int64_t> bounds(phases + 1, static_cast<std::int64_t>(nloc));
  bounds[0] = 0;
  for (int p = 1; p < phases; ++p) {
    const std::int64_t target = T.nnz() * p / phases;
    bounds[p] = std::upper_bound(T.rowptr.begin(), T.rowptr.end(), target) - T.rowptr.begin() - 1;
    bounds[p] = std::max(bounds[p], bounds[p - 1]);
  }
  return bounds;
}

// This rank's share of one fused expansion, reduced over ranks into its IterationInfo.
struct FusedTallies {
  double chaos = 0, tFetch = 0, tMult = 0, tPrune = 0;
  long long expanded = 0;
  ExchangeBytes bytes;
  PrunedSpGEMMCounts counts;
};

// The global ids of the rows of T that rows [begin, end) name, ascending; mark is all zero on
// entry and on return (kept between calls so finding them costs no allocation of n).
template <class M>
void neededRows(const M& T, std::int64_t begin, std::int64_t end, GO_ n, std::vector<char>& mark,
                std::vector<int>& needed) {
  needed.clear();
  for (std::int64_t q = T.rowptr[begin]; q < T.rowptr[end]; ++q) mark[T.col[q]] = 1;
  for (GO_ g = 0; g < n; ++g)
    if (mark[g]) {
      needed.push_back(static_cast<int>(g));
      mark[g] = 0;
    }
}

// Rows [begin, end) of prune(T * B), B's rows as fetched. Where B's columns fit in 16 bits (up to
// 65,536 nodes) the kernel reads them narrowed, 6 bytes of B a multiply-add instead of 8: one pass
// over B's entries that email-Enron's second iteration at P = 2 repays many times (its multiply
// 9.9-10.5 s against 10.7-11.6 s, alternating runs), and renumbered by how often B names them
// where most multiply-adds are in rows that sum in that numbering and the renumbering gathers
// B's entries into fewer lines of the accumulator (renumberingPays). The fetched
// rows' 32-bit columns are freed once copied; their values stay where they are.
template <class M, class V>
M multiplyPhase(const M& T, FetchedRows<V>& fetched, std::int64_t begin, std::int64_t end, const RowPruner& pruner,
                PrunedSpGEMMCounts* counts, std::int64_t keptPerRow) {
  if (fetched.refs.ncols > kMaxNarrowColumns)
    return prunedMultiply(T, fetched.refs, begin, end, pruner, counts, keptPerRow);
  std::int64_t flops = 0, heavy = 0;
  for (std::int64_t r = begin; r < end; ++r) {
    std::int64_t rowFlops = 0;
    for (std::int64_t p = T.rowptr[r]; p < T.rowptr[r + 1]; ++p)
      rowFlops += fetched.refs.row[static_cast<std::size_t>(T.col[p])].len;
    flops += rowFlops;
    if (rowFlops >= kRenumberedFrom * fetched.refs.ncols) heavy += rowFlops;
  }
  std::vector<std::int64_t> named;
  if (flops > 0 && 2 * heavy >= flops) named = columnCounts(fetched.refs);
  const bool renumber = !named.empty() && renumberingPays(named);
  const NarrowRowRefs<V> narrow = narrowColumns(fetched.refs, renumber ? &named : nullptr);
  std::vector<int>().swap(fetched.col);
  std::vector<int>().swap(fetched.nodeCol);
  return prunedMultiply(T, narrow.refs, begin, end, pruner, counts, keptPerRow);
}

// Expansion with pruning and inflation: the slices' pruned rows of T*T, one block per phase.
template <class M>
std::vector<M> expandAndPrune(const M& T, const RowExchange& ex, const std::vector<std::int64_t>& bounds,
                              const std::vector<GO_>& gids, GO_ n, const Options& opt, std::int64_t keptPerRow,
                              PruneScratch<RowCols, RowVals>& scratch, std::vector<char>& mark,
                              std::vector<int>& needed, FusedTallies& t) {
  const int phases = static_cast<int>(bounds.size()) - 1;
  std::vector<M> parts;
  const auto pruner = [&](std::int64_t r, RowCols& cols, RowVals& vals) {
    const double tp = now();
    // Rounded and zeros dropped inside the measuring pass, as the unfused path does before it.
    std::size_t nonzero = 0;
    const double chaos =
        detail::pruneColumnImpl<true>(cols, vals, static_cast<int>(gids[r]), opt, nullptr, scratch, &nonzero);
    t.expanded += static_cast<long long>(nonzero);
    t.chaos = std::max(t.chaos, chaos);
    inflate(vals, opt.inflation, opt.float_values);
    t.tPrune += now() - tp;
  };
  using V = typename decltype(T.val)::value_type;
  for (int p = 0; p < phases; ++p) {
    double ta = now();
    FetchedRows<V> fetched;
    if (ex.ownsAll()) {
      fetched.refs = rowRefs(T);
    } else {
      Teuchos::TimeMonitor fetchTimer(*phaseTimer("trident-mcl: fetch rows"));
      neededRows(T, bounds[p], bounds[p + 1], n, mark, needed);
      fetched = ex.fetch(T, needed, t.bytes);
    }
    const double tb = now();
    t.tFetch += tb - ta;
    const double pruneBefore = t.tPrune;
    {
      Teuchos::TimeMonitor multiplyTimer(*phaseTimer("trident-mcl: multiply and prune"));
      parts.push_back(multiplyPhase(T, fetched, bounds[p], bounds[p + 1], pruner, &t.counts, keptPerRow));
    }
    t.tMult += (now() - tb) - (t.tPrune - pruneBefore);
  }
  return parts;
}

// The phases' blocks as one block of nloc rows: stacked into exact-size arrays, each part freed
// once copied.
template <class M>
M stackParts(std::vector<M>& parts, const std::vector<std::int64_t>& bounds, std::size_t nloc, GO_ n) {
  if (parts.size() == 1) return std::move(parts[0]);
  std::int64_t total = 0;
  for (const M& part : parts) total += part.nnz();
  M next(static_cast<std::int64_t>(nloc), n);
  next.col.reserve(static_cast<std::size_t>(total));
  next.val.reserve(static_cast<std::size_t>(total));
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const std::int64_t base = static_cast<std::int64_t>(next.col.size());
    next.col.insert(next.col.end(), parts[p].col.begin(), parts[p].col.end());
    next.val.insert(next.val.end(), parts[p].val.begin(), parts[p].val.end());
    for (std::int64_t r = 0; r < parts[p].nrows; ++r) next.rowptr[bounds[p] + r + 1] = base + parts[p].rowptr[r + 1];
    parts[p] = M();
  }
  return next;
}

// Fills info with the iteration's measurements over all ranks. Collective.
void reduceFusedIteration(IterationInfo& info, const FusedTallies& t, long long nnzPruned, int P, MPI_Comm comm) {
  double loc[5] = {t.chaos, t.tFetch + t.tMult, t.tPrune, t.tFetch, t.tMult}, glob[5];
  MPI_Allreduce(loc, glob, 5, MPI_DOUBLE, MPI_MAX, comm);
  long long cnt[4] = {t.expanded, nnzPruned, static_cast<long long>(t.bytes.gi), static_cast<long long>(t.bytes.li)},
            cntg[4];
  MPI_Allreduce(cnt, cntg, 4, MPI_LONG_LONG, MPI_SUM, comm);
  double rss = peakRssMb();
  MPI_Allreduce(MPI_IN_PLACE, &rss, 1, MPI_DOUBLE, MPI_MAX, comm);
  info.chaos = glob[0];
  info.time_expand = glob[1];
  info.time_prune = glob[2];
  info.time_fetch = glob[3];
  info.time_multiply = glob[4];
  info.expand_phases.li_allgather = glob[3];
  info.expand_phases.local_multiply = glob[4];
  info.expand_phases.total = glob[1];
  info.nnz_expanded = cntg[0];
  info.flops = globalSum(static_cast<long long>(t.counts.flops), comm);
  {
    // The layout stays the one T0 came with: this says whether rebalancing would pay.
    double f = static_cast<double>(t.counts.flops), fmax = 0;
    MPI_Allreduce(&f, &fmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    info.flop_imbalance = info.flops > 0 ? fmax * P / static_cast<double>(info.flops) : 1.0;
  }
  info.nnz_pruned = cntg[1];
  info.gi_bytes = static_cast<std::uint64_t>(cntg[2]);
  info.li_bytes = static_cast<std::uint64_t>(cntg[3]);
  info.peak_rss_mb = rss;
}

void recordIteration(Result& res, const IterationInfo& info) {
  res.history.push_back(info);
  res.time_expand += info.time_expand;
  res.iterations = info.iteration;
}

// The iterations with expansion and pruning fused (Options::algorithm "fused"): T stays a plain
// CSR block of this rank's whole rows (global column ids) from the first iteration to the last;
// each iteration fetches the rows of T its rows' columns name (RowExchange) and runs
// prunedMultiply, whose row pruner is mcl's column pruning followed by inflation. Pruning sees
// every product row complete and in ascending column order, on whichever rank owns it, so the
// result does not depend on P. rows: T0 in, the limit out.
template <class M>
void runFused(LocalRows& rows, std::vector<GO_>& gids, Result& res, const Options& opt, MPI_Comm mpicomm,
              std::ostream* log) {
  const GO_ n = res.n;
  if (n > Csr::kMaxLocalIndex) throw std::invalid_argument("mcl: fused expansion needs n < 2^31 (32-bit columns)");
  int P = 1;
  MPI_Comm_size(mpicomm, &P);
  auto ex = std::make_unique<RowExchange>(gids, n, mpicomm, opt.ranks_per_group);
  std::size_t nloc = gids.size();
  M T(static_cast<std::int64_t>(nloc), n);
  for (std::size_t i = 0; i < nloc; ++i) T.rowptr[i + 1] = static_cast<std::int64_t>(rows.ptr[i + 1]);
  T.col.assign(rows.col.begin(), rows.col.end());
  T.val.assign(rows.val.begin(), rows.val.end());
  rows = LocalRows();  // released, not just emptied: T0 in 64-bit indices and doubles is twice T0 here
  const long long nnz0 = globalSum(T.nnz(), mpicomm);
  if (log) logFusedHeader(*log, n, nnz0, P, ex->hierarchical(), opt);

  PruneScratch<RowCols, RowVals> scratch;
  // What pruning keeps of a column: at most the selection number, or the recovery number where it
  // recovers (ties at a threshold can keep a few more; the kernel's reservation then just grows).
  // Without selection the threshold alone bounds nothing useful here.
  const std::int64_t keptPerRow =
      opt.select_number > 0 ? static_cast<std::int64_t>(std::max(opt.select_number, std::max(opt.recover_number, 0L))) + 1 : 0;
  std::vector<char> mark(static_cast<std::size_t>(n), 0);
  std::vector<int> needed;
  for (int it = 1; it <= opt.max_iter; ++it) {
    IterationInfo info;
    info.iteration = it;
    info.nnz_before = globalSum(T.nnz(), mpicomm);
    const int phases = fusedPhases(opt, info.nnz_before, n);
    info.phases = phases;
    if (P > 1 && rebalance(T, gids, n, mpicomm)) {
      ex = std::make_unique<RowExchange>(gids, n, mpicomm, opt.ranks_per_group);
      nloc = gids.size();
    }
    const std::vector<std::int64_t> bounds = sliceByEntries(T, phases, nloc);
    FusedTallies tallies;
    std::vector<M> parts = expandAndPrune(T, *ex, bounds, gids, n, opt, keptPerRow, scratch, mark, needed, tallies);
    T = stackParts(parts, bounds, nloc, n);
    reduceFusedIteration(info, tallies, static_cast<long long>(T.nnz()), P, mpicomm);
    recordIteration(res, info);
    if (log) logFusedIteration(*log, info);
    if (info.chaos < opt.chaos_limit) {
      res.converged = true;
      break;
    }
  }
  rows.ptr.assign(T.rowptr.begin(), T.rowptr.end());
  rows.col.assign(T.col.begin(), T.col.end());
  rows.val.assign(T.val.begin(), T.val.end());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
void applyScheme(Options& o, int scheme) {
  static const int dir[7][4] = {{3000, 400, 500, 90},   {4000, 500, 600, 90},   {5000, 600, 700, 90},
                                {6000, 700, 800, 90},   {7000, 800, 900, 90},   {10000, 1100, 1400, 90},
                                {10000, 1200, 1600, 90}};
  if (scheme < 1 || scheme > 7) throw std::invalid_argument("mcl: -scheme must be in 1..7");
  o.prune_number = dir[scheme - 1][0];
  o.select_number = dir[scheme - 1][1];
  o.recover_number = dir[scheme - 1][2];
  o.recover_pct = dir[scheme - 1][3] / 100.0;
}

namespace {
// Hands the heap's free pages back to the system: reading the input leaves megabytes of freed
// blocks between live ones, which stay resident under glibc and would sit under every iteration.
void releaseFreedHeap() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

void validateInput(const crs_matrix_type& A, const Options& opt) {
  if (!A.isFillComplete()) throw std::invalid_argument("mcl: the input matrix must be fill-complete");
  if (A.getGlobalNumRows() != A.getGlobalNumCols())
    throw std::invalid_argument("mcl: the input matrix must be square");
  if (!(opt.inflation > 0)) throw std::invalid_argument("mcl: inflation must be > 0");
  if (opt.algorithm != "fused" && opt.algorithm != "trident" && opt.algorithm != "summa" && opt.algorithm != "tpetra")
    throw std::invalid_argument("mcl: unknown algorithm '" + opt.algorithm + "' (fused|trident|summa|tpetra)");
}

// Column g of M0 from column g of A (idx/val, loops already dropped when discarding them):
// mclxAdjustLoops(mclxLoopCBmax) sets the loop to the column max (1 if none), -c scales it,
// then the column is normalized.
void adjustLoopsAndNormalize(GO_ g, std::vector<GO_>& idx, std::vector<double>& val, const Options& opt) {
  const bool flt = opt.float_values;
  if (opt.discard_loops) {
    double mx = 0;
    for (double v : val) mx = std::max(mx, v);
    idx.push_back(g);
    val.push_back(mx != 0 ? mx : 1.0);
  }
  if (opt.loop_scale >= 0)
    for (std::size_t k = 0; k < idx.size(); ++k)
      if (idx[k] == g) val[k] = store(val[k] * opt.loop_scale, flt);
  double sum = 0;
  for (double v : val) sum += v;
  if (sum != 0)
    for (double& v : val) v = store(v / sum, flt);
}

// T0 = M0^T: row i of T0 = column i of A (loops adjusted), normalized. R: T0's row map.
LocalRows formT0(const crs_matrix_type& A, const Options& opt, Teuchos::RCP<const map_type>& R) {
  LocalRows rows;
  Tpetra::RowMatrixTransposer<Scalar, LO, GO, Node> transposer(Teuchos::rcpFromRef(A));
  Teuchos::RCP<crs_matrix_type> At = transposer.createTranspose();
  R = At->getRowMap();
  const auto colMap = At->getColMap();
  const std::size_t nloc = Compat::localNumElements(*R);
  std::vector<GO_> idx;
  std::vector<double> val;
  for (std::size_t i = 0; i < nloc; ++i) {
    const GO_ g = R->getGlobalElement(static_cast<LO>(i));
    typename crs_matrix_type::local_inds_host_view_type inds;
    typename crs_matrix_type::values_host_view_type vals;
    At->getLocalRowView(static_cast<LO>(i), inds, vals);
    idx.clear();
    val.clear();
    for (std::size_t k = 0; k < inds.extent(0); ++k) {
      const GO_ c = colMap->getGlobalElement(inds(k));
      if (opt.discard_loops && c == g) continue;
      if (vals(k) == 0) continue;
      idx.push_back(c);
      val.push_back(store(vals(k), opt.float_values));
    }
    adjustLoopsAndNormalize(g, idx, val, opt);
    rows.col.insert(rows.col.end(), idx.begin(), idx.end());
    rows.val.insert(rows.val.end(), val.begin(), val.end());
    rows.ptr.push_back(rows.col.size());
  }
  return rows;
}

// The fused iterations from T0 (rows, with row map R, released here) to the limit, and the
// limit's DAG edges.
void clusterFused(LocalRows& rows, Teuchos::RCP<const map_type>& R, Result& res, const Options& opt,
                  MPI_Comm mpicomm, std::ostream* log, std::vector<GO_>& edges) {
  const std::size_t nloc = Compat::localNumElements(*R);
  std::vector<GO_> gids(nloc);
  for (std::size_t i = 0; i < nloc; ++i) gids[i] = R->getGlobalElement(static_cast<LO>(i));
  R = Teuchos::null;
  // Single precision is lossless here: every stored value is rounded to float already.
  if (opt.float_values)
    runFused<CsrFloat>(rows, gids, res, opt, mpicomm, log);
  else
    runFused<Csr>(rows, gids, res, opt, mpicomm, log);
  std::vector<GO_> idx;
  std::vector<double> val;
  for (std::size_t i = 0; i < gids.size(); ++i) {  // rows may have moved between ranks
    idx.assign(rows.col.begin() + rows.ptr[i], rows.col.begin() + rows.ptr[i + 1]);
    val.assign(rows.val.begin() + rows.ptr[i], rows.val.begin() + rows.ptr[i + 1]);
    dagEdges(gids[i], idx, val, opt.float_values, edges);
  }
}

// ---- the unfused iterations (Options::algorithm "trident" | "summa" | "tpetra") ----

void logTpetraHeader(std::ostream& log, long long n, long long nnz, int P, const Options& opt) {
  log << "trident-mcl: n=" << n << " nnz=" << nnz << " P=" << P << " algorithm=" << opt.algorithm
      << " I=" << opt.inflation << " P(prune)=" << opt.prune_number << " S=" << opt.select_number
      << " R=" << opt.recover_number << " pct=" << opt.recover_pct * 100 << "\n";
  log << " ite  nnz(in)     nnz(expand)  nnz(prune)   chaos     ph  t_exp   [red_in gi_wait li_ag  "
         "local  accum  red_out]  t_prune  Gi_bytes      Li_bytes\n";
}

void logTpetraIteration(std::ostream& log, const IterationInfo& info) {
  const PhaseTimes& pt = info.expand_phases;
  log << std::setw(4) << info.iteration << "  " << std::setw(10) << info.nnz_before << "  " << std::setw(11)
      << info.nnz_expanded << "  " << std::setw(11) << info.nnz_pruned << "  " << std::setw(8)
      << std::fixed << std::setprecision(4) << info.chaos << "  " << std::setw(3) << info.phases << "  "
      << std::setprecision(3) << std::setw(6) << info.time_expand << " [" << std::setw(6)
      << pt.redistribute_in << " " << std::setw(6) << pt.gi_wait << " " << std::setw(6) << pt.li_allgather
      << " " << std::setw(6) << pt.local_multiply << " " << std::setw(6) << pt.accumulate << " "
      << std::setw(6) << pt.redistribute_out << "]  " << std::setw(6) << info.time_prune << "  "
      << std::setw(12) << info.gi_bytes << "  " << std::setw(12) << info.li_bytes << "\n"
      << std::defaultfloat << std::flush;
}

// Multiply-adds of each local row of T*T, capped at n (a product row has at most n entries);
// returns their sum.
double estimateRowFlops(const crs_matrix_type& T, std::size_t nloc, long long n, std::vector<double>& rowFlops) {
  rowFlops.assign(nloc, 0.0);
  double localFlops = 0;
  // B = T: T's row lengths at T's columns.
  const auto rl = tpetra::rowLengthsAtColumns(T, T);
  const auto work = tpetra::multiplyAddsPerRow(T, rl.len, false);
  for (std::size_t i = 0; i < nloc; ++i) {
    rowFlops[i] = std::min(static_cast<double>(work[i]), static_cast<double>(n));
    localFlops += rowFlops[i];
  }
  return localFlops;
}

// The number of phases from a flops-based upper bound on the product size. Collective when a
// memory budget is set.
int tpetraPhases(const Options& opt, double localFlops, MPI_Comm comm) {
  int phases = 1;
  if (opt.force_phases > 0) {
    phases = opt.force_phases;
  } else if (opt.memory_budget_mb > 0) {
    // Upper bound on the un-pruned product: sum over rows of min(flops, n) entries, about 24
    // bytes each while the multiply builds it (value, index, workspace).
    const double bytes = localFlops * 24.0;
    const double budget = opt.memory_budget_mb * 1024.0 * 1024.0;
    int mine = static_cast<int>(std::min(1e6, std::ceil(bytes / budget)));
    MPI_Allreduce(&mine, &phases, 1, MPI_INT, MPI_MAX, comm);
    phases = std::max(phases, 1);
  }
  return phases;
}

// Slice boundaries: contiguous local rows with about equal flops.
std::vector<std::size_t> sliceByFlops(const std::vector<double>& rowFlops, double localFlops, int phases,
                                      std::size_t nloc) {
  std::vector<std::size_t> bounds(phases + 1, nloc);
  bounds[0] = 0;
  double acc = 0;
  int p = 1;
  for (std::size_t i = 0; i < nloc && p < phases; ++i) {
    acc += rowFlops[i];
    while (p < phases && acc >= localFlops * p / phases) bounds[p++] = i + 1;
  }
  for (int q = 1; q <= phases; ++q) bounds[q] = std::max(bounds[q], bounds[q - 1]);
  return bounds;
}

// A_p: T restricted to local rows [begin, end), the other rows empty, on T's maps.
Teuchos::RCP<const crs_matrix_type> sliceRows(const crs_matrix_type& T, const Teuchos::RCP<const map_type>& R,
                                              std::size_t begin, std::size_t end) {
  const std::size_t nloc = Compat::localNumElements(*R);
  Teuchos::ArrayRCP<std::size_t> rp(nloc + 1, 0);
  std::vector<LO> ci;
  std::vector<double> cv;
  for (std::size_t i = 0; i < nloc; ++i) {
    if (i >= begin && i < end) {
      typename crs_matrix_type::local_inds_host_view_type inds;
      typename crs_matrix_type::values_host_view_type vals;
      T.getLocalRowView(static_cast<LO>(i), inds, vals);
      for (std::size_t k = 0; k < inds.extent(0); ++k) {
        ci.push_back(inds(k));
        cv.push_back(vals(k));
      }
    }
    rp[i + 1] = ci.size();
  }
  Teuchos::ArrayRCP<LO> aci(ci.size());
  Teuchos::ArrayRCP<double> acv(cv.size());
  std::copy(ci.begin(), ci.end(), aci.begin());
  std::copy(cv.begin(), cv.end(), acv.begin());
  auto M = Teuchos::rcp(new crs_matrix_type(R, T.getColMap(), rp, aci, acv));
  M->expertStaticFillComplete(T.getDomainMap(), T.getRangeMap(), T.getGraph()->getImporter(),
                              T.getGraph()->getExporter());
  return M;
}

// This rank's share of one unfused iteration, reduced over ranks into its IterationInfo.
struct TpetraTallies {
  double chaos = 0, tExpand = 0, tPrune = 0;
  long long expanded = 0;
};

// Expansion of one slice: C = A_p * T, the only un-pruned product alive (A_p is released as soon
// as it is used). Adds the multiply's phase times and bytes, reduced over ranks, to info.
Teuchos::RCP<crs_matrix_type> expandSlice(Teuchos::RCP<const crs_matrix_type>& Ap, const crs_matrix_type& T,
                                          const Teuchos::RCP<const map_type>& R, const Options& opt,
                                          MPI_Comm mpicomm, IterationInfo& info, TpetraTallies& t) {
  auto C = Teuchos::rcp(new crs_matrix_type(R, 0));
  MPI_Barrier(mpicomm);
  double ta = now();
  multiply(*Ap, T, *C, opt);
  t.tExpand += now() - ta;
  Ap = Teuchos::null;
  const MultiplyStats& s = lastMultiplyStats();
  ReducedStats rs = reduceStats(s, mpicomm);
  info.expand_phases += rs.max.times;
  info.gi_bytes += rs.total.gi_bytes_recv;
  info.li_bytes += rs.total.li_bytes_recv;
  return C;
}

// Prunes and inflates the slice's columns (local rows [begin, end) of C) onto next; releases C.
void pruneSlice(Teuchos::RCP<crs_matrix_type>& C, const map_type& R, std::size_t begin, std::size_t end,
                const Options& opt, LocalRows& next, std::vector<GO_>& idx, std::vector<double>& val,
                TpetraTallies& t) {
  const bool flt = opt.float_values;
  double tb = now();
  const auto cmap = C->getColMap();
  for (std::size_t i = begin; i < end; ++i) {
    typename crs_matrix_type::local_inds_host_view_type inds;
    typename crs_matrix_type::values_host_view_type vals;
    C->getLocalRowView(static_cast<LO>(i), inds, vals);
    idx.clear();
    val.clear();
    for (std::size_t k = 0; k < inds.extent(0); ++k) {
      const double v = store(vals(k), flt);
      if (v == 0) continue;
      idx.push_back(cmap->getGlobalElement(inds(k)));
      val.push_back(v);
    }
    t.expanded += static_cast<long long>(idx.size());
    const GO_ g = R.getGlobalElement(static_cast<LO>(i));
    t.chaos = std::max(t.chaos, detail::pruneColumn(idx, val, g, opt));
    inflate(val, opt.inflation, flt);
    next.col.insert(next.col.end(), idx.begin(), idx.end());
    next.val.insert(next.val.end(), val.begin(), val.end());
    next.ptr.push_back(next.col.size());
  }
  C = Teuchos::null;
  t.tPrune += now() - tb;
}

// Fills info with the iteration's measurements over all ranks. Collective.
void reduceTpetraIteration(IterationInfo& info, const TpetraTallies& t, const crs_matrix_type& T, MPI_Comm comm) {
  double loc[3] = {t.chaos, t.tExpand, t.tPrune}, glob[3];
  MPI_Allreduce(loc, glob, 3, MPI_DOUBLE, MPI_MAX, comm);
  long long e = t.expanded, eg = 0;
  MPI_Allreduce(&e, &eg, 1, MPI_LONG_LONG, MPI_SUM, comm);
  info.chaos = glob[0];
  info.time_expand = glob[1];
  info.time_prune = glob[2];
  info.nnz_expanded = eg;
  info.nnz_pruned = static_cast<long long>(T.getGlobalNumEntries());
}

// One unfused iteration: expansion and pruning slice by slice, then T rebuilt from the pruned rows.
void tpetraIteration(Teuchos::RCP<crs_matrix_type>& T, const Teuchos::RCP<const map_type>& R, long long n,
                     const Options& opt, MPI_Comm mpicomm, IterationInfo& info, LocalRows& next,
                     std::vector<GO_>& idx, std::vector<double>& val) {
  const std::size_t nloc = Compat::localNumElements(*R);
  info.nnz_before = static_cast<long long>(T->getGlobalNumEntries());
  std::vector<double> rowFlops;
  const double localFlops = estimateRowFlops(*T, nloc, n, rowFlops);
  const int phases = tpetraPhases(opt, localFlops, mpicomm);
  info.phases = phases;
  const std::vector<std::size_t> bounds = sliceByFlops(rowFlops, localFlops, phases, nloc);

  next.clear();
  TpetraTallies t;
  for (int p = 0; p < phases; ++p) {
    // A_p: T restricted to the slice's rows (all of T when there is one phase).
    Teuchos::RCP<const crs_matrix_type> Ap = T;
    if (phases > 1) Ap = sliceRows(*T, R, bounds[p], bounds[p + 1]);
    Teuchos::RCP<crs_matrix_type> C = expandSlice(Ap, *T, R, opt, mpicomm, info, t);
    pruneSlice(C, *R, bounds[p], bounds[p + 1], opt, next, idx, val, t);
  }
  // Rows outside every slice cannot exist (bounds cover [0, nloc)); rebuild T.
  double tb = now();
  T = Teuchos::null;
  T = buildMatrix(R, next);
  t.tPrune += now() - tb;
  reduceTpetraIteration(info, t, *T, mpicomm);
}

// mclDag's edges of the limit T (local rows), appended to edges.
void tpetraDagEdges(const crs_matrix_type& T, const map_type& R, bool flt, std::vector<GO_>& idx,
                    std::vector<double>& val, std::vector<GO_>& edges) {
  const std::size_t nloc = Compat::localNumElements(R);
  const auto cmap = T.getColMap();
  for (std::size_t i = 0; i < nloc; ++i) {
    typename crs_matrix_type::local_inds_host_view_type inds;
    typename crs_matrix_type::values_host_view_type vals;
    T.getLocalRowView(static_cast<LO>(i), inds, vals);
    idx.clear();
    val.clear();
    for (std::size_t k = 0; k < inds.extent(0); ++k) {
      idx.push_back(cmap->getGlobalElement(inds(k)));
      val.push_back(vals(k));
    }
    dagEdges(R.getGlobalElement(static_cast<LO>(i)), idx, val, flt, edges);
  }
}

// The unfused iterations from T0 (rows, with row map R) to the limit, and the limit's DAG edges.
void clusterTpetra(LocalRows& rows, const Teuchos::RCP<const map_type>& R, Result& res, const Options& opt,
                   MPI_Comm mpicomm, int P, std::ostream* log, std::vector<GO_>& edges) {
  Teuchos::RCP<crs_matrix_type> T = buildMatrix(R, rows);
  rows.clear();
  if (log) logTpetraHeader(*log, res.n, static_cast<long long>(T->getGlobalNumEntries()), P, opt);
  std::vector<GO_> idx;
  std::vector<double> val;
  LocalRows next;
  for (int it = 1; it <= opt.max_iter; ++it) {
    IterationInfo info;
    info.iteration = it;
    tpetraIteration(T, R, res.n, opt, mpicomm, info, next, idx, val);
    recordIteration(res, info);
    if (log) logTpetraIteration(*log, info);
    if (info.chaos < opt.chaos_limit) {
      res.converged = true;
      break;
    }
  }
  // ---- interpretation: the DAG of the limit (mclDag), gathered on rank 0 ----
  tpetraDagEdges(*T, *R, opt.float_values, idx, val, edges);
  T = Teuchos::null;
}

// ---- interpretation of the limit ----

// Gathers the DAG's edges on rank 0 and interprets them there. Returns the clusters flattened as
// [noverlap, nmissing, ncl, size_0, members..., size_1, ...] on rank 0, empty elsewhere.
std::vector<GO_> interpretOnRoot(const std::vector<GO_>& edges, GO_ n, int rank, MPI_Comm mpicomm) {
  // 64-bit counts: the gathered edge list outgrows int on large graphs.
  const std::vector<std::int64_t> counts =
      bigcount::gatherCounts(static_cast<std::int64_t>(edges.size()), 0, mpicomm);
  std::vector<GO_> all;
  if (rank == 0) all.resize(static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), std::int64_t{0})));
  bigcount::gatherv(edges.data(), static_cast<std::int64_t>(edges.size()), all.data(), counts, MPI_LONG_LONG, 0,
                    mpicomm);
  std::vector<GO_> flat;
  if (rank == 0) {
    std::vector<GO_> src(all.size() / 2), dst(all.size() / 2);
    for (std::size_t e = 0; e < src.size(); ++e) {
      src[e] = all[2 * e];
      dst[e] = all[2 * e + 1];
    }
    all.clear();
    Interpretation ip = interpret(n, src, dst);
    flat.push_back(ip.overlap);
    flat.push_back(ip.missing);
    flat.push_back(static_cast<GO_>(ip.clusters.size()));
    for (const auto& c : ip.clusters) {
      flat.push_back(static_cast<GO_>(c.size()));
      flat.insert(flat.end(), c.begin(), c.end());
    }
  }
  return flat;
}

// Broadcasts rank 0's flattened clusters (interpretOnRoot) and unpacks them into res.
void broadcastClusters(std::vector<GO_>& flat, Result& res, MPI_Comm mpicomm) {
  long long flen = static_cast<long long>(flat.size());
  MPI_Bcast(&flen, 1, MPI_LONG_LONG, 0, mpicomm);
  flat.resize(flen);
  bigcount::bcast(flat.data(), static_cast<std::size_t>(flen), MPI_LONG_LONG, 0, mpicomm);
  res.overlap = flat[0];
  res.missing = flat[1];
  std::size_t pos = 3;
  res.clusters.resize(flat[2]);
  for (auto& c : res.clusters) {
    GO_ sz = flat[pos++];
    c.assign(flat.begin() + pos, flat.begin() + pos + sz);
    pos += sz;
  }
}

void logSummary(std::ostream& log, const Result& res) {
  log << "trident-mcl: " << res.clusters.size() << " clusters, " << res.iterations << " iterations"
      << (res.converged ? "" : " (not converged)") << ", expansion " << res.time_expand << " s, total "
      << res.time_total << " s, peak RSS " << std::fixed << std::setprecision(1) << res.peak_rss_mb
      << std::defaultfloat << " MB per rank (max)";
  if (res.overlap) log << ", " << res.overlap << " nodes in overlap (cut)";
  if (res.missing) log << ", " << res.missing << " unclustered nodes (one cluster)";
  log << "\n";
}

// owned: the caller's reference to A, released as soon as T0 is formed (A must not be used after).
Result clusterImpl(const crs_matrix_type& A, Teuchos::RCP<const crs_matrix_type>* owned, const Options& opt) {
  const double t0 = now();
  const comm_ptr comm = A.getComm();
  const MPI_Comm mpicomm = rawComm(comm);
  const int rank = comm->getRank();
  std::ostream* log = rank == 0 ? opt.progress : nullptr;
  validateInput(A, opt);

  Result res;
  res.n = static_cast<long long>(A.getGlobalNumRows());
  Teuchos::RCP<const map_type> R;
  LocalRows rows = formT0(A, opt, R);
  if (owned) {
    *owned = Teuchos::null;
    releaseFreedHeap();
  }
  std::vector<GO_> edges;  // the limit's DAG, pairs (src, dst)
  if (opt.algorithm == "fused")
    clusterFused(rows, R, res, opt, mpicomm, log, edges);
  else
    clusterTpetra(rows, R, res, opt, mpicomm, comm->getSize(), log, edges);

  std::vector<GO_> flat = interpretOnRoot(edges, res.n, rank, mpicomm);
  broadcastClusters(flat, res, mpicomm);
  res.time_total = now() - t0;
  res.peak_rss_mb = peakRssMb();
  MPI_Allreduce(MPI_IN_PLACE, &res.peak_rss_mb, 1, MPI_DOUBLE, MPI_MAX, mpicomm);
  double tt = res.time_total;
  MPI_Allreduce(&tt, &res.time_total, 1, MPI_DOUBLE, MPI_MAX, mpicomm);
  if (log) logSummary(*log, res);
  return res;
}
}  // namespace

Result cluster(const crs_matrix_type& A, const Options& opt) { return clusterImpl(A, nullptr, opt); }

Result cluster(Teuchos::RCP<const crs_matrix_type>&& A, const Options& opt) {
  if (A.is_null()) throw std::invalid_argument("mcl: the input matrix is null");
  const crs_matrix_type& input = *A;
  return clusterImpl(input, &A, opt);
}

// ---------------------------------------------------------------------------------------------
void canonicalize(std::vector<std::vector<long long>>& clusters) {
  for (auto& c : clusters) std::sort(c.begin(), c.end());
  std::sort(clusters.begin(), clusters.end(), [](const std::vector<long long>& a, const std::vector<long long>& b) {
    if (a.size() != b.size()) return a.size() > b.size();
    return a < b;
  });
}

void writeClusters(std::ostream& os, const std::vector<std::vector<long long>>& clusters, long long base) {
  for (const auto& c : clusters) {
    for (std::size_t k = 0; k < c.size(); ++k) {
      if (k) os << '\t';
      os << c[k] + base;
    }
    os << '\n';
  }
}

std::vector<std::vector<long long>> readClusters(std::istream& is, long long base) {
  std::vector<std::vector<long long>> out;
  std::string line;
  while (std::getline(is, line)) {
    std::istringstream ls(line);
    std::vector<long long> c;
    long long x;
    while (ls >> x) c.push_back(x - base);
    if (!c.empty()) out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::vector<long long>> readMclNativeClusters(std::istream& is) {
  std::vector<std::vector<long long>> out;
  std::string tok;
  bool inMatrix = false, inBody = false;
  std::vector<long long> cur;
  bool haveCol = false;
  while (is >> tok) {
    if (!inMatrix) {
      if (tok == "(mclmatrix") inMatrix = true;
      continue;
    }
    if (!inBody) {
      if (tok == "begin") inBody = true;
      continue;
    }
    if (tok == ")") break;
    if (tok == "$") {
      out.push_back(cur);
      cur.clear();
      haveCol = false;
      continue;
    }
    const auto colon = tok.find(':');
    const long long v = std::stoll(colon == std::string::npos ? tok : tok.substr(0, colon));
    if (!haveCol) {
      haveCol = true;  // the column (cluster) id
    } else {
      cur.push_back(v);
    }
  }
  return out;
}

double adjustedRandIndex(const std::vector<std::vector<long long>>& a, const std::vector<std::vector<long long>>& b,
                         long long n) {
  auto labels = [n](const std::vector<std::vector<long long>>& cl) {
    std::vector<long long> lab(n, -1);
    long long next = 0;
    for (const auto& c : cl) {
      for (long long x : c)
        if (x >= 0 && x < n && lab[x] < 0) lab[x] = next;
      ++next;
    }
    for (auto& l : lab)
      if (l < 0) l = next++;
    return lab;
  };
  const auto la = labels(a), lb = labels(b);
  auto c2 = [](double x) { return x * (x - 1) / 2; };
  std::map<std::pair<long long, long long>, long long> nij;
  std::map<long long, long long> ai, bj;
  for (long long x = 0; x < n; ++x) {
    nij[{la[x], lb[x]}]++;
    ai[la[x]]++;
    bj[lb[x]]++;
  }
  double sij = 0, sa = 0, sb = 0;
  for (const auto& kv : nij) sij += c2(static_cast<double>(kv.second));
  for (const auto& kv : ai) sa += c2(static_cast<double>(kv.second));
  for (const auto& kv : bj) sb += c2(static_cast<double>(kv.second));
  const double total = c2(static_cast<double>(n));
  if (total == 0) return 1.0;
  const double expected = sa * sb / total;
  const double maxIndex = 0.5 * (sa + sb);
  if (maxIndex == expected) return 1.0;  // both trivial and identical partitions
  return (sij - expected) / (maxIndex - expected);
}

void writeMclNative(const std::string& path, const crs_matrix_type& A) {
  const comm_ptr comm = A.getComm();
  const MPI_Comm mpicomm = rawComm(comm);
  const int rank = comm->getRank();
  std::vector<long long> trip;  // (row, col) pairs
  std::vector<double> vals;
  const auto rmap = A.getRowMap();
  const auto cmap = A.getColMap();
  for (std::size_t i = 0; i < Compat::localNumRows(A); ++i) {
    typename crs_matrix_type::local_inds_host_view_type inds;
    typename crs_matrix_type::values_host_view_type v;
    A.getLocalRowView(static_cast<LO>(i), inds, v);
    for (std::size_t k = 0; k < inds.extent(0); ++k) {
      trip.push_back(rmap->getGlobalElement(static_cast<LO>(i)));
      trip.push_back(cmap->getGlobalElement(inds(k)));
      vals.push_back(v(k));
    }
  }
  const std::int64_t mine = static_cast<std::int64_t>(vals.size());
  const std::vector<std::int64_t> counts = bigcount::gatherCounts(mine, 0, mpicomm);
  std::vector<std::int64_t> counts2(counts.size());
  for (std::size_t q = 0; q < counts.size(); ++q) counts2[q] = 2 * counts[q];
  std::vector<long long> allT;
  std::vector<double> allV;
  if (rank == 0) {
    allV.resize(static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), std::int64_t{0})));
    allT.resize(2 * allV.size());
  }
  bigcount::gatherv(trip.data(), 2 * mine, allT.data(), counts2, MPI_LONG_LONG, 0, mpicomm);
  bigcount::gatherv(vals.data(), mine, allV.data(), counts, MPI_DOUBLE, 0, mpicomm);
  int ok = 1;
  if (rank == 0) {
    std::vector<std::vector<std::pair<long long, double>>> cols(A.getGlobalNumCols());
    for (std::size_t e = 0; e < allV.size(); ++e) cols[allT[2 * e + 1]].emplace_back(allT[2 * e], allV[e]);
    std::ofstream os(path);
    os << "(mclheader\nmcltype matrix\ndimensions " << A.getGlobalNumRows() << "x" << A.getGlobalNumCols()
       << "\n)\n(mclmatrix\nbegin\n";
    os << std::setprecision(17);
    for (std::size_t j = 0; j < cols.size(); ++j) {
      if (cols[j].empty()) continue;
      std::sort(cols[j].begin(), cols[j].end());
      os << j;
      for (const auto& e : cols[j]) os << ' ' << e.first << ':' << e.second;
      os << " $\n";
    }
    os << ")\n";
    ok = os.good() ? 1 : 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, mpicomm);
  if (!ok) throw std::runtime_error("mcl: cannot write " + path);
}

}  // namespace mcl
}  // namespace Trident
