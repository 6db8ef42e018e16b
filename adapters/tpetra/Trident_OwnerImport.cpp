#include "Trident_OwnerImport.hpp"

#include <algorithm>
#include <stdexcept>

#include <trident/transport/SparseExchange.hpp>

namespace Trident {
namespace tpetra {
namespace {
constexpr int kTagBits = 7311, kTagLids = 7312;
}

Teuchos::RCP<const import_type> importFromOwners(const Teuchos::RCP<const map_type>& domainMap,
                                                 const Teuchos::RCP<const map_type>& colMap,
                                                 const std::vector<int>& remotePids,
                                                 const std::vector<LO>& remoteOwnerLids, const MapPositions& domainPos,
                                                 MPI_Comm comm) {
  if (remotePids.size() != remoteOwnerLids.size())
    throw std::logic_error("Trident: importFromOwners: owners and local indices differ in length");
  int me = 0;
  MPI_Comm_rank(comm, &me);
  std::vector<SparseMessage> out;
  for (std::size_t b = 0; b < remotePids.size();) {
    const int o = remotePids[b];
    std::size_t e = b;
    bool ascending = true;
    for (; e < remotePids.size() && remotePids[e] == o; ++e)
      if (e > b && remoteOwnerLids[e] <= remoteOwnerLids[e - 1]) ascending = false;
    if (o == me) throw std::logic_error("Trident: importFromOwners: a remote column owned by this rank");
    const std::int64_t owned = domainPos.begin(o + 1) - domainPos.begin(o);
    const std::size_t bitWords = static_cast<std::size_t>((owned + 31) / 32);
    SparseMessage m;
    m.rank = o;
    // A bitmap lists the indices ascending: only then is it the order the receiver must export in.
    if (ascending && bitWords < e - b) {
      m.tag = kTagBits;
      m.words.assign(bitWords, 0u);
      for (std::size_t t = b; t < e; ++t)
        m.words[static_cast<std::size_t>(remoteOwnerLids[t]) / 32] |= 1u << (remoteOwnerLids[t] % 32);
    } else {
      m.tag = kTagLids;
      m.words.assign(remoteOwnerLids.begin() + b, remoteOwnerLids.begin() + e);
    }
    out.push_back(std::move(m));
    b = e;
  }
  const std::vector<SparseMessage> in = sparseExchange(out, {kTagBits, kTagLids}, comm);
  out.clear();

  const LO owned = static_cast<LO>(Compat::localNumElements(*domainMap));
  Teuchos::Array<LO> exportLids;
  Teuchos::Array<int> exportPids;
  for (const SparseMessage& m : in) {
    if (m.tag == kTagBits) {
      if (m.words.size() != static_cast<std::size_t>((owned + 31) / 32))
        throw std::logic_error("Trident: importFromOwners: a bitmap that does not span this rank's columns");
      for (std::size_t w = 0; w < m.words.size(); ++w)
        for (std::uint32_t bits = m.words[w]; bits; bits &= bits - 1) {
          exportLids.push_back(static_cast<LO>(32 * w + static_cast<std::size_t>(__builtin_ctz(bits))));
          exportPids.push_back(m.rank);
        }
    } else {
      for (std::uint32_t lid : m.words) {
        if (lid >= static_cast<std::uint32_t>(owned))
          throw std::logic_error("Trident: importFromOwners: a requested column this rank does not own");
        exportLids.push_back(static_cast<LO>(lid));
        exportPids.push_back(m.rank);
      }
    }
  }
  Teuchos::Array<int> pids(remotePids.begin(), remotePids.end());
  return Teuchos::rcp(new import_type(domainMap, colMap, pids(), exportLids(), exportPids()));
}

}  // namespace tpetra
}  // namespace Trident
