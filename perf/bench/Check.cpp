// --check: every algorithm's C against Tpetra's, entry by entry.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <utility>

#include <mpi.h>
#include <Tpetra_Import.hpp>
#include <TpetraExt_MatrixMatrix.hpp>

#include "Bench.hpp"

namespace TridentBench {

using Teuchos::RCP;
using Teuchos::rcp;
using Trident::crs_matrix_type;
using Trident::GO;
using Trident::LO;

namespace {

// Row lr of M as (global column, value), sorted by column.
void sortedRowEntries(const crs_matrix_type& M, LO lr, std::vector<std::pair<GO, double>>& out) {
  typename crs_matrix_type::local_inds_host_view_type inds;
  typename crs_matrix_type::values_host_view_type vals;
  M.getLocalRowView(lr, inds, vals);
  out.clear();
  auto cm = M.getColMap();
  for (size_t k = 0; k < inds.extent(0); ++k) out.emplace_back(cm->getGlobalElement(inds(k)), vals(k));
  std::sort(out.begin(), out.end());
}

// C with Ref's row map (C itself when it already has it).
RCP<const crs_matrix_type> onReferenceRows(const crs_matrix_type& Ref, const crs_matrix_type& C) {
  RCP<const crs_matrix_type> Cv = Teuchos::rcpFromRef(C);
  if (!C.getRowMap()->isSameAs(*Ref.getRowMap())) {
    Tpetra::Import<LO, GO, Trident::Node> imp(C.getRowMap(), Ref.getRowMap());
    Cv = Tpetra::importAndFillCompleteCrsMatrix<crs_matrix_type>(Teuchos::rcpFromRef(C), imp, Ref.getDomainMap(),
                                                                 Ref.getRangeMap());
  }
  return Cv;
}

// One row: the reference's entries a, C's b, the scale's sc. Describes the first difference
// in `first` when it is the rank's first bad row (bad == 0).
bool rowDiffers(GO g, const std::vector<std::pair<GO, double>>& a, const std::vector<std::pair<GO, double>>& b,
                const std::vector<std::pair<GO, double>>& sc, long long bad, std::ostringstream& first) {
  const bool haveScale = sc.size() == a.size();
  bool rowBad = a.size() != b.size();
  for (size_t k = 0; !rowBad && k < a.size(); ++k) {
    const double x = a[k].second, y = b[k].second;
    const double mag = haveScale && sc[k].first == a[k].first ? std::abs(sc[k].second)
                                                              : std::max(std::abs(x), std::abs(y));
    const double tol = 1e-12 * mag;
    if (a[k].first != b[k].first || !(std::abs(x - y) <= tol)) {
      rowBad = true;
      if (bad == 0)
        first << "row " << g << ", entry " << k << ": (" << b[k].first << ", " << std::setprecision(17) << y
              << ") vs tpetra's (" << a[k].first << ", " << x << ")";
    }
  }
  if (rowBad && bad == 0 && first.str().empty())
    first << "row " << g << ": " << b.size() << " entries vs tpetra's " << a.size();
  return rowBad;
}

// |A| with A's structure (for --check's scale).
RCP<crs_matrix_type> absOf(const crs_matrix_type& A) {
  auto M = rcp(new crs_matrix_type(A, Teuchos::Copy));
  M->resumeFill();
  std::vector<double> v;
  for (size_t lr = 0; lr < Trident::Compat::localNumRows(*M); ++lr) {
    typename crs_matrix_type::local_inds_host_view_type inds;
    typename crs_matrix_type::values_host_view_type vals;
    A.getLocalRowView(static_cast<LO>(lr), inds, vals);
    v.resize(inds.extent(0));
    std::vector<LO> ix(inds.extent(0));
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = std::abs(vals(k));
      ix[k] = inds(k);
    }
    M->replaceLocalValues(static_cast<LO>(lr), Teuchos::ArrayView<const LO>(ix), Teuchos::ArrayView<const double>(v));
  }
  M->fillComplete(A.getDomainMap(), A.getRangeMap());
  return M;
}

}  // namespace

// C must have the structure of Ref (same global column indices in every row) and the same values
// to 1e-12 relative, relative to the magnitude of the terms summed: |c - ref| <= 1e-12 * (|A||B|)_ij
// (Scale = the same product of the absolute values, computed by Tpetra), so that entries that
// cancel (zero row sums of stiffness matrices) are judged by the rounding their summation order
// can cause.
long long compareWithReference(const crs_matrix_type& Ref, const crs_matrix_type& Scale, const crs_matrix_type& C,
                               const std::string& algo) {
  RCP<const crs_matrix_type> Cv = onReferenceRows(Ref, C);
  long long bad = 0;
  std::ostringstream first;
  const int rank = Ref.getComm()->getRank();
  if (C.getGlobalNumRows() != Ref.getGlobalNumRows() || C.getGlobalNumCols() != Ref.getGlobalNumCols()) {
    bad = 1;
    first << "dimensions " << C.getGlobalNumRows() << "x" << C.getGlobalNumCols() << " vs tpetra's "
          << Ref.getGlobalNumRows() << "x" << Ref.getGlobalNumCols();
  }
  auto rowMap = Ref.getRowMap();
  std::vector<std::pair<GO, double>> a, b, sc;
  for (size_t lr = 0; lr < Trident::Compat::localNumElements(*rowMap); ++lr) {
    const GO g = rowMap->getGlobalElement(static_cast<LO>(lr));
    sortedRowEntries(Ref, static_cast<LO>(lr), a);
    sortedRowEntries(*Cv, Cv->getRowMap()->getLocalElement(g), b);
    sortedRowEntries(Scale, Scale.getRowMap()->getLocalElement(g), sc);
    if (rowDiffers(g, a, b, sc, bad, first)) ++bad;
  }
  if (bad > 0) {  // one write per rank, so that ranks' lines do not interleave
    std::ostringstream msg;
    msg << "trident-bench: --check: " << algo << " differs from tpetra on rank " << rank << " in " << bad
        << " rows; first: " << first.str() << "\n";
    std::cerr << msg.str() << std::flush;
  }
  long long total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

RCP<crs_matrix_type> absProduct(const Problem& pb, const std::string& op) {
  auto Aabs = absOf(*pb.A);
  auto C = rcp(new crs_matrix_type(Aabs->getRowMap(), 0));
  if (op == "AA") {
    Tpetra::MatrixMatrix::Multiply(*Aabs, false, *Aabs, false, *C);
    return C;
  }
  Tpetra::MatrixMatrix::Multiply(*Aabs, false, *pb.T.P, false, *C);
  if (op == "AR") return C;
  auto RAP = rcp(new crs_matrix_type(pb.T.R->getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(*pb.T.R, false, *C, false, *RAP);
  return RAP;
}

}  // namespace TridentBench
