#pragma once

#include <cstdint>

#include "core/math.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// Index of an entity in the Animation's arrays. Stable while the entity lives; a retired
/// entity's id is given to a later one (Animation::spawn).
using EntityId = std::uint32_t;
/// Index of a voxel model in the Animation's model list; entities built from the same
/// settings share one model (and, later, one sphere tree).
using ModelId = std::uint32_t;

/// What the frame loop reads and writes every frame: 104 bytes, kept apart from the cold
/// Entity data so integration streams through a dense array (hot apart from cold, as Box2D
/// splits a body's state from its bookkeeping).
struct EntityState {
  Vec3 position_m{0.0};               ///< world position of the centre of mass
  Quat orientation{1.0, 0.0, 0.0, 0.0};  ///< model axes to world axes (w, x, y, z)
  Vec3 linear_velocity_mps{0.0};      ///< of the centre of mass, world frame, m/s
  Vec3 angular_velocity_radps{0.0};   ///< world frame
};

/// What stays fixed after creation.
struct Entity {
  ModelId model = 0;                  ///< its voxel model and sphere tree (ModelLibrary slot)
  std::uint32_t group = 0;            ///< index into WorldSettings::entities
  bool is_static = false;             ///< never moves; also set for a retired entity
  bool live = true;                   ///< false once retired (Animation::retire)
  /// inertia_body_kgm2 is a multiple of the identity (is_isotropic: a ball, a cube): its world
  /// tensor is the same at any orientation, which the integrator and the response use.
  bool isotropic_inertia = false;
  BoundsKind bounds = BoundsKind::fixed;  ///< fixed or dynamic (auto already resolved)
  MaterialSettings material;          ///< a copy of its group's (restitution and friction for the response)
  double mass_kg = 0;                 ///< from the model's voxels and density, static entities too
  double inverse_mass_per_kg = 0;     ///< 0 for static entities (infinite mass)
  Vec3 centre_of_mass_model_m{0.0};   ///< where position_m sits in model space
  Mat3 inertia_body_kgm2{0.0};        ///< about the centre of mass, model axes
  Mat3 inverse_inertia_body{0.0};     ///< zero for static entities
  double bounding_radius_m = 0;       ///< around the centre of mass, any orientation
};

/// Model-space point p to world space for an entity in `state`.
inline Vec3 to_world(const Entity& entity, const EntityState& state, const Vec3& p_model_m) {
  return state.position_m + state.orientation * (p_model_m - entity.centre_of_mass_model_m);
}

}  // namespace fovea
