#pragma once
// Shared helpers for the MPI tests: a pass/fail tally that every rank agrees on, gathering a
// distributed matrix to rank 0, the serial reference product, and exact comparisons.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <Tpetra_Import.hpp>

#include "Trident_TpetraTypes.hpp"
#include <trident/core/Errors.hpp>
#include <trident/local/LocalSpGEMM.hpp>

namespace TridentTest {

using Trident::crs_matrix_type;
using Trident::GO;
using Trident::LO;

inline MPI_Comm world() { return MPI_COMM_WORLD; }
inline int rank() { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }
inline int size() { int r; MPI_Comm_size(MPI_COMM_WORLD, &r); return r; }

// Whether every rank holds the same text (an error's message, auto's reason): its hash's minimum
// and maximum over the ranks agree.
inline bool sameOnAllRanks(const std::string& s, MPI_Comm comm = MPI_COMM_WORLD) {
  unsigned long long h = std::hash<std::string>{}(s), lo = 0, hi = 0;
  MPI_Allreduce(&h, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(&h, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  return lo == hi;
}

// Every check is collective: a case passes only if it passes on every rank.
class Tally {
 public:
  bool check(bool ok_local, const std::string& what, const std::string& detail = "") {
    int ok = ok_local ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (ok) ++passed_; else ++failed_;
    if (!ok_local && !detail.empty()) std::cerr << "[rank " << rank() << "] " << what << ": " << detail << std::endl;
    if (rank() == 0 && (!ok || verbose_)) std::cout << (ok ? "PASS " : "FAIL ") << what << std::endl;
    return ok;
  }
  int finish() const {
    if (rank() == 0) std::cout << passed_ << " passed, " << failed_ << " failed" << std::endl;
    return failed_ == 0 ? 0 : 1;
  }
  void verbose(bool v) { verbose_ = v; }

 private:
  int passed_ = 0, failed_ = 0;
  bool verbose_ = true;
};

// Runs f; the check passes when every rank threw Trident::InvalidInput whose text contains `needle`.
template <class F>
void expectInvalidInput(Tally& tally, const std::string& what, const std::string& needle, F f) {
  bool ok = false;
  std::string msg = "did not throw";
  try {
    f();
  } catch (const Trident::InvalidInput& e) {
    msg = e.what();
    ok = msg.find(needle) != std::string::npos;
  } catch (const std::exception& e) {
    msg = std::string("wrong exception type: ") + e.what();
  }
  tally.check(ok, "bad input: " + what, msg);
}

struct Entries {
  std::vector<GO> row, col;
  std::vector<double> val;
};

// All entries of a fill-complete matrix, by global indices, sorted, on rank 0 (empty elsewhere).
inline Entries gather(const crs_matrix_type& M) {
  Entries mine;
  auto rowMap = M.getRowMap();
  auto colMap = M.getColMap();
  auto local = M.getLocalMatrixHost();
  for (LO r = 0; r < static_cast<LO>(Trident::Compat::localNumRows(M)); ++r)
    for (size_t q = local.graph.row_map(r); q < local.graph.row_map(r + 1); ++q) {
      mine.row.push_back(rowMap->getGlobalElement(r));
      mine.col.push_back(colMap->getGlobalElement(local.graph.entries(q)));
      mine.val.push_back(local.values(q));
    }
  int n = static_cast<int>(mine.row.size()), P = size();
  std::vector<int> counts(P), displ(P, 0);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, world());
  for (int p = 1; p < P; ++p) displ[p] = displ[p - 1] + counts[p - 1];
  Entries all;
  const int total = rank() == 0 ? displ[P - 1] + counts[P - 1] : 0;
  all.row.resize(total);
  all.col.resize(total);
  all.val.resize(total);
  MPI_Gatherv(mine.row.data(), n, MPI_LONG_LONG, all.row.data(), counts.data(), displ.data(), MPI_LONG_LONG, 0, world());
  MPI_Gatherv(mine.col.data(), n, MPI_LONG_LONG, all.col.data(), counts.data(), displ.data(), MPI_LONG_LONG, 0, world());
  MPI_Gatherv(mine.val.data(), n, MPI_DOUBLE, all.val.data(), counts.data(), displ.data(), MPI_DOUBLE, 0, world());
  std::vector<size_t> idx(total);
  for (int t = 0; t < total; ++t) idx[t] = t;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    return all.row[a] != all.row[b] ? all.row[a] < all.row[b] : all.col[a] < all.col[b];
  });
  Entries sorted;
  for (size_t t : idx) {
    sorted.row.push_back(all.row[t]);
    sorted.col.push_back(all.col[t]);
    sorted.val.push_back(all.val[t]);
  }
  return sorted;
}

