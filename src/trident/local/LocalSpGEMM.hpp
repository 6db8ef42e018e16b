#pragma once
// Local (single-rank) sparse kernels behind one interface, Ginkgo style: a plain reference
// implementation that every fast kernel is tested against, and the fast ones (gustavson and
// KokkosKernels on the host, cuSPARSE in CUDA builds), each registered by its own file and made
// by name through KernelRegistry.cpp. A Backend (src/trident/backend) hands the algorithms one.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "trident/local/BlockSink.hpp"
#include "trident/local/Csr.hpp"
#include "trident/local/KernelHandle.hpp"

namespace Trident {

Csr sumBlocks(std::vector<Csr>&& parts, std::int64_t nrows, std::int64_t ncols, bool parts_sorted);

class LocalSpGEMM {
 public:
  virtual ~LocalSpGEMM() = default;
  virtual std::string name() const = 0;
  // C = A * B (A.ncols == B.nrows). The structure is the full symbolic product: entries that
  // cancel to 0.0 are kept, exactly as Tpetra's kernel keeps them. Rows need not be sorted.
  virtual Csr multiply(const Csr& A, const Csr& B) = 0;
  // True when multiply() returns every row sorted by column.
  virtual bool sortsRows() const { return false; }
  // A * B + the sum of addends (blocks of the product's shape, e.g. earlier rounds' products;
  // empty ones allowed), same structure rules as multiply() and sumBlocks(). A kernel with an
  // accumulator adds the addends into it row by row, so the last round's product is never
  // stored apart and C is written once; this default multiplies, then sums.
  virtual Csr multiplyAdd(const Csr& A, const Csr& B, std::vector<Csr>&& addends) {
    const std::int64_t nrows = A.nrows, ncols = B.ncols;
    addends.push_back(multiply(A, B));
    return sumBlocks(std::move(addends), nrows, ncols, sortsRows());
  }
  // multiplyAdd with the entries written into sink (see BlockSink): the returned Csr has the
  // shape and row offsets, empty col/val. This default forms the block, then copies it; a kernel
  // that writes its rows as it goes (gustavson) writes them into the sink directly.
  virtual Csr multiplyAddInto(const Csr& A, const Csr& B, std::vector<Csr>&& addends, BlockSink& sink) {
    return moveIntoSink(multiplyAdd(A, B, std::move(addends)), sink, sortsRows());
  }
  // The last round with the one before it deferred (RoundAccumulator): A0 * B0 not formed apart
  // but summed in A*B's accumulator, after the addends and before A*B's own terms, so the values
  // are bit-identical to forming it as the last addend (and to a plan's numeric re-execution).
  // Where C is about as large as its multiply-adds (circuit and power-law squares), the partial
  // block cost as much to write and read back as the multiply. These defaults do just that;
  // fusesDeferred() says whether a kernel does better (RoundAccumulator defers only then).
  virtual bool fusesDeferred() const { return false; }
  virtual Csr multiplyAddDeferred(const Csr& A0, const Csr& B0, const Csr& A, const Csr& B,
                                  std::vector<Csr>&& addends) {
    addends.push_back(multiply(A0, B0));
    return multiplyAdd(A, B, std::move(addends));
  }
  virtual Csr multiplyAddDeferredInto(const Csr& A0, const Csr& B0, const Csr& A, const Csr& B,
                                      std::vector<Csr>&& addends, BlockSink& sink) {
    addends.push_back(multiply(A0, B0));
    return multiplyAddInto(A, B, std::move(addends), sink);
  }
  // Copies C's entries into sink and returns C without them; rows_sorted: C's rows are sorted.
  static Csr moveIntoSink(Csr&& C, BlockSink& sink, bool rows_sorted);

