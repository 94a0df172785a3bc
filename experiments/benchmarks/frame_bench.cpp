// Frame benchmark: the whole simulation step at scale (issue 26), fovea beside Bullet on the
// same scene in the same run (docs/scale.md reads it).
//
// For each shape (balls, rocks), layout (uniform, packed) and entity count, fovea's world is
// built from a YAML config as a user would write it (config::load_config_text, so the bench
// goes through the same validation), stepped untimed for the warm-up, then timed: the median
// of each phase of FrameStats and of the whole frame. Bullet then runs the same initial
// poses, velocities and spins with the same time step twice: every entity one sphere of its
// bounding radius (bullet_sphere, the cheapest stand-in) and every entity a compound of
// fovea's leaf spheres (bullet_compound, the same geometry fovea's descent ends at). Bullet's
// step is one number: its integration, broad phase, narrow phase and solver are not split.
//
//   ./fovea bench frame [--entities 1000,10000,100000] [--shapes balls,rocks]
//                       [--layouts uniform,packed] [--frames 100] [--warmup 20] [--threads 1,2]
//                       [--fovea-only] [--no-compound] [--out results/bench/frame.csv]

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <btBulletDynamicsCommon.h>

#include "benchmarks/bench_stats.hpp"
#include "config/config.hpp"
#include "core/format.hpp"
#include "core/stopwatch.hpp"
#include "frame/animation.hpp"
#include "world/placement.hpp"

using namespace fovea;

