#include "core/budget.hpp"

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

Budget Budget::from_settings(const BudgetSettings& settings) {
  return settings.mode == BudgetMode::work ? work(settings.tests) : wall(settings.ms, Clock::now());
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
