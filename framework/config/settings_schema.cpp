#include "config/settings_schema.hpp"

namespace fovea::config {
namespace {

// Ranges keep every quantity well inside double precision: a micrometre-sized model of the
// lightest material still has a representable inertia (about 1e-36 kg m^2), a kilometre one
// of the densest no overflow, and speeds cannot carry entities to infinity in any run.

Section<ModelSettings> model_schema() {
  Section<ModelSettings> s;
  std::vector<std::pair<std::string, Shape>> shapes;
  for (const auto& [name, shape] : kShapeNames) shapes.emplace_back(name, shape);
  s.choice("shape", &ModelSettings::shape, shapes,
           "built-in voxel model generator, or file for a MagicaVoxel .vox model (model.file)");
  s.number("size_m", &ModelSettings::size_m, between(1e-6, 1e6), "length of the model's longest side, metres");
  s.number("resolution_voxels", &ModelSettings::resolution_voxels, between(1, 256), "voxels along the longest side");
  s.vec3("aspect", &ModelSettings::aspect, between(1e-3, 1e3), "stretch of the shape's own proportions along x, y, z");
  s.number("variants", &ModelSettings::variants, between(1, 1024),
           "distinct seeded rock shapes in the group, used in turn (other shapes have one)");
  s.path("file", &ModelSettings::file, "MagicaVoxel .vox file of the model, with shape: file");
  s.number("file_model", &ModelSettings::file_model, between(0, 1023),
           "which model of a .vox file holding several, 0 for the first");
  return s;
}

Section<SphereTreeSettings> sphere_tree_schema() {
  Section<SphereTreeSettings> s;
  s.number("levels", &SphereTreeSettings::levels, between(0, 16), "levels of spheres below the root of the octree tree");
  s.boolean("remove_hidden", &SphereTreeSettings::remove_hidden,
            "remove nodes hidden on all six sides, as 004 does (docs/spheretree.md: what it costs)");
  s.path("file", &SphereTreeSettings::file,
         "a Sphere-Tree Construction Toolkit .sph file to use instead of fovea's octree tree");
  return s;
}

Section<MaterialSettings> material_schema() {
  Section<MaterialSettings> s;
  s.number("density_kgpm3", &MaterialSettings::density_kgpm3, between(1e-3, 1e6), "density, kilograms per cubic metre");
  s.number("restitution", &MaterialSettings::restitution, between(0, 1), "coefficient of restitution: 1 elastic, 0 dead");
  s.number("friction", &MaterialSettings::friction, between(0, 100), "Coulomb friction coefficient");
  s.vec3("colour", &MaterialSettings::colour, between(0, 1), "linear RGB, each in [0, 1]");
  return s;
}

Section<EntityGroupSettings> group_schema() {
  Section<EntityGroupSettings> s;
  s.name("name", &EntityGroupSettings::name, "group name, used in messages and records");
  s.number("count", &EntityGroupSettings::count, between(0, 10'000'000), "number of entities in the group");
  s.section("model", &EntityGroupSettings::model, model_schema(), "the voxel model of the group's entities");
  s.section("material", &EntityGroupSettings::material, material_schema(), "physical material and colour");
  s.section("sphere_tree", &EntityGroupSettings::sphere_tree, sphere_tree_schema(),
            "how the group's sphere trees are made (004 section 3.3)");
  s.choice("placement", &EntityGroupSettings::placement,
           {{"random", Placement::random}, {"packed", Placement::packed}},
           "initial positions: random (no overlaps) or packed (a lattice in the box's min corner)");
  s.choice("bounds", &EntityGroupSettings::bounds,
           {{"fixed", BoundsKind::fixed}, {"dynamic", BoundsKind::dynamic}, {"auto", BoundsKind::automatic}},
           "broad-phase box: fixed (a cube that holds the entity at any orientation), dynamic (the "
           "tight box at its current orientation, every frame) or auto (dynamic when the model is "
           "at least twice as long as it is thin)");
  s.number("speed_mps", &EntityGroupSettings::speed_mps, between(0, 1e6),
           "initial speed, metres per second, random direction");
  s.number("spin_radps", &EntityGroupSettings::spin_radps, between(0, 1e6),
           "initial angular speed, radians per second, random axis");
  s.boolean("static", &EntityGroupSettings::is_static, "static entities never move and have infinite mass");
  return s;
}

Section<WorldSettings> world_schema() {
  Section<WorldSettings> s;
  s.vec3("box_size_m", &WorldSettings::box_size_m, between(1e-6, 1e9), "size of the world box, metres; it spans [0, size]");
  s.vec3("gravity_mps2", &WorldSettings::gravity_mps2, between(-1e6, 1e6),
         "gravity, metres per second squared; [0, 0, 0] is off");
  s.number("time_step_s", &WorldSettings::time_step_s, {0, 1, true, false}, "fixed simulation time step, seconds");
  s.list("entities", &WorldSettings::entities, group_schema(), "entity groups", "the groups of entities, placed in order");
  return s;
}

}  // namespace

const Section<Settings>& settings_schema() {
  static const Section<Settings> schema = [] {
    Section<Settings> s;
    s.name("name", &Settings::name, "run name: results go to results/<name>-<UTC time>/");
    // Seeds are kept within 2^53 so they survive any tool that reads numbers as doubles.
    s.number("seed", &Settings::seed, between(0, 9007199254740992.0), "seed of every random choice");
    s.number("frames", &Settings::frames, between(0, 1e12), "frames to run");
    s.section("world", &Settings::world, world_schema(), "the world: box, gravity, time step, entities");
    return s;
  }();
  return schema;
}

}  // namespace fovea::config
