#pragma once

#include <array>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/kind_table.hpp"

namespace fovea {

/// How a staircase step changes the intensity (PsychoPy's stepType).
enum class StepType { linear /**< +- the step */, log /**< scales by 10^step */, db /**< scales by 10^(step / 20) */ };

/// StepType's names in a spec (`step_type`), with one line of help each.
inline constexpr auto kStepTypes = kind_table<KindName<StepType>>({
    {StepType::linear, "linear", "adds or subtracts the step ('lin')"},
    {StepType::log, "log", "multiplies or divides by 10^step: steps in log10 units"},
    {StepType::db, "db", "multiplies or divides by 10^(step / 20): steps in decibels (PsychoPy's default)"},
});

/// The rules of a transformed up/down staircase, with the defaults of PsychoPy's StairHandler,
/// so a researcher's config means what it means there: everything but the start value, which
/// Staircase takes on its own (as StairHandler takes startVal) so that staircases that start
/// apart share one set of rules (InterleavedStaircaseSettings). In fovea the intensity is a
/// gap in degrees of visual angle, but nothing here depends on that.
struct StaircaseSettings {
  /// Consecutive "no" responses that make the next trial easier (intensity up).
  int n_up = 1;
  /// Consecutive "yes" responses that make the next trial harder (intensity down). 1-up-2-down
  /// tracks the 70.7 % point, 1-up-3-down the 79.4 % point (Levitt 1971).
  int n_down = 3;
  /// Step sizes in step_type's units; the staircase moves to the next at each reversal and
  /// stays at the last. Each > 0.
  std::vector<double> step_sizes{4.0, 2.0, 1.0};
  StepType step_type = StepType::db;  ///< how a step changes the intensity; the unit of step_sizes
  /// Finished once at least this many trials are done and the reversals are reached
  /// (MultiStairHandler's default of 50).
  int n_trials = 50;
  /// The reversals needed to finish; as in PsychoPy, never fewer than step_sizes holds (so 0,
  /// the default, means "one per step size", PsychoPy's nReversals=None).
  int n_reversals = 0;
  /// The range the intensity is clamped to after each step; the infinities mean no limit
  /// (PsychoPy's None). min_value < max_value: a staircase with no room to move measures
  /// nothing.
  double min_value = -std::numeric_limits<double>::infinity();
  double max_value = std::numeric_limits<double>::infinity();  ///< the range's top, as min_value its bottom
  /// PsychoPy's applyInitialRule: 1-up-1-down until the first reversal, so a far start value
  /// is left quickly, then n_up / n_down.
  bool apply_initial_rule = true;
};

/// The one check of a staircase's rules. Throws SettingError (core/setting_error.hpp) naming
/// the first field at fault and what is wrong ("n_down", "must be >= 1, not 0"), the field's
/// name preceded by `key_prefix` (the path of the rules in a bigger struct, "rules.").
void validate(const StaircaseSettings& settings, std::string_view key_prefix = {});
/// Why `start_value` cannot start a staircase with `settings`' step type and range ("must be
/// > 0 for log and db steps"), or an empty string when it can.
std::string start_value_problem(const StaircaseSettings& settings, double start_value);

/// One yes/no staircase, a deterministic function of its settings and the responses given:
/// replaying a session's responses rebuilds it exactly. Follows PsychoPy's StairHandler
/// (psychopy/data/staircase.py; staircase.cpp says which rules and where).
class Staircase {
 public:
  /// Starts at `start_value`, which must be finite, > 0 for log and db steps and inside
  /// [min_value, max_value]. Throws SettingError (see validate(); "start_value" for the start).
  Staircase(double start_value, const StaircaseSettings& settings);

  /// The intensity of the next trial.
  double intensity() const { return next_intensity_; }
  /// Records the response to a trial at intensity(): `yes` is the response that makes the
  /// task harder ("seen" in a detection task, "correct" in a forced choice). n_down
  /// consecutive yes lower the intensity, n_up consecutive no raise it. Throws
  /// std::logic_error once finished().
  void add_response(bool yes);
  /// At least n_trials trials done and at least required_reversals() reversals.
  bool finished() const { return finished_; }
  /// Trials with a response.
  int trials() const { return static_cast<int>(intensities_.size()); }
  /// max(n_reversals, number of step sizes): the reversals needed to finish.
  int required_reversals() const { return required_reversals_; }
  /// The step size the next change of intensity will take, in step_type's units.
  double step_size() const;
  /// The intensity of every trial done, in order.
  std::span<const double> intensities() const { return intensities_; }
  /// The intensity of each trial at which the direction reversed, in order.
  std::span<const double> reversal_intensities() const { return reversal_intensities_; }
  /// The index (from 0) of each of those trials.
  std::span<const int> reversal_trials() const { return reversal_trials_; }
  /// The threshold estimate: the mean of the last `k` reversal intensities (all of them when
  /// fewer), taken where the steps are even: arithmetic for linear steps, geometric for log
  /// and db. NaN before the first reversal. Throws std::invalid_argument when k < 1.
  double mean_of_last_reversals(int k) const;

  /// The rules it was built with.
  const StaircaseSettings& settings() const { return settings_; }

 private:
  /// PsychoPy's currentDirection; `start` until the first change of intensity.
  enum class Direction { start, up, down };

  void step_up();
  void step_down();

  StaircaseSettings settings_;
  int required_reversals_ = 1;
  double next_intensity_ = 1.0;
  /// Signed length of the run of equal responses since the intensity last changed: +n after
  /// n yes, -n after n no (PsychoPy's correctCounter).
  int run_ = 0;
  Direction direction_ = Direction::start;
  bool finished_ = false;
  std::vector<double> intensities_;
  std::vector<double> reversal_intensities_;
  std::vector<int> reversal_trials_;
};

}  // namespace fovea
