#include "PeerReport.hpp"

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iomanip>

namespace peers {

std::string matrixName(const std::string& spec) {
  std::string name = spec;
  const auto slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".mtx") == 0) name.resize(name.size() - 4);
  std::replace(name.begin(), name.end(), ',', '_');
  return name;
}

std::string generatorSpecError(const std::string& spec) {
  struct stat sb;
  if (spec.find(':') == std::string::npos || spec.find('/') != std::string::npos || stat(spec.c_str(), &sb) == 0)
    return "";
  return "--matrix=" + spec + " looks like a generator spec: write it with trident-bench --matrix=" + spec +
         " --dump=FILE.mtx and pass --matrix=FILE.mtx --name=" + spec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double peakRssMb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
}

unsigned long long flopsOf(const Csr& A, const Csr& B, bool transposeA) {
  unsigned long long f = 0;
  for (long long i = 0; i < A.rows; ++i)
    for (long long k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
      // (A^T B): row i of A pairs each of its entries with all of row i of B.
      const long long r = transposeA ? i : A.col[k];
      f += static_cast<unsigned long long>(B.ptr[r + 1] - B.ptr[r]);
    }
  return f;
}

bool appendCsv(const std::string& path, const CsvRow& r) {
  struct stat sb;
  const bool fresh = stat(path.c_str(), &sb) != 0 || sb.st_size == 0;
  std::ofstream f(path, std::ios::app);
  if (!f) return false;
  if (fresh)
    f << "algo,matrix,op,P,ranks_per_group,permute,time_s,time_in_s,time_gi_s,time_li_s,time_local_s,time_out_s,"
         "gi_bytes_max,gi_bytes_total,li_bytes_max,li_bytes_total,nnz_a,nnz_c,flops,peak_rss_mb,check,time_wait_s\n";
  f << r.algo << "," << r.matrix << "," << r.op << "," << r.P << "," << r.ranksPerGroup << ",none,"
    << std::setprecision(6) << r.time_s << ",0,0,0,0,0,0,0,0,0," << r.nnzA << "," << r.nnzC << "," << r.flops << ","
    << std::fixed << std::setprecision(1) << r.peakRssMb << "," << r.check << ",0\n";
  return static_cast<bool>(f);
}

}  // namespace peers
