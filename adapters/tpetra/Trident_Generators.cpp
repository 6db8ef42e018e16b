// Deterministic generators: every random choice is a counter-based hash (splitmix64) of the seed,
// a purpose tag and global indices, so the global matrix does not depend on the number of ranks.
#include "Trident_UniformRows.hpp"
#include "Trident_Generators.hpp"

#include "Trident_MatrixMarket.hpp"

#include <mpi.h>

#include <Teuchos_DefaultMpiComm.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "Trident_TpetraComm.hpp"

namespace Trident {
namespace gen {
namespace {

// ---- hashing ---------------------------------------------------------------------------------

inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline std::uint64_t hash4(std::uint64_t seed, std::uint64_t tag, std::uint64_t a, std::uint64_t b) {
  return mix64(mix64(mix64(mix64(seed) ^ tag) ^ a) ^ b);
}
// [0, 1)
inline double unit(std::uint64_t h) { return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0); }
// [0, n)
inline std::uint64_t bounded(std::uint64_t h, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(h) * n) >> 64);
}

// Purpose tags.
enum : std::uint64_t {
  kRmatLevel = 0x101,
  kRmatPerm = 0x102,
  kErCount = 0x201,
  kErCol = 0x202,
  kErVal = 0x203,
  kRndEmptyRow = 0x301,
  kRndEmptyCol = 0x302,
  kRndSkew = 0x303,
  kRndCount = 0x304,
  kRndCol = 0x305,
  kRndVal = 0x306,
  kRndZero = 0x307,
  kHyperRow = 0x401,
  kHyperCol = 0x402,
  kHyperVal = 0x403,
};

// Poisson(lambda) from the hash stream (seed, tag, g, 0..): Knuth for small lambda, normal above.
long long poisson(double lambda, std::uint64_t seed, std::uint64_t tag, std::uint64_t g) {
  if (!(lambda > 0)) return 0;
  if (lambda < 30) {
    const double L = std::exp(-lambda);
    double p = 1.0;
    long long k = 0;
    do {
      p *= unit(hash4(seed, tag, g, static_cast<std::uint64_t>(k)));
      ++k;
    } while (p > L && k < 1000);
    return k - 1;
  }
  const double u1 = 1.0 - unit(hash4(seed, tag, g, 0)), u2 = unit(hash4(seed, tag, g, 1));
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  return std::max(0LL, std::llround(lambda + std::sqrt(lambda) * z));
}

// ---- communication ----------------------------------------------------------------------------

using tpetra::rawComm;

using Uniform = detail::UniformRows;

Teuchos::RCP<const map_type> uniformMap(long long n, const comm_ptr& comm) {
  return Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(n), GO(0), comm));
}

// Rows of a map as CSR (local row order), columns sorted and unique.
struct Csr {
  std::vector<size_t> counts;
  std::vector<GO> cols;
  std::vector<double> vals;
};

Teuchos::RCP<crs_matrix_type> build(const Teuchos::RCP<const map_type>& rowMap, const Csr& c,
                                    const Teuchos::RCP<const map_type>& domainMap,
                                    const Teuchos::RCP<const map_type>& rangeMap) {
  auto A = Teuchos::rcp(new crs_matrix_type(rowMap, Teuchos::ArrayView<const size_t>(c.counts.data(), c.counts.size())));
  size_t off = 0;
  for (size_t lr = 0; lr < c.counts.size(); ++lr) {
    const size_t n = c.counts[lr];
    if (n > 0)
      A->insertGlobalValues(rowMap->getGlobalElement(static_cast<LO>(lr)), static_cast<LO>(n), c.vals.data() + off,
                            c.cols.data() + off);
    off += n;
  }
  A->fillComplete(domainMap, rangeMap);
  return A;
}

// Appends a row (unsorted (col, val) pairs, duplicates with equal values) to c, sorted and unique.
void appendRow(Csr& c, std::vector<std::pair<GO, double>>& row) {
  std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t n = 0;
  for (size_t t = 0; t < row.size(); ++t) {
    if (t > 0 && row[t].first == row[t - 1].first) continue;
    c.cols.push_back(row[t].first);
    c.vals.push_back(row[t].second);
    ++n;
  }
  c.counts.push_back(n);
}

