#pragma once

// Planned trials compared field by field, for the tests of the designs that plan them
// (tests/psychophysics: trial_design_test.cpp, psi_test.cpp). Built as
// fovea_test_psychophysics, on fovea_psychophysics.

#include "psychophysics/trial_design.hpp"

namespace fovea::test {

/// Whether two planned trials are the same trial: number, block, place in the block,
/// condition (index, gap, eccentricity, catch, staircase) and direction, all equal.
bool same_trial(const PlannedTrial& a, const PlannedTrial& b);

}  // namespace fovea::test
