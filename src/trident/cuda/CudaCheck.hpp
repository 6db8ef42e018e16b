#pragma once
// Turns CUDA, cuSPARSE and NCCL status codes into exceptions naming the call and the reason.
// Internal to trident_cuda (includes the CUDA headers, which the public headers avoid).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <new>
#include <stdexcept>
#include <string>

namespace Trident::cuda_detail {

inline void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  if (e == cudaErrorMemoryAllocation) throw std::bad_alloc();
  throw std::runtime_error(std::string("Trident CUDA: ") + what + ": " + cudaGetErrorString(e));
}

inline void check(cusparseStatus_t s, const char* what) {
  if (s == CUSPARSE_STATUS_SUCCESS) return;
  throw std::runtime_error(std::string("Trident cuSPARSE: ") + what + ": " + cusparseGetErrorString(s));
}

}  // namespace Trident::cuda_detail

#define TRIDENT_CUDA_CHECK(call) ::Trident::cuda_detail::check((call), #call)
