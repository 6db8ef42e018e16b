#include "trident/partition/Layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace Trident {

int Layout::find(const std::vector<std::int64_t>& bounds, std::int64_t p) {
  return static_cast<int>(std::upper_bound(bounds.begin(), bounds.end(), p) - bounds.begin()) - 1;
}

int Layout::a_slice_of(int i, std::int64_t row) const {
  auto b = a_slice_bounds.begin() + i * (slices + 1);
  return static_cast<int>(std::upper_bound(b, b + slices + 1, row) - b) - 1;
}

int Layout::b_slice_of(int s, std::int64_t row) const {
  auto b = b_slice_bounds.begin() + s * (slices + 1);
  return static_cast<int>(std::upper_bound(b, b + slices + 1, row) - b) - 1;
}

std::vector<std::int64_t> evenBounds(std::int64_t n, int parts) {
  std::vector<std::int64_t> b(parts + 1);
  for (int t = 0; t <= parts; ++t) b[t] = n * t / parts;
  return b;
}

namespace {

// The rows of each block gathered into at most 128 * slices bins (a global histogram of weight,
// one Allreduce), so that the cost does not grow with the matrix; blocks with fewer rows than that
// are binned row by row. 128 bins per slice place each cut within 1/128 of a slice's rows: finer
// bins did not balance better, and the histogram is reduced over the whole world, where on a
// Gi-bound cluster its size, not its latency, was the cost (4 groups x 4 ranks: 128 kB per
// Allreduce with 1024).
class RowHistogram {
 public:
  RowHistogram(const std::vector<std::int64_t>& bounds, int slices, const std::vector<std::int64_t>& pos,
               const std::vector<std::int64_t>& nnz, MPI_Comm comm);
  int blocks() const { return static_cast<int>(bounds_.size()) - 1; }
  double blockWeight(int b) const;
  // Cuts the bins of blocks [b0, b1) into `parts` row ranges of about equal weight: cut[0] =
  // bounds[b0], cut[parts] = bounds[b1], the cuts in between at bin starts.
  void cut(int b0, int b1, int parts, std::int64_t* cut) const;

 private:
  std::vector<std::int64_t> bounds_, nbins_, first_;
  std::vector<double> hist_;
  std::int64_t binStart(int b, std::int64_t t) const {  // first row of bin t of block b
    return bounds_[b] + (nbins_[b] == 0 ? 0 : (bounds_[b + 1] - bounds_[b]) * t / nbins_[b]);
  }
};

RowHistogram::RowHistogram(const std::vector<std::int64_t>& bounds, int slices, const std::vector<std::int64_t>& pos,
                           const std::vector<std::int64_t>& nnz, MPI_Comm comm)
    : bounds_(bounds), nbins_(bounds.size() - 1), first_(bounds.size(), 0) {
  const std::int64_t max_bins = 128 * static_cast<std::int64_t>(slices);
  for (int b = 0; b < blocks(); ++b) {
    nbins_[b] = std::min<std::int64_t>(bounds[b + 1] - bounds[b], max_bins);
    first_[b + 1] = first_[b] + nbins_[b];
  }
  hist_.assign(first_.back(), 0.0);
  for (size_t t = 0; t < pos.size(); ++t) {
    const int b = static_cast<int>(std::upper_bound(bounds.begin(), bounds.end(), pos[t]) - bounds.begin()) - 1;
    const std::int64_t rows = bounds[b + 1] - bounds[b];
    // Inverse of binStart: the bin whose range holds the row.
    std::int64_t bin = ((pos[t] - bounds[b]) * nbins_[b]) / rows;
    while (bin + 1 < nbins_[b] && binStart(b, bin + 1) <= pos[t]) ++bin;
    while (bin > 0 && binStart(b, bin) > pos[t]) --bin;
    // +1 per row so that empty rows still spread when a block has no nonzeros at all.
    hist_[first_[b] + bin] += static_cast<double>(nnz[t]) + 1.0;
  }
  if (!hist_.empty()) MPI_Allreduce(MPI_IN_PLACE, hist_.data(), static_cast<int>(hist_.size()), MPI_DOUBLE, MPI_SUM, comm);
}

double RowHistogram::blockWeight(int b) const {
  double w = 0;
  for (std::int64_t t = first_[b]; t < first_[b + 1]; ++t) w += hist_[t];
  return w;
}

void RowHistogram::cut(int b0, int b1, int parts, std::int64_t* cut) const {
  cut[0] = bounds_[b0];
  cut[parts] = bounds_[b1];
  double total = 0;
  for (int b = b0; b < b1; ++b) total += blockWeight(b);
  if (total == 0) {  // no rank holds a row of them (no weights given): cut evenly by rows
    for (int sl = 1; sl < parts; ++sl) cut[sl] = bounds_[b0] + (bounds_[b1] - bounds_[b0]) * sl / parts;
    return;
  }
  double acc = 0;
  int b = b0;
  std::int64_t t = 0;  // bin t of block b
  for (int sl = 1; sl < parts; ++sl) {
    const double target = total * sl / parts;
    for (;;) {
      if (t == nbins_[b]) {
        if (b + 1 == b1) break;
        ++b;
        t = 0;
        continue;
      }
      const double h = hist_[first_[b] + t];
      if (acc + h * 0.5 >= target) break;
      acc += h;
      ++t;
    }
    cut[sl] = std::max(cut[sl - 1], t == nbins_[b] ? bounds_[b + 1] : binStart(b, t));
  }
}

// A's slices (and, when `balance` says so, its row blocks) from the even blocks `bounds`; blocks
// balanced by work replace bounds.
std::vector<std::int64_t> cutRows(std::vector<std::int64_t>& bounds, int slices, const std::vector<std::int64_t>& pos,
                                  const std::vector<std::int64_t>& nnz, MPI_Comm comm, const BlockRule& balance) {
  const int blocks = static_cast<int>(bounds.size()) - 1;
  std::vector<std::int64_t> out(static_cast<size_t>(blocks) * (slices + 1));
  if (slices == 1 && !balance) {
    for (int b = 0; b < blocks; ++b) {
      out[b * 2] = bounds[b];
      out[b * 2 + 1] = bounds[b + 1];
    }
    return out;
  }
  const RowHistogram h(bounds, slices, pos, nnz, comm);
  std::vector<double> weight(blocks);
  for (int b = 0; b < blocks; ++b) weight[b] = h.blockWeight(b);
  if (blocks > 1 && balance && balance(weight)) {
    std::vector<std::int64_t> all(static_cast<size_t>(blocks) * slices + 1);
    h.cut(0, blocks, blocks * slices, all.data());
    for (int b = 0; b <= blocks; ++b) bounds[b] = all[static_cast<size_t>(b) * slices];
    for (int b = 0; b < blocks; ++b)
      std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(b) * slices, slices + 1, out.begin() + b * (slices + 1));
    return out;
  }
  for (int b = 0; b < blocks; ++b) h.cut(b, b + 1, slices, &out[static_cast<size_t>(b) * (slices + 1)]);
  return out;
}

}  // namespace

