#include "support/planned_trials.hpp"

namespace fovea::test {

bool same_trial(const PlannedTrial& a, const PlannedTrial& b) {
  return a.trial == b.trial && a.block == b.block && a.trial_in_block == b.trial_in_block &&
         a.condition.index == b.condition.index && a.condition.gap_deg == b.condition.gap_deg &&
         a.condition.eccentricity_deg == b.condition.eccentricity_deg &&
         a.condition.catch_trial == b.condition.catch_trial && a.condition.staircase == b.condition.staircase &&
         a.direction_deg == b.direction_deg;
}

}  // namespace fovea::test
