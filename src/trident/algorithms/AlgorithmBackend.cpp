// The algorithms' overloads that name their backend in the options: the backend is made once and
// kept in the algorithm state, so a plan keeps its kernel (and the kernel's handle) between runs.
#include "trident/algorithms/Algorithms.hpp"

namespace Trident {

namespace {

Backend& backendFor(const AlgorithmOptions& opt, AlgorithmState* state, std::unique_ptr<Backend>& own) {
  std::unique_ptr<Backend>& slot = state ? state->backend : own;
  // A state serves one plan, whose options do not change: its backend is made once.
  if (!slot) slot = makeBackend(opt.device, opt.local_kernel);
  return *slot;
}

}  // namespace

Csr tridentMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, const AlgorithmOptions& opt,
                    MultiplyStats& stats, AlgorithmState* state) {
  std::unique_ptr<Backend> own;
  return tridentMultiply(L, tiles, topo, backendFor(opt, state, own), opt, stats, state);
}

Csr summaMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, const AlgorithmOptions& opt,
                  MultiplyStats& stats, AlgorithmState* state) {
  std::unique_ptr<Backend> own;
  return summaMultiply(L, tiles, topo, backendFor(opt, state, own), opt, stats, state);
}

}  // namespace Trident
