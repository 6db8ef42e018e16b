// The one-rank product: views of Tpetra's arrays in, C's final arrays out.
#include "Trident_OneRankProduct.hpp"

#include <Tpetra_Import.hpp>
#include <optional>
#include <type_traits>
#include <vector>

#include "Trident_LocalViews.hpp"
#include "Trident_MapSameness.hpp"
#include "Trident_ResultAssembly.hpp"
#include "Trident_StoredZeros.hpp"
#include "Trident_TpetraCompat.hpp"
#include <trident/local/CsrView.hpp>
#include <trident/stats/PhaseTimer.hpp>

namespace Trident {
namespace tpetra {

namespace {

// The local index in `to` of each local element of `from`; nothing when one is not in `to`. By
// arithmetic where `to` is contiguous, as row and domain maps usually are.
std::optional<std::vector<LO>> localIndicesIn(const map_type& from, const map_type& to) {
  const auto n = static_cast<LO>(Compat::localNumElements(from));
  const auto gids = Compat::localElementList(from);
  const auto invalid = Teuchos::OrdinalTraits<LO>::invalid();
  const bool contiguous = to.isContiguous();
  const GO first = to.getMinGlobalIndex();
  const auto size = static_cast<GO>(Compat::localNumElements(to));
  std::vector<LO> lids(static_cast<std::size_t>(n));
  for (LO c = 0; c < n; ++c) {
    const GO g = gids[c];
    lids[c] = !contiguous ? to.getLocalElement(g) : g >= first && g - first < size ? static_cast<LO>(g - first) : invalid;
    if (lids[c] == invalid) return std::nullopt;
  }
  return lids;
}

// A's column c is B's local row rows[c] (empty: the same index). Nothing when a column is no row of B.
std::optional<std::vector<int>> rowsOfB(const crs_matrix_type& A, const crs_matrix_type& B) {
  if (locallySame(*A.getColMap(), *B.getRowMap())) return std::vector<int>();
  std::optional<std::vector<LO>> rows = localIndicesIn(*A.getColMap(), *B.getRowMap());
  if (!rows) return rows;
  bool identity = true;
  for (std::size_t c = 0; c < rows->size() && identity; ++c) identity = (*rows)[c] == static_cast<LO>(c);
  if (identity) rows->clear();
  return rows;
}

// B's column c is its domain map's local element lids[c] (empty: the same index); the columns
// must ascend in the domain map, as Tpetra makes them, so that C's rows stay sorted once renumbered.
std::optional<std::vector<LO>> domainLids(const crs_matrix_type& B) {
  if (locallySame(*B.getColMap(), *B.getDomainMap())) return std::vector<LO>();
  std::optional<std::vector<LO>> lids = localIndicesIn(*B.getColMap(), *B.getDomainMap());
  for (std::size_t c = 1; lids && c < lids->size(); ++c)
    if ((*lids)[c] <= (*lids)[c - 1]) return std::nullopt;
  return lids;
}

// C's column map in Tpetra's convention (the used columns in domain-map order, all owned at
// P = 1), C's columns renumbered to it in place, and the arrays and maps into C.
void fillC(const Csr& shape, FinalArraysSink& sink, const crs_matrix_type& A, const crs_matrix_type& B,
           const std::vector<LO>& lids, crs_matrix_type& C, bool fill_complete,
           const Teuchos::RCP<Teuchos::ParameterList>& fill_params) {
  const auto nnz = static_cast<std::size_t>(shape.nnz());
  const auto ncols = static_cast<std::size_t>(shape.ncols);
  int* const col = sink.col();
  std::vector<LO> lid(ncols, 0);
  for (std::size_t q = 0; q < nnz; ++q) lid[static_cast<std::size_t>(col[q])] = 1;
  const auto domain = B.getDomainMap();
  // A contiguous domain map's GIDs by arithmetic, not a call into Tpetra per used column.
  const bool contiguous = domain->isContiguous();
  const GO first = domain->getMinGlobalIndex();
  std::vector<GO> gids;
  gids.reserve(ncols);
  LO used = 0;
  for (std::size_t c = 0; c < ncols; ++c) {
    if (!lid[c]) continue;
    const LO l = lids.empty() ? static_cast<LO>(c) : lids[c];
    gids.push_back(contiguous ? first + l : domain->getGlobalElement(l));
    lid[c] = used++;
  }
  const bool whole = lids.empty() && static_cast<std::size_t>(used) == Compat::localNumElements(*domain);
  if (!whole || used != static_cast<LO>(ncols))
    for (std::size_t q = 0; q < nnz; ++q) col[q] = lid[static_cast<std::size_t>(col[q])];
  const Teuchos::RCP<const map_type> colMap =
      whole ? domain
            : Teuchos::rcp<const map_type>(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                                        Teuchos::ArrayView<const GO>(gids.data(), gids.size()),
                                        domain->getIndexBase(), domain->getComm()));
  C.replaceColMap(colMap);
  C.setAllValues(rowOffsetsOf(shape), sink.indices(nnz), sink.values(nnz));
  if (!fill_complete) return;
  using import_type = Tpetra::Import<LO, GO, Node>;
  const Teuchos::RCP<const import_type> importer = whole ? Teuchos::null : Teuchos::rcp(new import_type(domain, colMap));
  C.expertStaticFillComplete(domain, A.getRangeMap(), importer, Teuchos::null, fill_params);
}

}  // namespace

bool multiplyOnOneRank(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C, bool fill_complete,
                       const Teuchos::RCP<Teuchos::ParameterList>& fill_params, MultiplyStats& stats) {
  const local_host_type a = A.getLocalMatrixHost(), b = B.getLocalMatrixHost();
  std::optional<std::vector<int>> rows;
  std::optional<std::vector<LO>> lids;
  std::optional<KernelA> ka;
  {
    // The in phase: only what differs from Tpetra's own arrays is formed (usually nothing).
    PhaseTimer t(stats.times.redistribute_in, "Trident: redistribute in");
    rows = rowsOfB(A, B);
    lids = domainLids(B);
    if (!rows || !lids) return false;
    // Usually neither: A is read as it is. A copy of all of A had been 5% of hep-th's product.
    ka.emplace(a, *rows, storedZeros(A), static_cast<std::int64_t>(b.numRows()));
  }
  FinalArraysSink sink;
  Csr shape = multiplyIntoC(ka->view(), viewOf(b), sink, stats);
  PhaseTimer t(stats.times.redistribute_out, "Trident: redistribute out");
  fillC(shape, sink, A, B, *lids, C, fill_complete, fill_params);
  return true;
}

}  // namespace tpetra
}  // namespace Trident