// Bijective scramble of scale-bit vertex ids (Graph500-style relabeling).
inline std::uint64_t scramble(std::uint64_t x, int scale, std::uint64_t k1, std::uint64_t k2) {
  if (scale <= 0) return 0;
  const std::uint64_t mask = (scale >= 64) ? ~0ULL : ((1ULL << scale) - 1);
  const int sh = std::max(1, scale / 2);
  x = (x * (k1 | 1ULL)) & mask;
  x ^= x >> sh;
  x = (x * (k2 | 1ULL) + k1) & mask;
  x ^= x >> sh;
  x = (x * 0x9e3779b97f4a7c15ULL) & mask;
  x ^= x >> sh;
  return x;
}

long long parseLLStrict(const std::string& s, const std::string& spec) {
  long long v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
    throw std::invalid_argument("Trident::gen::fromSpec: bad number '" + s + "' in spec '" + spec + "'");
  return v;
}
double parseDoubleStrict(const std::string& s, const std::string& spec) {
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v))
    throw std::invalid_argument("Trident::gen::fromSpec: bad number '" + s + "' in spec '" + spec + "'");
  return v;
}

}  // namespace

// ---- R-MAT ------------------------------------------------------------------------------------

namespace {

// What fixes an R-MAT graph: its size, the seed of every choice and the relabeling's keys.
struct RmatStream {
  int scale;
  std::uint64_t seed, k1, k2;
};

// Edge e's endpoints: one quadrant choice per level of the recursion (Graph500's a, b, c), then
// relabeled so that the high-degree vertices do not cluster at the low ids.
inline std::pair<GO, GO> rmatEdge(long long e, const RmatStream& s) {
  const double a = 0.57, b = 0.19, c = 0.19;
  std::uint64_t u = 0, v = 0;
  for (int l = 0; l < s.scale; ++l) {
    const double x = unit(hash4(s.seed, kRmatLevel, static_cast<std::uint64_t>(e), static_cast<std::uint64_t>(l)));
    const std::uint64_t ubit = (x >= a + b) ? 1 : 0;
    const std::uint64_t vbit = (x >= a && x < a + b) || (x >= a + b + c) ? 1 : 0;
    u = (u << 1) | ubit;
    v = (v << 1) | vbit;
  }
  return {static_cast<GO>(scramble(u, s.scale, s.k1, s.k2)), static_cast<GO>(scramble(v, s.scale, s.k1, s.k2))};
}

// Edges [b0, b1) as (row, col) pairs in both directions (the matrix is symmetric), each filed
// under the rank that owns its row; self loops are dropped.
void generateRmatBatch(long long b0, long long b1, const RmatStream& s, const Uniform& rowsDist,
                       std::vector<std::vector<GO>>& out) {
  for (auto& v : out) v.clear();
  for (long long e = b0; e < b1; ++e) {
    const auto [gu, gv] = rmatEdge(e, s);
    if (gu == gv) continue;
    auto& o1 = out[static_cast<size_t>(rowsDist.owner(gu))];
    o1.push_back(gu);
    o1.push_back(gv);
    auto& o2 = out[static_cast<size_t>(rowsDist.owner(gv))];
    o2.push_back(gv);
    o2.push_back(gu);
  }
}

// Sends every rank the pairs filed for it and appends the pairs this rank receives to `mine`.
void exchangeRmatPairs(const std::vector<std::vector<GO>>& out, std::vector<GO>& mine, MPI_Comm mc) {
  const int P = static_cast<int>(out.size());
  if (P == 1) {
    mine.insert(mine.end(), out[0].begin(), out[0].end());
    return;
  }
  std::vector<int> scount(P), rcount(P), sdisp(P), rdisp(P);
  std::vector<GO> sbuf;
  for (int p = 0; p < P; ++p) {
    scount[p] = static_cast<int>(out[p].size());
    sdisp[p] = static_cast<int>(sbuf.size());
    sbuf.insert(sbuf.end(), out[p].begin(), out[p].end());
  }
  MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, mc);
  long long total = 0;
  for (int p = 0; p < P; ++p) {
    rdisp[p] = static_cast<int>(total);
    total += rcount[p];
  }
  const size_t old = mine.size();
  mine.resize(old + static_cast<size_t>(total));
  MPI_Alltoallv(sbuf.data(), scount.data(), sdisp.data(), MPI_LONG_LONG, mine.data() + old, rcount.data(),
                rdisp.data(), MPI_LONG_LONG, mc);
}

