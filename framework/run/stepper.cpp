#include "run/stepper.hpp"

#include <cassert>

#include "world/motion.hpp"

namespace fovea {

Stepper::Stepper(std::unique_ptr<Animation> world, std::unique_ptr<Demo> demo)
    : world_(std::move(world)), demo_(std::move(demo)) {
  assert(world_);
}

RunFrame& Stepper::step(bool player_follows_camera) {
  if (demo_) demo_->before_step(*world_, player_follows_camera);
  frame_.stats = world_->step();
  if (demo_) demo_->after_step(*world_);
  frame_.measures = FrameMeasures{};
  frame_.measures.kinetic_energy_j = kinetic_energy_j(world_->states(), world_->entities());
  frame_.measures.potential_energy_j =
      potential_energy_j(world_->states(), world_->entities(), world_->settings().response.gravity_mps2);
  frame_.demo_values = demo_ ? demo_->values() : std::span<const double>{};
  return frame_;
}

void Stepper::replace(std::unique_ptr<Animation> world, std::unique_ptr<Demo> demo) {
  assert(world);
  world_ = std::move(world);
  demo_ = std::move(demo);
  frame_ = RunFrame{};  // the last frame's demo values were the old demo's
}

}  // namespace fovea
