// Drop-in semantics of Trident::MatrixMatrix::Multiply beyond the product itself: C left open when
// asked, pattern reuse, parameter pass-through, stats and timers, a usable result; and every bad
// input failing with a clear exception on every rank (never a hang: ctest's timeout guards it).
#include <Teuchos_TimeMonitor.hpp>
#include <sstream>
#include <vector>
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_Vector.hpp>

#include "Trident_AutoChoiceMemory.hpp"
#include "Trident_Generators.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"
#include <trident/algorithms/Algorithms.hpp>
#include <trident/core/Errors.hpp>

using namespace TridentTest;
using Trident::map_type;

namespace {

Tally tally;

Teuchos::RCP<Teuchos::ParameterList> tridentParams(int lambda) {
  auto p = Teuchos::rcp(new Teuchos::ParameterList);
  p->set("trident: algorithm", std::string("trident"));  // the default is "auto"; this tests Trident
  p->set("trident: ranks per group", lambda);
  return p;
}

std::string describe(const Trident::MatrixMatrix::MultiplyOptions& o) {
  std::ostringstream s;
  s << toString(o.algorithm) << " lambda=" << o.ranks_per_group << " permute=" << o.permute << " seed=" << o.seed
    << " kernel=" << o.local_kernel << " device=" << o.device << " lookahead=" << o.lookahead
    << " pacing=" << static_cast<int>(o.gi_pacing) << " grid=" << static_cast<int>(o.grid)
    << " fetch=" << static_cast<int>(o.fetch) << " slices=" << static_cast<int>(o.slices)
    << " count=" << o.count_bytes << " remember=" << o.remember_auto_choice
    << " estimate=" << o.estimate_auto_choice;
  return s.str();
}

// One list of defaults: the struct's, what parse gives for no parameters and for
// getValidParameters() itself, and the core algorithms' kernel and lookahead all agree.
void checkDefaultsAgree(MPI_Comm comm) {
  using Trident::MatrixMatrix::MultiplyOptions;
  const auto valid = Trident::MatrixMatrix::getValidParameters();
  const std::string declared = describe(MultiplyOptions{});
  const std::string parsedNone = describe(MultiplyOptions::parse(Teuchos::null, comm));
  const std::string parsedValid =
      describe(MultiplyOptions::parse(Teuchos::rcp(new Teuchos::ParameterList(*valid)), comm));
  tally.check(declared == parsedNone, "MultiplyOptions' defaults == getValidParameters()'s",
              declared + " vs " + parsedNone);
  tally.check(parsedValid == parsedNone, "getValidParameters() parsed == no parameters", parsedValid);
  const Trident::AlgorithmOptions core;
  tally.check(core.local_kernel == valid->get<std::string>("trident: local kernel") &&
                  core.lookahead == valid->get<int>("trident: lookahead") &&
                  core.device == valid->get<std::string>("trident: device"),
              "AlgorithmOptions' kernel, lookahead and device == getValidParameters()'s", core.local_kernel);
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  const int P = comm->getSize();
  const int lambda = P % 2 == 0 ? 2 : 1;
  Trident::gen::RandomOptions o;
  o.avg_per_row = 4;
  o.seed = 3;
  auto A = Trident::gen::random(120, 100, o, comm);
  o.seed = 4;
  auto B = Trident::gen::random(100, 80, o, comm);
  auto Ct = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(*A, false, *B, false, *Ct);
  const Entries expected = gather(*Ct);
  std::string why;

  // 1. call_FillComplete_on_result = false: C comes back open; filling it gives the product.
  {
    auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, false, "open", tridentParams(lambda));
    tally.check(!C->isFillComplete(), "call_FillComplete_on_result=false leaves C open");
    C->fillComplete(B->getDomainMap(), A->getRangeMap());
    tally.check(sameMatrix(expected, gather(*C), why), "open C, filled by the caller, == Tpetra", why);
  }
  // 1b. After the first multiply, blocks of C's size come from the heap, not from fresh mappings
  // that every call would fault in again (core/HeapRetention pins glibc's mmap threshold at 32
  // MiB). Four blocks of 24 MiB outgrow the heap's 64 MiB pad, so at least one would be mapped
  // were the threshold still glibc's starting 128 KiB, where the pad froze it in a process that
  // had freed no large block, as this one. Not under AddressSanitizer, whose allocator is not glibc's.
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  if (!std::getenv("MALLOC_MMAP_THRESHOLD_") && !std::getenv("MALLOC_TOP_PAD_") && !std::getenv("GLIBC_TUNABLES") &&
      !std::getenv("TRIDENT_HEAP_PAD_MB")) {
    const std::size_t mappedBefore = mallinfo2().hblkhd;
    std::vector<void*> blocks;
    for (int b = 0; b < 4; ++b) blocks.push_back(std::malloc(std::size_t{24} << 20));
    const std::size_t mappedWith = mallinfo2().hblkhd;
    for (void* b : blocks) std::free(b);
    tally.check(mappedWith == mappedBefore, "24 MiB blocks after a multiply come from the heap, not mmap");
  }
#endif
  // 2. A fill-complete C is reused: same pattern, new values.
  {
    auto C = Teuchos::rcp(new crs_matrix_type(*Ct, Teuchos::Copy));
    auto A2 = Teuchos::rcp(new crs_matrix_type(*A, Teuchos::Copy));
    A2->resumeFill();
    A2->scale(2.0);
    A2->fillComplete(A->getDomainMap(), A->getRangeMap());
    auto Ct2 = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    Tpetra::MatrixMatrix::Multiply(*A2, false, *B, false, *Ct2);
    Trident::MatrixMatrix::Multiply(*A2, false, *B, false, *C, true, "reuse", tridentParams(lambda));
    tally.check(C->isFillComplete() && sameMatrix(gather(*Ct2), gather(*C), why), "fill-complete C reused", why);
  }
  // 3. Tpetra's own parameters pass through; the result is usable by apply().
  {
    auto p = tridentParams(lambda);
    p->set("sort entries", true);  // a Tpetra key: passed through, not rejected
    p->set("trident: permute", std::string("random"));
    auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "apply", p);
    using vec_t = Tpetra::Vector<double, LO, GO, Trident::Node>;
    vec_t x(B->getDomainMap()), bx(B->getRangeMap()), abx(A->getRangeMap()), cx(A->getRangeMap());
    x.randomize();
    B->apply(x, bx);
    A->apply(bx, abx);
    C->apply(x, cx);
    cx.update(-1.0, abx, 1.0);
    tally.check(cx.normInf() <= 1e-12 * std::max(1.0, abx.normInf()), "C.apply(x) == A.apply(B.apply(x))");
    long long n = static_cast<long long>(expected.row.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    tally.check(C->getGlobalNumEntries() == static_cast<Tpetra::global_size_t>(n),
                "global constants computed by default, as Tpetra does");
    const auto& s = Trident::MatrixMatrix::lastStats();
    tally.check(s.algorithm == "trident" && s.ranks_per_group == lambda && s.times.total > 0 && s.rounds >= 1,
                "lastStats describes the run");
    auto timer = Teuchos::TimeMonitor::lookupCounter("Trident: local multiply");
    tally.check(!timer.is_null() && timer->numCalls() > 0, "Teuchos timer \"Trident: local multiply\" recorded");
  }
  // 4. The valid parameter list documents every key.
  {
    auto v = Trident::MatrixMatrix::getValidParameters();
    tally.check(v->isParameter("trident: algorithm") && v->isParameter("trident: ranks per group") &&
                    v->isParameter("trident: permute"),
                "getValidParameters lists the trident keys");
  }
  // 5. No parameters: "auto" chooses, says why, and the product is Tpetra's.
  {
    auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C);
    const auto& s = Trident::MatrixMatrix::lastStats();
    tally.check(Trident::MatrixMatrix::getValidParameters()->get<std::string>("trident: algorithm") == "auto" &&
                    s.auto_chosen && s.predicted_time > 0 &&
                    s.auto_reason.find("chose " + s.algorithm) == 0,
                "the default is \"auto\": stats say what was chosen and why", s.algorithm + ": " + s.auto_reason);
    tally.check(sameMatrix(expected, gather(*C), why), "default (auto) multiply == Tpetra", why);
  }
  // 6. "auto" remembers a counted choice: the same operands again are not counted and give the
  // same C; the memory off, or a stored zero written into A's values in place (same arrays, so
  // only the contents' hash can tell), are counted again.
  {
    // A product the bound does not settle (the small one above is): a random graph whose rows
    // reach across the ranks.
    Trident::gen::RandomOptions og;
    og.avg_per_row = 12;
    og.seed = 5;
    const auto G = Trident::gen::random(1500, 1500, og, comm);
    auto Cg = Teuchos::rcp(new crs_matrix_type(G->getRowMap(), 0));
    Tpetra::MatrixMatrix::Multiply(*G, false, *G, false, *Cg);
    const Entries expectedG = gather(*Cg);
    Trident::MatrixMatrix::forgetRememberedChoices();
    auto run = [&](const crs_matrix_type& X, Teuchos::RCP<Teuchos::ParameterList> p) {
      auto C = Teuchos::rcp(new crs_matrix_type(X.getRowMap(), 0));
      Trident::MatrixMatrix::Multiply(X, false, *G, false, *C, true, "remember", p);
      return std::make_pair(Trident::MatrixMatrix::lastStats(), gather(*C));
    };
    using Trident::AutoPath;
    auto remembered = [](const Trident::MultiplyStats& s) { return s.auto_path == AutoPath::Remembered; };
    // The small product above, settled by the bound, twice: the second call reuses the choice.
    {
      Trident::MultiplyStats bounded[2];
      for (auto& s : bounded) {
        auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
        Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C);
        s = Trident::MatrixMatrix::lastStats();
        tally.check(sameMatrix(expected, gather(*C), why), "bound-settled auto multiply == Tpetra", why);
      }
      const bool byBound = bounded[0].auto_path == AutoPath::Bound || bounded[0].auto_path == AutoPath::Unions;
      tally.check(byBound && !remembered(bounded[0]) && remembered(bounded[1]) && bounded[1].algorithm == bounded[0].algorithm,
                  "a choice the bound settled is remembered", bounded[0].auto_reason + " | " + bounded[1].auto_reason);
    }
    // The estimate without counting decides this product, and its choice is remembered; with
    // the estimate off the product is counted (the estimated choice is not reused for that).
    auto counting = Teuchos::rcp(new Teuchos::ParameterList);
    counting->set("trident: auto: estimate without counting", false);
    const auto byEstimate = run(*G, Teuchos::null);
    const auto byEstimateAgain = run(*G, Teuchos::null);
    tally.check(byEstimate.first.auto_path == AutoPath::Estimate && !remembered(byEstimate.first) && remembered(byEstimateAgain.first) &&
                    byEstimateAgain.first.algorithm == byEstimate.first.algorithm &&
                    byEstimateAgain.first.predicted_time == byEstimate.first.predicted_time,
                "a choice estimated without counting is remembered", byEstimateAgain.first.auto_reason);
    tally.check(sameMatrix(expectedG, byEstimate.second, why) && sameMatrix(expectedG, byEstimateAgain.second, why),
                "estimated choice's C == Tpetra, also remembered", why);
    // Rounds after the call's one collective: what "auto" needed that some rank had skipped.
    auto rounds = [] {
      const auto t = Teuchos::TimeMonitor::lookupCounter("Trident: auto: another round");
      return t.is_null() ? 0 : t->numCalls();
    };
    // The choice found in memory on every rank but rank 0: the others skipped the bound and the
    // estimate, so they fill them in afterwards and the estimate decides as on the first call.
    if (P > 1) {
      if (rank() == 0) Trident::MatrixMatrix::forgetRememberedChoices();
      const int before = rounds();
      const auto partly = run(*G, Teuchos::null);
      tally.check(rounds() > before && partly.first.auto_path == AutoPath::Estimate &&
                      partly.first.algorithm == byEstimate.first.algorithm && sameOnAllRanks(partly.first.auto_reason),
                  "remembered on some ranks only: the skipped bound and estimate are filled in, the estimate decides",
                  partly.first.auto_reason);
      tally.check(sameMatrix(expectedG, partly.second, why), "remembered on some ranks only: C == Tpetra", why);
    }
    // Rank 0 holds nearly all rows: the others' own bounds settle the choice and they skip the
    // estimate; the agreed bound does not (rank 0's work), so they make it in a second round.
    if (P > 1) {
      const GO n = 1200, few = 8;
      const std::size_t mine = rank() == 0 ? static_cast<std::size_t>(n - few * (P - 1)) : static_cast<std::size_t>(few);
      auto skewed = Teuchos::rcp(new map_type(n, mine, 0, comm));
      Trident::gen::RandomOptions os;
      os.avg_per_row = 12;
      os.seed = 6;
      const auto H = Trident::gen::random(skewed, skewed, skewed, os);
      auto Ch = Teuchos::rcp(new crs_matrix_type(H->getRowMap(), 0));
      Tpetra::MatrixMatrix::Multiply(*H, false, *H, false, *Ch);
      auto off = Teuchos::rcp(new Teuchos::ParameterList);
      off->set("trident: auto: remember choice", false);
      const int before = rounds();
      auto C = Teuchos::rcp(new crs_matrix_type(H->getRowMap(), 0));
      Trident::MatrixMatrix::Multiply(*H, false, *H, false, *C, true, "skewed", off);
      const auto s = Trident::MatrixMatrix::lastStats();
      tally.check(rounds() == before + 1 && (s.auto_path == AutoPath::Estimate || s.auto_path == AutoPath::Counted) &&
                      sameOnAllRanks(s.auto_reason),
                  "estimate skipped where a rank's own bound settles it: made in a second round, the same choice everywhere",
                  s.algorithm + ": " + s.auto_reason);
      tally.check(sameMatrix(gather(*Ch), gather(*C), why), "skewed rows, auto: C == Tpetra", why);
    }
    const auto first = run(*G, counting);
    tally.check(first.first.auto_path == AutoPath::Counted, "a first call counts", first.first.auto_reason);
    const auto second = run(*G, counting);
    tally.check(remembered(second.first) && second.first.algorithm == first.first.algorithm &&
                    second.first.auto_reason.find("chose " + second.first.algorithm) == 0 &&
                    second.first.predicted_time == first.first.predicted_time,
                "the same operands again: the choice is remembered", second.first.auto_reason);
    tally.check(sameMatrix(expectedG, second.second, why), "remembered choice's C == Tpetra", why);
    auto off = Teuchos::rcp(new Teuchos::ParameterList);
    off->set("trident: auto: remember choice", false);
    off->set("trident: auto: estimate without counting", false);
    tally.check(!remembered(run(*G, off).first), "\"trident: auto: remember choice\" = false counts again");
    // A stored zero in place: every rank zeroes its first local value.
    auto Az = Teuchos::rcp(new crs_matrix_type(*G, Teuchos::Copy));
    const auto entriesBefore = Az->getLocalMatrixHost().graph.entries.data();
    run(*Az, counting);
    const auto third = run(*Az, counting);
    tally.check(remembered(third.first), "a copy of the graph, called twice: remembered", third.first.auto_reason);
    auto values = Az->getLocalMatrixHost().values;
    if (values.extent(0) > 0) values(0) = 0.0;
    tally.check(Az->getLocalMatrixHost().graph.entries.data() == entriesBefore, "the zero is written in place");
    auto Ctz = Teuchos::rcp(new crs_matrix_type(Az->getRowMap(), 0));
    Tpetra::MatrixMatrix::Multiply(*Az, false, *G, false, *Ctz);
    const auto zeroed = run(*Az, counting);
    int anyValues = values.extent(0) > 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &anyValues, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    tally.check(anyValues == 1 && !remembered(zeroed.first), "a stored zero written in place: counted again",
                zeroed.first.auto_reason);
    tally.check(sameMatrix(gather(*Ctz), zeroed.second, why), "after the zero, C == Tpetra's", why);
    // A*A: one hash confirms both operands, and a zero written into A in place is still found.
    auto square = [&](const crs_matrix_type& X) {
      auto C = Teuchos::rcp(new crs_matrix_type(X.getRowMap(), 0));
      Trident::MatrixMatrix::Multiply(X, false, X, false, *C, true, "remember", counting);
      return std::make_pair(Trident::MatrixMatrix::lastStats(), gather(*C));
    };
    auto As = Teuchos::rcp(new crs_matrix_type(*G, Teuchos::Copy));
    square(*As);
    tally.check(remembered(square(*As).first), "A*A called twice: remembered");
    auto squareValues = As->getLocalMatrixHost().values;
    if (squareValues.extent(0) > 0) squareValues(squareValues.extent(0) - 1) = 0.0;
    auto Cs = Teuchos::rcp(new crs_matrix_type(As->getRowMap(), 0));
    Tpetra::MatrixMatrix::Multiply(*As, false, *As, false, *Cs);
    const auto squaredZero = square(*As);
    tally.check(anyValues == 1 && !remembered(squaredZero.first), "A*A after a zero written in place: counted again",
                squaredZero.first.auto_reason);
    tally.check(sameMatrix(gather(*Cs), squaredZero.second, why), "A*A after the zero: C == Tpetra's", why);
  }

  // Bad input: every rank throws, with a message that names the problem.
  auto freshC = [&]() { return Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0)); };
  expectInvalidInput(tally, "A not fill-complete", "A is not fill-complete", [&] {
    auto open = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*open, false, *B, false, *C);
  });
  expectInvalidInput(tally, "B not fill-complete", "B is not fill-complete", [&] {
    auto open = Teuchos::rcp(new crs_matrix_type(B->getRowMap(), 0));
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*A, false, *open, false, *C);
  });
  expectInvalidInput(tally, "inner dimensions", "inner dimensions do not match", [&] {
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*A, false, *A, false, *C);  // 120x100 * 120x100
  });
  // Same sizes, but B's rows are other global IDs than op(A)'s domain map's: found while turning
  // IDs into positions (a check the three look-ups share), on every rank.
  expectInvalidInput(tally, "B's rows not op(A)'s domain map", "must match op(A)'s domain map", [&] {
    auto shifted = Teuchos::rcp(new map_type(100, 1000, comm));
    auto Bshift = Trident::gen::random(shifted, B->getDomainMap(), shifted, o);
    auto C = freshC();
    auto params = Teuchos::rcp(new Teuchos::ParameterList);
    params->set("trident: algorithm", "trident");
    Trident::MatrixMatrix::Multiply(*A, false, *Bshift, false, *C, true, "", params);
  });
  // A bad setting of the environment is bad input too: reported by every rank, before any work.
  // On the last rank only, so that the others learn it through the call's one collective check.
  for (const char* bad : {"lots", "-1", "4096"}) {
    if (rank() == size() - 1) setenv("TRIDENT_HEAP_PAD_MB", bad, 1);
    expectInvalidInput(tally, std::string("TRIDENT_HEAP_PAD_MB=") + bad, "TRIDENT_HEAP_PAD_MB", [&] {
      auto C = freshC();
      Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C);
    });
    unsetenv("TRIDENT_HEAP_PAD_MB");
  }
  expectInvalidInput(tally, "C on the wrong row map", "row map", [&] {
    auto C = Teuchos::rcp(new crs_matrix_type(B->getRowMap(), 0));
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C);
  });
  expectInvalidInput(tally, "C neither empty nor fill-complete", "neither empty nor fill-complete", [&] {
    auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 1));
    const GO g = Trident::Compat::localNumElements(*A->getRowMap()) > 0 ? A->getRowMap()->getGlobalElement(0) : -1;
    if (g >= 0) C->insertGlobalValues(g, Teuchos::tuple<GO>(0), Teuchos::tuple<double>(1.0));
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C);
  });
  expectInvalidInput(tally, "fill-complete C whose pattern lacks the product", "pattern lacks", [&] {
    auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 1));
    for (auto g : Trident::Compat::localElementList(*A->getRowMap()))
      if (g < 80) C->insertGlobalValues(g, Teuchos::tuple<GO>(g), Teuchos::tuple<double>(0.0));
    C->fillComplete(B->getDomainMap(), A->getRangeMap());
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", tridentParams(lambda));
  });
  expectInvalidInput(tally, "ranks per group does not divide P", "does not divide", [&] {
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", tridentParams(P + 1));
  });
  expectInvalidInput(tally, "unknown trident parameter", "unknown parameter", [&] {
    auto p = tridentParams(lambda);
    p->set("trident: ranks per node", 2);
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", p);
  });
  expectInvalidInput(tally, "bad permute value", "trident: permute", [&] {
    auto p = tridentParams(lambda);
    p->set("trident: permute", std::string("sideways"));
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", p);
  });
  expectInvalidInput(tally, "wrong parameter type", "trident: ranks per group", [&] {
    auto p = Teuchos::rcp(new Teuchos::ParameterList);
    p->set("trident: ranks per group", std::string("two"));
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", p);
  });
  expectInvalidInput(tally, "unknown algorithm", "trident: algorithm", [&] {
    auto p = tridentParams(lambda);
    p->set("trident: algorithm", std::string("cannon3d"));
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", p);
  });
  expectInvalidInput(tally, "ranks disagree on lambda", "same on every rank", [&] {
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", tridentParams(rank() == 0 ? 1 : P));
  });
  expectInvalidInput(tally, "ranks disagree on the algorithm", "same on every rank", [&] {
    auto C = freshC();
    auto p = Teuchos::rcp(new Teuchos::ParameterList);
    p->set("trident: algorithm", std::string(rank() == 0 ? "auto" : "trident"));
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", p);
  });
  if (P > 1) {
    // Any two different names fail the agreement check, whatever the build knows of them
    // ("cuda" is a bad value without CUDA, a missing GPU without one, a disagreement with one).
    const std::vector<std::string> needles = {"\"trident: device\"", "same on every rank"};
    bool all = true;
    std::string msg = "did not throw";
    try {
      auto p = tridentParams(lambda);
      p->set("trident: device", std::string(rank() == 0 ? "host" : "cuda"));
      auto C = freshC();
      Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", p);
    } catch (const Trident::InvalidInput& e) {
      msg = e.what();
      all = msg.find(needles[0]) != std::string::npos || msg.find(needles[1]) != std::string::npos;
    }
    tally.check(all && msg != "did not throw", "bad input: ranks ask for different devices", msg);
    expectInvalidInput(tally, "ranks disagree on the local kernel", "same on every rank", [&] {
      auto p = tridentParams(lambda);
      p->set("trident: local kernel", std::string(rank() == 0 ? "gustavson" : "reference"));
      auto C = freshC();
      Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", p);
    });
  }
  checkDefaultsAgree(MPI_COMM_WORLD);
  // After all those errors the library still works (no state left behind).
  {
    auto C = freshC();
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", tridentParams(lambda));
    tally.check(sameMatrix(expected, gather(*C), why), "multiply after errors == Tpetra", why);
  }
  return tally.finish();
}
