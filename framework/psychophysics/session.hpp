#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "perception/perception_model.hpp"
#include "psychophysics/experiment_settings.hpp"
#include "psychophysics/trial_design.hpp"
#include "psychophysics/trial_records.hpp"

namespace fovea {


/// A resumed session's records that are not the trials the spec's design has there (another
/// spec, seed or participant, or an edited row): what() names the file, the row's line, the
/// field that differs and both values.
class ResumeMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The order of a participant's trials and what has been done of it: the design (constant
/// stimuli, interleaved staircases or psi procedures) advanced by the responses so far. Deterministic from
/// the spec, its seed and the records, so a killed session rebuilt from its trials.csv goes
/// on exactly where it stopped, with the same randomisation.
class TrialSequence {
 public:
  /// `done`: the records of earlier sessions (trials.csv, psychophysics/trial_records.hpp), in
  /// the order they were run, each replayed into the design. Throws ResumeMismatch, naming
  /// `records` (the file they came from) and the row's line, at the first row whose trial,
  /// block, place in it, condition, procedure, catch flag, gap, eccentricity or direction is
  /// not what the design has there: "trials.csv:51: gap_deg is 0.2 in the file, 0.25 in this
  /// spec's design for trial 49 (condition 2)". The columns the answers decide (reversal,
  /// psi_*: record(TrialRecord&)) are replayed too and compared where the row has a value (an
  /// older file has none): the reversal exactly, the psi's numbers to 1e-9 relative, since
  /// another machine's exp and log may round their last bits differently.
  TrialSequence(const ExperimentSettings& spec, const std::vector<TrialRecord>& done,
                const std::string& records = "trials.csv");

  /// The next trial, or nothing when the design is complete. Asking again without a
  /// response gives the same trial.
  std::optional<PlannedTrial> next();
  /// The answer to the trial next() gave: yes and no advance the design; aborted requeues
  /// the trial at the end of its block (constant stimuli) or runs it again (staircases, psi).
  /// On a two-interval trial first and second advance it, as correct when they name the
  /// trial's gap_interval (positive_answer()).
  void record(TrialResponse response);
  /// record(r.response), then the design's state after that answer into r's adaptive
  /// columns: on a staircase's trial whether it reversed the staircase (reversal), on a psi
  /// procedure's its posterior estimates and entropy (psi_*), all empty on other trials (a
  /// psi's catch trials included) and on an aborted one. What a session writes to trials.csv.
  void record(TrialRecord& r);
  /// Trials answered yes or no so far, and those the design holds in all (for constant
  /// stimuli and psi; staircases end when they end, so a lower bound).
  int answered() const { return answered_; }
  /// Trials the design holds: the plan's or psi's count; staircases x n_trials (a lower bound).
  int planned() const { return planned_; }

 private:
  DesignMethod method_;
  StimulusDirections directions_;  ///< next() hands out the direction the stimulus shows
  bool two_interval_ = false;      ///< task.kind 2ifc: next() draws each trial's gap interval
  std::uint64_t seed_ = 0;         ///< the spec's: the gap intervals' stream
  std::vector<PlannedTrial> plan_;               ///< constant stimuli
  std::vector<std::vector<int>> queue_;          ///< constant stimuli: per block, plan indices to run, in order
  int block_ = 0;                                ///< the block now running
  std::optional<InterleavedStaircases> staircases_;
  std::optional<InterleavedPsi> psi_;
  std::optional<PlannedTrial> pending_;
  int answered_ = 0;
  int planned_ = 0;
};

/// A simulated observer (`fovea experiment --observer model.yaml`): answers yes with the
/// probability f(e, g) of a perception model, lapses and guesses included; on a two-interval
/// trial, names the gap's interval with the probability f(e, g) takes with the forced choice's
/// guess rate of 1/2 in place of the model's (the same F, threshold, width and lapse). Each trial's
/// answer depends only on the seed, the participant and the trial's index and attempt, so a
/// resumed session answers as an unbroken one would.
class SimulatedObserver {
 public:
  /// Answers from `model`'s f(e, g), drawn from `seed` mixed with a hash of `participant`.
  SimulatedObserver(const PerceptionModelSettings& model, std::uint64_t seed, const std::string& participant);
  /// The answer to `trial`, the `attempt`-th time it is shown (from 0).
  TrialResponse answer(const PlannedTrial& trial, int attempt) const;

 private:
  PerceptionModel model_;
  PerceptionModel forced_choice_model_;  ///< model_ with guess rate 1/2: a two-interval trial's P(correct)
  std::uint64_t seed_;
};

}  // namespace fovea