namespace {

// ---------------------------------------------------------------------------------------
// The scene, as a config.

/// Solid volume fractions of the layouts: uniform is a dilute gas of entities; packed is the
/// densest the random placer (1000 tries per entity, world/placement.hpp) still fills at
/// 100,000 entities, tried in this order until one places (docs/scale.md names the one used).
constexpr double kUniformSolidFraction = 0.065;
constexpr std::array<double, 4> kPackedSolidFractions = {0.20, 0.15, 0.12, 0.10};

struct ShapeSpec {
  const char* name;         ///< balls or rocks, as --shapes spells it
  const char* model_yaml;   ///< the group's `model:` map
  double size_m;
  double density_kgpm3;
};
constexpr ShapeSpec kBalls{"balls", "{shape: ball, size_m: 0.5, resolution_voxels: 8}", 0.5, 1000};
/// Rocks take the default scene's density (configs/default.yaml).
constexpr ShapeSpec kRocks{"rocks", "{shape: rock, size_m: 0.8, resolution_voxels: 12, variants: 5}", 0.8, 2600};

/// The volume the box is sized by: the sphere of diameter size_m per entity, known before any
/// model is built. A rock fills less of it than a ball; the CSV's solid_fraction_voxels has
/// the voxels' own share, measured from the built world.
double nominal_volume_m3(const ShapeSpec& shape) { return std::numbers::pi / 6 * std::pow(shape.size_m, 3); }

/// The cube side holding `entities` at `solid_fraction` of nominal volume.
double box_side_m(const ShapeSpec& shape, int entities, double solid_fraction) {
  return std::cbrt(entities * nominal_volume_m3(shape) / solid_fraction);
}

constexpr double kTimeStepS = 1.0 / 60.0;

std::string scene_yaml(const ShapeSpec& shape, int entities, double side_m, std::uint64_t seed) {
  const std::string side = format_significant(side_m, 10);
  return "name: frame_bench\n"
         "seed: " + std::to_string(seed) + "\n"
         "world:\n"
         "  box_size_m: [" + side + ", " + side + ", " + side + "]\n"
         "  time_step_s: " + format_significant(kTimeStepS, 17) + "\n"
         "  entities:\n"
         "    - name: " + shape.name + "\n"
         "      count: " + std::to_string(entities) + "\n"
         "      placement: random\n"
         "      model: " + shape.model_yaml + "\n"
         "      material: {density_kgpm3: " + format_significant(shape.density_kgpm3, 6) + ", restitution: 1}\n"
         "      speed_mps: 1.5\n"
         "      spin_radps: 1\n"
         "response:\n"
         "  gravity_mps2: [0, 0, 0]\n"
         "  walls: {restitution: 1}\n";
}

/// The frame's threads (the config's top-level `threads`, docs/scale.md), the one place the
/// bench sets them.
void set_threads(std::string& yaml, int threads) { yaml += "threads: " + std::to_string(threads) + "\n"; }

// ---------------------------------------------------------------------------------------
// fovea.

/// A time over the timed frames. Means add up across phases where medians need not.
struct TimeSummary {
  double median_ms = std::nan("");
  double p95_ms = std::nan("");
  double mean_ms = std::nan("");
};

TimeSummary summarise(const std::vector<double>& ms) {
  double sum = 0;
  for (double v : ms) sum += v;
  return {bench::quantile(ms, 0.5), bench::quantile(ms, 0.95), ms.empty() ? std::nan("") : sum / static_cast<double>(ms.size())};
}

/// What fovea's frames took, and the work they did (means a frame).
struct FoveaResult {
  int threads = 1;
  double setup_ms = 0;
  std::array<double, kPhaseCount> phase_median_ms{};
  std::array<TimeSummary, kPhaseCount> phases;
  /// The frame less its five phases: the gaze, the meter's and trees' bookkeeping.
  TimeSummary outside;
  TimeSummary frame;
  double frame_median_ms = 0;
  double pairs = 0, collisions = 0, contacts = 0, contact_points = 0;
  std::string budget;  ///< the budget in force, as "work:20000 tests"
};

std::string budget_text(const BudgetSettings& b) {
  switch (b.mode) {
    case BudgetMode::work: return "work:" + std::to_string(b.tests) + " tests";
    case BudgetMode::wall: return "wall:" + format_significant(b.ms, 4) + " ms";
    case BudgetMode::unlimited: return "unlimited";
    case BudgetMode::fraction: return "fraction:" + format_significant(b.fraction, 4);
  }
  return "unknown";
}

FoveaResult time_fovea(Animation& world, int threads, double setup_ms, int warmup, int frames) {
  FoveaResult r;
  r.threads = threads;
  r.setup_ms = setup_ms;
  r.budget = budget_text(world.settings().budget);
  for (int f = 0; f < warmup; ++f) world.step();
  std::array<std::vector<double>, kPhaseCount> phase_ms;
  std::vector<double> frame_ms, outside_ms;
  for (int f = 0; f < frames; ++f) {
    const FrameStats s = world.step();
    double phases_ms = 0;
    for (int p = 0; p < kPhaseCount; ++p) {
      phase_ms[p].push_back(s.phase_ms[p]);
      phases_ms += s.phase_ms[p];
    }
    frame_ms.push_back(s.frame_ms);
    outside_ms.push_back(s.frame_ms - phases_ms);
    r.pairs += static_cast<double>(s.pairs);
    r.collisions += static_cast<double>(s.collisions);
    r.contacts += static_cast<double>(s.response.contacts);
    r.contact_points += static_cast<double>(s.response.contact_points);
  }
  for (int p = 0; p < kPhaseCount; ++p) {
    r.phases[p] = summarise(phase_ms[p]);
    r.phase_median_ms[p] = r.phases[p].median_ms;
  }
  r.outside = summarise(outside_ms);
  r.frame = summarise(frame_ms);
  r.frame_median_ms = r.frame.median_ms;
  const double n = std::max(1, frames);
  r.pairs /= n;
  r.collisions /= n;
  r.contacts /= n;
  r.contact_points /= n;
  return r;
}

// ---------------------------------------------------------------------------------------
// The scene as Bullet gets it: copied out of fovea's world before its first step.

/// One fovea model as a Bullet body: mass, principal inertia and the rotation from the
/// principal frame (Bullet's body frame) to fovea's model axes, both about the centre of mass.
struct BodyModel {
  double mass_kg = 0;
  btVector3 principal_inertia_kgm2{0, 0, 0};
  btMatrix3x3 principal_to_model;
  double bounding_radius_m = 0;
  /// The collision model's leaf spheres (centres about the centre of mass, model axes): what
  /// the descent ends at, all levels' leaves (a branch may end above the deepest level).
  std::vector<DescentSphere> leaves;
  double friction = 0.5;
  double restitution = 1;
};

struct BulletScene {
  Vec3 box_size_m{0.0};
  double time_step_s = kTimeStepS;
  double wall_friction = 0.5, wall_restitution = 1;
  int solver_iterations = 16;
  std::vector<BodyModel> models;        ///< by ModelId
  std::vector<ModelId> model_of;        ///< by entity
  std::vector<EntityState> states;      ///< initial poses and velocities, by entity
  double solid_volume_m3 = 0;           ///< the entities' voxels
};

btVector3 bt(const Vec3& v) {
  return {static_cast<btScalar>(v.x), static_cast<btScalar>(v.y), static_cast<btScalar>(v.z)};
}

btMatrix3x3 bt(const Mat3& m) {  // glm: m[column][row]
  return {static_cast<btScalar>(m[0][0]), static_cast<btScalar>(m[1][0]), static_cast<btScalar>(m[2][0]),
          static_cast<btScalar>(m[0][1]), static_cast<btScalar>(m[1][1]), static_cast<btScalar>(m[2][1]),
          static_cast<btScalar>(m[0][2]), static_cast<btScalar>(m[1][2]), static_cast<btScalar>(m[2][2])};
}

BulletScene copy_scene(const Animation& world) {
  BulletScene scene;
  const AnimationSettings& s = world.settings();
  scene.box_size_m = s.world.box_size_m;
  scene.time_step_s = s.world.time_step_s;
  scene.wall_friction = s.response.walls.friction;
  scene.wall_restitution = s.response.walls.restitution;
  scene.solver_iterations = s.response.iterations;
  for (ModelId m = 0; m < world.model_library().prototypes().size(); ++m) {
    const Entity& e = world.model_library().prototypes()[m];
    BodyModel b;
    b.mass_kg = e.mass_kg;
    b.bounding_radius_m = e.bounding_radius_m;
    b.friction = e.material.friction;
    b.restitution = e.material.restitution;
    // fovea's inertia is a full tensor in model axes (a rock's is not diagonal); Bullet wants
    // a diagonal one, so the body frame is the principal frame: I = rot * diag * rot^T.
    btMatrix3x3 tensor = bt(e.inertia_body_kgm2);
    tensor.diagonalize(b.principal_to_model, btScalar(1e-7), 64);
    b.principal_inertia_kgm2.setValue(tensor[0][0], tensor[1][1], tensor[2][2]);
    const CollisionModel& cm = world.narrowphase().model(m);
    for (std::uint32_t node = 0; node < cm.spheres.size(); ++node)
      if (cm.is_leaf(node)) b.leaves.push_back(cm.spheres[node]);
    scene.models.push_back(std::move(b));
  }
  for (std::size_t i = 0; i < world.entities().size(); ++i) {
    const Entity& e = world.entities()[i];
    scene.model_of.push_back(e.model);
    scene.solid_volume_m3 += e.mass_kg / e.material.density_kgpm3;
  }
  scene.states.assign(world.states().begin(), world.states().end());
  return scene;
}

// ---------------------------------------------------------------------------------------
// Bullet.

enum class BulletShape { sphere, compound };
enum class BulletWalls { planes, boxes };

struct BulletResult {
  std::string name;
  double setup_ms = 0;
  TimeSummary step;
  double step_median_ms = std::nan("");
  double manifolds = std::nan("");           ///< dispatcher manifolds a frame, mean (persistent pairs)
  double touching_manifolds = std::nan("");  ///< of those, with at least one contact point
  std::string note;                          ///< why it was skipped, when it was
};

/// Bullet combines two bodies' friction by their product, fovea by the geometric mean
/// (response_settings.hpp): a body's square root makes the product the mean, against
/// another body and against a wall alike. Restitution is 1 everywhere, where product and
/// fovea's larger-of-the-two agree.
btScalar bullet_friction(double fovea_friction) { return static_cast<btScalar>(std::sqrt(fovea_friction)); }

/// One Bullet shape per fovea model, shared by its entities as fovea shares its trees: a
/// sphere of its bounding radius, or a compound of its leaf spheres (`leaf_shapes` owns
/// the compounds' children).
void make_shapes(const BulletScene& scene, BulletShape kind, std::vector<std::unique_ptr<btCollisionShape>>& shapes,
                 std::vector<std::unique_ptr<btSphereShape>>& leaf_shapes) {
  for (const BodyModel& m : scene.models) {
    if (kind == BulletShape::sphere) {
      shapes.push_back(std::make_unique<btSphereShape>(static_cast<btScalar>(m.bounding_radius_m)));
      continue;
    }
    auto compound = std::make_unique<btCompoundShape>(true, static_cast<int>(m.leaves.size()));
    const btMatrix3x3 model_to_principal = m.principal_to_model.transpose();
    for (const DescentSphere& leaf : m.leaves) {
      leaf_shapes.push_back(std::make_unique<btSphereShape>(static_cast<btScalar>(leaf.radius_m)));
      btTransform child;
      child.setIdentity();
      child.setOrigin(model_to_principal * bt(leaf.centre_m));
      compound->addChildShape(child, leaf_shapes.back().get());
    }
    shapes.push_back(std::move(compound));
  }
}

/// A body per entity, at its initial pose, velocity and spin, never put to sleep.
void add_entity_bodies(btDiscreteDynamicsWorld& world, const BulletScene& scene,
                       const std::vector<std::unique_ptr<btCollisionShape>>& shapes,
                       std::vector<std::unique_ptr<btRigidBody>>& bodies) {
  bodies.reserve(scene.states.size() + 6);
  for (std::size_t i = 0; i < scene.states.size(); ++i) {
    const BodyModel& m = scene.models[scene.model_of[i]];
    const EntityState& s = scene.states[i];
    btRigidBody::btRigidBodyConstructionInfo info(static_cast<btScalar>(m.mass_kg), nullptr,
                                                  shapes[scene.model_of[i]].get(), m.principal_inertia_kgm2);
    info.m_startWorldTransform.setOrigin(bt(s.position_m));
    info.m_startWorldTransform.setBasis(bt(glm::mat3_cast(s.orientation)) * m.principal_to_model);
    info.m_friction = bullet_friction(m.friction);
    info.m_restitution = static_cast<btScalar>(m.restitution);
    auto body = std::make_unique<btRigidBody>(info);
    body->setLinearVelocity(bt(s.linear_velocity_mps));
    body->setAngularVelocity(bt(s.angular_velocity_radps));
    body->setActivationState(DISABLE_DEACTIVATION);
    world.addRigidBody(body.get());
    bodies.push_back(std::move(body));
  }
}

/// The box's six walls, static. Boxes, 1 m thick outside each face, pair only with bodies
/// near them. Planes (btStaticPlaneShape, issue 26's first choice) have unbounded boxes, so
/// every body keeps a pair with each of the six, and a compound one child algorithm per leaf
/// sphere per plane: 133 ms a step for 200 balls against 1.7 ms with boxes (docs/scale.md).
void add_walls(btDiscreteDynamicsWorld& world, const BulletScene& scene, BulletWalls walls,
               std::vector<std::unique_ptr<btCollisionShape>>& wall_shapes,
               std::vector<std::unique_ptr<btRigidBody>>& bodies) {
  const Vec3 size = scene.box_size_m;
  for (int axis = 0; axis < 3; ++axis) {
    for (int side = 0; side < 2; ++side) {
      Vec3 normal(0.0);
      normal[axis] = side == 0 ? 1.0 : -1.0;
      btTransform where;
      where.setIdentity();
      if (walls == BulletWalls::planes) {
        wall_shapes.push_back(std::make_unique<btStaticPlaneShape>(
            bt(normal), static_cast<btScalar>(side == 0 ? 0.0 : -size[axis])));
      } else {
        constexpr double kThickM = 1.0;
        Vec3 half = size / 2.0 + kThickM;
        half[axis] = kThickM / 2;
        Vec3 centre = size / 2.0;
        centre[axis] = side == 0 ? -kThickM / 2 : size[axis] + kThickM / 2;
        wall_shapes.push_back(std::make_unique<btBoxShape>(bt(half)));
        where.setOrigin(bt(centre));
      }
      btRigidBody::btRigidBodyConstructionInfo info(0, nullptr, wall_shapes.back().get());
      info.m_startWorldTransform = where;
      info.m_friction = bullet_friction(scene.wall_friction);
      info.m_restitution = static_cast<btScalar>(scene.wall_restitution);
      auto body = std::make_unique<btRigidBody>(info);
      world.addRigidBody(body.get());
      bodies.push_back(std::move(body));
    }
  }
}

/// `warmup` untimed and `frames` timed steps, a single step of dt each, the dispatcher's
/// manifolds counted after each timed one, into `r`. `total` has run since the configuration
/// began: when the warm-up projects past `max_ms`, the run stops and says so in r.note.
void step_bullet(btDiscreteDynamicsWorld& world, btCollisionDispatcher& dispatcher, const BulletScene& scene,
                 int warmup, int frames, double max_ms, const Stopwatch& total, BulletResult& r) {
  const auto dt = static_cast<btScalar>(scene.time_step_s);
  const int steps = warmup + frames;
  std::vector<double> step_ms, warmup_ms;
  double manifolds = 0, touching = 0;
  for (int f = 0; f < steps; ++f) {
    Stopwatch clock;
    // maxSubSteps 0: Bullet's "variable time step", exactly one internal step of dt.
    world.stepSimulation(dt, 0);
    const double ms = clock.elapsed_ms();
    if (f >= warmup) {
      step_ms.push_back(ms);
      const int count = dispatcher.getNumManifolds();
      manifolds += count;
      for (int k = 0; k < count; ++k) touching += dispatcher.getManifoldByIndexInternal(k)->getNumContacts() > 0;
    } else {
      warmup_ms.push_back(ms);
      // Judged at the end of the warm-up, by its median step: Bullet's first steps at
      // 100,000 bodies take seconds each (8 s, where later steps take about 1 s) while every
      // pair's algorithm and manifold is made, and would condemn a run that fits. Before
      // that, only time already spent stops it.
      const bool last = f == warmup - 1;
      const double projected_ms =
          total.elapsed_ms() + (last ? bench::quantile(warmup_ms, 0.5) * (steps - f - 1) : 0.0);
      if (projected_ms > max_ms) {
        r.note = "skipped after warm-up step " + std::to_string(f) + ": projecting " +
                 format_significant(projected_ms / 60000, 3) + " min for the configuration (warm-up median " +
                 format_significant(bench::quantile(warmup_ms, 0.5), 3) + " ms a step), over --max-minutes";
        break;
      }
    }
  }
  if (!step_ms.empty()) {
    r.step = summarise(step_ms);
    r.step_median_ms = r.step.median_ms;
    r.manifolds = manifolds / static_cast<double>(step_ms.size());
    r.touching_manifolds = touching / static_cast<double>(step_ms.size());
  }
}

/// A Bullet world of `scene`, stepped as fovea's: a single step of dt per frame. Everything
/// is created before the clock starts. `max_ms` bounds the whole configuration: when the
/// warm-up projects past it, the run stops and says so.
BulletResult run_bullet(const BulletScene& scene, BulletShape kind, BulletWalls walls, int warmup, int frames,
                        double max_ms) {
  BulletResult r;
  r.name = kind == BulletShape::sphere ? "bullet_sphere" : "bullet_compound";
  Stopwatch total;
  Stopwatch setup;
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  // Outlived by the shapes and bodies below: the world is destroyed first (see the end).
  auto owned_world = std::make_unique<btDiscreteDynamicsWorld>(&dispatcher, &broadphase, &solver, &configuration);
  btDiscreteDynamicsWorld& world = *owned_world;
  world.setGravity(btVector3(0, 0, 0));
  // fovea's solver makes response.iterations passes (16 by default); Bullet's default is 10.
  world.getSolverInfo().m_numIterations = scene.solver_iterations;
  // fovea bounces every approach without gravity (rest_speed_mps 0); Bullet's default
  // threshold drops restitution below 0.2 m/s.
  world.getSolverInfo().m_restitutionVelocityThreshold = 0;
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btSphereShape>> leaf_shapes;
  make_shapes(scene, kind, shapes, leaf_shapes);
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  add_entity_bodies(world, scene, shapes, bodies);
  std::vector<std::unique_ptr<btCollisionShape>> wall_shapes;
  add_walls(world, scene, walls, wall_shapes, bodies);
  r.setup_ms = setup.elapsed_ms();

  step_bullet(world, dispatcher, scene, warmup, frames, max_ms, total, r);
  // Teardown, untimed but quadratic if done body by body: removing a body searches the
  // world's body list and every overlapping pair for it (minutes at 100,000 bodies). The
  // pairs go first, each in constant time, then the world, whose destructor frees each
  // body's proxy in constant time once no pair names it; the bodies and shapes after it.
  btOverlappingPairCache* pairs = broadphase.getOverlappingPairCache();
  while (pairs->getNumOverlappingPairs() > 0) {
    const btBroadphasePair& last = pairs->getOverlappingPairArray()[pairs->getNumOverlappingPairs() - 1];
    pairs->removeOverlappingPair(last.m_pProxy0, last.m_pProxy1, &dispatcher);
  }
  owned_world.reset();
  return r;
}

// ---------------------------------------------------------------------------------------
// One configuration and the records.

struct Configuration {
  std::string shape, layout;
  int entities = 0;
  double box_side_m = 0;
  double solid_fraction_nominal = 0;
  double solid_fraction_voxels = 0;
  std::vector<FoveaResult> fovea;    ///< one per thread count
  std::vector<BulletResult> bullet;  ///< sphere, then compound (single-threaded)
};

constexpr const char* kCsvHeader =
    "shape,layout,entities,threads,engine,phase,median_ms,p95_ms,mean_ms,ms_per_1000_entities,frames,warmup,box_side_m,"
    "solid_fraction_nominal,solid_fraction_voxels,budget,pairs_per_frame,collisions_per_frame,contacts_per_frame,"
    "contact_points_per_frame,manifolds_per_frame,touching_manifolds_per_frame,bullet_walls,setup_ms,seed,note\n";

void write_rows(std::ofstream& csv, const Configuration& c, int frames, int warmup, std::uint64_t seed,
                const std::string& walls) {
  using bench::significant_or_na;
  auto common = [&](int threads, const std::string& engine, const std::string& phase, const TimeSummary& t) {
    csv << c.shape << ',' << c.layout << ',' << c.entities << ',' << threads << ',' << engine << ',' << phase << ','
        << significant_or_na(t.median_ms) << ',' << significant_or_na(t.p95_ms) << ',' << significant_or_na(t.mean_ms) << ','
        << significant_or_na(t.median_ms / c.entities * 1000) << ',' << frames << ',' << warmup << ','
        << format_significant(c.box_side_m, 6) << ',' << format_significant(c.solid_fraction_nominal, 4) << ','
        << format_significant(c.solid_fraction_voxels, 4) << ',';
  };
  for (const FoveaResult& f : c.fovea) {
    for (int p = 0; p <= kPhaseCount + 1; ++p) {
      if (p < kPhaseCount) common(f.threads, "fovea", std::string(phase_name(static_cast<Phase>(p))), f.phases[p]);
      else if (p == kPhaseCount) common(f.threads, "fovea", "outside_phases", f.outside);
      else common(f.threads, "fovea", "frame", f.frame);
      csv << f.budget << ',' << significant_or_na(f.pairs) << ',' << significant_or_na(f.collisions) << ','
          << significant_or_na(f.contacts) << ',' << significant_or_na(f.contact_points) << ",NA,NA,NA,"
          << significant_or_na(f.setup_ms) << ',' << seed << ",\n";
    }
  }
  for (const BulletResult& b : c.bullet) {
    common(1, b.name, "step", b.step);
    csv << "NA,NA,NA,NA,NA," << significant_or_na(b.manifolds) << ',' << significant_or_na(b.touching_manifolds) << ','
        << walls << ',' << significant_or_na(b.setup_ms) << ',' << seed << ',' << b.note << '\n';
  }
  csv.flush();
}

const BulletResult* find_bullet(const Configuration& c, const std::string& name) {
  for (const BulletResult& b : c.bullet)
    if (b.name == name) return &b;
  return nullptr;
}

double step_or_nan(const BulletResult* b) { return b ? b->step_median_ms : std::nan(""); }

void print_row(const Configuration& c, const FoveaResult& f) {
  const double sphere = step_or_nan(find_bullet(c, "bullet_sphere"));
  const double compound = step_or_nan(find_bullet(c, "bullet_compound"));
  std::printf("%-5s %-7s %7d %3d | %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f | %8.3f | %8.3f %9.3f | %6.2f %6.2f | %8.0f %8.0f %8.0f\n",
              c.shape.c_str(), c.layout.c_str(), c.entities, f.threads, f.phase_median_ms[0], f.phase_median_ms[1],
              f.phase_median_ms[2], f.phase_median_ms[3], f.phase_median_ms[4], f.outside.median_ms, f.frame_median_ms, sphere, compound,
              f.frame_median_ms / sphere, f.frame_median_ms / compound, f.pairs, f.collisions, f.contacts);
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------
// The command line and the runs.

struct Options {
  std::vector<int> entity_counts = {1000, 10000, 100000};
  std::vector<std::string> shapes = {"balls", "rocks"};
  std::vector<std::string> layouts = {"uniform", "packed"};
  std::vector<int> thread_counts = {1, 2};
  int frames = 100;
  int warmup = 20;
  std::uint64_t seed = 1;
  std::string out = "results/bench/frame.csv";
  bool fovea_only = false;
  bool no_compound = false;
  double max_minutes = 3;
  std::string walls_text = "boxes";
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--entities", o.entity_counts, "entity counts to run")->delimiter(',')->check(CLI::Range(1, 10000000));
  app.add_option("--shapes", o.shapes, "balls (0.5 m, 8 voxels) and/or rocks (0.8 m, 12 voxels, 5 variants)")
      ->delimiter(',')->check(CLI::IsMember({"balls", "rocks"}));
  app.add_option("--layouts", o.layouts, "uniform (6.5% solid) and/or packed (20%, or less where the placer cannot)")
      ->delimiter(',')->check(CLI::IsMember({"uniform", "packed"}));
  app.add_option("--frames", o.frames, "timed frames per configuration")->check(CLI::Range(1, 1000000));
  app.add_option("--warmup", o.warmup, "untimed frames before them")->check(CLI::Range(0, 1000000));
  app.add_option("--threads", o.thread_counts, "fovea's frame threads to run, each a row (0: the machine's cores)")
      ->delimiter(',')->check(CLI::Range(0, 1024));
  app.add_option("--seed", o.seed, "the scene's seed (placement, shapes, velocities)");
  app.add_option("--out", o.out, "CSV file to write");
  app.add_flag("--fovea-only", o.fovea_only, "run fovea alone (for profiling)");
  app.add_flag("--no-compound", o.no_compound, "skip Bullet with compounds of leaf spheres");
  app.add_option("--max-minutes", o.max_minutes, "stop a Bullet run whose warm-up takes or projects past this many minutes")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--bullet-walls", o.walls_text, "the box's walls in Bullet: boxes (1 m thick) or planes (btStaticPlaneShape; slow for compounds)")
      ->check(CLI::IsMember({"planes", "boxes"}));
}

/// fovea's world of configuration `c` at `threads` threads, or null (said on stderr) when it
/// cannot be built. The first thread count (`first`) tries the layout's solid fractions in
/// order until the placer fills one, and fixes c's box and `yaml_base`; later ones reuse them.
std::unique_ptr<Animation> build_fovea_world(const Options& o, const ShapeSpec& shape, const std::vector<double>& fractions,
                                             bool first, int threads, Configuration& c, std::string& yaml_base,
                                             double& setup_ms) {
  std::unique_ptr<Animation> world;
  // The packed layout takes the first solid fraction the placer fills; later thread
  // counts reuse it.
  for (std::size_t k = 0; k < fractions.size() && !world; ++k) {
    if (first) {
      c.solid_fraction_nominal = fractions[k];
      c.box_side_m = box_side_m(shape, c.entities, fractions[k]);
      yaml_base = scene_yaml(shape, c.entities, c.box_side_m, o.seed);
    }
    std::string yaml = yaml_base;
    set_threads(yaml, threads);
    std::fprintf(stderr, "fovea bench frame: %s %s %d entities, %d threads: building (box %.4g m, %.3g solid)...\n",
                 c.shape.c_str(), c.layout.c_str(), c.entities, threads, c.box_side_m, c.solid_fraction_nominal);
    try {
      Stopwatch setup;
      const config::LoadedConfig loaded = config::load_config_text(yaml, "frame_bench");
      world = std::make_unique<Animation>(loaded.settings, loaded.settings.seed);
      setup_ms = setup.elapsed_ms();
    } catch (const PlacementError& e) {
      std::fprintf(stderr, "fovea bench frame: %.3g solid does not place (%s)%s\n", c.solid_fraction_nominal, e.what(),
                   first && k + 1 < fractions.size() ? ", trying less" : "");
      if (!first) break;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fovea bench frame: %s\n", e.what());
      break;
    }
  }
  return world;
}

/// Configuration `c` in fovea at every thread count, timed into c.fovea; the scene Bullet
/// gets is copied from the first world built. False when a world could not be built.
bool time_fovea_configuration(const Options& o, const ShapeSpec& shape, Configuration& c,
                              std::optional<BulletScene>& scene) {
  std::vector<double> fractions;
  if (c.layout == "uniform") fractions = {kUniformSolidFraction};
  else fractions.assign(kPackedSolidFractions.begin(), kPackedSolidFractions.end());
  std::string yaml_base;
  for (std::size_t t = 0; t < o.thread_counts.size(); ++t) {
    const int threads = o.thread_counts[t];
    double setup_ms = 0;
    std::unique_ptr<Animation> world = build_fovea_world(o, shape, fractions, t == 0, threads, c, yaml_base, setup_ms);
    if (!world) return false;
    if (!scene) {
      scene = copy_scene(*world);
      c.solid_fraction_voxels = scene->solid_volume_m3 / std::pow(c.box_side_m, 3);
      std::size_t fewest = SIZE_MAX, most = 0;
      for (const BodyModel& m : scene->models) {
        fewest = std::min(fewest, m.leaves.size());
        most = std::max(most, m.leaves.size());
      }
      std::fprintf(stderr, "fovea bench frame:   %zu models of %zu to %zu leaf spheres (Bullet's compounds)\n",
                   scene->models.size(), fewest, most);
    }
    std::fprintf(stderr, "fovea bench frame:   built in %.0f ms; %d warm-up and %d timed frames...\n", setup_ms, o.warmup,
                 o.frames);
    c.fovea.push_back(time_fovea(*world, threads, setup_ms, o.warmup, o.frames));
  }
  return true;
}

/// Bullet on configuration `c`'s scene: spheres, then compounds unless --no-compound.
void time_bullet_configuration(const Options& o, const BulletScene& scene, Configuration& c) {
  const BulletWalls walls = o.walls_text == "planes" ? BulletWalls::planes : BulletWalls::boxes;
  std::vector<BulletShape> kinds = {BulletShape::sphere};
  if (!o.no_compound) kinds.push_back(BulletShape::compound);
  for (BulletShape kind : kinds) {
    std::fprintf(stderr, "fovea bench frame:   Bullet, %s...\n", kind == BulletShape::sphere ? "spheres" : "compounds");
    c.bullet.push_back(run_bullet(scene, kind, walls, o.warmup, o.frames, o.max_minutes * 60000));
    const BulletResult& b = c.bullet.back();
    std::fprintf(stderr, "fovea bench frame:   %s: setup %.0f ms, %.1f manifolds a frame, %.1f touching%s%s\n",
                 b.name.c_str(), b.setup_ms, b.manifolds, b.touching_manifolds, b.note.empty() ? "" : "; ", b.note.c_str());
  }
}

/// Per-entity cost, ms per 1,000 entities, per phase.
void print_per_entity(const std::vector<Configuration>& done) {
  std::printf("\nms per 1,000 entities (median / N * 1000); Bullet manifolds a frame (all / touching)\n");
  std::printf("%-5s %-7s %7s %3s | %7s %7s %7s %7s %7s %7s | %8s | %8s %9s | %17s %17s\n", "shape", "layout", "N", "thr",
              "integ", "broad", "narrow", "resp", "metr", "other", "frame", "bt_sph", "bt_cmp", "bt_sph manifolds",
              "bt_cmp manifolds");
  for (const Configuration& c : done) {
    const BulletResult* sphere = find_bullet(c, "bullet_sphere");
    const BulletResult* compound = find_bullet(c, "bullet_compound");
    const double k = 1000.0 / c.entities;
    for (const FoveaResult& f : c.fovea) {
      std::printf("%-5s %-7s %7d %3d | %7.4f %7.4f %7.4f %7.4f %7.4f %7.4f | %8.4f | %8.4f %9.4f | %8.0f/%-8.0f %8.0f/%-8.0f\n",
                  c.shape.c_str(), c.layout.c_str(), c.entities, f.threads, f.phase_median_ms[0] * k,
                  f.phase_median_ms[1] * k, f.phase_median_ms[2] * k, f.phase_median_ms[3] * k, f.phase_median_ms[4] * k,
                  f.outside.median_ms * k, f.frame_median_ms * k, step_or_nan(sphere) * k, step_or_nan(compound) * k,
                  sphere ? sphere->manifolds : std::nan(""), sphere ? sphere->touching_manifolds : std::nan(""),
                  compound ? compound->manifolds : std::nan(""), compound ? compound->touching_manifolds : std::nan(""));
    }
    for (const BulletResult& b : c.bullet)
      if (!b.note.empty())
        std::printf("  %s %s %d: %s %s\n", c.shape.c_str(), c.layout.c_str(), c.entities, b.name.c_str(), b.note.c_str());
  }
}

/// How the per-entity cost grows from 10,000 to 100,000 entities: 1 is linear scaling.
void print_scaling(const std::vector<Configuration>& done) {
  std::printf("\nper-entity cost at 100,000 over that at 10,000 (1 = linear)\n");
  std::printf("%-5s %-7s %3s | %7s %7s %7s %7s %7s %7s | %8s | %8s %9s\n", "shape", "layout", "thr", "integ", "broad",
              "narrow", "resp", "metr", "other", "frame", "bt_sph", "bt_cmp");
  bool any_ratio = false;
  for (const Configuration& big : done) {
    if (big.entities != 100000) continue;
    for (const Configuration& small : done) {
      if (small.entities != 10000 || small.shape != big.shape || small.layout != big.layout) continue;
      const double scale = static_cast<double>(small.entities) / big.entities;
      for (const FoveaResult& fb : big.fovea) {
        for (const FoveaResult& fs : small.fovea) {
          if (fs.threads != fb.threads) continue;
          any_ratio = true;
          std::printf("%-5s %-7s %3d |", big.shape.c_str(), big.layout.c_str(), fb.threads);
          for (int p = 0; p < kPhaseCount; ++p)
            std::printf(" %7.2f", fb.phase_median_ms[p] / fs.phase_median_ms[p] * scale);
          std::printf(" %7.2f", fb.outside.median_ms / fs.outside.median_ms * scale);
          std::printf(" | %8.2f | %8.2f %9.2f\n", fb.frame_median_ms / fs.frame_median_ms * scale,
                      step_or_nan(find_bullet(big, "bullet_sphere")) / step_or_nan(find_bullet(small, "bullet_sphere")) * scale,
                      step_or_nan(find_bullet(big, "bullet_compound")) /
                          step_or_nan(find_bullet(small, "bullet_compound")) * scale);
        }
      }
    }
  }
  if (!any_ratio) std::printf("(needs both 10000 and 100000 in --entities)\n");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Frame benchmark: fovea's whole step (per phase) beside Bullet's btDiscreteDynamicsWorld on the\n"
               "same scenes, 1,000 to 100,000 entities (docs/scale.md)."};
  Options o;
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);

