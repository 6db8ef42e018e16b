// Host side of the GPU backend: device CSR conversions on host memory (rows sorted on the way,
// 32-bit range), the Allgatherv-as-broadcasts plan (displacements, byte counts, offset rebase)
// checked against stacking the slices, and the choice of a rank's device.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <random>
#include <string>

#include <trident/device/AllgathervPlan.hpp>
#include <trident/device/DeviceCsr.hpp>
#include <trident/device/DeviceSelection.hpp>
#include <trident/local/Csr.hpp>

using Trident::Csr;

namespace {

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) ++failures;
  std::cout << (ok ? "PASS " : "FAIL ") << what << "\n";
}

template <class E, class F>
bool throws(F f) {
  try {
    f();
  } catch (const E&) {
    return true;
  } catch (...) {
  }
  return false;
}

// Random block whose rows are deliberately unsorted (entries of a row shuffled).
Csr randomUnsorted(std::int64_t rows, std::int64_t cols, double density, std::mt19937_64& rng) {
  std::vector<std::int64_t> r;
  std::vector<int> c;
  std::vector<double> v;
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      if (u(rng) < density) r.push_back(i), c.push_back(static_cast<int>(j)), v.push_back(u(rng) - 0.5);
  Csr A = Trident::csrFromTriplets(rows, cols, r, c, v, true);
  for (std::int64_t i = 0; i < rows; ++i) {
    std::vector<std::pair<int, double>> e;
    for (auto p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) e.emplace_back(A.col[p], A.val[p]);
    std::shuffle(e.begin(), e.end(), rng);
    for (std::size_t t = 0; t < e.size(); ++t) A.col[A.rowptr[i] + t] = e[t].first, A.val[A.rowptr[i] + t] = e[t].second;
  }
  return A;
}

bool equal(const Csr& a, const Csr& b) {
  return a.nrows == b.nrows && a.ncols == b.ncols && a.rowptr == b.rowptr && a.col == b.col && a.val == b.val;
}

void conversions(std::mt19937_64& rng) {
  Trident::MemoryResource& host = Trident::hostMemory();
  const std::int64_t shapes[][2] = {{0, 0}, {0, 5}, {7, 0}, {1, 1}, {40, 30}, {200, 1000}};
  for (auto& s : shapes) {
    Csr A = randomUnsorted(s[0], s[1], 0.1, rng);
    Trident::DeviceCsr d = Trident::toDeviceCsr(A, host);
    Csr back = Trident::toHostCsr(d);
    Csr sorted = A;
    sorted.sortRows();
    const std::string tag = std::to_string(s[0]) + "x" + std::to_string(s[1]);
    check(d.space() == Trident::MemorySpace::Host && d.nnz == A.nnz(), "device CSR on host memory " + tag);
    check(equal(back, sorted), "round trip sorts rows, keeps entries " + tag);
    check(Trident::rowsSorted(back.rowptr.data(), back.col.data(), back.nrows), "rows sorted after upload " + tag);
  }
  check(throws<std::length_error>([] { Trident::checkDeviceIndexRange(10, 10, std::int64_t{1} << 31); }),
        "2^31 entries exceed the 32-bit device indices");
  check(throws<std::length_error>([] { Trident::checkDeviceIndexRange(std::int64_t{1} << 31, 1, 0); }),
        "2^31 rows exceed the 32-bit device indices");
  check(!throws<std::exception>([] { Trident::checkDeviceIndexRange(2147483647, 2147483647, 2147483647); }),
        "2^31-1 rows, columns and entries fit");
  Csr bad(3, 3);
  bad.rowptr.pop_back();
  check(throws<std::invalid_argument>([&] { Trident::toDeviceCsr(bad, Trident::hostMemory()); }),
        "a block whose row offsets do not match its shape is refused");
  // Buffers move, they never copy.
  Trident::Buffer<int> b = Trident::bufferFromHost(host, std::vector<int>{1, 2, 3});
  const int* p = b.data();
  Trident::Buffer<int> c = std::move(b);
  check(c.data() == p && b.data() == nullptr && c.toHost() == std::vector<int>({1, 2, 3}), "buffer moves");
}

