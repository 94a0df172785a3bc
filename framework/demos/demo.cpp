#include "demos/demo.hpp"

#include "core/format.hpp"
#include "core/setting_error.hpp"

namespace fovea {
namespace {

/// One frames.csv column of a demo: its name and the member of the demo's frame record it
/// shows, declared together so that no value can go under another's name.
template <class Frame>
struct DemoColumn {
  const char* name;
  double (*value)(const Frame&);  ///< value_of the member
};

/// A frame record's member as a frames.csv value; counts are exact as doubles below 2^53.
template <auto member, class Frame>
double value_of(const Frame& frame) {
  return static_cast<double>(frame.*member);
}

// The demos' columns in frames.csv order (docs/results.md, "Demo columns").
constexpr DemoColumn<RockfallFrame> kRockfallColumns[] = {
    {"rocks", value_of<&RockfallFrame::rocks>},
    {"rocks_released", value_of<&RockfallFrame::released>},
    {"rock_breaks", value_of<&RockfallFrame::breaks>},
    {"fragments", value_of<&RockfallFrame::fragments>},
    {"debris_voxels", value_of<&RockfallFrame::debris_voxels>},
    {"rocks_retired", value_of<&RockfallFrame::retired>},
    {"player_hits", value_of<&RockfallFrame::player_hits>},
    {"player_hits_total", value_of<&RockfallFrame::player_hits_total>},
    {"player_x_m", value_of<&RockfallFrame::player_x_m>},
    {"player_z_m", value_of<&RockfallFrame::player_z_m>},
};
constexpr DemoColumn<CrowdFrame> kCrowdColumns[] = {
    {"walkers", value_of<&CrowdFrame::walkers>},
    {"walkers_arrived", value_of<&CrowdFrame::arrived>},
    {"walker_speed_mps", value_of<&CrowdFrame::mean_speed_mps>},
};

template <class Frame>
std::vector<std::string> names_of(std::span<const DemoColumn<Frame>> columns) {
  std::vector<std::string> names;
  for (const DemoColumn<Frame>& c : columns) names.emplace_back(c.name);
  return names;
}

/// `frame`'s values into `values`, which holds one per column.
template <class Frame>
void put_values(std::span<const DemoColumn<Frame>> columns, const Frame& frame, std::vector<double>& values) {
  for (std::size_t c = 0; c < columns.size(); ++c) values[c] = columns[c].value(frame);
}

}  // namespace

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
    demo->columns_ = names_of<RockfallFrame>(kRockfallColumns);
  } else {
    demo->crowd_.emplace(world, settings.crowd, seed);
    demo->columns_ = names_of<CrowdFrame>(kCrowdColumns);
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
    last_rockfall_ = rockfall_->after_step(world);
    put_values<RockfallFrame>(kRockfallColumns, last_rockfall_, values_);
  }
  if (crowd_) {
    last_crowd_ = crowd_->after_step(world);
    put_values<CrowdFrame>(kCrowdColumns, last_crowd_, values_);
  }
}

std::string Demo::status() const {
  if (rockfall_)
    return "rocks " + std::to_string(last_rockfall_.rocks) + ", hits " + std::to_string(last_rockfall_.player_hits_total);
  if (crowd_) return "arrived " + std::to_string(last_crowd_.arrived) + " of " + std::to_string(last_crowd_.walkers);
  return "";
}

}  // namespace fovea
