#include "psychophysics/trial_design.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/format.hpp"
#include "core/rng.hpp"
#include "core/setting_error.hpp"

namespace fovea {
namespace {

/// A session longer than this is a config mistake (a million trials is hundreds of hours),
/// and the bound keeps every count inside an int.
constexpr std::int64_t kMaxTrials = 1'000'000;

[[noreturn]] void bad(const std::string& key, const std::string& detail) {
  throw std::invalid_argument(key + " " + detail);
}

/// What is wrong with `values`, or "": every value finite and at least `min` (more than `min`
/// when `strict`), and none twice unless `allow_duplicates`.
std::string values_problem(const std::vector<double>& values, double min, bool strict, bool allow_duplicates) {
  if (values.empty()) return "must not be empty";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!std::isfinite(v) || (strict ? !(v > min) : !(v >= min)))
      return std::string("must each be ") + (strict ? "> " : ">= ") + format_number(min) + " and finite, not " +
             format_number(v);
    if (!allow_duplicates)
      for (std::size_t j = 0; j < i; ++j)
        if (values[j] == v) return "holds " + format_number(v) + " twice";
  }
  return "";
}

/// The constant stimuli's values, each key's `values_problem` thrown as "key problem".
void check_values(const std::vector<double>& values, const std::string& key, double min, bool strict) {
  if (const std::string problem = values_problem(values, min, strict, false); !problem.empty()) bad(key, problem);
}

}  // namespace

std::vector<PlannedTrial> plan_constant_stimuli(const ConstantStimuliSettings& s, std::uint64_t seed) {
  // A gap of 0 is a catch trial, which catch_trials_per_block asks for, flagged as such.
  check_values(s.gaps_deg, "gaps_deg", 0.0, true);
  check_values(s.eccentricities_deg, "eccentricities_deg", 0.0, false);
  if (s.repetitions < 1) bad("repetitions", "must be >= 1, not " + std::to_string(s.repetitions));
  if (s.blocks < 1) bad("blocks", "must be >= 1, not " + std::to_string(s.blocks));
  if (s.catch_trials_per_block < 0)
    bad("catch_trials_per_block", "must be >= 0, not " + std::to_string(s.catch_trials_per_block));
  const int gaps = static_cast<int>(s.gaps_deg.size());
  const int eccentricities = static_cast<int>(s.eccentricities_deg.size());
  const std::int64_t grid = std::int64_t{gaps} * eccentricities;
  const std::int64_t total = grid * s.repetitions + std::int64_t{s.catch_trials_per_block} * s.blocks;
  if (total > kMaxTrials)
    bad("repetitions", "make a session of " + std::to_string(total) + " trials, more than " +
                           std::to_string(kMaxTrials));
  if (s.catch_trials_per_block == 0 && grid * s.repetitions < s.blocks)
    bad("blocks", "must be at most the " + std::to_string(grid * s.repetitions) +
                      " trials to spread over them, not " + std::to_string(s.blocks));

  std::vector<std::vector<Condition>> blocks(s.blocks);
  const auto grid_condition = [&](int index) {
    return Condition{.index = index,
                     .gap_deg = s.gaps_deg[index / eccentricities],
                     .eccentricity_deg = s.eccentricities_deg[index % eccentricities],
                     .catch_trial = false};
  };
  const int per_block = s.repetitions / s.blocks;
  const int remaining = s.repetitions % s.blocks;
  for (auto& block : blocks)
    for (int c = 0; c < grid; ++c)
      for (int r = 0; r < per_block; ++r) block.push_back(grid_condition(c));
  std::int64_t dealt = 0;
  for (int c = 0; c < grid; ++c)
    for (int r = 0; r < remaining; ++r) blocks[dealt++ % s.blocks].push_back(grid_condition(c));
  for (int b = 0; b < s.blocks; ++b)
    for (int j = 0; j < s.catch_trials_per_block; ++j) {
      const int e = static_cast<int>((std::int64_t{b} * s.catch_trials_per_block + j) % eccentricities);
      blocks[b].push_back(Condition{.index = static_cast<int>(grid) + e,
                                    .gap_deg = 0.0,
                                    .eccentricity_deg = s.eccentricities_deg[e],
                                    .catch_trial = true});
    }

  std::vector<PlannedTrial> trials;
  trials.reserve(static_cast<std::size_t>(total));
  for (int b = 0; b < s.blocks; ++b) {
    Rng order(seed, rng_stream(RngStream::trial_order, b));
    Rng direction(seed, rng_stream(RngStream::trial_direction, b));
    fisher_yates(blocks[b], order);
    for (std::size_t i = 0; i < blocks[b].size(); ++i)
      trials.push_back(PlannedTrial{.trial = static_cast<int>(trials.size()),
                                    .block = b,
                                    .trial_in_block = static_cast<int>(i),
                                    .condition = blocks[b][i],
                                    .direction_deg = direction.uniform(0.0, 360.0)});
  }
  return trials;
}