// The rows [start, start + nloc) from their (row, col) pairs, which are freed on the way: a
// counting sort by local row, then sort + unique within rows; every value is 1.
Csr rmatRows(std::vector<GO>& mine, long long start, long long nloc) {
  const size_t npairs = mine.size() / 2;
  std::vector<size_t> ptr(static_cast<size_t>(nloc) + 1, 0);
  for (size_t t = 0; t < npairs; ++t) ++ptr[static_cast<size_t>(mine[2 * t] - start) + 1];
  for (long long r = 0; r < nloc; ++r) ptr[r + 1] += ptr[r];
  std::vector<GO> colsByRow(npairs);
  {
    std::vector<size_t> pos(ptr.begin(), ptr.end() - 1);
    for (size_t t = 0; t < npairs; ++t) colsByRow[pos[static_cast<size_t>(mine[2 * t] - start)]++] = mine[2 * t + 1];
  }
  std::vector<GO>().swap(mine);
  Csr csr;
  csr.counts.reserve(static_cast<size_t>(nloc));
  for (long long r = 0; r < nloc; ++r) {
    auto first = colsByRow.begin() + ptr[r], last = colsByRow.begin() + ptr[r + 1];
    std::sort(first, last);
    last = std::unique(first, last);
    csr.cols.insert(csr.cols.end(), first, last);
    csr.counts.push_back(static_cast<size_t>(last - first));
  }
  csr.vals.assign(csr.cols.size(), 1.0);
  return csr;
}

}  // namespace

Teuchos::RCP<crs_matrix_type> rmat(int scale, int edgefactor, const comm_ptr& comm, std::uint64_t seed) {
  if (scale < 0 || scale > 40 || edgefactor < 0)
    throw std::invalid_argument("Trident::gen::rmat: need 0 <= scale <= 40 and edgefactor >= 0");
  const int rank = comm->getRank(), P = comm->getSize();
  const MPI_Comm mc = rawComm(*comm);
  const long long N = 1LL << scale;
  const long long M = static_cast<long long>(edgefactor) * N;
  const RmatStream stream{scale, seed, hash4(seed, kRmatPerm, 1, 0), hash4(seed, kRmatPerm, 2, 0)};
  const Uniform rowsDist(N, P), edgeDist(M, P);
  const long long e0 = edgeDist.start(rank), e1 = e0 + edgeDist.count(rank);
  // Edges are made and sent in batches, so that no rank holds all of its outgoing pairs at once;
  // every rank takes part in as many exchanges as rank 0, which has the most edges.
  const long long batch = 1LL << 22;
  const long long rounds = (edgeDist.count(0) + batch - 1) / batch;

  std::vector<GO> mine;  // (row, col) pairs this rank owns
  std::vector<std::vector<GO>> out(static_cast<size_t>(P));
  for (long long rd = 0; rd < std::max(rounds, 1LL); ++rd) {
    const long long b0 = std::min(e1, e0 + rd * batch), b1 = std::min(e1, b0 + batch);
    generateRmatBatch(b0, b1, stream, rowsDist, out);
    exchangeRmatPairs(out, mine, mc);
  }
  out.clear();

  Csr csr = rmatRows(mine, rowsDist.start(rank), rowsDist.count(rank));
  auto map = uniformMap(N, comm);
  return build(map, csr, map, map);
}

// ---- Erdos-Renyi ------------------------------------------------------------------------------

