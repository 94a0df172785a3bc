#include "psychophysics/interleaved_passes.hpp"

#include <utility>

#include "core/rng.hpp"

namespace fovea {

void InterleavedPasses::start_pass(std::vector<int> slots) {
  // MultiStairHandler._startNewPass with method 'random'. Each pass draws from a stream of
  // its own, so the order of pass p depends on the seed and on the slots, nothing else.
  ++pass_number_;
  slots_ = std::move(slots);
  Rng rng(seed_, rng_stream(RngStream::trial_order, static_cast<std::uint64_t>(pass_number_)));
  fisher_yates(slots_, rng);
  position_ = 0;
}

const PlannedTrial& InterleavedPasses::hand_out(const Condition& condition) {
  // One stream per trial: a trial's direction depends on its number only.
  Rng direction(seed_, rng_stream(RngStream::trial_direction, static_cast<std::uint64_t>(trials_)));
  pending_trial_ = PlannedTrial{.trial = trials_,
                                .block = pass_number_,
                                .trial_in_block = position_,
                                .condition = condition,
                                .direction_deg = direction.uniform(0.0, 360.0)};
  pending_ = true;
  return pending_trial_;
}

void InterleavedPasses::answered() {
  ++position_;
  ++trials_;
  pending_ = false;
}

}  // namespace fovea
