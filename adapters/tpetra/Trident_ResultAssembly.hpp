#pragma once
// The way out: every rank's block of C (rows of its slice, columns of its column block, rows sorted)
// becomes C = Tpetra::CrsMatrix on op(A)'s row map, written once into its final local CSR.
//
// Who sends which rows to whom follows from the Layout alone (both sides compute it from the
// rows they hold), so rows travel point-to-point to the ranks that own them, with exact sizes and
// no world collective: a row-length header and the entries, per pair of ranks that share rows.
// Pieces of a row arrive sorted and in column-block order; with Tpetra's contiguous maps the
// final order by local column index (owned columns first, then remote ones by owner) is one
// rotation of each row, not a sort. C's column map and its Import come from owners that are
// already known, without Tpetra's directory look-up.
//
// An assembly built with keep = true remembers where every value of C came from, so a plan can
// later send values only and write them into the same C in place (assembleValues).
#include <mpi.h>
#include <cstdint>
#include <utility>
#include <vector>

#include "Trident_TpetraConversion.hpp"
#include "Trident_TpetraTypes.hpp"
#include <trident/local/BlockSink.hpp>
#include <trident/local/Csr.hpp>
#include <trident/partition/Layout.hpp>
#include <trident/partition/Permutation.hpp>
#include <trident/partition/Redistribute.hpp>

namespace Trident {
namespace tpetra {

// C's final entry arrays (the Kokkos views Tpetra will keep) as a BlockSink: when a rank's block
// is exactly its rows of C, the local kernel writes the last product straight into them and the
// assembly only renumbers columns in place (ResultAssembly::writesInPlace).
class FinalArraysSink final : public BlockSink {
 public:
  using entries_view = crs_matrix_type::local_graph_device_type::entries_type::non_const_type;
  using values_view = crs_matrix_type::local_matrix_device_type::values_type;
  void reserve(std::size_t capacity, std::size_t keep) override;
  std::size_t capacity() const override { return ind_.extent(0); }
  int* col() override { return ind_.data(); }
  double* val() override { return val_.data(); }
  // The first n entries, as the views Tpetra keeps (the capacity past n is never touched, so it
  // costs address space only).
  entries_view indices(std::size_t n) const;
  values_view values(std::size_t n) const;

 private:
  entries_view ind_;
  values_view val_;
};

class ResultAssembly {
 public:
  // Not collective. my_unit/my_k: the block this rank produces (its unit and slice in L); rank_of
  // maps (unit, slice) to world ranks of comm. rowPos: positions of C's row map, colPos: of
  // op(B)'s domain map.
  ResultAssembly(const Layout& L, const RankOf& rank_of, int my_unit, int my_k, const Permutation& row_perm,
                 const Permutation& col_perm, const MapPositions& rowPos, const MapPositions& colPos, MPI_Comm comm);

  // Ships the block's rows to their owners and fills C. A fresh C gets its column map (Tpetra's
  // convention), final CSR and, with fill_complete, expertStaticFillComplete with an Import from
  // the known owners; a C that is fill-complete or has a column map is filled through Tpetra's
  // global-index API (its pattern must hold the product). keep: remember the placement for
  // assembleValues. (*bytes_to)[d] grows by what this rank sent to rank d.
  // sink: where the block's entries are when the kernel wrote them there (sink->filled).
  void assemble(const Csr& block, crs_matrix_type& C, const Teuchos::RCP<const map_type>& domainMap,
                const Teuchos::RCP<const map_type>& rangeMap, bool fill_complete,
                const Teuchos::RCP<Teuchos::ParameterList>& fill_params, bool keep,
                std::vector<std::uint64_t>* bytes_to, FinalArraysSink* sink = nullptr);

  // Values only, for a block with the pattern of the one assemble() shipped, into the C that
  // assemble() built (fresh C), in place. Requires canAssembleValues(C). A block without values
  // (valuesStraightIntoC: the multiply wrote them into C) only fill-completes C again.
  void assembleValues(const Csr& block, crs_matrix_type& C, const Teuchos::RCP<const map_type>& domainMap,
                      const Teuchos::RCP<const map_type>& rangeMap, bool fill_complete,
                      const Teuchos::RCP<Teuchos::ParameterList>& fill_params, std::vector<std::uint64_t>* bytes_to);

  // True when assembleValues can write into this C: assemble() kept a fresh-C placement and C is
  // the matrix it built.
  bool canAssembleValues(const crs_matrix_type& C) const;