Teuchos::RCP<crs_matrix_type> erdosRenyi(long long n, double avgdeg, const comm_ptr& comm, std::uint64_t seed) {
  if (n < 0 || !(avgdeg >= 0)) throw std::invalid_argument("Trident::gen::erdosRenyi: need n >= 0 and avgdeg >= 0");
  auto map = uniformMap(n, comm);
  Csr csr;
  std::vector<std::pair<GO, double>> row;
  const size_t nloc = Compat::localNumElements(*map);
  for (size_t lr = 0; lr < nloc; ++lr) {
    const GO g = map->getGlobalElement(static_cast<LO>(lr));
    const long long k = std::min<long long>(n, poisson(avgdeg, seed, kErCount, static_cast<std::uint64_t>(g)));
    row.clear();
    for (long long j = 0; j < k; ++j) {
      const GO col = static_cast<GO>(
          bounded(hash4(seed, kErCol, static_cast<std::uint64_t>(g), static_cast<std::uint64_t>(j)),
                  static_cast<std::uint64_t>(n)));
      const double v = 1.0 - unit(hash4(seed, kErVal, static_cast<std::uint64_t>(g), static_cast<std::uint64_t>(col)));
      row.emplace_back(col, v);
    }
    appendRow(csr, row);
  }
  return build(map, csr, map, map);
}

// ---- 2D Laplacian -----------------------------------------------------------------------------

Teuchos::RCP<crs_matrix_type> laplace2d(long long n, const comm_ptr& comm) {
  if (n < 0 || n > 3037000499LL) throw std::invalid_argument("Trident::gen::laplace2d: bad grid size");
  auto map = uniformMap(n * n, comm);
  Csr csr;
  const size_t nloc = Compat::localNumElements(*map);
  csr.counts.reserve(nloc);
  for (size_t lr = 0; lr < nloc; ++lr) {
    const GO g = map->getGlobalElement(static_cast<LO>(lr));
    const long long i = g / n, j = g % n;
    size_t cnt = 0;
    auto add = [&](GO c, double v) {
      csr.cols.push_back(c);
      csr.vals.push_back(v);
      ++cnt;
    };
    if (i > 0) add(g - n, -1.0);
    if (j > 0) add(g - 1, -1.0);
    add(g, 4.0);
    if (j + 1 < n) add(g + 1, -1.0);
    if (i + 1 < n) add(g + n, -1.0);
    csr.counts.push_back(cnt);
  }
  return build(map, csr, map, map);
}

// ---- 3D meshes ---------------------------------------------------------------------------------
// What FE and finite-volume codes multiply: short rows, a bounded number of neighbours, locality
// along the row numbering. The 27-point stencil is the pattern of trilinear hexahedra; the
// tetrahedral dual graph (one row per cell, one entry per face neighbour) has 4 entries a row.

Teuchos::RCP<crs_matrix_type> stencil3d(long long n, int points, const comm_ptr& comm) {
  if (n < 1 || n > 2000000 || (points != 7 && points != 27))
    throw std::invalid_argument("Trident::gen::stencil3d: need 1 <= n <= 2000000 and 7 or 27 points");
  auto map = uniformMap(n * n * n, comm);
  Csr csr;
  const size_t nloc = Compat::localNumElements(*map);
  csr.counts.reserve(nloc);
  for (size_t lr = 0; lr < nloc; ++lr) {
    const GO g = map->getGlobalElement(static_cast<LO>(lr));
    const long long x = g / (n * n), y = g / n % n, z = g % n;
    size_t cnt = 0;
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const int offAxis = (dx != 0) + (dy != 0) + (dz != 0);
          if ((points == 7 && offAxis > 1) || x + dx < 0 || x + dx >= n || y + dy < 0 || y + dy >= n || z + dz < 0 ||
              z + dz >= n)
            continue;
          csr.cols.push_back(g + (dx * n + dy) * n + dz);  // ascending: dx, then dy, then dz
          csr.vals.push_back(offAxis == 0 ? points - 1.0 : -1.0);
          ++cnt;
        }
    csr.counts.push_back(cnt);
  }
  return build(map, csr, map, map);
}