  // A plan's steps. The first execute forms the block with multiply/multiplyAdd (structure and
  // values); symbolic() keeps its structure in the handle, and later executes only run numeric():
  // values of A*B added into values, laid out as the handle's pattern (which must contain the
  // product's) with each row's entries in the order of cols (null: the pattern's order), or
  // written over them (assign: a first round). The host kernels share one numeric step
  // (numericMultiplyInto).
  virtual std::unique_ptr<KernelHandle> makeHandle() const { return std::make_unique<KernelHandle>(); }
  virtual void symbolic(const Csr& C, KernelHandle& h) const {
    h.pattern.nrows = C.nrows;
    h.pattern.ncols = C.ncols;
    h.pattern.rowptr = C.rowptr;
    h.pattern.col = C.col;
    h.has_pattern = true;
  }
  virtual void numeric(const Csr& A, const Csr& B, KernelHandle& h, double* values, const int* cols = nullptr,
                       bool assign = false);
};

// The local kernels by name: "gustavson" | "kokkoskernels" | "reference", and "cusparse" in CUDA
// builds. Throws std::invalid_argument on names this build does not know (the message lists the
// ones it does); a known kernel this rank cannot run throws from its own constructor
// (DeviceUnavailable for "cusparse" without a GPU).
std::unique_ptr<LocalSpGEMM> makeLocalSpGEMM(const std::string& name);
// The names this build knows, in the order they registered (the default, "gustavson", first).
std::vector<std::string> localKernelNames();
// Whether this rank can run the named kernel now (false for "cusparse" where it sees no GPU, and
// for names this build does not know).
bool localKernelAvailable(const std::string& name);

// A kernel as the registry (KernelRegistry.cpp) holds it. Each kernel's file registers its own
// entry from a registerXxxKernel() function that src/CMakeLists.txt lists (see
// BuiltinRegistrations.cpp.in); available() is asked each time, so it may look at the hardware.
struct LocalKernelEntry {
  std::string name;
  std::function<bool()> available;
  std::function<std::unique_ptr<LocalSpGEMM>()> make;
};
// Adds a kernel, or replaces the one of the same name. Not thread-safe: register before multiplying.
void registerLocalKernel(LocalKernelEntry entry);

// Plain Gustavson with a dense accumulator; rows sorted. The serial reference.
Csr referenceMultiply(const Csr& A, const Csr& B);

// Gustavson with sorted output rows (the "gustavson" backend).
Csr gustavsonMultiply(const Csr& A, const Csr& B);
// A * B + sum of sorted addends in one accumulator pass (the backend's multiplyAdd).
Csr gustavsonMultiplyAdd(const Csr& A, const Csr& B, std::vector<Csr>&& addends);
// The same, entries written into sink as the rows are finished (the backend's multiplyAddInto).
Csr gustavsonMultiplyAddInto(const Csr& A, const Csr& B, std::vector<Csr>&& addends, BlockSink& sink);
// The same with a deferred product A0 * B0 (LocalSpGEMM::multiplyAddDeferred); sink may be null.
Csr gustavsonMultiplyAddDeferred(const Csr& A0, const Csr& B0, const Csr& A, const Csr& B, std::vector<Csr>&& addends,
                                 BlockSink* sink);

// C += A * B on a known structure: C's pattern must contain the product's (a plan's symbolic
// result); only values are computed. dense is scratch of B.ncols doubles, kept between calls.
void numericMultiplyInto(const Csr& A, const Csr& B, Csr& C, std::vector<double>& dense);
// Same, with the pattern (rowptr, col; its val unused) and the values apart: values[q] belongs to
// the entry whose column is cols[q] (cols: null for the pattern's own order, else the pattern's
// columns reordered within each row, as a caller's final arrays keep them). assign: values are
// overwritten (entries this product does not reach become 0) instead of added to, so a first
// round needs no zeroing pass before it; the same bits as adding into zeros.
void numericMultiplyInto(const Csr& A, const Csr& B, const Csr& pattern, double* values, const int* cols,
                         std::vector<double>& dense, bool assign = false);

// Optional progress hook: while a local multiply runs, communication of later rounds is in flight,
// and MPI moves a rendezvous message or a TCP fragment only when some MPI call runs. The host
// Gustavson kernels call the hook of the calling thread between rows, about every
// kProgressEveryWork multiply-adds, so a caller can test its requests (MPI_Testall) mid-multiply.
// No hook (the default) costs one branch per row. Results never depend on it.
class LocalProgressHook {
 public:
  static constexpr std::int64_t kProgressEveryWork = 1 << 16;
  // kProgressEveryWork, or TRIDENT_PROGRESS_EVERY_WORK when set (tests use 1: a call after every row).
  static std::int64_t everyWork();
  // Installs hook for this thread until the object goes away (nesting restores the outer one).
  explicit LocalProgressHook(std::function<void()> hook) : hook_(std::move(hook)), outer_(current()) {
    current() = &hook_;
  }
  ~LocalProgressHook() { current() = outer_; }
  LocalProgressHook(const LocalProgressHook&) = delete;
  LocalProgressHook& operator=(const LocalProgressHook&) = delete;
  static const std::function<void()>*& current() {
    static thread_local const std::function<void()>* hook = nullptr;
    return hook;
  }

 private:
  std::function<void()> hook_;
  const std::function<void()>* outer_;
};

// Counts work inside a kernel and calls the installed hook every kProgressEveryWork of it.
class ProgressTicker {
 public:
  ProgressTicker() : hook_(LocalProgressHook::current()), budget_(hook_ ? LocalProgressHook::everyWork() : 0) {}
  void tick(std::int64_t work) {
    if (!hook_) return;
    budget_ -= work + 1;
    if (budget_ <= 0) {
      budget_ = LocalProgressHook::everyWork();
      (*hook_)();
    }
  }

 private:
  const std::function<void()>* hook_;
  std::int64_t budget_;
};

// Multiply-adds of A*B: sum over A's entries (r,c) of nnz(B row c).
std::uint64_t multiplyFlops(const Csr& A, const Csr& B);

// Sum of equally shaped blocks, structure = union of their structures (no entry dropped, even if
// it sums to zero). One pass over all parts: C is built once, not once per round. Rows come out
// sorted by column; a single part that is already sorted (parts_sorted) is moved, not copied.
Csr sumBlocks(std::vector<Csr>&& parts, std::int64_t nrows, std::int64_t ncols, bool parts_sorted);

}  // namespace Trident