  // True when assembleValues(C) needs no values from the block: the block is this rank's rows of C
  // (writesInPlace) and a values-only multiply can add its values straight into C's value array,
  // each row's entries in the order of straightColumns() (null: the block's own order).
  bool valuesStraightIntoC(const crs_matrix_type& C) const { return straight_ && canAssembleValues(C); }
  const int* straightColumns() const { return straight_cols_.empty() ? nullptr : straight_cols_.data(); }

  // True when this rank's block is exactly its rows of C, in order, in one piece, with nothing
  // to send or receive: assemble() can then take a block whose entries the kernel wrote into a
  // FinalArraysSink (for a fresh C, not kept) and only renumber its columns in place.
  bool writesInPlace() const { return in_place_; }

  // The column map and Import of the C that assemble() built (null before).
  Teuchos::RCP<const map_type> colMap() const { return colMap_; }

 private:
  // Defined in the .cpp: C's column numbering, the ordering of C's rows by local index, one
  // partner's rows in flight, and what the exchange leaves for placing.
  class ColumnNumbering;
  class RowOrder;
  struct Piece;
  struct Arrivals;

  struct Partner {
    int rank = 0;
    int col_block = 0;                    // receiving: the sender's column block
    std::vector<std::int64_t> rows;       // sending: my block rows; receiving: my local rows, in send order
    std::vector<std::int64_t> counts;     // entries per row (filled by assemble)
    std::vector<std::int64_t> start;      // receiving, kept: where each row's piece begins in C's arrays
    std::int64_t entries = 0;
  };

  MPI_Comm comm_;
  int me_ = 0;
  std::int64_t row0_ = 0, col0_ = 0;
  std::size_t local_rows_ = 0;
  const MapPositions& colPos_;
  const Permutation& col_perm_;
  const Layout& L_;
  std::vector<Partner> send_, recv_;  // recv_ in column-block order; self appears in both
  std::vector<std::vector<double>> value_out_, value_in_;  // assembleValues' buffers, reused
  // Kept placement: value t of the concatenated received pieces (recv_ order) lands at
  // landing_[t] of C's value array (empty: identity).
  bool in_place_ = false;
  bool kept_ = false;
  std::vector<std::int64_t> landing_;
  // Kept with writesInPlace: values go straight into C (no landing_); the block's columns in C's
  // order, when a row's order differs from the block's (empty: the same order).
  bool straight_ = false;
  std::vector<int> straight_cols_;
  std::int64_t nnz_ = 0;
  Teuchos::RCP<const map_type> colMap_;
  Teuchos::RCP<const Tpetra::Import<LO, GO, Node>> importer_;

  // assemble()'s steps, in order: the exchange of row headers and entries with the owners of the
  // rows, C's column numbering, placing the rows, and filling C.
  void exchangeRows(Arrivals& a, bool inPlace, std::vector<std::uint64_t>* bytes_to);
  void postHeaderReceives(Arrivals& a, std::vector<MPI_Request>& reqs) const;
  void sendRows(Arrivals& a, std::vector<MPI_Request>& reqs, std::vector<std::uint64_t>* bytes_to);
  void takeHeaders(const Arrivals& a);
  void allocateC(Arrivals& a, bool inPlace) const;
  void postEntryReceives(Arrivals& a, bool inPlace, std::vector<MPI_Request>& reqs) const;
  std::pair<const int*, const double*> rowOf(const Arrivals& a, std::size_t s, std::size_t t, std::int64_t e) const;
  ColumnNumbering numberColumns(const Arrivals& a, const Teuchos::RCP<const map_type>& domainMap) const;
  void placeRows(Arrivals& a, const ColumnNumbering& numbering, RowOrder* orderNow, bool keep, bool inPlace,
                 bool sinkRowsSorted);
  void fillThroughGlobalIndices(const Arrivals& a, const ColumnNumbering& numbering, crs_matrix_type& C,
                                const Teuchos::RCP<const map_type>& domainMap,
                                const Teuchos::RCP<const map_type>& rangeMap, bool fill_complete,
                                const Teuchos::RCP<Teuchos::ParameterList>& fill_params);
  void fillFreshC(const Arrivals& a, const ColumnNumbering& numbering, const std::vector<std::int64_t>& origin,
                  bool keep, crs_matrix_type& C, const Teuchos::RCP<const map_type>& domainMap,
                  const Teuchos::RCP<const map_type>& rangeMap, bool fill_complete,
                  const Teuchos::RCP<Teuchos::ParameterList>& fill_params);
  void keepPlacement(const int* blockCol, const std::vector<std::int64_t>& origin, std::size_t nnz, bool keep);

  // assembleValues()'s steps.
  int exchangeValues(const Csr& block, std::vector<std::uint64_t>* bytes_to);
  void placeValues(const Csr& block, crs_matrix_type& C, int selfSend) const;
};

}  // namespace tpetra
}  // namespace Trident
