#include "core/budget.hpp"

#include <algorithm>
#include <cmath>

namespace fovea {

Budget Budget::unlimited() { return work(std::numeric_limits<std::int64_t>::max()); }

Budget Budget::work(std::int64_t tests) {
  Budget b;
  b.mode_ = BudgetMode::work;
  b.test_limit_ = tests;
  b.next_check_ = tests;
  return b;
}

Budget Budget::wall(double ms, Clock::time_point start) {
  Budget b;
  b.mode_ = BudgetMode::wall;
  b.deadline_ = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
  b.next_check_ = 0;  // a budget of 0 ms stops before the first test
  return b;
}

Budget Budget::from_settings(const BudgetSettings& settings, std::int64_t full_resolution_tests) {
  switch (settings.mode) {
    case BudgetMode::work: return work(settings.tests);
    case BudgetMode::wall: return wall(settings.ms, Clock::now());
    case BudgetMode::unlimited: return unlimited();
    case BudgetMode::fraction: return work(fraction_tests(settings.fraction, full_resolution_tests));
  }
  return unlimited();
}

std::int64_t Budget::fraction_tests(double fraction, std::int64_t full_resolution_tests) {
  // Rounded to the nearest test; a fraction of 1 or more is full resolution.
  if (!(fraction < 1)) return full_resolution_tests;
  return std::llround(std::max(0.0, fraction) * static_cast<double>(full_resolution_tests));
}

bool Budget::check() {
  if (exhausted_) return true;
  // A work budget is checked only once its limit is reached (next_check_ == test_limit_).
  if (mode_ == BudgetMode::work) {
    exhausted_ = tests_spent_ >= test_limit_;
    return exhausted_;
  }
  exhausted_ = Clock::now() >= deadline_;
  if (!exhausted_) next_check_ = tests_spent_ + kClockCheckTests;
  return exhausted_;
}

}  // namespace fovea
