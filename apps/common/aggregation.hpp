#pragma once
// Restriction / prolongation operators for trident-bench's --op=AR and --op=RAP.
//
// The tentative prolongator of smoothed-aggregation AMG: T (n x nagg) has exactly one 1.0 per
// row, T(i, agg(i)) = 1, where agg() comes from a greedy aggregation of A's graph. The
// aggregation runs sequentially on rank 0 over the gathered graph in global-index order, so T
// (and therefore every product) is the same global matrix for any number of ranks.
#include <Teuchos_RCP.hpp>
#include "Trident_TpetraTypes.hpp"

namespace TridentBench {

struct Transfer {
  Teuchos::RCP<Trident::crs_matrix_type> P;  // n x nagg, rows distributed like A's domain map
  Teuchos::RCP<Trident::crs_matrix_type> R;  // nagg x n, R = P^T (explicit Tpetra transpose)
  long long num_aggregates = 0;
  long long largest_aggregate = 0;
};

// Greedy aggregation (MueLu-style phases: 1. a vertex whose neighbours are all free becomes a
// root and takes them all; 2. every remaining vertex joins the aggregate of its first
// aggregated neighbour; 3. anything left becomes a singleton). Needs A square with domain map
// = row map. Collective; throws std::runtime_error with the same message on every rank.
Transfer buildTransfer(const Trident::crs_matrix_type& A);

}  // namespace TridentBench
