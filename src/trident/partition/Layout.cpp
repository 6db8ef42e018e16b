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

// Cuts every block of `bounds` into `slices` row ranges of about equal nonzeros. Rows of a block
// are gathered into at most `bins_per_block` bins (a global histogram, one Allreduce), so the cost
// does not grow with the matrix; blocks with fewer rows than that are balanced row by row.
std::vector<std::int64_t> balancedSlices(const std::vector<std::int64_t>& bounds, int slices,
                                         const std::vector<std::int64_t>& pos,
                                         const std::vector<std::int64_t>& nnz, MPI_Comm comm) {
  const int blocks = static_cast<int>(bounds.size()) - 1;
  std::vector<std::int64_t> out(static_cast<size_t>(blocks) * (slices + 1));
  if (slices == 1) {
    for (int b = 0; b < blocks; ++b) {
      out[b * 2] = bounds[b];
      out[b * 2 + 1] = bounds[b + 1];
    }
    return out;
  }
  // 128 bins per slice place each cut within 1/128 of a slice's rows: finer bins did not balance
  // better, and the histogram is reduced over the whole world, where on a Gi-bound cluster its
  // size, not its latency, was the cost (4 groups x 4 ranks: 128 kB per Allreduce with 1024).
  const std::int64_t max_bins = 128 * static_cast<std::int64_t>(slices);
  std::vector<std::int64_t> nbins(blocks), first(blocks + 1, 0);
  for (int b = 0; b < blocks; ++b) {
    nbins[b] = std::min<std::int64_t>(bounds[b + 1] - bounds[b], max_bins);
    first[b + 1] = first[b] + nbins[b];
  }
  auto bin_start = [&](int b, std::int64_t t) {  // first row of bin t of block b
    const std::int64_t rows = bounds[b + 1] - bounds[b];
    return bounds[b] + (nbins[b] == 0 ? 0 : rows * t / nbins[b]);
  };
  std::vector<double> hist(first[blocks], 0.0);
  for (size_t t = 0; t < pos.size(); ++t) {
    const int b = static_cast<int>(std::upper_bound(bounds.begin(), bounds.end(), pos[t]) - bounds.begin()) - 1;
    const std::int64_t rows = bounds[b + 1] - bounds[b];
    // Inverse of bin_start: the bin whose range holds the row.
    std::int64_t bin = ((pos[t] - bounds[b]) * nbins[b]) / rows;
    while (bin + 1 < nbins[b] && bin_start(b, bin + 1) <= pos[t]) ++bin;
    while (bin > 0 && bin_start(b, bin) > pos[t]) --bin;
    // +1 per row so that empty rows still spread when a block has no nonzeros at all.
    hist[first[b] + bin] += static_cast<double>(nnz[t]) + 1.0;
  }
  if (!hist.empty()) MPI_Allreduce(MPI_IN_PLACE, hist.data(), static_cast<int>(hist.size()), MPI_DOUBLE, MPI_SUM, comm);

  for (int b = 0; b < blocks; ++b) {
    std::int64_t* cut = &out[static_cast<size_t>(b) * (slices + 1)];
    cut[0] = bounds[b];
    cut[slices] = bounds[b + 1];
    double total = 0;
    for (std::int64_t t = 0; t < nbins[b]; ++t) total += hist[first[b] + t];
    if (total == 0) {  // no rank holds a row of it (no weights given): cut evenly by rows
      for (int sl = 1; sl < slices; ++sl) cut[sl] = bounds[b] + (bounds[b + 1] - bounds[b]) * sl / slices;
      continue;
    }
    double acc = 0;
    std::int64_t t = 0;
    for (int sl = 1; sl < slices; ++sl) {
      const double target = total * sl / slices;
      while (t < nbins[b] && acc + hist[first[b] + t] * 0.5 < target) acc += hist[first[b] + t++];
      cut[sl] = std::max(cut[sl - 1], bin_start(b, t));
    }
  }
  return out;
}

}  // namespace

// A's row blocks stay even, only the slices inside them are balanced: with Tpetra's contiguous row
// maps the even blocks of the G x 1 grid are the rows the group's ranks own, so the in and out
// phases stay inside the group (Li). Blocks balanced by work over the whole row range were
// measured (email-Enron, P = 16, lambda = 4: busiest rank 2.90 -> 1.02x the average multiply-adds)
// and rejected: on the emulated 4 x 4 cluster at 50 Mbit C's rows then crossed Gi on the way out
// (email-Enron 2.1 -> 29.6 s, SUMMA likewise).
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
    L.a_slice_bounds = balancedSlices(L.row_bounds, slices, a_row_pos, a_row_nnz, comm);
  } else {
    fixed(cuts.a, grid.rows, m, "A", L.row_bounds, L.a_slice_bounds);
  }
  if (cuts.b.empty()) {
    L.inner_bounds = evenBounds(k, grid.rounds);
    L.b_slice_bounds = balancedSlices(L.inner_bounds, slices, b_row_pos, b_row_nnz, comm);
  } else {
    fixed(cuts.b, grid.rounds, k, "B", L.inner_bounds, L.b_slice_bounds);
  }
  return L;
}

}  // namespace Trident
