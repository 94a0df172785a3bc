#include "psychophysics/experiment_settings.hpp"

namespace fovea {

InterleavedStaircaseSettings interleaved_staircases(const StaircaseDesignSettings& design) {
  InterleavedStaircaseSettings out;
  out.eccentricities_deg = design.eccentricities_deg;
  // One start value stands for every staircase.
  out.start_values_deg = design.start_values_deg.size() == 1
                             ? std::vector<double>(design.eccentricities_deg.size(), design.start_values_deg.front())
                             : design.start_values_deg;
  StaircaseSettings& s = out.staircase;
  s.start_value = out.start_values_deg.empty() ? 1.0 : out.start_values_deg.front();
  s.n_up = design.n_up;
  s.n_down = design.n_down;
  s.step_sizes = design.step_sizes;
  s.step_type = design.step_type;
  s.n_trials = design.n_trials;
  s.n_reversals = design.n_reversals;
  s.min_value = design.min_gap_deg;
  s.max_value = design.max_gap_deg;
  return out;
}

}  // namespace fovea
