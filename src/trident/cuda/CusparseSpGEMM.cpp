#include "trident/cuda/CusparseSpGEMM.hpp"

#include <stdexcept>

#include "trident/cuda/CudaCheck.hpp"
#include "trident/cuda/DeviceKernels.hpp"

namespace Trident {

namespace {
// cuSPARSE reads a null buffer as "tell me the size": never hand it one when the size was 0.
std::size_t atLeastOne(std::size_t n) { return n ? n : 1; }
constexpr cusparseOperation_t kOp = CUSPARSE_OPERATION_NON_TRANSPOSE;
constexpr cusparseSpGEMMAlg_t kAlg = CUSPARSE_SPGEMM_DEFAULT;
}  // namespace

struct CusparseSpGEMM::Handle {
  cusparseHandle_t h = nullptr;
  Handle() { TRIDENT_CUDA_CHECK(cusparseCreate(&h)); }
  ~Handle() {
    if (h) cusparseDestroy(h);
  }
};

struct CusparseProduct::State {
  const DeviceCsr* A = nullptr;
  const DeviceCsr* B = nullptr;
  DeviceCsr C;
  bool trivial = false;  // an empty operand: C is empty, cuSPARSE never called
  cusparseConstSpMatDescr_t a = nullptr, b = nullptr;
  cusparseSpMatDescr_t c = nullptr;
  cusparseSpGEMMDescr_t desc = nullptr;
  Buffer<char> buffer4, buffer5;  // cuSPARSE keeps state in them between copy and compute
  // When cuSPARSE's rows are not sorted, C's arrays are cuSPARSE's through this permutation.
  bool permuted = false;
  Buffer<int> perm, raw_col;
  Buffer<double> raw_val;

