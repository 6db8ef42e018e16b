# The GPU backend's toolchain (TRIDENT_ENABLE_CUDA=ON, and the core-only GPU build of
# test/cuda/standalone): nvcc for the .cu files, cudart and cuSPARSE from find_package(CUDAToolkit),
# NCCL found by header and library (in the toolkit's folders, NCCL_ROOT, or the system's).
# Included at file scope (enable_language must not run inside a function).
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS "/usr/local/cuda/bin/nvcc")
  set(CMAKE_CUDA_COMPILER "/usr/local/cuda/bin/nvcc" CACHE FILEPATH "CUDA compiler")
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(FATAL_ERROR "TRIDENT_ENABLE_CUDA: no CUDA compiler (nvcc) found; set CMAKE_CUDA_COMPILER or CUDACXX, "
                      "or put the toolkit's bin/ on PATH")
endif()
# No GPU needs to be present at configure time: build for A100 and H100/H200 unless told otherwise
# (gpu-check.sh passes the GPU's compute capability on the GPU machine).
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80 90 CACHE STRING "GPU architectures of the .cu files")
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

find_path(TRIDENT_NCCL_INCLUDE_DIR nccl.h
          HINTS ${NCCL_ROOT} $ENV{NCCL_ROOT} ${CUDAToolkit_INCLUDE_DIRS} "${CUDAToolkit_LIBRARY_ROOT}"
          PATH_SUFFIXES include)
find_library(TRIDENT_NCCL_LIBRARY nccl
             HINTS ${NCCL_ROOT} $ENV{NCCL_ROOT} ${CUDAToolkit_LIBRARY_DIR} "${CUDAToolkit_LIBRARY_ROOT}"
             PATH_SUFFIXES lib lib64)
if(NOT TRIDENT_NCCL_INCLUDE_DIR OR NOT TRIDENT_NCCL_LIBRARY)
  message(FATAL_ERROR "TRIDENT_ENABLE_CUDA: NCCL not found (nccl.h: ${TRIDENT_NCCL_INCLUDE_DIR}, libnccl: "
                      "${TRIDENT_NCCL_LIBRARY}); install NCCL or set NCCL_ROOT to its prefix")
endif()
message(STATUS "Trident: CUDA ${CUDAToolkit_VERSION} (${CMAKE_CUDA_COMPILER}, architectures "
               "${CMAKE_CUDA_ARCHITECTURES}), NCCL ${TRIDENT_NCCL_LIBRARY}")
