// The "kokkoskernels" local kernel: KokkosKernels SpGEMM (symbolic, then numeric) over unmanaged
// views of Trident's CSR arrays (no copies in), on a host execution space given as a template
// parameter. Its registration (end of this file) instantiates it on Kokkos::Serial, the only one
// Debian's Kokkos has; results depend on the space only through KokkosKernels' accumulation.
#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spgemm.hpp>
#include <stdexcept>

#include "trident/local/LocalSpGEMM.hpp"

namespace Trident {

namespace {

using mem = Kokkos::HostSpace;
template <class T>
using uview = Kokkos::View<T*, mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

static_assert(sizeof(std::size_t) == sizeof(std::int64_t), "row offsets are shared as size_t");

template <class Exec>
class KokkosKernelsKernel final : public LocalSpGEMM {
  using handle_t = KokkosKernels::Experimental::KokkosKernelsHandle<std::size_t, int, double, Exec, mem, mem>;

 public:
  std::string name() const override { return "kokkoskernels"; }

  Csr multiply(const Csr& A, const Csr& B) override {
    if (A.ncols != B.nrows) throw std::invalid_argument("KokkosKernels SpGEMM: A.ncols != B.nrows");
    if (!Kokkos::is_initialized())
      throw std::logic_error("Trident: Kokkos is not initialized (create a Tpetra::ScopeGuard first)");
    Csr C(A.nrows, B.ncols);
    // KokkosKernels does not accept empty operands everywhere; the product is empty anyway.
    if (A.nrows == 0 || A.nnz() == 0 || B.nnz() == 0 || B.ncols == 0) return C;

    uview<const std::size_t> arow(reinterpret_cast<const std::size_t*>(A.rowptr.data()), A.rowptr.size());
    uview<const int> acol(A.col.data(), A.col.size());
    uview<const double> aval(A.val.data(), A.val.size());
    uview<const std::size_t> brow(reinterpret_cast<const std::size_t*>(B.rowptr.data()), B.rowptr.size());
    uview<const int> bcol(B.col.data(), B.col.size());
    uview<const double> bval(B.val.data(), B.val.size());
    uview<std::size_t> crow(reinterpret_cast<std::size_t*>(C.rowptr.data()), C.rowptr.size());

    handle_t kh;
    kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
    const int m = static_cast<int>(A.nrows), n = static_cast<int>(B.nrows), k = static_cast<int>(B.ncols);
    KokkosSparse::Experimental::spgemm_symbolic(&kh, m, n, k, arow, acol, false, brow, bcol, false, crow);
    const std::size_t cnnz = kh.get_spgemm_handle()->get_c_nnz();
    C.col.resize(cnnz);
    C.val.resize(cnnz);
    uview<int> ccol(C.col.data(), cnnz);
    uview<double> cval(C.val.data(), cnnz);
    KokkosSparse::Experimental::spgemm_numeric(&kh, m, n, k, arow, acol, aval, false, brow, bcol, bval, false,
                                               crow, ccol, cval);
    kh.destroy_spgemm_handle();
    return C;
  }
};

}  // namespace

// Listed in src/CMakeLists.txt (TRIDENT_LOCAL_KERNEL_REGISTRARS).
void registerKokkosKernelsKernel() {
  registerLocalKernel({"kokkoskernels", [] { return true; },
                       [] { return std::make_unique<KokkosKernelsKernel<Kokkos::Serial>>(); }});
}

}  // namespace Trident
