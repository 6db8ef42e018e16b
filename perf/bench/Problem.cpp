// trident-bench's product: A (a file or a generator), and for AR / RAP the transfer operators.
#include <algorithm>
#include <iostream>
#include <stdexcept>

#include <mpi.h>
#include <Teuchos_TimeMonitor.hpp>

#include "Bench.hpp"
#include "Trident_Generators.hpp"
#include "Trident_MatrixMarket.hpp"
#ifdef TRIDENT_BENCH_HAVE_MUELU
#include <Trident_CreatePreconditioner.hpp>
#include <Tpetra_RowMatrixTransposer.hpp>
#endif

namespace TridentBench {

using Trident::crs_matrix_type;

namespace {

// A from --matrix; when any rank fails, every rank reports the lowest failing rank's message.
bool buildMatrix(const Options& o, const Teuchos::RCP<const Teuchos::Comm<int>>& comm, std::ostream& err,
                 Problem& pb) {
  Teuchos::TimeMonitor tm(*Teuchos::TimeMonitor::getNewCounter("trident-bench: build matrix"));
  const int rank = comm->getRank(), P = comm->getSize();
  std::string msg;
  try {
    pb.A = Trident::gen::fromSpec(o.matrix, comm, static_cast<std::uint64_t>(o.seed));
  } catch (const std::exception& e) {
    msg = e.what();
  }
  int failed = msg.empty() ? 0 : 1, anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!anyFailed) return true;
  int who = failed ? rank : P, lowest = P;
  MPI_Allreduce(&who, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int len = static_cast<int>(msg.size());
  MPI_Bcast(&len, 1, MPI_INT, lowest, MPI_COMM_WORLD);
  msg.resize(len);
  MPI_Bcast(&msg[0], len, MPI_CHAR, lowest, MPI_COMM_WORLD);
  err << "trident-bench: cannot build --matrix=" << o.matrix << ": " << msg << std::endl;
  return false;
}

bool dumpMatrix(const Options& o, const Problem& pb, std::ostream& err) {
  if (o.dump.empty()) return true;
  try {
    Trident::io::writeMatrixMarket(o.dump, *pb.A);
  } catch (const std::exception& e) {  // the writer throws the same message on every rank
    err << "trident-bench: --dump=" << o.dump << ": " << e.what() << std::endl;
    return false;
  }
  return true;
}

// P and R = P^T of --op=AR / RAP: the greedy aggregation's T, or MueLu's smoothed aggregation.
bool buildTransferOperators(const Options& o, const std::string& name, std::ostream& err, Problem& pb) {
  Teuchos::TimeMonitor tm(*Teuchos::TimeMonitor::getNewCounter("trident-bench: aggregation"));
  if (pb.A->getGlobalNumRows() != pb.A->getGlobalNumCols() || !pb.A->getDomainMap()->isSameAs(*pb.A->getRowMap())) {
    err << "trident-bench: --op=" << o.op << " needs a square matrix (" << name << " is " << pb.A->getGlobalNumRows()
        << " x " << pb.A->getGlobalNumCols() << ")" << std::endl;
    return false;
  }
#ifdef TRIDENT_BENCH_HAVE_MUELU
  if (o.prolongator == "muelu") {
    pb.T.P = Trident::muelu::smoothedAggregationProlongator(pb.A);
    Tpetra::RowMatrixTransposer<double, Trident::LO, Trident::GO, Trident::Node> transposer(pb.T.P);
    pb.T.R = transposer.createTranspose();
    pb.T.num_aggregates = static_cast<long long>(pb.T.P->getGlobalNumCols());
    pb.T.largest_aggregate = 0;
  } else
#endif
    pb.T = buildTransfer(*pb.A);
  return true;
}

}  // namespace

std::string matrixName(const std::string& spec) {
  std::string name = spec;
  const auto slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".mtx") == 0) name.resize(name.size() - 4);
  std::replace(name.begin(), name.end(), ',', '_');
  return name;
}

long long globalNnz(const crs_matrix_type& M) {
  long long mine = static_cast<long long>(Trident::Compat::localNumEntries(M)), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

bool buildProblem(const Options& o, const Teuchos::RCP<const Teuchos::Comm<int>>& comm, const std::string& name,
                  std::ostream& err, Problem& pb) {
  if (!buildMatrix(o, comm, err, pb)) return false;
  if (!dumpMatrix(o, pb, err)) return false;
  if (o.op != "AA" && !buildTransferOperators(o, name, err, pb)) return false;
  return true;
}

void printProblem(std::ostream& out, const Options& o, const Problem& pb, const std::string& name, long long nnzA,
                  bool defaultJob, int P) {
  out << "trident-bench: matrix " << name << (defaultJob ? " (built-in default job)" : "") << ": "
      << pb.A->getGlobalNumRows() << " x " << pb.A->getGlobalNumCols() << ", nnz " << nnzA << "\n"
      << "  op " << o.op;
  if (o.op != "AA" && o.prolongator == "muelu")
    out << (o.op == "AR" ? " (C = A*P" : " (C = R*(A*P), R = P^T") << ", P: MueLu smoothed aggregation, "
        << pb.T.num_aggregates << " aggregates)";
  else if (o.op == "AR")
    out << " (C = A*T, T: " << pb.T.num_aggregates << " aggregates, largest " << pb.T.largest_aggregate << ")";
  else if (o.op == "RAP")
    out << " (C = R*(A*P), P = T, R = T^T; " << pb.T.num_aggregates << " aggregates, largest " << pb.T.largest_aggregate
        << ")";
  out << ", P = " << P << " ranks, ranks per group "
      << (o.ranks_per_group > 0 ? std::to_string(o.ranks_per_group) : std::string("auto (MPI_COMM_TYPE_SHARED)"))
      << ", permute " << o.permute << ", grid " << o.grid << ", " << o.trials << " trials + 1 warm-up" << (o.check ? ", --check" : "") << "\n"
      << std::endl;
}

}  // namespace TridentBench
