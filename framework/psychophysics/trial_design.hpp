#pragma once

#include <cstdint>
#include <vector>

#include "psychophysics/interleaved_passes.hpp"
#include "psychophysics/planned_trial.hpp"
#include "psychophysics/staircase.hpp"

namespace fovea {

/// The method of constant stimuli: a fixed grid of gaps x eccentricities, each shown
/// `repetitions` times, in blocks of shuffled trials.
struct ConstantStimuliSettings {
  std::vector<double> gaps_deg;            ///< required; each > 0, no duplicates
  std::vector<double> eccentricities_deg;  ///< required; each >= 0, no duplicates
  /// Times each gap x eccentricity condition is shown over the whole session.
  int repetitions = 10;
  /// Trials with no gap per block, at the eccentricities in turn.
  int catch_trials_per_block = 0;
  /// The repetitions are spread over this many blocks (a pause can follow each).
  int blocks = 1;
};

/// The session's trials in the order they run: a function of the settings and the seed only.
///
/// Repetitions per block: each condition goes floor(repetitions / blocks) times into every
/// block; the remaining repetitions % blocks of each, taken condition by condition, are dealt
/// to the blocks in turn (the m-th remaining one to block m % blocks, continuing from one
/// condition to the next). So a condition never differs by more than one between two blocks,
/// and neither do the blocks' sizes. Catch trial j of block b (gap 0) is at eccentricity
/// (b * catch_trials_per_block + j) % eccentricities. Each block is then shuffled
/// (Fisher-Yates) by its own stream, and directions drawn by another, so changing one block's
/// contents leaves the other blocks' orders alone. Throws std::invalid_argument naming the
/// key at fault.
std::vector<PlannedTrial> plan_constant_stimuli(const ConstantStimuliSettings& settings, std::uint64_t seed);

/// Interleaved staircases: one per eccentricity, each with its own start, all with the same
/// rules. An experiment spec's staircase section is this struct (psychophysics/experiment_settings.hpp).
struct InterleavedStaircaseSettings {
  /// One staircase each, in this order; required, each >= 0. The same eccentricity may come
  /// twice (e.g. one staircase starting above the threshold and one below).
  std::vector<double> eccentricities_deg;
  /// Each staircase's first gap: one value for all staircases, or one per eccentricity; required.
  std::vector<double> start_values_deg;
  /// The rules every staircase follows, the gap in degrees as intensity. With linear steps
  /// min_value must be >= 0: a gap is a length.
  StaircaseSettings rules;
};

/// The one check of interleaved staircases, made by InterleavedStaircases' constructor and by
/// config/ before a session. Throws SettingError (core/setting_error.hpp) naming the field at
/// fault, as a path in this struct ("eccentricities_deg", "start_values_deg[1]",
/// "rules.min_value"), and what is wrong.
void validate(const InterleavedStaircaseSettings& settings);

/// Runs several staircases interleaved the way PsychoPy's MultiStairHandler does with
/// method 'random': trials go in passes, each pass taking every unfinished staircase once in a
/// shuffled order; a staircase that finishes leaves from the next pass on. Everything is a
/// function of the settings, the seed and the responses given, so replaying a killed
/// session's responses (next(), add_response(), ...) rebuilds it exactly.
class InterleavedStaircases {
 public:
  /// Throws SettingError naming the field at fault (see validate()).
  InterleavedStaircases(const InterleavedStaircaseSettings& settings, std::uint64_t seed);

  /// The next trial: its staircase and the gap that staircase asks for. Calling it again
  /// before add_response() returns the same trial and draws nothing, so a repeated call
  /// cannot shift the sequence. Throws std::logic_error once finished().
  PlannedTrial next();
  /// The response to the trial next() returned (`yes`: the gap was seen). Throws
  /// std::logic_error when no trial is waiting for one.
  void add_response(bool yes);
  /// Every staircase has finished.
  bool finished() const { return running_ == 0; }
  /// Trials with a response.
  int trials() const { return passes_.trials(); }
  /// Staircases: one per entry of eccentricities_deg, finished ones included.
  int staircase_count() const { return static_cast<int>(staircases_.size()); }
  /// Staircase `index`, that of eccentricities_deg[index]; unchecked.
  const Staircase& staircase(int index) const { return staircases_[index]; }
  /// The settings it was built from.
  const InterleavedStaircaseSettings& settings() const { return settings_; }

 private:
  /// Shuffles the unfinished staircases into the next pass.
  void start_pass();

  InterleavedStaircaseSettings settings_;
  std::vector<Staircase> staircases_;
  int running_ = 0;  ///< staircases not finished
  InterleavedPasses passes_;  ///< the passes' slots: a staircase's index
};

}  // namespace fovea