namespace {
// Kuhn's triangulation: cube c splits into 6 tetrahedra, one per order (a, b, c) of the axes; the
// tetrahedron of order pi has vertices c, c + e_pi0, c + e_pi0 + e_pi1, c + (1, 1, 1). Its four
// faces: swapping pi0 and pi1 or pi1 and pi2 gives the two neighbours in the same cube; the face
// without c + (1, 1, 1) is shared with cube c - e_pi2's tetrahedron (pi2, pi0, pi1), the face
// without c with cube c + e_pi0's tetrahedron (pi1, pi2, pi0).
constexpr int kOrders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
int orderIndex(int a, int b, int c) {
  for (int t = 0; t < 6; ++t)
    if (kOrders[t][0] == a && kOrders[t][1] == b && kOrders[t][2] == c) return t;
  return -1;
}

void tetNeighbours(long long n, GO tet, std::vector<std::pair<GO, double>>& row) {
  const long long cube = tet / 6;
  const int* pi = kOrders[tet % 6];
  long long at[3] = {cube / (n * n), cube / n % n, cube % n};
  const long long stride[3] = {n * n, n, 1};
  row.clear();
  row.emplace_back(cube * 6 + orderIndex(pi[1], pi[0], pi[2]), 1.0);
  row.emplace_back(cube * 6 + orderIndex(pi[0], pi[2], pi[1]), 1.0);
  if (at[pi[2]] > 0) row.emplace_back((cube - stride[pi[2]]) * 6 + orderIndex(pi[2], pi[0], pi[1]), 1.0);
  if (at[pi[0]] + 1 < n) row.emplace_back((cube + stride[pi[0]]) * 6 + orderIndex(pi[1], pi[2], pi[0]), 1.0);
}
}  // namespace

Teuchos::RCP<crs_matrix_type> tetMeshDual(long long n, const comm_ptr& comm) {
  if (n < 1 || n > 1000000) throw std::invalid_argument("Trident::gen::tetMeshDual: need 1 <= n <= 1000000");
  auto map = uniformMap(6 * n * n * n, comm);
  Csr csr;
  const size_t nloc = Compat::localNumElements(*map);
  csr.counts.reserve(nloc);
  std::vector<std::pair<GO, double>> row;
  for (size_t lr = 0; lr < nloc; ++lr) {
    tetNeighbours(n, map->getGlobalElement(static_cast<LO>(lr)), row);
    appendRow(csr, row);
  }
  return build(map, csr, map, map);
}

// ---- hypersparse ------------------------------------------------------------------------------

Teuchos::RCP<crs_matrix_type> hypersparse(long long n, long long nnz_per_rank, const comm_ptr& comm,
                                          std::uint64_t seed) {
  const long long per_row = 4;
  const long long rows = std::max(1LL, nnz_per_rank / per_row);
  const int P = comm->getSize(), me = comm->getRank();
  if (n < 1 || nnz_per_rank < 1 || n / P < rows)
    throw std::invalid_argument("Trident::gen::hypersparse: need n >= 1, nnz per rank >= 1 and n >= P * (nnz per rank / 4), got n = " +
                                std::to_string(n) + ", nnz per rank = " + std::to_string(nnz_per_rank) +
                                ", P = " + std::to_string(P));
  const long long total = rows * P, stride = n / total;
  // Global row rho (0 <= rho < total) sits at a random place of its own stretch of [0, n).
  auto gidOf = [&](long long rho) {
    return static_cast<GO>(rho * stride + static_cast<long long>(bounded(hash4(seed, kHyperRow, static_cast<std::uint64_t>(rho), 0),
                                                                         static_cast<std::uint64_t>(stride))));
  };
  std::vector<GO> mine(static_cast<size_t>(rows));
  for (long long t = 0; t < rows; ++t) mine[t] = gidOf(me * rows + t);
  auto rowMap = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(total),
                                          Teuchos::ArrayView<const GO>(mine.data(), mine.size()), GO(0), comm));
  auto map = uniformMap(n, comm);
  Csr csr;
  std::vector<std::pair<GO, double>> row;
  for (long long t = 0; t < rows; ++t) {
    const std::uint64_t rho = static_cast<std::uint64_t>(me * rows + t);
    row.clear();
    for (long long j = 0; j < per_row; ++j) {
      const GO col = gidOf(static_cast<long long>(
          bounded(hash4(seed, kHyperCol, rho, static_cast<std::uint64_t>(j)), static_cast<std::uint64_t>(total))));
      row.emplace_back(col, 1.0 - unit(hash4(seed, kHyperVal, rho, static_cast<std::uint64_t>(col))));
    }
    appendRow(csr, row);
  }
  return build(rowMap, csr, map, map);
}

