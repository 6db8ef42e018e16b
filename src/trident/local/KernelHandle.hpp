#pragma once
// What a local kernel keeps for a plan between executions (same patterns of A and B, new values):
// the symbolic result, the pattern of the rank's block of C with all rounds summed, and the
// numeric step's scratch. Made by the kernel (LocalSpGEMM::makeHandle), so a kernel with more
// state (a device one: its library handle, C's structure on the device) extends it.
#include <vector>

#include "trident/local/Csr.hpp"

namespace Trident {

struct KernelHandle {
  virtual ~KernelHandle() = default;
  bool has_pattern = false;
  Csr pattern;                  // rowptr/col of the block of C; val unused
  std::vector<double> scratch;  // the numeric step's dense row accumulator, kept between calls
};

}  // namespace Trident