// A's row blocks are even unless cuts.balance_blocks says otherwise (see SliceCuts).
Layout makeLayout(const TileGrid& grid, int slices, std::int64_t m, std::int64_t k, std::int64_t n,
                  const std::vector<std::int64_t>& a_row_pos, const std::vector<std::int64_t>& a_row_nnz,
                  const std::vector<std::int64_t>& b_row_pos, const std::vector<std::int64_t>& b_row_nnz,
                  MPI_Comm comm, const SliceCuts& cuts) {
  Layout L;
  L.grid = grid;
  L.slices = slices;
  L.m = m;
  L.k = k;
  L.n = n;
  L.col_bounds = evenBounds(n, grid.cols);
  // Fixed cuts: blocks are whole runs of slices, so both follow from the cut points.
  auto fixed = [slices](const std::vector<std::int64_t>& c, int blocks, std::int64_t extent, const char* what,
                        std::vector<std::int64_t>& bounds, std::vector<std::int64_t>& sliceBounds) {
    if (c.size() != static_cast<std::size_t>(blocks) * slices + 1 || c.front() != 0 || c.back() != extent ||
        !std::is_sorted(c.begin(), c.end()))
      throw std::invalid_argument(std::string("makeLayout: bad slice cuts of ") + what);
    bounds.resize(blocks + 1);
    sliceBounds.resize(static_cast<std::size_t>(blocks) * (slices + 1));
    for (int b = 0; b <= blocks; ++b) bounds[b] = c[static_cast<std::size_t>(b) * slices];
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t <= slices; ++t)
        sliceBounds[static_cast<std::size_t>(b) * (slices + 1) + t] = c[static_cast<std::size_t>(b) * slices + t];
  };
  if (cuts.a.empty()) {
    L.row_bounds = evenBounds(m, grid.rows);
    L.a_slice_bounds = cutRows(L.row_bounds, slices, a_row_pos, a_row_nnz, comm, cuts.balance_blocks);
  } else {
    fixed(cuts.a, grid.rows, m, "A", L.row_bounds, L.a_slice_bounds);
  }
  if (cuts.b.empty()) {
    L.inner_bounds = evenBounds(k, grid.rounds);
    L.b_slice_bounds = cutRows(L.inner_bounds, slices, b_row_pos, b_row_nnz, comm, BlockRule());
  } else {
    fixed(cuts.b, grid.rounds, k, "B", L.inner_bounds, L.b_slice_bounds);
  }
  return L;
}

}  // namespace Trident