// ---- random test matrices ---------------------------------------------------------------------

Teuchos::RCP<crs_matrix_type> random(long long m, long long n, const RandomOptions& opt, const comm_ptr& comm) {
  if (m < 0 || n < 0) throw std::invalid_argument("Trident::gen::random: negative size");
  auto rowMap = uniformMap(m, comm);
  auto domainMap = (m == n) ? rowMap : uniformMap(n, comm);
  return random(rowMap, domainMap, rowMap, opt);
}

Teuchos::RCP<crs_matrix_type> random(const Teuchos::RCP<const map_type>& rowMap,
                                     const Teuchos::RCP<const map_type>& domainMap,
                                     const Teuchos::RCP<const map_type>& rangeMap, const RandomOptions& opt) {
  auto comm = rowMap->getComm();
  const MPI_Comm mc = rawComm(*comm);
  const int P = comm->getSize();
  const std::uint64_t seed = opt.seed;

  // The domain's global index set, in increasing order: an interval, or the gathered GID list.
  const long long nd = static_cast<long long>(domainMap->getGlobalNumElements());
  const GO dmin = domainMap->getMinAllGlobalIndex(), dmax = domainMap->getMaxAllGlobalIndex();
  const bool interval = nd == 0 || (dmax - dmin + 1 == nd);
  std::vector<GO> dgids;
  if (!interval) {
    auto mine = Compat::localElementList(*domainMap);
    int cnt = static_cast<int>(mine.size());
    std::vector<int> counts(P), disp(P);
    if (P > 1) MPI_Allgather(&cnt, 1, MPI_INT, counts.data(), 1, MPI_INT, mc);
    else counts[0] = cnt;
    long long total = 0;
    for (int p = 0; p < P; ++p) {
      disp[p] = static_cast<int>(total);
      total += counts[p];
    }
    dgids.resize(static_cast<size_t>(total));
    if (P > 1)
      MPI_Allgatherv(mine.getRawPtr(), cnt, MPI_LONG_LONG, dgids.data(), counts.data(), disp.data(), MPI_LONG_LONG, mc);
    else
      std::copy(mine.begin(), mine.end(), dgids.begin());
    std::sort(dgids.begin(), dgids.end());
    dgids.erase(std::unique(dgids.begin(), dgids.end()), dgids.end());
  }
  const long long ncol = interval ? nd : static_cast<long long>(dgids.size());
  auto colGid = [&](long long k) -> GO { return interval ? dmin + k : dgids[static_cast<size_t>(k)]; };
  auto colEmpty = [&](long long k) {
    return opt.empty_col_fraction > 0 &&
           unit(hash4(seed, kRndEmptyCol, static_cast<std::uint64_t>(colGid(k)), 0)) < opt.empty_col_fraction;
  };

  const long long m = static_cast<long long>(rowMap->getGlobalNumElements());
  const GO rmin = rowMap->getMinAllGlobalIndex();
  const double skewProb = m > 0 ? std::min(1.0, 3.0 / static_cast<double>(m)) : 0.0;

  Csr csr;
  std::vector<std::pair<GO, double>> row;
  const size_t nloc = Compat::localNumElements(*rowMap);
  for (size_t lr = 0; lr < nloc; ++lr) {
    const GO g = rowMap->getGlobalElement(static_cast<LO>(lr));
    const std::uint64_t ug = static_cast<std::uint64_t>(g);
    row.clear();
    const bool skewed = opt.skew > 0 && (g == rmin || unit(hash4(seed, kRndSkew, ug, 0)) < skewProb);
    const bool empty = !skewed && opt.empty_row_fraction > 0 &&
                       unit(hash4(seed, kRndEmptyRow, ug, 0)) < opt.empty_row_fraction;
    if (!empty && ncol > 0) {
      long long k = skewed ? static_cast<long long>(std::ceil(opt.skew * static_cast<double>(ncol)))
                           : poisson(opt.avg_per_row, seed, kRndCount, ug);
      k = std::min(k, ncol);
      for (long long j = 0; j < k; ++j) {
        // Draw a column position; redraw (bounded) while it falls on an empty column.
        long long pos = -1;
        for (std::uint64_t attempt = 0; attempt < 64; ++attempt) {
          const long long cand = static_cast<long long>(bounded(
              hash4(seed, kRndCol, ug, (static_cast<std::uint64_t>(j) << 6) | attempt), static_cast<std::uint64_t>(ncol)));
          if (!colEmpty(cand)) {
            pos = cand;
            break;
          }
        }
        if (pos < 0) continue;
        const GO col = colGid(pos);
        const std::uint64_t uc = static_cast<std::uint64_t>(col);
        double v = 1.0 - unit(hash4(seed, kRndVal, ug, uc));
        if (opt.explicit_zeros && unit(hash4(seed, kRndZero, ug, uc)) < 0.15) v = 0.0;
        row.emplace_back(col, v);
      }
    }
    appendRow(csr, row);
  }
  return build(rowMap, csr, domainMap, rangeMap);
}

