#pragma once

namespace fovea {

/// What one trial shows: a collision gap at an eccentricity from fixation.
struct Condition {
  /// Constant stimuli: gap index * eccentricities + eccentricity index for the grid, then
  /// grid size + eccentricity index for the catch trials. Staircases: the staircase's index.
  int index = 0;
  double gap_deg = 0.0;           ///< the gap, degrees of visual angle; 0 on a catch trial
  double eccentricity_deg = 0.0;  ///< distance of the target from fixation, degrees
  bool catch_trial = false;       ///< no gap at all: measures the false-alarm rate
  int staircase = -1;             ///< the staircase that chose the gap, -1 for constant stimuli
};

/// The gap `condition` shows, degrees: 0 on a catch trial, whatever gap_deg holds. The one
/// rule for what a trial's gap is: the stimulus draws it, the simulated observer answers to
/// it, trials.csv records it and a resumed session compares against it.
inline double shown_gap_deg(const Condition& condition) { return condition.catch_trial ? 0.0 : condition.gap_deg; }

/// One trial of a session, as planned before the response.
struct PlannedTrial {
  int trial = 0;           ///< index in the session, from 0
  int block = 0;           ///< constant stimuli: the block; staircases: the pass
  int trial_in_block = 0;  ///< index inside the block or pass, from 0
  Condition condition;    ///< the gap and eccentricity shown, and where they came from
  /// Direction of the target from fixation, degrees counterclockwise from the right, uniform
  /// in [0, 360) as the design draws it: the observer cannot learn where to look. A session
  /// with stimulus.directions horizontal turns it into 0 or 180 (stimulus_direction_deg).
  double direction_deg = 0.0;
  /// A two-interval trial (task.kind 2ifc): the interval, 1 or 2, whose animation has the
  /// gap; the other shows the pair touching. 0 on a yes/no trial.
  int gap_interval = 0;
  /// A two-interval trial: the direction of the other interval's target, drawn on its own so
  /// that the first animation does not show where to look in the second. NaN-free: equal to
  /// direction_deg on a yes/no trial.
  double other_direction_deg = 0.0;
};

}  // namespace fovea
