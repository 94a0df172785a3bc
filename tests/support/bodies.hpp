#pragma once

// Posed bodies for the narrow phase's tests (tests/narrowphase/): a voxel model with its
// whole sphere tree, an on-demand tree of the same model, and a narrow phase holding the
// one collision of two bodies. Built as fovea_test_bodies, on fovea_narrowphase.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "broadphase/pair_set.hpp"
#include "core/budget.hpp"
#include "core/rng.hpp"
#include "narrowphase/collision_model.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "spheretree/octree_builder.hpp"
#include "spheretree/sphere_tree.hpp"
#include "world/entity.hpp"
#include "world/model_generators.hpp"
#include "world/voxel_model.hpp"

namespace fovea::test {

/// The shapes random bodies are drawn from. Their order is part of each test's sample.
inline constexpr Shape kBodyShapes[] = {Shape::rock, Shape::l_shape, Shape::humanoid, Shape::ball, Shape::box};

/// One posed model: what the descent, the capsule, the wall contacts and their oracles need.
struct Body {
  VoxelModel model;
  OctreeBuildOptions options;
  SphereTree tree;              ///< the whole tree
  CollisionModel collision;     ///< of `tree`
  Vec3 centre_of_mass_m{0.0};   ///< model space
  EntityState state;            ///< the pose: at the origin, unturned, until a test moves it
};

/// A generated model `resolution` voxels of 0.1 m across, with a whole tree of `levels`
/// levels, hidden nodes removed or kept.
Body make_body(Shape shape, int resolution, std::uint64_t seed, int levels, bool remove_hidden);

/// `model` as a body, its tree built with `options`: for models a test makes voxel by voxel.
Body body_of(VoxelModel model, const OctreeBuildOptions& options);

/// An on-demand tree (001) of a body's model: the root alone until something grows it.
struct OnDemandTree {
  CollisionModel model;
  std::unique_ptr<TreeGrower> grower;

  GrowableModel growable() { return {&model, grower.get()}; }
};

OnDemandTree make_on_demand_tree(const Body& body);

/// Two bodies `pick(salt)` makes, each from a salt drawn from `rng`, then posed from `rng`:
/// both turned at random, a anywhere in the cube [-1, 1]^3 m and b with its centre between
/// 0.3 and 1.05 times the sum of their bounding radii from a's (mostly overlapping bounding
/// spheres, about as often touching as not).
std::pair<Body, Body> random_posed_duo(Rng& rng, const std::function<Body(std::uint64_t salt)>& pick);

/// Two hand-made models, to follow the descent step by step (004 sections 3.3.2 and 3.4.1):
/// [0] a root of radius 2 m at the origin with two leaf children of radius 1 m at x = -1 and
/// +1 m, its leaf reach 2 m; [1] a lone leaf of radius 0.5 m.
std::vector<CollisionModel> two_level_and_lone();

/// The broad phase's pairs of a frame with two entities that overlap: (0, 1).
PairSet one_pair();

/// A narrow phase holding the one collision between two bodies, entities 0 (a) and 1 (b).
struct Duo {
  NarrowPhase narrowphase;
  std::vector<Entity> entities{2};
  std::vector<EntityState> states;
  PairSet pairs;

  /// `on_demand` per body, a's then b's: its tree grown as the descent needs it, from a
  /// fresh root, instead of its whole tree.
  Duo(const Body& a, const Body& b, std::array<bool, 2> on_demand = {false, false});

  std::uint32_t slot() const { return narrowphase.order()[0]; }
  const Collision& collision() const { return narrowphase.collision(slot()); }
  /// Steps the descent until it ends or `budget` is exhausted; returns its status.
  CollisionStatus run(Budget& budget);
  /// Steps the descent to its end; returns the outcome.
  CollisionStatus run_to_end();
  /// The world centre of sphere `node` of body `tree` (0: a, 1: b), as the narrow phase holds it.
  Vec3 centre(int tree, std::uint32_t node) const;
};

}  // namespace fovea::test