// The same entries, values bit for bit (signed zeros told apart). Rank 0 decides; result broadcast.
inline bool identicalEntries(const Entries& a, const Entries& b, std::string& why) {
  int ok = 1;
  if (rank() == 0) {
    ok = a.row == b.row && a.col == b.col && a.val.size() == b.val.size() &&
         std::memcmp(a.val.data(), b.val.data(), a.val.size() * sizeof(double)) == 0;
    if (!ok) {
      why = "nnz " + std::to_string(a.val.size()) + " vs " + std::to_string(b.val.size());
      for (size_t t = 0; t < std::min(a.val.size(), b.val.size()); ++t)
        if (a.row[t] != b.row[t] || a.col[t] != b.col[t] || std::memcmp(&a.val[t], &b.val[t], sizeof(double)) != 0) {
          why += ", first difference at entry " + std::to_string(t);
          break;
        }
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, world());
  return ok == 1;
}

// Structure identical and values equal to 1e-12 relative (entries that nearly cancel are
// compared against the largest magnitude in the matrix). Rank 0 decides; result broadcast.
inline bool sameMatrix(const Entries& a, const Entries& b, std::string& why) {
  int ok = 1;
  std::string msg;
  if (rank() == 0) {
    if (a.row.size() != b.row.size()) {
      ok = 0;
      msg = "nnz " + std::to_string(a.row.size()) + " vs " + std::to_string(b.row.size());
    } else {
      double scale = 0;
      for (double v : a.val) scale = std::max(scale, std::abs(v));
      for (size_t t = 0; t < a.row.size() && ok; ++t) {
        if (a.row[t] != b.row[t] || a.col[t] != b.col[t]) {
          ok = 0;
          msg = "structure differs at entry " + std::to_string(t) + ": (" + std::to_string(a.row[t]) + "," +
                std::to_string(a.col[t]) + ") vs (" + std::to_string(b.row[t]) + "," + std::to_string(b.col[t]) + ")";
        } else {
          const double d = std::abs(a.val[t] - b.val[t]);
          if (d > 1e-12 * std::max(std::abs(a.val[t]), std::abs(b.val[t])) && d > 1e-14 * scale) {
            ok = 0;
            std::ostringstream os;
            os.precision(17);
            os << "value differs at (" << a.row[t] << "," << a.col[t] << "): " << a.val[t] << " vs " << b.val[t];
            msg = os.str();
          }
        }
      }
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, world());
  why = msg;
  return ok == 1;
}

// C's Import (its graph's importer) moves the same entries as the one Tpetra builds itself from
// C's domain and column maps: the same remote local indices and, per sending rank, the same
// exported local indices in the same order (the order is what matches the receiver's). Collective.
inline bool importAsTpetras(const crs_matrix_type& C, std::string& why) {
  using import_type = Tpetra::Import<LO, GO, crs_matrix_type::node_type>;
  auto mine = C.getGraph()->getImporter();
  auto colMap = C.getColMap();
  auto domainMap = C.getDomainMap();
  int ok = 1;
  std::string msg;
  // Tpetra builds none when the two maps are the same; one that moves nothing is as good.
  const bool needs = !colMap->isSameAs(*domainMap);  // collective: on every rank
  if (mine.is_null() && needs) {
    ok = 0;
    msg = "no Import, but the column map differs from the domain map";
  } else if (!mine.is_null()) {
    import_type theirs(domainMap, colMap);
    auto perPid = [](const import_type& im) {
      std::map<int, std::vector<LO>> m;
      auto lids = im.getExportLIDs();
      auto pids = im.getExportPIDs();
      for (decltype(lids.size()) t = 0; t < lids.size(); ++t) m[pids[t]].push_back(lids[t]);
      return m;
    };
    auto r1 = mine->getRemoteLIDs(), r2 = theirs.getRemoteLIDs();
    if (mine->getNumSameIDs() != theirs.getNumSameIDs() || mine->getNumPermuteIDs() != theirs.getNumPermuteIDs() ||
        std::vector<LO>(r1.begin(), r1.end()) != std::vector<LO>(r2.begin(), r2.end())) {
      ok = 0;
      msg = "same, permuted or remote indices differ on rank " + std::to_string(rank());
    } else if (perPid(*mine) != perPid(theirs)) {
      ok = 0;
      msg = "exports differ on rank " + std::to_string(rank());
    }
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, world());
  if (!ok) std::cerr << "importAsTpetras: " << msg << std::endl;
  why = all ? "" : "C's Import differs from Tpetra's (see stderr)";
  return all == 1;
}

// Serial reference product (plain Gustavson) of gathered operands, by global indices; on rank 0.
// Like Tpetra, A's explicitly stored zeros contribute nothing (B's do).
inline Entries referenceProduct(const Entries& A, bool tA, const Entries& B, bool tB) {
  Entries out;
  if (rank() != 0) return out;
  auto toCsr = [](const Entries& E, bool t, std::map<GO, int>& rows, std::map<GO, int>& cols) {
    for (size_t q = 0; q < E.row.size(); ++q) {
      rows.emplace(t ? E.col[q] : E.row[q], 0);
      cols.emplace(t ? E.row[q] : E.col[q], 0);
    }
  };
  // Index every global index that appears, densely, in sorted order.
  std::map<GO, int> ar, ac, br, bc;
  toCsr(A, tA, ar, ac);
  toCsr(B, tB, br, bc);
  std::map<GO, int> inner;
  for (auto& p : ac) inner.emplace(p.first, 0);
  for (auto& p : br) inner.emplace(p.first, 0);
  auto number = [](std::map<GO, int>& m) { int i = 0; for (auto& p : m) p.second = i++; };
  number(ar);
  number(inner);
  number(bc);
  std::vector<GO> rowGid(ar.size()), colGid(bc.size());
  for (auto& p : ar) rowGid[p.second] = p.first;
  for (auto& p : bc) colGid[p.second] = p.first;
  const Entries& Aop = A;
  auto build = [&Aop](const Entries& E, bool t, std::map<GO, int>& rmap, std::map<GO, int>& cmap) {
    std::vector<std::int64_t> r;
    std::vector<int> c;
    std::vector<double> v;
    for (size_t q = 0; q < E.row.size(); ++q) {
      if (&E == &Aop && E.val[q] == 0.0) continue;
      r.push_back(rmap[t ? E.col[q] : E.row[q]]);
      c.push_back(cmap[t ? E.row[q] : E.col[q]]);
      v.push_back(E.val[q]);
    }
    return Trident::csrFromTriplets(static_cast<std::int64_t>(rmap.size()), static_cast<std::int64_t>(cmap.size()), r, c, v);
  };
  Trident::Csr a = build(A, tA, ar, inner), b = build(B, tB, inner, bc);
  Trident::Csr c = Trident::referenceMultiply(a, b);
  for (std::int64_t r = 0; r < c.nrows; ++r)
    for (std::int64_t q = c.rowptr[r]; q < c.rowptr[r + 1]; ++q) {
      out.row.push_back(rowGid[r]);
      out.col.push_back(colGid[c.col[q]]);
      out.val.push_back(c.val[q]);
    }
  return out;  // rows ascending, columns ascending within rows (GID order == dense order)
}

// TRIDENT_MATRIX_DIR from the environment (ctest sets it), else the folder CMake chose.
inline std::string matrixDir() {
  const char* d = std::getenv("TRIDENT_MATRIX_DIR");
  return d && *d ? d : TRIDENT_TEST_MATRIX_DIR;  // defined by trident_add_test_exe
}

inline std::vector<int> divisors(int P) {
  std::vector<int> d;
  for (int x = 1; x <= P; ++x)
    if (P % x == 0) d.push_back(x);
  return d;
}

}  // namespace TridentTest