  std::ofstream csv = bench::open_csv(o.out, "frame");
  if (!csv) return 1;
  csv << kCsvHeader;
  csv.flush();

  std::printf("Medians of %d timed frames after %d warm-up frames, ms. fovea's phases: integrate, broad, narrow,\n"
              "response, metrics, and other (the frame less the five); Bullet's step is one number (its integration, broad phase, narrow phase and\n"
              "solver together). Bullet runs single-threaded, once per scene. pairs, coll, contacts: fovea's a frame.\n\n",
              o.frames, o.warmup);
  std::printf("%-5s %-7s %7s %3s | %7s %7s %7s %7s %7s %7s | %8s | %8s %9s | %6s %6s | %8s %8s %8s\n", "shape", "layout", "N",
              "thr", "integ", "broad", "narrow", "resp", "metr", "other", "frame", "bt_sph", "bt_cmp", "f/sph", "f/cmp", "pairs",
              "coll", "contacts");

  std::vector<Configuration> done;
  int failures = 0;
  for (const std::string& shape_name : o.shapes) {
    const ShapeSpec& shape = shape_name == "balls" ? kBalls : kRocks;
    for (const std::string& layout : o.layouts) {
      for (int n : o.entity_counts) {
        Configuration c{shape_name, layout, n, 0, 0, 0, {}, {}};
        std::optional<BulletScene> scene;
        if (!time_fovea_configuration(o, shape, c, scene)) ++failures;
        if (!scene) continue;
        if (!o.fovea_only) time_bullet_configuration(o, *scene, c);
        write_rows(csv, c, o.frames, o.warmup, o.seed, o.walls_text);
        for (const FoveaResult& f : c.fovea) print_row(c, f);
        done.push_back(std::move(c));
      }
    }
  }
  print_per_entity(done);
  print_scaling(done);
  std::printf("\nwrote %s\n", o.out.c_str());
  return failures == 0 ? 0 : 1;
}