void allgathervPlan(std::mt19937_64& rng) {
  for (int lambda : {1, 2, 3, 4, 7}) {
    std::vector<Csr> slices;
    std::vector<std::int64_t> rows, nnz;
    std::uniform_int_distribution<int> len(0, 30);
    for (int t = 0; t < lambda; ++t) {
      // Every third slice empty (ranks may hold no rows of a tile).
      const std::int64_t m = t % 3 == 2 ? 0 : len(rng);
      Csr s = randomUnsorted(m, 50, 0.2, rng);
      s.sortRows();
      rows.push_back(s.nrows), nnz.push_back(s.nnz());
      slices.push_back(std::move(s));
    }
    const Trident::AllgathervPlan plan = Trident::planAllgatherv(rows, nnz);
    // What the grouped broadcasts do: slice t's rowptr[1..], columns and values land at its
    // displacements; then the rebase makes one block.
    std::vector<int> rowptr(plan.total_rows + 1, -1), col(plan.total_nnz);
    std::vector<double> val(plan.total_nnz);
    for (const Trident::SliceBroadcast& s : plan.slices) {
      const Csr& x = slices[s.root];
      for (std::int64_t r = 0; r < s.rows; ++r) rowptr[s.row_offset + 1 + r] = static_cast<int>(x.rowptr[r + 1]);
      std::copy(x.col.begin(), x.col.begin() + s.nnz, col.begin() + s.nnz_offset);
      std::copy(x.val.begin(), x.val.begin() + s.nnz, val.begin() + s.nnz_offset);
    }
    Trident::rebaseGatheredOffsetsHost(rowptr.data(), plan);
    std::vector<const Csr*> parts;
    for (const Csr& s : slices) parts.push_back(&s);
    const Csr stacked = Trident::stackRows(parts);
    const bool same = std::equal(rowptr.begin(), rowptr.end(), stacked.rowptr.begin(), stacked.rowptr.end()) &&
                      std::equal(col.begin(), col.end(), stacked.col.begin(), stacked.col.end()) &&
                      val == stacked.val;
    check(same, "broadcasts at the plan's displacements + rebase = stacked slices, lambda=" + std::to_string(lambda));
    std::uint64_t sent = 0, received = 0, all = 0;
    for (int t = 0; t < lambda; ++t) {
      sent += plan.bytesSent(t);
      received += plan.bytesReceived(t);
      all += Trident::AllgathervPlan::deviceWireBytes(rows[t], nnz[t]);
    }
    check(sent == received && received == (lambda - 1) * all, "bytes sent = bytes received, lambda=" + std::to_string(lambda));
    check(plan.paddedBytesReceived(0) >= plan.bytesReceived(0), "padded allgather moves at least as much");
  }
  check(throws<std::invalid_argument>([] { Trident::planAllgatherv({}, {}); }), "empty group refused");
  check(throws<std::invalid_argument>([] { Trident::planAllgatherv({1, 2}, {3}); }), "mismatched sizes refused");
  check(throws<std::invalid_argument>([] { Trident::planAllgatherv({1, -2}, {3, 0}); }), "negative sizes refused");
  check(throws<std::length_error>([] { Trident::planAllgatherv({1, 1}, {2000000000, 2000000000}); }),
        "a gathered tile beyond 32-bit indices refused");
}

void deviceChoice() {
  check(Trident::chooseDevice(-1, 5, 4) == 1 && Trident::chooseDevice(-1, 3, 4) == 3 &&
            Trident::chooseDevice(-1, 7, 1) == 0,
        "auto device = node-local rank mod device count");
  check(Trident::chooseDevice(2, 0, 4) == 2, "an explicit device is taken");
  check(throws<Trident::DeviceUnavailable>([] { Trident::chooseDevice(-1, 0, 0); }), "no device: DeviceUnavailable");
  check(throws<std::invalid_argument>([] { Trident::chooseDevice(4, 0, 4); }), "device beyond the count refused");
  bool says = false;
  try {
    Trident::chooseDevice(-1, 0, 0);
  } catch (const Trident::DeviceUnavailable& e) {
    says = std::strstr(e.what(), "no CUDA device") != nullptr;
  }
  check(says, "the error says \"no CUDA device\"");
}

}  // namespace

int main() {
  std::mt19937_64 rng(13);
  conversions(rng);
  allgathervPlan(rng);
  deviceChoice();
  std::cout << (failures ? "FAILED " : "all passed ") << failures << "\n";
  return failures ? 1 : 0;
}
