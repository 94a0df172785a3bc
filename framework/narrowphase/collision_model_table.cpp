#include "narrowphase/collision_model_table.hpp"

namespace fovea {

CollisionModelTable::CollisionModelTable(std::vector<CollisionModel> models) : models_(std::move(models)) {
  growers_.resize(models_.size());
}

void CollisionModelTable::set_model(ModelId id, CollisionModel model, std::unique_ptr<TreeGrower> grower) {
  if (id >= models_.size()) {
    models_.resize(id + std::size_t{1});
    growers_.resize(id + std::size_t{1});
  }
  if (growers_[id]) {
    const TreeGrower& old = *growers_[id];
    released_growth_ += old.stats();
    released_growth_.nodes_evicted += old.live_nodes() - 1;  // its nodes go with it; the root was never grown
  }
  models_[id] = std::move(model);
  growers_[id] = std::move(grower);
}

std::int64_t CollisionModelTable::evict_idle(std::int64_t frame) {
  std::int64_t freed = 0;
  for (std::size_t id = 0; id < growers_.size(); ++id) {
    if (!growers_[id]) continue;
    growers_[id]->set_frame(frame);
    freed += growers_[id]->evict_idle(models_[id], growers_[id]->evict_after_frames());
  }
  return freed;
}

TreeGrowthStats CollisionModelTable::take_growth_stats() {
  TreeGrowthStats total = released_growth_;
  released_growth_ = {};
  for (const auto& grower : growers_) {
    if (!grower) continue;
    total += grower->stats();
    grower->reset_stats();
  }
  return total;
}

std::int64_t CollisionModelTable::grown_nodes() const {
  std::int64_t nodes = 0;
  for (const auto& grower : growers_)
    if (grower) nodes += grower->live_nodes();
  return nodes;
}

}  // namespace fovea
