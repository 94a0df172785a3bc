#pragma once

#include <chrono>
#include <cstdint>
#include <limits>

#include "core/budget_settings.hpp"

namespace fovea {

/// The frame's allowance for collision processing (004 section 3.4.1: "the criterion for
/// stopping is when a pre-defined target time has been exceeded"), counted in sphere-sphere
/// tests and, for a wall budget, checked against the steady clock.
///
/// The descent asks exhausted() before each sphere hit and reports the tests it did with
/// spend(). A work budget stops as soon as the tests reach the limit, so its stopping point
/// depends on nothing but the data. A wall budget reads the clock only every
/// kClockCheckTests tests (a clock read costs about as much as five sphere tests), which
/// bounds how far past the deadline the descent can run: the overshoot is recorded per frame
/// (frames.csv, budget_overshoot_us) so that bound is measured, not assumed.
class Budget {
 public:
  /// The monotonic clock a wall budget's deadline is set and checked on.
  using Clock = std::chrono::steady_clock;
  /// Tests between two clock reads of a wall budget.
  static constexpr std::int64_t kClockCheckTests = 64;

  /// No limit: every collision runs to the end.
  static Budget unlimited();
  /// Stops once `tests` sphere tests have been spent.
  static Budget work(std::int64_t tests);
  /// Stops at `start + ms`.
  static Budget wall(double ms, Clock::time_point start);
  /// The budget `settings` describe, starting now. A fraction budget is
  /// fraction_tests(fraction, full_resolution_tests) sphere tests.
  static Budget from_settings(const BudgetSettings& settings, std::int64_t full_resolution_tests = 0);
  /// The sphere tests a fraction budget allows when full resolution takes
  /// `full_resolution_tests`: rounded to the nearest test, all of them from a fraction of 1.
  static std::int64_t fraction_tests(double fraction, std::int64_t full_resolution_tests);

  /// True once the budget is spent; stays true.
  bool exhausted() {
    if (tests_spent_ < next_check_) return false;
    return check();
  }
  /// Counts `tests` more sphere-sphere tests as done (every mode counts them).
  void spend(std::int64_t tests) { tests_spent_ += tests; }

  /// Sphere-sphere tests spent since the budget was made (counted under a wall budget too).
  std::int64_t tests_spent() const { return tests_spent_; }
  /// Whether exhausted() has ever returned true.
  bool was_exhausted() const { return exhausted_; }
  /// Whether this is a wall-clock budget, the only mode whose deadline() is set.
  bool is_wall() const { return mode_ == BudgetMode::wall; }
  /// When a wall budget runs out (start + ms); the clock's epoch for the other modes.
  Clock::time_point deadline() const { return deadline_; }

 private:
  bool check();

  BudgetMode mode_ = BudgetMode::work;
  bool exhausted_ = false;
  std::int64_t tests_spent_ = 0;
  std::int64_t next_check_ = std::numeric_limits<std::int64_t>::max();  ///< tests at which to look again
  std::int64_t test_limit_ = std::numeric_limits<std::int64_t>::max();
  Clock::time_point deadline_{};
};

}  // namespace fovea
