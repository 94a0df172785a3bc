#include "demos/demo.hpp"

#include "core/format.hpp"

namespace fovea {

std::unique_ptr<Demo> Demo::make(Animation& world, const DemoSettings& settings, std::uint64_t seed) {
  if (settings.kind == DemoKind::none) return nullptr;
  std::unique_ptr<Demo> demo(new Demo());
  if (settings.kind == DemoKind::rockfall) {
    demo->rockfall_.emplace(world, settings.rockfall, seed);
    demo->columns_ = {"rocks",         "rocks_released", "rock_breaks", "fragments", "debris_voxels",
                      "rocks_retired", "player_hits",    "player_hits_total", "player_x_m", "player_z_m"};
  } else {
    demo->crowd_.emplace(world, settings.crowd, seed);
    demo->columns_ = {"walkers", "walkers_arrived", "walker_speed_mps"};
  }
  demo->values_.assign(demo->columns_.size(), 0.0);
  return demo;
}

void Demo::before_step(Animation& world, bool follow_camera) {
  if (rockfall_) rockfall_->before_step(world, follow_camera);
  if (crowd_) crowd_->before_step(world);
}

void Demo::after_step(Animation& world) {
  if (rockfall_) {
    const RockfallFrame f = rockfall_->after_step(world);
    values_ = {static_cast<double>(f.rocks),         static_cast<double>(f.released),
               static_cast<double>(f.breaks),        static_cast<double>(f.fragments),
               static_cast<double>(f.debris_voxels), static_cast<double>(f.retired),
               static_cast<double>(f.player_hits),   static_cast<double>(f.player_hits_total),
               f.player_x_m,                         f.player_z_m};
  }
  if (crowd_) {
    const CrowdFrame f = crowd_->after_step(world);
    values_ = {static_cast<double>(f.walkers), static_cast<double>(f.arrived), f.mean_speed_mps};
  }
}

std::string Demo::status() const {
  if (rockfall_)
    return "rocks " + std::to_string(static_cast<std::int64_t>(values_[0])) + ", hits " +
           std::to_string(static_cast<std::int64_t>(values_[7]));
  if (crowd_)
    return "arrived " + std::to_string(static_cast<std::int64_t>(values_[1])) + " of " +
           std::to_string(static_cast<std::int64_t>(values_[0]));
  return "";
}

}  // namespace fovea
