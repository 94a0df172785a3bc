#include "psychophysics/staircase.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/format.hpp"
#include "core/setting_error.hpp"

// The rules follow PsychoPy's StairHandler as its code has them (psychopy/data/staircase.py,
// class StairHandler, read at commit 8439538: __init__, addResponse, calculateNextIntensity,
// _intensityInc and _intensityDec, about lines 40-420). What that code does, step by step:
//
// - addResponse counts the run of equal responses in correctCounter: +1 per yes, -1 per no,
//   restarting at +-1 when the response differs from the one before; every change of
//   intensity resets it to 0 (run_ here).
// - Before the first reversal, with applyInitialRule (the default), the rule is 1-up-1-down
//   whatever nUp and nDown are: every response changes the intensity, a yes after an upward
//   move or a no after a downward one is the first reversal, and the change made on that
//   reversal trial is still a 1-up-1-down one. From the next trial on, nUp / nDown apply.
// - After that, a reversal is the n_down-th yes while the direction was up or the n_up-th no
//   while it was down; the first move of a staircase without the initial rule is no reversal
//   (its direction is 'start'). The reversal's intensity is that of the trial just done.
// - The step size is stepSizes[min(reversals, len - 1)], switched on a reversal before the
//   intensity changes, so the reversal trial's own step is already the next size.
// - Steps: lin adds, db multiplies by 10^(step / 20), log by 10^step; a step up is a
//   multiplication and a step down a division by that factor (kept here, so intensities
//   match PsychoPy's bit for bit). After a step up the intensity is clamped to maxVal, after
//   a step down to minVal. The start value itself is not clamped (the constructor requires it
//   in range instead).
// - Finished once len(reversalIntensities) >= nReversals and the trials done >= nTrials,
//   checked after each response; nReversals is raised to len(stepSizes) when smaller (with a
//   warning there; required_reversals() here).
//
// Threshold: StairHandler computes none; PsychoPy's demos (JND_staircase_exp.py, linear
// steps) take numpy.average of the last 6 reversal intensities. mean_of_last_reversals does
// that for linear steps and averages logarithms for log and db steps, where the steps are even.

