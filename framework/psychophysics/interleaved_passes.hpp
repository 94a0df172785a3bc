#pragma once

#include <cstdint>
#include <vector>

#include "psychophysics/planned_trial.hpp"

namespace fovea {

/// The order of trials that InterleavedStaircases and InterleavedPsi share (trial_design.hpp,
/// psi.hpp), as PsychoPy's MultiStairHandler runs it with method 'random': trials go in
/// passes, each pass a list of slots (what a slot means is the procedure's) shuffled by the
/// pass's own seeded stream; each trial's direction is drawn from a stream of its own; and a
/// trial once handed out is held, unchanged, until its answer comes. Everything is a function
/// of the seed, the slots and the order of calls, so replaying a killed session's answers
/// rebuilds it exactly.
class InterleavedPasses {
 public:
  /// Passes drawn from the streams of `seed`, the session's; none started yet.
  explicit InterleavedPasses(std::uint64_t seed) : seed_(seed) {}

  /// The current pass has handed out all its slots (true before the first pass): the
  /// procedure starts the next with start_pass().
  bool pass_done() const { return position_ >= static_cast<int>(slots_.size()); }
  /// The pass start_pass() begins next, from 0: the one a catch trial may be planned in.
  int next_pass_number() const { return pass_number_ + 1; }
  /// Begins the next pass with `slots`, in the order the pass's own stream
  /// (RngStream::trial_order, the pass's number) shuffles them.
  void start_pass(std::vector<int> slots);
  /// The slot the next trial fills. Only while !pass_done().
  int slot() const { return slots_[static_cast<std::size_t>(position_)]; }

  /// Holds and returns the trial of the current slot showing `condition`: its number, its
  /// pass and place in the pass, and its direction drawn from the trial's own stream
  /// (RngStream::trial_direction, the trial's number), degrees in [0, 360).
  const PlannedTrial& hand_out(const Condition& condition);
  /// A trial handed out waits for its answer.
  bool pending() const { return pending_; }
  /// The trial that waits; only while pending().
  const PlannedTrial& pending_trial() const { return pending_trial_; }
  /// The waiting trial has been answered: the next trial fills the next slot.
  void answered();
  /// Trials answered.
  int trials() const { return trials_; }

 private:
  std::uint64_t seed_ = 0;
  std::vector<int> slots_;  ///< this pass's slots, shuffled
  int position_ = 0;        ///< the entry of slots_ the next trial fills
  int pass_number_ = -1;    ///< passes started, less one
  int trials_ = 0;
  bool pending_ = false;
  PlannedTrial pending_trial_;
};

}  // namespace fovea