void validate(const InterleavedStaircaseSettings& s) {
  if (s.eccentricities_deg.empty())
    throw SettingError("eccentricities_deg", "an empty list: the staircase method needs at least one eccentricity");
  // The same eccentricity may come twice: two staircases there.
  if (const std::string problem = values_problem(s.eccentricities_deg, 0.0, false, true); !problem.empty())
    throw SettingError("eccentricities_deg", problem);
  if (s.start_values_deg.empty()) throw SettingError("start_values_deg", "an empty list: give each staircase's first gap");
  if (s.start_values_deg.size() != 1 && s.start_values_deg.size() != s.eccentricities_deg.size())
    throw SettingError("start_values_deg", "one value for all staircases, or one per eccentricity (" +
                                               std::to_string(s.eccentricities_deg.size()) + "), not " +
                                               std::to_string(s.start_values_deg.size()));
  validate(s.rules, "rules.");
  if (s.rules.step_type == StepType::linear && !(s.rules.min_value >= 0))
    throw SettingError("rules.min_value", "must be >= 0 with linear steps (a gap cannot be negative), not " +
                                              format_number(s.rules.min_value));
  for (std::size_t i = 0; i < s.start_values_deg.size(); ++i)
    if (const std::string problem = start_value_problem(s.rules, s.start_values_deg[i]); !problem.empty())
      throw SettingError("start_values_deg[" + std::to_string(i) + "]", problem);
}

InterleavedStaircases::InterleavedStaircases(const InterleavedStaircaseSettings& settings, std::uint64_t seed)
    : settings_(settings), passes_(seed) {
  validate(settings_);
  const std::vector<double>& starts = settings_.start_values_deg;
  for (std::size_t i = 0; i < settings_.eccentricities_deg.size(); ++i)
    staircases_.emplace_back(starts.size() == 1 ? starts.front() : starts[i], settings_.rules);
  running_ = staircase_count();
}

void InterleavedStaircases::start_pass() {
  // The running staircases, in their order of creation (MultiStairHandler._startNewPass),
  // shuffled by the pass's stream: a pass's order depends on the seed and on which
  // staircases still run, nothing else.
  std::vector<int> running;
  for (int i = 0; i < staircase_count(); ++i)
    if (!staircases_[i].finished()) running.push_back(i);
  passes_.start_pass(std::move(running));
}

PlannedTrial InterleavedStaircases::next() {
  if (passes_.pending()) return passes_.pending_trial();
  if (finished()) throw std::logic_error("InterleavedStaircases::next: every staircase has finished");
  // Only the staircase just run can finish, and it has left the pass already, so every
  // staircase left in the pass is running (as in MultiStairHandler.__next__).
  if (passes_.pass_done()) start_pass();
  const int index = passes_.slot();
  return passes_.hand_out(Condition{.index = index,
                                    .gap_deg = staircases_[index].intensity(),
                                    .eccentricity_deg = settings_.eccentricities_deg[index],
                                    .catch_trial = false,
                                    .staircase = index});
}

void InterleavedStaircases::add_response(bool yes) {
  if (!passes_.pending())
    throw std::logic_error("InterleavedStaircases::add_response: no trial from next() waits for one");
  Staircase& stair = staircases_[passes_.pending_trial().condition.staircase];
  stair.add_response(yes);
  if (stair.finished()) --running_;
  passes_.answered();
}

}  // namespace fovea
