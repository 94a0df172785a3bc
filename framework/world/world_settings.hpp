#pragma once

// Definition structs for the world, with the defaults a config falls back on. config/ fills
// them from YAML; the world only ever sees these plain structs (docs/config.md lists them).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/kind_table.hpp"
#include "core/math.hpp"

namespace fovea {

/// Built-in voxel model generators (world/model_generators.hpp), or a model from a file.
enum class Shape {
  ball,      ///< ellipsoid inscribed in the grid (a sphere at aspect [1, 1, 1])
  box,       ///< every voxel of the grid filled
  rock,      ///< seeded star-shaped blob, a new shape per variant (ModelSettings::variants)
  l_shape,   ///< L cross-section extruded along z: not convex
  humanoid,  ///< standing figure facing +z (the crowd demo's walkers)
  ravine,    ///< U-shaped trough along z with seeded relief (the rockfall demo's scenery)
  file       ///< MagicaVoxel .vox model read from ModelSettings::file
};

/// The shapes' names in configs and on the command line (`fovea tree`).
inline constexpr auto kModelShapes = kind_table<KindName<Shape>>({
    {Shape::ball, "ball", "the ellipsoid inscribed in the grid"},
    {Shape::box, "box", "every voxel of the grid"},
    {Shape::rock, "rock", "a star-shaped blob with a seeded bumpiness, a new one per variant"},
    {Shape::l_shape, "l_shape", "an L cross-section extruded along z: not convex"},
    {Shape::humanoid, "humanoid", "a standing figure facing +z (the crowd's walkers)"},
    {Shape::ravine, "ravine", "a U-shaped trough along z with a seeded relief (the rockfall's scenery)"},
    {Shape::file, "file", "a MagicaVoxel .vox model (model.file)"},
});

/// How a group's entities get their initial positions (world/placement.hpp).
enum class Placement {
  random,  ///< uniform in the box, bounding spheres apart (up to 1000 tries per entity)
  packed,  ///< cubic lattice of touching bounding spheres from the box's min corner
  floor,   ///< one unrotated entity, grid centred on the box's floor (scenery)
  demo     ///< placed by the run's demo before the first frame (on a lattice until then)
};

/// The placements' names in configs (`world.entities[].placement`) and their help.
inline constexpr auto kPlacements = kind_table<KindName<Placement>>({
    {Placement::random, "random", "uniform in the box, no two bounding spheres overlapping"},
    {Placement::packed, "packed", "a cubic lattice of touching bounding spheres filling the box from its min corner"},
    {Placement::floor, "floor", "one entity, unrotated, its grid centred on the box's floor (scenery: a ravine)"},
    {Placement::demo, "demo", "placed by the run's demo before the first frame (a crowd's streams)"},
});

/// The box that bounds an entity in the broad phase (004 section 3.2: "fixed-size bounding
/// cubes ... or dynamically-sized bounding boxes"; world/entity_bounds.hpp).
enum class BoundsKind {
  fixed,     ///< cube of side 2 x bounding radius about the centre of mass: moves, never resizes
  dynamic,   ///< tight axis-aligned box of the hull at the current orientation, every frame
  automatic  ///< spelt "auto": dynamic for long thin models, fixed for compact ones
};

/// The bounds kinds' names in configs (`world.entities[].bounds`) and their help.
inline constexpr auto kBoundsKinds = kind_table<KindName<BoundsKind>>({
    {BoundsKind::fixed, "fixed", "a cube of side 2 x bounding radius around the centre of mass: only moves"},
    {BoundsKind::dynamic, "dynamic", "the tight axis-aligned box at the current orientation, every frame"},
    {BoundsKind::automatic, "auto", "dynamic for long thin models, fixed for compact ones (docs/broadphase.md)"},
});

/// How a group's voxel model is made (config `world.entities[].model`; world/model_generators.hpp).
struct ModelSettings {
  Shape shape = Shape::ball;    ///< built-in generator, or Shape::file to read `file`
  double size_m = 0.5;          ///< extent of the longest side of the voxel grid
  int resolution_voxels = 8;    ///< voxels along the longest side
  Vec3 aspect{1.0, 1.0, 1.0};   ///< stretch of the shape's own proportions per axis
  int variants = 1;             ///< distinct seeded shapes in the group, used in turn
  std::string file;             ///< a MagicaVoxel .vox file, for Shape::file
  int file_model = 0;           ///< which model of a .vox file that holds several
};

/// Which algorithm builds a model's sphere tree (config `sphere_tree.builder`, `fovea tree
/// --builder`; spheretree/tree_builder.hpp builds them, docs/spheretree.md compares them).
enum class SphereTreeBuilder {
  octree,   ///< 004 section 3.3.1's octree cells (spheretree/octree_builder.hpp); the default
  medial,   ///< spheres on the model's medial axis (spheretree/medial_builder.hpp)
  tightest  ///< both built per model, the tighter at equal sphere counts kept
};

/// A tree builder and what it can do.
struct SphereTreeBuilderInfo {
  SphereTreeBuilder kind;  ///< the builder this row describes
  const char* name;  ///< in configs, `fovea tree --builder` and the records
  const char* help;  ///< one line: what the builder does (core/kind_table.hpp)
  bool grows_on_demand;  ///< can build its branches as collisions first need them (`sphere_tree.on_demand`, 001)
};

/// The builders' names and help (config `sphere_tree.builder`), one row per SphereTreeBuilder.
inline constexpr auto kSphereTreeBuilders = kind_table<SphereTreeBuilderInfo>({
    {SphereTreeBuilder::octree, "octree",
     "004 section 3.3.1: octree cells (spheretree/octree_builder.hpp); the default", /*grows_on_demand=*/true},
    {SphereTreeBuilder::medial, "medial", "spheres on the model's medial axis (spheretree/medial_builder.hpp)",
     /*grows_on_demand=*/false},
    {SphereTreeBuilder::tightest, "tightest", "both built, the tighter at equal sphere counts kept, per model",
     /*grows_on_demand=*/false},
});

/// Where an octree node's sphere comes from (config `sphere_tree.fit`).
enum class SphereFit {
  cell,   ///< 004's: smallest sphere about the box of the cell's occupied voxels
  voxels  ///< smallest sphere about the corners of the voxels the node covers (004's where that protrudes less)
};

/// The fits' names in configs (`sphere_tree.fit`) and their help.
inline constexpr auto kSphereFits = kind_table<KindName<SphereFit>>({
    {SphereFit::cell, "cell", "004's sphere: the smallest around the box of the occupied voxels in the node's cell"},
    // The voxels it must cover are its cell's surface voxels, or all its occupied voxels when
    // hidden nodes are kept (spheretree/octree_builder.hpp).
    {SphereFit::voxels, "voxels",
     "the smallest sphere around the corners of the voxels the node must cover, or 004's where that protrudes less"},
});

/// The builders' and fits' names, as configs, `fovea tree` and the records spell them.
constexpr std::string_view sphere_tree_builder_name(SphereTreeBuilder builder) {
  return kind_name(kSphereTreeBuilders, builder);
}
/// Config name of a sphere fit ("cell", "voxels").
constexpr std::string_view sphere_fit_name(SphereFit fit) { return kind_name(kSphereFits, fit); }

/// How a group's sphere trees are made (spheretree/tree_builder.hpp), or read from a file.
struct SphereTreeSettings {
  SphereTreeBuilder builder = SphereTreeBuilder::octree;  ///< kSphereTreeBuilders; only octree beside `file`
  int levels = 4;               ///< levels of spheres below the root (004 section 3.3)
  bool remove_hidden = true;    ///< drop nodes hidden on all six sides (004 section 3.3.1)
  SphereFit fit = SphereFit::cell;  ///< octree trees' spheres, the on-demand ones included
  int branching = 8;            ///< most children per node of a medial tree, 2 to 8
  std::string file;             ///< a Toolkit .sph file to use instead of building one
  /// Grow the file's spheres until they cover the model's voxels as the descent needs
  /// (spheretree/inflate.hpp), instead of refusing a tree whose root misses a voxel.
  bool inflate = false;
  /// Build branches only when a collision first needs them, and drop those unused for
  /// evict_after_frames frames (001's on-collide trees; narrowphase/on_demand_tree.hpp).
  bool on_demand = false;
  int evict_after_frames = 120;  ///< frames, with on_demand: a branch unused this long is dropped
};

/// A group's physical material and colour (config `world.entities[].material`).
struct MaterialSettings {
  double density_kgpm3 = 1000.0;  ///< kg/m^3; mass is density times the occupied voxel volume
  double restitution = 1.0;     ///< 1: elastic; 0: no bounce (configs default to response.restitution)
  double friction = 0.5;        ///< Coulomb coefficient (configs default to response.friction)
  Vec3 colour{0.85, 0.55, 0.25};  ///< linear RGB in [0, 1]
};

/// A group of identical-in-kind entities.
struct EntityGroupSettings {
  std::string name = "entities";  ///< for error messages ('balls'); need not be unique
  int count = 100;              ///< entities made at the start; 0 skips the group
  ModelSettings model;          ///< the group's voxel model, one per rock variant
  MaterialSettings material;    ///< shared by the group's entities; colour for built-in shapes only
  SphereTreeSettings sphere_tree;  ///< one tree per model, shared by the entities using it
  Placement placement = Placement::random;  ///< how the entities get their initial positions
  BoundsKind bounds = BoundsKind::automatic;  ///< the box bounding each entity in the broad phase
  double speed_mps = 1.0;       ///< initial linear speed, direction uniform on the sphere
  double spin_radps = 1.0;      ///< initial angular speed, axis uniform on the sphere
  bool is_static = false;       ///< never moves; infinite mass for the response
};

/// The world (config `world`): the box, the time step and the entity groups.
struct WorldSettings {
  Vec3 box_size_m{10.0, 10.0, 10.0};  ///< the world box spans [0, box_size_m]
  double time_step_s = 0.01;          ///< fixed simulation step per frame
  std::vector<EntityGroupSettings> entities;  ///< placed in this order; an index here is Entity::group
};

}  // namespace fovea
