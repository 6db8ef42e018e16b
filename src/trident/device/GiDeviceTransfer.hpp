#pragma once
// Gi transport of device-resident blocks: MPI point-to-point between groups. When the MPI library
// is CUDA-aware the device buffers go to MPI as they are; otherwise every message is staged
// through a host buffer (device -> host before the send, host -> device after the receive).
// Written against MemoryResource, so both paths run (and are tested) on host memory too.
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "trident/device/DeviceCsr.hpp"

namespace Trident {

// True when this MPI passes device pointers itself: compile-time MPIX_CUDA_AWARE_SUPPORT and the
// run-time MPIX_Query_cuda_support() of Open MPI's mpi-ext.h (false where the header lacks them).
// TRIDENT_GI_DEVICE_DIRECT=0 or 1 in the environment overrides the answer.
bool mpiIsCudaAware();

class GiDeviceTransfer {
 public:
  // direct: hand the blocks' buffers to MPI (host memory, or device memory with a CUDA-aware
  // MPI); otherwise stage through host buffers.
  GiDeviceTransfer(MPI_Comm comm, bool direct) : comm_(comm), direct_(direct) {}
  ~GiDeviceTransfer();
  GiDeviceTransfer(const GiDeviceTransfer&) = delete;
  GiDeviceTransfer& operator=(const GiDeviceTransfer&) = delete;

  // Three messages (row offsets 1..nrows, columns, values) with tags tag, tag+1, tag+2. The block
  // must stay alive and unchanged until waitAll().
  void postSend(const DeviceCsr& block, int peer, int tag);
  // block: allocated with the sender's shape and entry count (known from the pre-loop exchange).
  void postReceive(DeviceCsr& block, int peer, int tag);
  // Completes every posted transfer; staged receives land in their blocks before it returns.
  void waitAll();

  bool direct() const { return direct_; }
  std::uint64_t bytesSent() const { return sent_; }
  std::uint64_t bytesReceived() const { return received_; }

 private:
  struct Staged {
    DeviceCsr* target = nullptr;  // null for sends
    std::vector<int> rowptr, col;
    std::vector<double> val;
  };
  MPI_Comm comm_;
  bool direct_;
  std::vector<MPI_Request> reqs_;
  std::deque<Staged> staged_;  // deque: the buffers MPI holds pointers to never move
  std::uint64_t sent_ = 0, received_ = 0;
};

}  // namespace Trident