namespace fovea {
namespace {

[[noreturn]] void bad(std::string_view prefix, const std::string& key, const std::string& detail) {
  throw SettingError(std::string(prefix) + key, detail);
}

/// The factor a log or db step multiplies or divides by.
double step_factor(StepType type, double step) {
  return type == StepType::db ? std::pow(10.0, step / 20.0) : std::pow(10.0, step);
}

}  // namespace

std::string start_value_problem(const StaircaseSettings& settings, double start_value) {
  if (!std::isfinite(start_value)) return "must be finite, not " + format_number(start_value);
  if (settings.step_type != StepType::linear && !(start_value > 0))
    return "must be > 0 for log and db steps, not " + format_number(start_value);
  if (start_value < settings.min_value || start_value > settings.max_value)
    return "must be in the staircase's range [" + format_number(settings.min_value) + ", " +
           format_number(settings.max_value) + "], not " + format_number(start_value);
  return {};
}

void validate(const StaircaseSettings& s, std::string_view key_prefix) {
  if (s.n_up < 1) bad(key_prefix, "n_up", "must be >= 1, not " + std::to_string(s.n_up));
  if (s.n_down < 1) bad(key_prefix, "n_down", "must be >= 1, not " + std::to_string(s.n_down));
  if (s.step_sizes.empty()) bad(key_prefix, "step_sizes", "an empty list: give at least one step size");
  for (const double step : s.step_sizes)
    if (!(std::isfinite(step) && step > 0))
      bad(key_prefix, "step_sizes", "must each be > 0 and finite, not " + format_number(step));
  if (s.step_type != StepType::linear)
    for (const double step : s.step_sizes)
      if (!std::isfinite(step_factor(s.step_type, step)))
        bad(key_prefix, "step_sizes", "holds a step too large for its step type: " + format_number(step));
  if (s.n_trials < 0) bad(key_prefix, "n_trials", "must be >= 0, not " + std::to_string(s.n_trials));
  if (s.n_reversals < 0) bad(key_prefix, "n_reversals", "must be >= 0, not " + std::to_string(s.n_reversals));
  if (std::isnan(s.min_value)) bad(key_prefix, "min_value", "must be a number, not NaN");
  if (std::isnan(s.max_value)) bad(key_prefix, "max_value", "must be a number, not NaN");
  // Equal bounds are refused too: every trial would show the one intensity, whatever the
  // responses, so the reversals would only count noise and their mean would be that value.
  if (!(s.min_value < s.max_value))
    bad(key_prefix, "min_value", "must be below the maximum (" + format_number(s.max_value) + "), not " +
                                     format_number(s.min_value) + ": a staircase with no room to move measures nothing");
}

Staircase::Staircase(double start_value, const StaircaseSettings& settings) : settings_(settings) {
  validate(settings_);
  const std::string problem = start_value_problem(settings_, start_value);
  if (!problem.empty()) bad("", "start_value", problem);
  required_reversals_ = std::max(settings_.n_reversals, static_cast<int>(settings_.step_sizes.size()));
  next_intensity_ = start_value;
}

double Staircase::step_size() const {
  const std::size_t last = settings_.step_sizes.size() - 1;
  return settings_.step_sizes[std::min(reversal_intensities_.size(), last)];
}

void Staircase::add_response(bool yes) {
  if (finished_) throw std::logic_error("Staircase::add_response: the staircase has finished");
  intensities_.push_back(next_intensity_);
  if (yes)
    run_ = run_ > 0 ? run_ + 1 : 1;
  else
    run_ = run_ < 0 ? run_ - 1 : -1;

  // Whether this response is still under the 1-up-1-down rule, the reversal trial included.
  const bool initial_rule = settings_.apply_initial_rule && reversal_intensities_.empty();
  const bool go_down = initial_rule ? yes : run_ >= settings_.n_down;
  const bool go_up = initial_rule ? !yes : run_ <= -settings_.n_up;
  bool reversal = false;
  if (go_down) {
    reversal = direction_ == Direction::up;
    direction_ = Direction::down;
  } else if (go_up) {
    reversal = direction_ == Direction::down;
    direction_ = Direction::up;
  }
  if (reversal) {
    reversal_intensities_.push_back(intensities_.back());
    reversal_trials_.push_back(trials() - 1);
  }
  finished_ = static_cast<int>(reversal_intensities_.size()) >= required_reversals_ && trials() >= settings_.n_trials;
  // step_size() already counts this trial's reversal.
  if (go_down)
    step_down();
  else if (go_up)
    step_up();
}

void Staircase::step_up() {
  const double step = step_size();
  if (settings_.step_type == StepType::linear)
    next_intensity_ += step;
  else
    next_intensity_ *= step_factor(settings_.step_type, step);
  next_intensity_ = std::min(next_intensity_, settings_.max_value);
  run_ = 0;
}

void Staircase::step_down() {
  const double step = step_size();
  if (settings_.step_type == StepType::linear)
    next_intensity_ -= step;
  else
    next_intensity_ /= step_factor(settings_.step_type, step);
  next_intensity_ = std::max(next_intensity_, settings_.min_value);
  run_ = 0;
}

double Staircase::mean_of_last_reversals(int k) const {
  if (k < 1) throw std::invalid_argument("mean_of_last_reversals: k must be >= 1, not " + std::to_string(k));
  const std::size_t n = std::min(static_cast<std::size_t>(k), reversal_intensities_.size());
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const auto last = std::span<const double>(reversal_intensities_).last(n);
  double sum = 0;
  if (settings_.step_type == StepType::linear) {
    for (const double x : last) sum += x;
    return sum / static_cast<double>(n);
  }
  for (const double x : last) sum += std::log(x);
  return std::exp(sum / static_cast<double>(n));
}

}  // namespace fovea
