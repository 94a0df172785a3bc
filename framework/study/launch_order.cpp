#include "study/launch_order.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/rng.hpp"

namespace fovea {

std::uint64_t launch_order_seed(const std::string& plan_fingerprint) {
  const bool hex = !plan_fingerprint.empty() && plan_fingerprint.size() <= 16 &&
                   plan_fingerprint.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
  if (!hex) throw std::invalid_argument("a plan fingerprint is 1 to 16 hex digits, not '" + plan_fingerprint + "'");
  return std::stoull(plan_fingerprint, nullptr, 16);
}

std::vector<std::int64_t> shuffled_launch_order(std::vector<std::int64_t> runs, std::int64_t run_count,
                                                std::uint64_t seed) {
  for (const std::int64_t run : runs)
    if (run < 0 || run >= run_count)
      throw std::invalid_argument("run " + std::to_string(run) + " is not one of the study's " +
                                  std::to_string(run_count) + " runs");
  // Every run's place in the one shuffle of the whole study (at most kMaxStudyRuns, 8 MB):
  // a shard knows its own runs only, and must launch them as the whole study's order would.
  std::vector<std::int64_t> shuffled(static_cast<std::size_t>(run_count));
  std::iota(shuffled.begin(), shuffled.end(), std::int64_t{0});
  Rng rng(seed, rng_stream(RngStream::launch_order));
  fisher_yates(shuffled, rng);
  std::vector<std::int64_t> place(shuffled.size());
  for (std::size_t i = 0; i < shuffled.size(); ++i)
    place[static_cast<std::size_t>(shuffled[i])] = static_cast<std::int64_t>(i);
  std::sort(runs.begin(), runs.end(), [&](std::int64_t a, std::int64_t b) {
    return place[static_cast<std::size_t>(a)] < place[static_cast<std::size_t>(b)];
  });
  return runs;
}

}  // namespace fovea
