#include "trident/transport/TileMetadata.hpp"

#include <stdexcept>

#include "trident/core/BigCount.hpp"

namespace Trident {

namespace {
// Two tags at the top of comm's range: the bigcount collectives use the very top, GiFetch counts
// up from 0, and this exchange completes before either runs on the communicator again.
void exchangeTags(MPI_Comm comm, int* head, int* words) {
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag);
  const int top = flag ? *ub : 32767;
  *head = top - 1;
  *words = top - 2;
}

// exchangeWithEveryPeer's messages (P > 1): head already ends with the word count.
void postAndReceive(const std::vector<std::int64_t>& head, const std::vector<int>& words, MPI_Comm comm,
                    std::vector<std::vector<std::int64_t>>* heads, std::vector<std::vector<int>>* words_of) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  const std::size_t hn = head.size();
  int tagHead = 0, tagWords = 0;
  exchangeTags(comm, &tagHead, &tagWords);
  std::vector<MPI_Request> sends, headRecvs;
  std::vector<int> peerOfReq, pending(P, 0);  // a header request's rank; its header's requests not done
  for (int t = 1; t < P; ++t) {  // receives first, starting after me (not everyone at rank 0)
    const int q = (me + t) % P;
    pending[q] = static_cast<int>(bigcount::irecv((*heads)[q].data(), hn, MPI_INT64_T, q, tagHead, comm, headRecvs));
    peerOfReq.resize(headRecvs.size(), q);
  }
  for (int t = 1; t < P; ++t) {
    const int q = (me + P - t) % P;
    bigcount::isend(head.data(), hn, MPI_INT64_T, q, tagHead, comm, sends);
    bigcount::isend(words.data(), words.size(), MPI_INT, q, tagWords, comm, sends);
  }
  // Each rank's words are received as soon as its header says how many (they are on their way).
  std::vector<MPI_Request> wordRecvs;
  std::vector<int> done(headRecvs.size());
  int left = static_cast<int>(headRecvs.size());
  while (left > 0) {
    int n = 0;
    MPI_Waitsome(static_cast<int>(headRecvs.size()), headRecvs.data(), &n, done.data(), MPI_STATUSES_IGNORE);
    if (n == MPI_UNDEFINED) break;
    left -= n;
    for (int d = 0; d < n; ++d) {
      const int q = peerOfReq[done[d]];
      if (--pending[q] > 0) continue;
      const std::int64_t count = (*heads)[q][hn - 1];
      if (count < 0) throw std::logic_error("Trident: tile metadata: a negative word count");
      (*words_of)[q].resize(static_cast<std::size_t>(count));
      bigcount::irecv((*words_of)[q].data(), static_cast<std::size_t>(count), MPI_INT, q, tagWords, comm, wordRecvs);
    }
  }
  MPI_Waitall(static_cast<int>(wordRecvs.size()), wordRecvs.data(), MPI_STATUSES_IGNORE);
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
}

// Every rank's packet from every rank of comm, in one round of direct messages, all posted before
// any is waited for. A packet is a fixed-length header (the same length on every rank) and words
// whose count travels as the header's last entry. (*heads)[q] / (*words_of)[q]: rank q's; mine
// copied.
void exchangeWithEveryPeer(std::vector<std::int64_t> head, const std::vector<int>& words, MPI_Comm comm,
                           std::vector<std::vector<std::int64_t>>* heads, std::vector<std::vector<int>>* words_of) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  head.push_back(static_cast<std::int64_t>(words.size()));
  const std::size_t hn = head.size();
  heads->assign(P, std::vector<std::int64_t>(hn, 0));
  words_of->assign(P, {});
  (*heads)[me] = head;
  (*words_of)[me] = words;
  if (P > 1) postAndReceive(head, words, comm, heads, words_of);
  for (auto& h : *heads) h.pop_back();
}

}  // namespace

TileMetadata gatherTileMetadata(const Layout& L, const OwnedTiles& tiles, int my_k, MPI_Comm peers,
                                const std::vector<int>& unit_of_peer, MPI_Comm partners, bool needed_rows) {
  const TileGrid& g = L.grid;
  int npeers = 1;
  MPI_Comm_size(peers, &npeers);
  bool fits = static_cast<int>(unit_of_peer.size()) == npeers && (!needed_rows || npeers == g.units());
  for (int q = 0; q < npeers && fits && needed_rows; ++q) fits = unit_of_peer[q] == q;
  if (!fits)
    throw std::logic_error("Trident: tile metadata: peers that are not one rank per unit, ranked by unit");
  TileMetadata out;
  if (needed_rows) out.needed = std::make_unique<NeededRows>(L, tiles, my_k, partners);  // (1)

  // (2) My sizes (per round s: A(i,s)'s nnz, B(s,j)'s nnz and stored rows, where I hold them) and
  // my needed-rows portions, to every peer.
  const int R = g.rounds;
  std::vector<std::int64_t> head(3 * static_cast<std::size_t>(R), 0);
  for (int s = 0; s < R; ++s) {
    if (tiles.owns_a[s]) head[s] = tiles.a[s].nnz();
    if (tiles.owns_b[s]) {
      head[R + s] = tiles.b[s].nnz();
      head[2 * R + s] = tiles.b[s].nrows;
    }
  }
  static const std::vector<int> kNoWords;
  if (out.needed) head.insert(head.end(), out.needed->portions().meta.begin(), out.needed->portions().meta.end());
  std::vector<std::vector<std::int64_t>> heads;
  std::vector<std::vector<int>> words;
  exchangeWithEveryPeer(std::move(head), out.needed ? out.needed->portions().wire : kNoWords, peers, &heads, &words);

  NnzTable& T = out.nnz;
  T = zeroTable(L);
  std::vector<PackedLists> portions(out.needed ? g.units() : 0);
  for (int q = 0; q < npeers; ++q) {
    const std::vector<std::int64_t>& h = heads[q];
    const int u = unit_of_peer[q], i = g.unit_row(u), j = g.unit_col(u);
    for (int s = 0; s < R; ++s) {
      T.a[(static_cast<std::size_t>(i) * R + s) * L.slices + my_k] += h[s];
      T.b[(static_cast<std::size_t>(s) * g.cols + j) * L.slices + my_k] += h[R + s];
      T.b_rows[(static_cast<std::size_t>(s) * g.cols + j) * L.slices + my_k] += h[2 * R + s];
    }
    if (out.needed) {
      portions[u].meta.assign(h.begin() + 3 * R, h.end());
      portions[u].wire = std::move(words[q]);
    }
  }
  if (out.needed) out.needed->setPortions(portions);

  // (3) The partners' slices.
  sumOver(T, partners);
  return out;
}

}  // namespace Trident