// ---- specs ------------------------------------------------------------------------------------

Teuchos::RCP<crs_matrix_type> fromSpec(const std::string& spec, const comm_ptr& comm, std::uint64_t seed) {
  if (spec.size() > 4 && spec.compare(spec.size() - 4, 4, ".mtx") == 0) return io::readMatrixMarket(spec, comm);
  std::vector<std::string> parts;
  size_t b = 0;
  for (;;) {
    const size_t e = spec.find(':', b);
    parts.push_back(spec.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  const std::string usage =
      "' (expected rmat:SCALE:EDGEFACTOR, er:N:AVGDEG, lap2d:N, lap3d:N, stencil27:N, tetdual:N, "
      "hyper:LOG2N:NNZPERRANK or a .mtx path)";
  if (parts[0] == "rmat" && parts.size() == 3) {
    const long long s = parseLLStrict(parts[1], spec), ef = parseLLStrict(parts[2], spec);
    if (s < 1 || s > 40 || ef < 1 || ef > 1000000)
      throw std::invalid_argument("Trident::gen::fromSpec: out-of-range rmat parameters in '" + spec + usage);
    return rmat(static_cast<int>(s), static_cast<int>(ef), comm, seed);
  }
  if (parts[0] == "er" && parts.size() == 3) {
    const long long n = parseLLStrict(parts[1], spec);
    const double d = parseDoubleStrict(parts[2], spec);
    if (n < 1 || d < 0)
      throw std::invalid_argument("Trident::gen::fromSpec: out-of-range er parameters in '" + spec + usage);
    return erdosRenyi(n, d, comm, seed);
  }
  if (parts[0] == "lap2d" && parts.size() == 2) {
    const long long n = parseLLStrict(parts[1], spec);
    if (n < 1 || n > 3037000499LL)
      throw std::invalid_argument("Trident::gen::fromSpec: out-of-range lap2d size in '" + spec + usage);
    return laplace2d(n, comm);
  }
  if ((parts[0] == "lap3d" || parts[0] == "stencil27" || parts[0] == "tetdual") && parts.size() == 2) {
    const long long n = parseLLStrict(parts[1], spec);
    if (n < 1 || n > (parts[0] == "tetdual" ? 1000000 : 2000000))
      throw std::invalid_argument("Trident::gen::fromSpec: out-of-range " + parts[0] + " size in '" + spec + usage);
    if (parts[0] == "tetdual") return tetMeshDual(n, comm);
    return stencil3d(n, parts[0] == "lap3d" ? 7 : 27, comm);
  }
  if (parts[0] == "hyper" && parts.size() == 3) {
    const long long l = parseLLStrict(parts[1], spec), z = parseLLStrict(parts[2], spec);
    if (l < 1 || l > 62 || z < 1)
      throw std::invalid_argument("Trident::gen::fromSpec: out-of-range hyper parameters in '" + spec + usage);
    return hypersparse(1LL << l, z, comm, seed);
  }
  throw std::invalid_argument("Trident::gen::fromSpec: bad spec '" + spec + usage);
}

}  // namespace gen
}  // namespace Trident
