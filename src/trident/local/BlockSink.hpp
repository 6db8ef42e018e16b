#pragma once
// Where a local kernel writes the entries of the last product it forms, when the caller has a
// better place for them than arrays of its own: the Tpetra adapter hands C's final arrays (the
// Kokkos views Tpetra keeps), so C's entries are written once, by the kernel, instead of being
// copied out of the kernel's block afterwards (at P = 1 that copy and its page faults were most of
// the out phase). The kernel still returns the block's row offsets in its Csr; its col/val stay
// empty and the entries are sink.col()[0 .. nnz), sink.val()[0 .. nnz).
#include <cstddef>

namespace Trident {

class BlockSink {
 public:
  virtual ~BlockSink() = default;
  // Room for at least `capacity` entries; the first `keep` entries written so far are preserved.
  virtual void reserve(std::size_t capacity, std::size_t keep) = 0;
  virtual std::size_t capacity() const = 0;
  virtual int* col() = 0;
  virtual double* val() = 0;
  // Set by the kernel once the entries are in the sink (a caller may pass a sink that a
  // numeric-only run never uses).
  bool filled = false;
  // Set with `filled` when every row's columns ascend (the kernel sorts rows): the caller then
  // need not check.
  bool rows_sorted = false;
};

}  // namespace Trident
