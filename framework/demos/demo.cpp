#include "demos/demo.hpp"

#include "core/format.hpp"
#include "core/setting_error.hpp"

namespace fovea {

std::unique_ptr<Demo> Demo::make(Animation& world, const DemoSettings& settings, std::uint64_t seed) {
  // Only the crowd places a group (its walkers); any other `placement: demo` would leave
  // entities where nothing meant them to be.
  const std::vector<EntityGroupSettings>& groups = world.settings().world.entities;
  for (std::uint32_t g = 0; g < groups.size(); ++g)
    if (groups[g].placement == Placement::demo && groups[g].count > 0 &&
        !(settings.kind == DemoKind::crowd && groups[g].name == settings.crowd.group))
      throw SettingError("world.entities[" + std::to_string(g) + "].placement",
                         "placement demo needs the demo that places the group: demo.kind: crowd with demo.crowd.group: " +
                             groups[g].name);
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
    const RockfallFrame f = last_rockfall_ = rockfall_->after_step(world);
    values_ = {static_cast<double>(f.rocks),         static_cast<double>(f.released),
               static_cast<double>(f.breaks),        static_cast<double>(f.fragments),
               static_cast<double>(f.debris_voxels), static_cast<double>(f.retired),
               static_cast<double>(f.player_hits),   static_cast<double>(f.player_hits_total),
               f.player_x_m,                         f.player_z_m};
  }
  if (crowd_) {
    const CrowdFrame f = last_crowd_ = crowd_->after_step(world);
    values_ = {static_cast<double>(f.walkers), static_cast<double>(f.arrived), f.mean_speed_mps};
  }
}

std::string Demo::status() const {
  if (rockfall_)
    return "rocks " + std::to_string(last_rockfall_.rocks) + ", hits " + std::to_string(last_rockfall_.player_hits_total);
  if (crowd_) return "arrived " + std::to_string(last_crowd_.arrived) + " of " + std::to_string(last_crowd_.walkers);
  return "";
}

}  // namespace fovea