  ~State() {
    if (desc) cusparseSpGEMM_destroyDescr(desc);
    if (c) cusparseDestroySpMat(c);
    if (b) cusparseDestroySpMat(b);
    if (a) cusparseDestroySpMat(a);
  }
};

CusparseProduct::CusparseProduct(std::unique_ptr<State> s) : s_(std::move(s)) {}
CusparseProduct::~CusparseProduct() = default;
const DeviceCsr& CusparseProduct::C() const { return s_->C; }
DeviceCsr CusparseProduct::takeC() { return std::move(s_->C); }

CusparseSpGEMM::CusparseSpGEMM(MemoryResource& mem) : mem_(mem) {
  requireCudaDevice();
  if (mem.space() != MemorySpace::Device)
    throw std::invalid_argument("Trident CusparseSpGEMM: needs a device memory resource");
  handle_ = std::make_unique<Handle>();
}

CusparseSpGEMM::~CusparseSpGEMM() = default;

std::unique_ptr<CusparseProduct> CusparseSpGEMM::symbolic(const DeviceCsr& A, const DeviceCsr& B) {
  if (A.ncols != B.nrows) throw std::invalid_argument("Trident CusparseSpGEMM: A.ncols != B.nrows");
  auto s = std::make_unique<CusparseProduct::State>();
  s->A = &A;
  s->B = &B;
  if (A.nrows == 0 || B.ncols == 0 || A.nnz == 0 || B.nnz == 0) {
    // cuSPARSE rejects some empty shapes; the product is empty anyway.
    s->trivial = true;
    s->C = allocateDeviceCsr(mem_, A.nrows, B.ncols, 0);
    return std::unique_ptr<CusparseProduct>(new CusparseProduct(std::move(s)));
  }
  if (A.space() != MemorySpace::Device || B.space() != MemorySpace::Device)
    throw std::invalid_argument("Trident CusparseSpGEMM: operands must be in device memory");
  cusparseHandle_t h = handle_->h;
  TRIDENT_CUDA_CHECK(cusparseCreateConstCsr(&s->a, A.nrows, A.ncols, A.nnz, A.rowptr.data(), A.col.data(),
                                            A.val.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  TRIDENT_CUDA_CHECK(cusparseCreateConstCsr(&s->b, B.nrows, B.ncols, B.nnz, B.rowptr.data(), B.col.data(),
                                            B.val.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  // C's row offsets are written by the nnz step, so they are allocated before it.
  Buffer<int> c_rowptr(mem_, static_cast<std::size_t>(A.nrows + 1));
  TRIDENT_CUDA_CHECK(cusparseCreateCsr(&s->c, A.nrows, B.ncols, 0, c_rowptr.data(), nullptr, nullptr,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                       CUDA_R_64F));
  TRIDENT_CUDA_CHECK(cusparseSpGEMM_createDescr(&s->desc));

  std::size_t size1 = 0;
  TRIDENT_CUDA_CHECK(cusparseSpGEMMreuse_workEstimation(h, kOp, kOp, s->a, s->b, s->c, kAlg, s->desc, &size1, nullptr));
  Buffer<char> buffer1(mem_, atLeastOne(size1));
  TRIDENT_CUDA_CHECK(
      cusparseSpGEMMreuse_workEstimation(h, kOp, kOp, s->a, s->b, s->c, kAlg, s->desc, &size1, buffer1.data()));
  std::size_t size2 = 0, size3 = 0, size4 = 0;
  TRIDENT_CUDA_CHECK(cusparseSpGEMMreuse_nnz(h, kOp, kOp, s->a, s->b, s->c, kAlg, s->desc, &size2, nullptr, &size3,
                                             nullptr, &size4, nullptr));
  Buffer<char> buffer2(mem_, atLeastOne(size2)), buffer3(mem_, atLeastOne(size3));
  s->buffer4 = Buffer<char>(mem_, atLeastOne(size4));
  TRIDENT_CUDA_CHECK(cusparseSpGEMMreuse_nnz(h, kOp, kOp, s->a, s->b, s->c, kAlg, s->desc, &size2, buffer2.data(),
                                             &size3, buffer3.data(), &size4, s->buffer4.data()));
  buffer1 = Buffer<char>();
  buffer2 = Buffer<char>();

  std::int64_t rows = 0, cols = 0, nnz = 0;
  TRIDENT_CUDA_CHECK(cusparseSpMatGetSize(s->c, &rows, &cols, &nnz));
  checkDeviceIndexRange(rows, cols, nnz);
  s->C.nrows = rows;
  s->C.ncols = cols;
  s->C.nnz = nnz;
  s->C.rowptr = std::move(c_rowptr);
  s->raw_col = Buffer<int>(mem_, static_cast<std::size_t>(nnz));
  s->raw_val = Buffer<double>(mem_, static_cast<std::size_t>(nnz));
  TRIDENT_CUDA_CHECK(cusparseCsrSetPointers(s->c, s->C.rowptr.data(), s->raw_col.data(), s->raw_val.data()));
  std::size_t size5 = 0;
  TRIDENT_CUDA_CHECK(cusparseSpGEMMreuse_copy(h, kOp, kOp, s->a, s->b, s->c, kAlg, s->desc, &size5, nullptr));
  s->buffer5 = Buffer<char>(mem_, atLeastOne(size5));
  TRIDENT_CUDA_CHECK(cusparseSpGEMMreuse_copy(h, kOp, kOp, s->a, s->b, s->c, kAlg, s->desc, &size5, s->buffer5.data()));
  buffer3 = Buffer<char>();

  // Trident's blocks have sorted rows; put cuSPARSE's order right once, keep the permutation.
  Buffer<int> sorted_col(mem_, static_cast<std::size_t>(nnz));
  s->permuted = sortedRowOrder(s->C, s->raw_col.data(), sorted_col.data(), s->perm);
  if (s->permuted) {
    s->C.col = std::move(sorted_col);
    s->C.val = Buffer<double>(mem_, static_cast<std::size_t>(nnz));
  } else {
    s->C.col = std::move(s->raw_col);
    s->C.val = std::move(s->raw_val);  // the descriptor keeps pointing at the same memory
  }
  auto product = std::unique_ptr<CusparseProduct>(new CusparseProduct(std::move(s)));
  numeric(*product);
  return product;
}

void CusparseSpGEMM::numeric(CusparseProduct& product) {
  CusparseProduct::State& s = *product.s_;
  if (s.trivial) return;
  // After takeC() the descriptor points at memory the caller owns now.
  if (s.C.rowptr.data() == nullptr)
    throw std::logic_error("Trident CusparseSpGEMM: numeric() after takeC()");
  const double alpha = 1.0, beta = 0.0;
  TRIDENT_CUDA_CHECK(cusparseSpGEMMreuse_compute(handle_->h, kOp, kOp, &alpha, s.a, s.b, &beta, s.c, CUDA_R_64F,
                                                 kAlg, s.desc));
  if (s.permuted) gatherValues(s.C.val.data(), s.raw_val.data(), s.perm.data(), s.C.nnz);
  TRIDENT_CUDA_CHECK(cudaDeviceSynchronize());
}

DeviceCsr CusparseSpGEMM::multiply(const DeviceCsr& A, const DeviceCsr& B) { return symbolic(A, B)->takeC(); }

DeviceCsr CusparseSpGEMM::multiplyAdd(const DeviceCsr& A, const DeviceCsr& B,
                                      const std::vector<const DeviceCsr*>& addends) {
  DeviceCsr product = multiply(A, B);
  if (addends.empty()) return product;
  std::vector<const DeviceCsr*> parts(addends);
  parts.push_back(&product);
  return sumDeviceBlocks(parts, A.nrows, B.ncols, mem_);
}

}  // namespace Trident
