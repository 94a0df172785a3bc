#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "narrowphase/collision_model.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "world/entity.hpp"

namespace fovea {

/// The narrow phase's sphere trees by ModelId: whole trees, and trees grown on demand (001)
/// with their growers, which the descent, the wall contacts and the player's capsule grow
/// as they walk them and which are evicted between frames.
class CollisionModelTable {
 public:
  CollisionModelTable() = default;
  /// `models` by ModelId, all whole trees.
  explicit CollisionModelTable(std::vector<CollisionModel> models);

  /// Puts a model in slot `id` (growing the table as needed), replacing what was there: a
  /// whole tree with a null `grower`, an on-demand tree with its grower (001). Between
  /// frames only: no collision of the frame may refer to the old model.
  void set_model(ModelId id, CollisionModel model, std::unique_ptr<TreeGrower> grower);
  /// The model in slot `id` and its grower (null for a whole tree). Pointers: use it at
  /// once; set_model() of a new slot may move every model.
  GrowableModel growable(ModelId id) { return {&models_[id], growers_[id].get()}; }
  /// Frees the branches of on-demand trees unused for longer than each tree's
  /// evict_after_frames(); `frame` is the frame about to run, which the trees' stamps count
  /// from. Between frames only. Returns nodes freed.
  std::int64_t evict_idle(std::int64_t frame);
  /// What growing and evicting did since the last call, summed over the on-demand trees; a
  /// tree released with its model counts its grown nodes as evicted (roots are neither built
  /// nor evicted: they come and go with their models).
  TreeGrowthStats take_growth_stats();
  /// Whether model `id`'s tree is grown on demand (its nodes may be evicted between frames).
  bool is_grown_on_demand(ModelId id) const { return id < growers_.size() && growers_[id] != nullptr; }
  /// Nodes of the on-demand trees now, the roots included.
  std::int64_t grown_nodes() const;

  /// The model in slot `id`, as grown so far; set_model() of a new slot may move it.
  const CollisionModel& model(ModelId id) const { return models_[id]; }
  /// Every model, by ModelId.
  std::span<const CollisionModel> models() const { return models_; }

 private:
  std::vector<CollisionModel> models_;
  std::vector<std::unique_ptr<TreeGrower>> growers_;  // by ModelId; null for whole trees
  /// What growing trees released with their models did since take_growth_stats(): their
  /// nodes count as evicted.
  TreeGrowthStats released_growth_;
};

}  // namespace fovea
