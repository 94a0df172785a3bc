#include "benchmarks/bench_stats.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace fovea::bench {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::ofstream open_csv(const std::string& path, const char* bench) {
  const std::filesystem::path out_path(path);
  if (out_path.has_parent_path()) std::filesystem::create_directories(out_path.parent_path());
  std::ofstream csv(out_path);
  if (!csv) std::fprintf(stderr, "fovea bench %s: cannot write %s\n", bench, path.c_str());
  return csv;
}

void write_long_row(std::ostream& csv, const std::vector<std::string>& keys, const std::string& quantity, double value,
                    const std::string& unit) {
  for (const std::string& key : keys) csv << key << ',';
  csv << quantity << ',' << significant_or_na(value, 6) << ',' << unit << '\n';
}

}  // namespace fovea::bench
