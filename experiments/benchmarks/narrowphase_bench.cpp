// Narrow-phase benchmark, in three parts (docs/narrowphase.md reads it).
//
// descent: how many sphere-sphere tests per second one core gets through when the staircase
// descent (NarrowPhase::step, driven by a scheduler with Budget::unlimited()) takes every
// collision of a realistic frame to the end, beside tight loops of bare sphere tests on the
// same data: the exact sequence of sphere pairs the descent tested, recorded and laid out as
// flat arrays. The ratio descent ns per test / bare ns per test says how close the descent
// runs to what the machine can do with the same arithmetic; the middle variant (bare tests
// that also rotate b's centres into a's frame) says where the difference goes.
//
// overshoot: how far past a WALL budget's deadline the descent stops. The world runs with a
// starved wall budget (the scene needs several times more than it gets), and every frame
// whose budget ran out reports FrameStats::budget_overshoot_us; the distribution is printed
// per budget. Target: p99.9 below 20 us.
//
// prune: prune to the overlap region (003; NarrowPhaseSettings::prune_to_overlap) off and on,
// on the same frames of the packed scene (configs/studies/packed500.yaml) and the pile
// (configs/examples/pile.yaml): full-resolution sphere tests a frame, the sphere-box checks
// pruning costs instead, and the narrow phase's time a frame (begin_frame and a round-robin
// scheduler with no limit), with their ratios; and whether both found the same outcomes.
//
//   ./fovea bench narrowphase [--parts descent,overshoot,prune] [--scenes packed_rocks,uniform_balls]
//                             [--budgets-ms 0.1,0.5,1,2] [--overshoot-frames 3000]
//                             [--prune-scenes packed_rocks,pile] [--prune-snapshots 10] [--out FILE]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "benchmarks/bench_stats.hpp"
#include "config/config.hpp"
#include "core/format.hpp"
#include "core/stopwatch.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "core/budget.hpp"
#include "schedule/scheduler.hpp"
#include "frame/animation.hpp"
#include "run/stepper.hpp"

using namespace fovea;

namespace {

/// Keeps the compiler from assuming it knows what `p` points at: the bare loops below read
/// their arrays again after every call, and their results cannot be folded across passes.
inline void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

/// How busy the machine was with other processes while a measurement ran, in cores: the
/// CPU time all processes spent (/proc/stat) less this process's own (getrusage), over the
/// wall time. On a shared machine this says whether a number is the code's or the
/// neighbours'. NaN where /proc/stat cannot be read. Resolution: a clock tick (10 ms).
class OtherLoad {
 public:
  OtherLoad() : busy_s_(machine_busy_s()), self_s_(self_cpu_s()), start_(std::chrono::steady_clock::now()) {}
  double cores() const {
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return std::max(0.0, (machine_busy_s() - busy_s_) - (self_cpu_s() - self_s_)) / wall_s;
  }

 private:
  static double machine_busy_s() {
    std::ifstream stat("/proc/stat");
    std::string cpu;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || cpu != "cpu")
      return std::nan("");
    return (user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  static double self_cpu_s() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
  }
  double busy_s_;
  double self_s_;
  std::chrono::steady_clock::time_point start_;
};

/// This thread's CPU time, seconds: what a measurement cost the code, less the time other
/// processes held the core.
double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// ---------------------------------------------------------------------------------------
// Scenes, defined once here for every part.

/// Read from the working folder: run from the repository root, as `./fovea bench` does.
constexpr const char* kPackedConfig = "configs/studies/packed500.yaml";

/// `packed_rocks` is configs/studies/packed500.yaml's world (500 rocks of 12 voxels, 8
/// shapes, four-level trees, packed into a corner of a 6 m box at 1 m/s). `uniform_balls` is
/// 2,000 balls of 8 voxels placed at random in a 12 m box. With the collision response the
/// entities bounce apart, so the recorded frames hold few, shallow collisions (38 and 120 a
/// frame, 14% to 18% of tests hitting, at the commit docs/narrowphase.md names); before it
/// they passed through each other, with over 1,300 collisions a frame and 35% to 40% hits.
AnimationSettings scene_settings(const std::string& name) {
  AnimationSettings s;
  if (name == "packed_rocks") {
    // The study's own config, read as `fovea run` reads it, so the two never drift apart.
    s = config::load_config_file(kPackedConfig).settings;
  } else {
    s.world.box_size_m = Vec3(12.0);
    EntityGroupSettings group;
    group.name = "balls";
    group.count = 2000;
    group.placement = Placement::random;
    group.model.shape = Shape::ball;
    group.model.size_m = 0.5;
    group.model.resolution_voxels = 8;
    group.sphere_tree.levels = 4;
    s.world.entities.push_back(group);
    s.gaze.source = GazeSourceKind::scripted;
  }
  s.schedule.kind = SchedulerKind::round_robin;
  // The world's own narrow phase does nothing in the descent part (the benchmark runs its
  // own); the overshoot part sets a wall budget.
  s.budget.mode = BudgetMode::work;
  s.budget.tests = 0;
  s.ground_truth = false;
  return s;
}

// ---------------------------------------------------------------------------------------
// Part 1: the descent against bare sphere tests.

/// One frame's collisions, frozen: a narrow phase synced to the world's pairs at that frame
/// and the poses it ran on.
struct Snapshot {
  NarrowPhase narrowphase;
  std::vector<EntityState> states;
};

/// `count` frames of the world of `settings`, `gap` frames apart after `warmup` frames.
std::vector<Snapshot> take_snapshots(const AnimationSettings& settings, std::uint64_t seed, int warmup, int count, int gap) {
  Stepper stepper(std::make_unique<Animation>(settings, seed), nullptr);
  const Animation& world = stepper.world();
  for (int f = 0; f < warmup; ++f) stepper.step();
  std::vector<Snapshot> snapshots;
  for (int s = 0; s < count; ++s) {
    if (s > 0)
      for (int f = 0; f < gap; ++f) stepper.step();
    const std::span<const CollisionModel> models = world.narrowphase().models();
    Snapshot snap{NarrowPhase(std::vector<CollisionModel>(models.begin(), models.end())),
                  std::vector<EntityState>(world.states().begin(), world.states().end())};
    snap.narrowphase.sync(world.broadphase().pairs(), world.entities(), world.frames_done());
    snapshots.push_back(std::move(snap));
  }
  return snapshots;
}

/// b's model space to a's, per collision (as Collision::b_to_a_*).
struct Transform {
  Mat3 rotation{1.0};
  Vec3 offset_m{0.0};
};

/// The sphere pairs the descent tested, in the order it tested them, as flat arrays: each
/// pair's two centres already in a's frame (`a*`, `b*`) for the bare test, b's centre also
/// in its own model frame (`bl*`) with its collision's transform for the middle variant.
struct TestRecord {
  std::vector<double> ax, ay, az, bx, by, bz, ra, rb;
  std::vector<double> blx, bly, blz;
  std::vector<std::uint32_t> transform;
  std::vector<Transform> transforms;
  std::int64_t expected_hits = 0;  ///< intersections the descent found (made a hit or a leaf pair)
  std::int64_t sphere_hits = 0;    ///< sphere hits processed (each one target against its test list)
  std::int64_t steps = 0;          ///< NarrowPhase::step calls (one level of one collision each)
  std::size_t size() const { return ax.size(); }
};

/// Appends the pair (node of a, node of b) of collision `c` to the record.
void record_pair(TestRecord& r, const NarrowPhase& np, const Collision& c, std::uint32_t node_a, std::uint32_t node_b,
                 std::uint32_t transform) {
  const DescentSphere& sa = np.model(c.model_a).spheres[node_a];
  const DescentSphere& sb = np.model(c.model_b).spheres[node_b];
  // The same expression as the descent's, so the bare test sees the same doubles.
  const Vec3 b_in_a = c.b_to_a_rotation * sb.centre_m + c.b_to_a_offset_m;
  r.ax.push_back(sa.centre_m.x);
  r.ay.push_back(sa.centre_m.y);
  r.az.push_back(sa.centre_m.z);
  r.bx.push_back(b_in_a.x);
  r.by.push_back(b_in_a.y);
  r.bz.push_back(b_in_a.z);
  r.blx.push_back(sb.centre_m.x);
  r.bly.push_back(sb.centre_m.y);
  r.blz.push_back(sb.centre_m.z);
  r.ra.push_back(sa.radius_m);
  r.rb.push_back(sb.radius_m);
  r.transform.push_back(transform);
}

/// Runs the snapshot's frame once in round-robin order (the scheduler's: every active
/// collision one level per pass, in list order) and records every sphere pair each step
/// tested. A step with an unlimited budget processes its collision's whole current level,
/// target by target and member by member, and stops early only at a leaf-leaf hit, so the
/// level's hits expanded in order and cut at the step's test count are exactly its tests.
void record_descent(Snapshot& snap, TestRecord& r) {
  NarrowPhase& np = snap.narrowphase;
  np.begin_frame(snap.states);
  const auto transform_base = static_cast<std::uint32_t>(r.transforms.size());
  std::vector<std::uint32_t> slot_transform(np.slot_count(), 0);
  for (std::size_t i = 0; i < np.order().size(); ++i) {
    const Collision& c = np.collision(np.order()[i]);
    slot_transform[np.order()[i]] = transform_base + static_cast<std::uint32_t>(i);
    r.transforms.push_back({c.b_to_a_rotation, c.b_to_a_offset_m});
  }
  std::vector<std::uint32_t> active(np.order().begin(), np.order().end());
  std::vector<SphereHit> level;
  Budget budget = Budget::unlimited();
  while (!active.empty()) {
    std::size_t kept = 0;
    for (const std::uint32_t slot : active) {
      const std::span<const SphereHit> hits = np.hits(slot);
      level.assign(hits.begin(), hits.end());
      const std::int64_t before = np.collision(slot).sphere_tests;
      const CollisionStatus status = np.step(slot, budget);
      const Collision& c = np.collision(slot);
      std::int64_t left = c.sphere_tests - before;
      ++r.steps;
      for (const SphereHit& h : level) {
        if (left > 0) ++r.sphere_hits;
        for (std::uint32_t m = h.test_begin; m < h.test_begin + h.test_count && left > 0; ++m, --left) {
          if (h.target_tree == 0) record_pair(r, np, c, h.target, m, slot_transform[slot]);
          else record_pair(r, np, c, m, h.target, slot_transform[slot]);
        }
      }
      // Each intersection found made one hit of the next level, or was the leaf pair.
      if (status == CollisionStatus::needs_more_work) {
        r.expected_hits += static_cast<std::int64_t>(np.hits(slot).size());
        active[kept++] = slot;
      } else if (status == CollisionStatus::colliding) {
        r.expected_hits += static_cast<std::int64_t>(np.next_hits(slot).size()) + 1;
      }
    }
    active.resize(kept);
  }
}

/// The bare test on pre-transformed centres: only the comparison, counting intersections.
/// The same arithmetic as the descent (|d|^2 against (r_a + r_b)^2, no fused multiply-add).
/// The count is kept in a double (exact far beyond any chunk) because GCC vectorises the
/// loop that way (two tests per SSE2 instruction at the build's baseline x86-64) and not
/// with an integer count ("no vectype"): this is the arithmetic's limit at this ISA.
[[gnu::noinline]] std::int64_t bare_hits(const TestRecord& r, std::size_t begin, std::size_t end) {
  const double* ax = r.ax.data();
  const double* ay = r.ay.data();
  const double* az = r.az.data();
  const double* bx = r.bx.data();
  const double* by = r.by.data();
  const double* bz = r.bz.data();
  const double* ra = r.ra.data();
  const double* rb = r.rb.data();
  double hits = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const double dx = ax[i] - bx[i];
    const double dy = ay[i] - by[i];
    const double dz = az[i] - bz[i];
    const double reach = ra[i] + rb[i];
    hits += (dx * dx + dy * dy + dz * dz) <= reach * reach ? 1.0 : 0.0;
  }
  return static_cast<std::int64_t>(hits);
}

/// The same test one pair at a time, as the descent does it: an integer count, which GCC
/// does not vectorise.
[[gnu::noinline]] std::int64_t bare_scalar_hits(const TestRecord& r, std::size_t begin, std::size_t end) {
  std::int64_t hits = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const double dx = r.ax[i] - r.bx[i];
    const double dy = r.ay[i] - r.by[i];
    const double dz = r.az[i] - r.bz[i];
    const double reach = r.ra[i] + r.rb[i];
    hits += (dx * dx + dy * dy + dz * dz) <= reach * reach;
  }
  return hits;
}

/// The middle variants' test of pair `i`: b's centre rotated and moved into a's frame with its
/// collision's transform, then the descent's comparison. Inlined into each variant's loop, so
/// the variants differ only in what they do with the answer.
[[gnu::always_inline]] inline bool rotated_pair_hits(const TestRecord& r, std::size_t i) {
    const Transform& t = r.transforms[r.transform[i]];
    const Vec3 b = t.rotation * Vec3(r.blx[i], r.bly[i], r.blz[i]) + t.offset_m;
    const Vec3 d = Vec3(r.ax[i], r.ay[i], r.az[i]) - b;
    const double reach = r.ra[i] + r.rb[i];
  return glm::dot(d, d) <= reach * reach;
}

/// The middle variant: b's centre is rotated and moved into a's frame on every test, with
/// its collision's transform looked up by index (the descent does this for tests whose
/// member is on b, and once per target when the target is on b).
[[gnu::noinline]] std::int64_t bare_rotated_hits(const TestRecord& r, std::size_t begin, std::size_t end) {
  std::int64_t hits = 0;
  for (std::size_t i = begin; i < end; ++i) {
    hits += rotated_pair_hits(r, i);
  }
  return hits;
}

/// The middle variant plus a data-dependent branch that appends a record for each hit, as
/// the descent did before it went branch-free (docs/narrowphase.md, "Measured"): kept to
/// show what the branch costs. `out` holds a chunk.
[[gnu::noinline]] std::int64_t bare_rotated_branching_hits(const TestRecord& r, std::size_t begin, std::size_t end,
                                                            std::vector<std::uint32_t>& out) {
  std::uint32_t* const next = out.data();
  std::size_t count = 0;
  for (std::size_t i = begin; i < end; ++i) {
    if (!rotated_pair_hits(r, i)) continue;
    next[count++] = static_cast<std::uint32_t>(i);
  }
  return static_cast<std::int64_t>(count);
}

/// The same work without the branch: every test writes its index at the end of `out`, and
/// the end moves on only for a hit (branch-free stream compaction, as the descent's
/// scan_test_list does). `out` holds a chunk.
[[gnu::noinline]] std::int64_t bare_rotated_compacting_hits(const TestRecord& r, std::size_t begin, std::size_t end,
                                                             std::vector<std::uint32_t>& out) {
  std::uint32_t* const next = out.data();
  std::size_t count = 0;
  for (std::size_t i = begin; i < end; ++i) {
    next[count] = static_cast<std::uint32_t>(i);
    count += rotated_pair_hits(r, i);
  }
  return static_cast<std::int64_t>(count);
}

/// One timed variant: ns per test of each repetition.
struct Timing {
  std::string variant;
  std::vector<double> ns_per_test;
  std::int64_t tests_per_rep = 0;
  std::int64_t hits_per_rep = 0;  ///< intersections (bare variants), to check against the descent
  double begin_frame_ns_per_collision = std::nan("");  ///< descent only
};

/// Times `pass` (which returns the tests it did and adds its intersections to `hits`) until
/// `min_time_s` have passed and at least `min_reps` repetitions are done.
template <class Pass>
Timing time_variant(const std::string& name, double min_time_s, int min_reps, Pass pass) {
  Timing t{name, {}, 0, 0, std::nan("")};
  double total_s = 0;
  while (total_s < min_time_s || static_cast<int>(t.ns_per_test.size()) < min_reps) {
    std::int64_t hits = 0;
    double seconds = 0;
    const std::int64_t tests = pass(hits, seconds);
    t.ns_per_test.push_back(seconds * 1e9 / static_cast<double>(tests));
    t.tests_per_rep = tests;
    t.hits_per_rep = hits;
    total_s += seconds;
  }
  return t;
}

/// Cache-resident bare tests: the record in chunks of `chunk` pairs, each chunk read once
/// untimed by `warm` (a branch-free loop over the same arrays) to bring it into cache, then
/// once, timed, by `loop`. One timed pass, not several: repeated passes over one short chunk
/// let the branch predictor learn the chunk's hit pattern, and the branching variant then
/// looks up to twice as fast as it runs on a sequence seen once (the descent never sees one
/// sequence twice within thousands of tests). `warm` is branch-free for the same reason.
template <class Warm, class Loop>
Timing time_bare_cached(const std::string& name, const TestRecord& r, std::size_t chunk, double min_time_s, int min_reps,
                        Warm warm, Loop loop) {
  return time_variant(name, min_time_s, min_reps, [&](std::int64_t& hits, double& seconds) {
    for (std::size_t begin = 0; begin < r.size(); begin += chunk) {
      const std::size_t end = std::min(begin + chunk, r.size());
      escape(&r);
      const std::int64_t warm_hits = warm(r, begin, end);
      escape(&r);
      const auto start = std::chrono::steady_clock::now();
      const std::int64_t timed_hits = loop(r, begin, end);
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      // The timed pass must find what the warm-up found; a mismatch poisons the count.
      hits += timed_hits == warm_hits ? timed_hits : -(std::int64_t{1} << 40);
    }
    return static_cast<std::int64_t>(r.size());
  });
}

struct DescentResult {
  std::string scene;
  std::int64_t collisions_per_frame = 0;
  std::int64_t tests_per_frame = 0;
  double hit_fraction = 0;  ///< of the tests, those that found the two spheres intersecting
  double tests_per_sphere_hit = 0;  ///< mean test-list length
  double steps_per_collision = 0;   ///< levels descended, mean
  std::vector<Timing> timings;
  bool hits_agree = true;
  double other_load_cores = 0;  ///< other processes' CPU use while the variants were timed
};

DescentResult run_descent(const std::string& scene, std::uint64_t seed, int warmup_frames, int snapshot_count,
                          int snapshot_gap, double min_time_s, int min_reps, std::size_t chunk) {
  DescentResult result;
  result.scene = scene;
  std::vector<Snapshot> snapshots = take_snapshots(scene_settings(scene), seed, warmup_frames, snapshot_count, snapshot_gap);

  TestRecord record;
  std::int64_t collisions = 0;
  for (Snapshot& snap : snapshots) {
    record_descent(snap, record);
    collisions += static_cast<std::int64_t>(snap.narrowphase.size());
  }
  result.collisions_per_frame = collisions / snapshot_count;
  result.tests_per_frame = static_cast<std::int64_t>(record.size()) / snapshot_count;
  result.hit_fraction = static_cast<double>(record.expected_hits) / static_cast<double>(record.size());
  result.tests_per_sphere_hit = static_cast<double>(record.size()) / static_cast<double>(record.sphere_hits);
  result.steps_per_collision = static_cast<double>(record.steps) / static_cast<double>(collisions);
  std::fprintf(stderr, "  %s: %d frames, %lld collisions and %lld sphere tests a frame (%.0f MB recorded)\n",
               scene.c_str(), snapshot_count, static_cast<long long>(result.collisions_per_frame),
               static_cast<long long>(result.tests_per_frame), static_cast<double>(record.size()) * 92 / 1e6);

  const OtherLoad other_load;
  // The descent, as the world runs it: begin_frame, then the scheduler with no limit.
  for (const SchedulerKind kind : {SchedulerKind::round_robin, SchedulerKind::sequential}) {
    ScheduleSettings schedule;
    schedule.kind = kind;
    const std::unique_ptr<Scheduler> scheduler = make_scheduler(schedule);
    double begin_ns_total = 0;
    std::int64_t begin_collisions = 0;
    std::int64_t unresolved = 0;
    Timing t = time_variant(std::string("descent_") + scheduler_name(kind), min_time_s, min_reps,
                            [&](std::int64_t& hits, double& seconds) {
                              std::int64_t tests = 0;
                              for (Snapshot& snap : snapshots) {
                                const auto t0 = std::chrono::steady_clock::now();
                                snap.narrowphase.begin_frame(snap.states);
                                const auto t1 = std::chrono::steady_clock::now();
                                Budget budget = Budget::unlimited();
                                scheduler->run(snap.narrowphase, budget);
                                const auto t2 = std::chrono::steady_clock::now();
                                seconds += std::chrono::duration<double>(t2 - t1).count();
                                begin_ns_total += std::chrono::duration<double, std::nano>(t1 - t0).count();
                                begin_collisions += static_cast<std::int64_t>(snap.narrowphase.size());
                                tests += snap.narrowphase.sphere_tests();
                                for (const std::uint32_t slot : snap.narrowphase.order())
                                  unresolved += snap.narrowphase.collision(slot).status == CollisionStatus::needs_more_work;
                              }
                              // The descent's intersections are the recorded ones when it did
                              // the same tests and left nothing unresolved.
                              hits = unresolved == 0 ? record.expected_hits : -1;
                              return tests;
                            });
    t.begin_frame_ns_per_collision = begin_ns_total / static_cast<double>(begin_collisions);
    if (t.tests_per_rep != static_cast<std::int64_t>(record.size()) || t.hits_per_rep != record.expected_hits) {
      std::fprintf(stderr, "MISMATCH: %s %s did %lld tests (recorded %zu) or left a collision unresolved\n",
                   scene.c_str(), t.variant.c_str(), static_cast<long long>(t.tests_per_rep), record.size());
      result.hits_agree = false;
    }
    result.timings.push_back(std::move(t));
  }

  // Bare tests on the recorded pairs, `chunk` pairs at a time (see --chunk). The warm-up
  // reads every array the variants read, without a data-dependent branch.
  const auto warm = [](const TestRecord& r, std::size_t begin, std::size_t end) {
    const std::int64_t h = bare_hits(r, begin, end);
    return bare_rotated_hits(r, begin, end) == h ? h : -1;
  };
  result.timings.push_back(time_bare_cached("bare", record, chunk, min_time_s, min_reps, warm, bare_hits));
  result.timings.push_back(time_bare_cached("bare_scalar", record, chunk, min_time_s, min_reps, warm, bare_scalar_hits));
  result.timings.push_back(
      time_bare_cached("bare_rotating_b", record, chunk, min_time_s, min_reps, warm, bare_rotated_hits));
  std::vector<std::uint32_t> out(chunk);
  result.timings.push_back(time_bare_cached("bare_rotating_b_branching", record, chunk, min_time_s, min_reps, warm,
                                            [&](const TestRecord& r, std::size_t begin, std::size_t end) {
                                              return bare_rotated_branching_hits(r, begin, end, out);
                                            }));
  result.timings.push_back(time_bare_cached("bare_rotating_b_branchless", record, chunk, min_time_s, min_reps, warm,
                                            [&](const TestRecord& r, std::size_t begin, std::size_t end) {
                                              return bare_rotated_compacting_hits(r, begin, end, out);
                                            }));
  // The same bare loop streaming the whole record from memory once per pass: what laying a
  // frame's tests out in advance would cost, for comparison.
  result.timings.push_back(time_variant("bare_streamed", min_time_s, min_reps, [&](std::int64_t& hits, double& seconds) {
    escape(&record);
    const auto start = std::chrono::steady_clock::now();
    hits += bare_hits(record, 0, record.size());
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return static_cast<std::int64_t>(record.size());
  }));
  result.other_load_cores = other_load.cores();
  for (const Timing& t : result.timings)
    if (t.hits_per_rep != record.expected_hits) {
      std::fprintf(stderr, "MISMATCH: %s %s found %lld intersections, the descent %lld\n", scene.c_str(),
                   t.variant.c_str(), static_cast<long long>(t.hits_per_rep), static_cast<long long>(record.expected_hits));
      result.hits_agree = false;
    }
  return result;
}

// ---------------------------------------------------------------------------------------
// Part 2: wall-budget overshoot.

struct OvershootResult {
  double budget_ms = 0;
  std::int64_t frames = 0;
  std::int64_t exhausted = 0;
  std::int64_t exhausted_before_first_test = 0;  ///< the deadline passed during the bookkeeping
  std::int64_t over_20us = 0;
  double full_tests_mean = 0;  ///< for scale: tests the frames did, mean (all frames)
  double other_load_cores = 0;  ///< other processes' CPU use during the run
  std::vector<double> overshoot_us;          ///< exhausted frames
  std::vector<double> overshoot_descent_us;  ///< exhausted frames that ran at least one test
};

OvershootResult run_overshoot(const std::string& scene, SchedulerKind kind, double budget_ms, std::uint64_t seed,
                              int frames) {
  AnimationSettings settings = scene_settings(scene);
  settings.schedule.kind = kind;
  settings.budget.mode = BudgetMode::wall;
  settings.budget.ms = budget_ms;
  Stepper stepper(std::make_unique<Animation>(settings, seed), nullptr);
  const OtherLoad other_load;
  OvershootResult r;
  r.budget_ms = budget_ms;
  r.frames = frames;
  double tests = 0;
  for (int f = 0; f < frames; ++f) {
    const FrameStats& s = stepper.step().stats;
    tests += static_cast<double>(s.sphere_tests);
    if (!s.budget_exhausted) continue;
    ++r.exhausted;
    r.overshoot_us.push_back(s.budget_overshoot_us);
    if (s.budget_overshoot_us > 20) ++r.over_20us;
    if (s.sphere_tests == 0) ++r.exhausted_before_first_test;
    else r.overshoot_descent_us.push_back(s.budget_overshoot_us);
  }
  r.full_tests_mean = tests / frames;
  r.other_load_cores = other_load.cores();
  return r;
}

/// The machine's own stalls: a thread that only reads the steady clock for `seconds`, and
/// the gaps between consecutive reads longer than 20 us (interrupts, the hypervisor,
/// preemption). A stall that straddles a deadline is an overshoot the descent cannot avoid:
/// with stalls of length D at rate r, about r x D of the frames overshoot by up to D.
struct ClockStalls {
  double seconds = 0;
  std::int64_t over_20us = 0;
  std::int64_t over_100us = 0;
  double max_us = 0;
};

ClockStalls measure_clock_stalls(double seconds) {
  using Clock = std::chrono::steady_clock;
  ClockStalls r;
  r.seconds = seconds;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  auto previous = start;
  for (auto now = Clock::now(); now < end; now = Clock::now()) {
    const double gap_us = std::chrono::duration<double, std::micro>(now - previous).count();
    r.over_20us += gap_us > 20;
    r.over_100us += gap_us > 100;
    r.max_us = std::max(r.max_us, gap_us);
    previous = now;
  }
  return r;
}


// ---------------------------------------------------------------------------------------
// Part 3: prune to the overlap region, off and on.

constexpr const char* kPileConfig = "configs/examples/pile.yaml";

/// The prune part's scenes run as `fovea run` runs their configs (the ground truth off: it
/// measures, and changes nothing the narrow phase sees): `packed_rocks` is
/// configs/studies/packed500.yaml, `pile` configs/examples/pile.yaml (50 rocks falling into a
/// narrow box and settling, every collision refined to its leaves).
AnimationSettings prune_scene_settings(const std::string& name) {
  AnimationSettings s = config::load_config_file(name == "pile" ? kPileConfig : kPackedConfig).settings;
  s.ground_truth = false;
  return s;
}

/// Frames before the first snapshot and between two: the packed rocks collide from the start;
/// the pile's rocks fall for a while first, then settle.
std::pair<int, int> prune_scene_frames(const std::string& name) { return name == "pile" ? std::pair{200, 50} : std::pair{60, 20}; }

struct PruneResult {
  std::int64_t frames = 0;
  double collisions_per_frame = 0;
  double tests_off = 0;        ///< sphere tests a frame, full resolution, pruning off
  double tests_on = 0;         ///< the same, pruning on
  double checks_on = 0;        ///< sphere-box checks a frame, pruning on
  std::vector<double> ms_off;  ///< narrow-phase ms a frame, one value a repetition
  std::vector<double> ms_on;
  std::vector<double> ratio;   ///< ms on / ms off, paired within each repetition
  std::vector<double> cpu_ms_off;  ///< the same on the thread's CPU clock
  std::vector<double> cpu_ms_on;
  std::vector<double> cpu_ratio;
  bool same_outcomes = true;   ///< every collision: the same status, leaf pair and contact pairs
  double other_load_cores = 0;
};

PruneResult run_prune(const std::string& scene, std::uint64_t seed, int snapshot_count, double min_time_s, int min_reps) {
  PruneResult result;
  const auto [warmup, gap] = prune_scene_frames(scene);
  std::vector<Snapshot> snapshots = take_snapshots(prune_scene_settings(scene), seed, warmup, snapshot_count, gap);
  result.frames = snapshot_count;

  ScheduleSettings schedule;
  schedule.kind = SchedulerKind::round_robin;
  const std::unique_ptr<Scheduler> scheduler = make_scheduler(schedule);
  // One frame of one snapshot to the end, pruning off or on: adds its wall and thread CPU
  // seconds.
  const auto run_frame = [&](Snapshot& snap, bool prune, double& wall_s, double& cpu_s) {
    NarrowPhaseSettings settings;
    settings.prune_to_overlap = prune;
    snap.narrowphase.set_settings(settings);
    const double cpu0 = thread_cpu_s();
    const auto t0 = std::chrono::steady_clock::now();
    snap.narrowphase.begin_frame(snap.states);
    Budget budget = Budget::unlimited();
    scheduler->run(snap.narrowphase, budget);
    wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cpu_s += thread_cpu_s() - cpu0;
  };

  // The outcomes, once, outside the clock: off, then on, collision by collision.
  std::int64_t collisions = 0, tests_off = 0, tests_on = 0, checks_on = 0;
  std::vector<SphereHit> stack;
  std::vector<SpherePair> pairs_off, pairs_on;
  for (Snapshot& snap : snapshots) {
    NarrowPhase& np = snap.narrowphase;
    collisions += static_cast<std::int64_t>(np.size());
    struct Outcome {
      CollisionStatus status;
      SpherePair leaf;
      std::vector<SpherePair> contacts;
    };
    std::vector<Outcome> off;
    for (const bool prune : {false, true}) {
      NarrowPhaseSettings settings;
      settings.prune_to_overlap = prune;
      np.set_settings(settings);
      np.begin_frame(snap.states);
      Budget budget = Budget::unlimited();
      scheduler->run(np, budget);
      (prune ? tests_on : tests_off) += np.sphere_tests();
      if (prune) checks_on += np.overlap_checks();
      for (std::size_t i = 0; i < np.size(); ++i) {
        const std::uint32_t slot = np.order()[i];
        const Collision& c = np.collision(slot);
        std::vector<SpherePair> contacts;
        if (c.status == CollisionStatus::colliding) np.contact_pairs(slot, 1 << 20, stack, contacts);
        if (!prune) {
          off.push_back({c.status, c.leaf_pair, std::move(contacts)});
          continue;
        }
        const Outcome& o = off[i];
        bool same = o.status == c.status && o.leaf.node_a == c.leaf_pair.node_a && o.leaf.node_b == c.leaf_pair.node_b &&
                    o.contacts.size() == contacts.size();
        for (std::size_t k = 0; same && k < contacts.size(); ++k)
          same = o.contacts[k].node_a == contacts[k].node_a && o.contacts[k].node_b == contacts[k].node_b;
        result.same_outcomes = result.same_outcomes && same;
      }
    }
  }
  const auto frames = static_cast<double>(snapshot_count);
  result.collisions_per_frame = static_cast<double>(collisions) / frames;
  result.tests_off = static_cast<double>(tests_off) / frames;
  result.tests_on = static_cast<double>(tests_on) / frames;
  result.checks_on = static_cast<double>(checks_on) / frames;

  // The clock: off and on alternate frame by frame (which goes first alternates between
  // repetitions), so a slow spell of a shared machine weighs on both; the ratios are paired
  // within each repetition. The thread's CPU time beside the wall clock leaves out the time
  // other processes took the core.
  const OtherLoad other_load;
  double total_s = 0;
  for (int rep = 0; total_s < min_time_s || rep < min_reps; ++rep) {
    double wall_off = 0, wall_on = 0, cpu_off = 0, cpu_on = 0;
    const bool on_first = rep % 2 == 1;
    for (Snapshot& snap : snapshots)
      for (const bool prune : {on_first, !on_first}) run_frame(snap, prune, prune ? wall_on : wall_off, prune ? cpu_on : cpu_off);
    result.ms_off.push_back(wall_off * 1e3 / frames);
    result.ms_on.push_back(wall_on * 1e3 / frames);
    result.ratio.push_back(wall_on / wall_off);
    result.cpu_ms_off.push_back(cpu_off * 1e3 / frames);
    result.cpu_ms_on.push_back(cpu_on * 1e3 / frames);
    result.cpu_ratio.push_back(cpu_on / cpu_off);
    total_s += wall_off + wall_on;
  }
  result.other_load_cores = other_load.cores();
  return result;
}

/// The command line.
struct Options {
  std::vector<std::string> parts = {"descent", "overshoot", "prune"};
  std::vector<std::string> prune_scenes = {"packed_rocks", "pile"};
  int prune_snapshots = 10;
  std::vector<std::string> scenes = {"packed_rocks", "uniform_balls"};
  std::uint64_t seed = 1;
  int warmup_frames = 60;
  int snapshots = 4;
  int snapshot_gap = 20;
  double min_time_s = 1.0;
  int min_reps = 5;
  int chunk = 4096;
  std::vector<double> budgets_ms = {0.1, 0.5, 1.0, 2.0};
  int overshoot_frames = 3000;
  std::string overshoot_scene = "packed_rocks";
  std::vector<std::string> overshoot_schedulers = {"priority_queues", "round_robin"};
  std::string out = "results/bench/narrowphase.csv";
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--parts", o.parts, "which parts to run")
      ->delimiter(',')->check(CLI::IsMember({"descent", "overshoot", "prune"}));
  app.add_option("--prune-scenes", o.prune_scenes, "scenes for the prune part")
      ->delimiter(',')->check(CLI::IsMember({"packed_rocks", "pile"}));
  app.add_option("--prune-snapshots", o.prune_snapshots, "frames of each scene the prune part runs (20 apart for the packed\n"
                 "rocks from frame 60, 50 apart for the pile from frame 200)")->check(CLI::Range(1, 100));
  app.add_option("--scenes", o.scenes, "scenes for the descent part")
      ->delimiter(',')->check(CLI::IsMember({"packed_rocks", "uniform_balls"}));
  app.add_option("--seed", o.seed, "seed of the scenes (shapes, placement, motion, gaze)");
  app.add_option("--warmup-frames", o.warmup_frames, "frames stepped before the first recorded frame (pairs to form)")
      ->check(CLI::Range(0, 100000));
  app.add_option("--snapshots", o.snapshots, "frames of the scene whose collisions the descent part runs")->check(CLI::Range(1, 100));
  app.add_option("--snapshot-gap", o.snapshot_gap, "frames between two of them")->check(CLI::Range(1, 100000));
  app.add_option("--min-time", o.min_time_s, "seconds each descent-part variant is timed for, at least")->check(CLI::Range(0.0, 600.0));
  app.add_option("--min-reps", o.min_reps, "repetitions of each variant, at least (the median is reported)")->check(CLI::Range(1, 10000));
  app.add_option("--chunk", o.chunk,
                 "sphere pairs per chunk of the cached bare tests (64 bytes each for the bare test, 92 with the\n"
                 "middle variants' fields; 512 keeps the bare arrays in a 48 kB L1)")
      ->check(CLI::Range(16, 1 << 24));
  app.add_option("--budgets-ms", o.budgets_ms, "wall budgets for the overshoot part, milliseconds")
      ->delimiter(',')->check(CLI::Range(0.0, 1000.0));
  app.add_option("--frames,--overshoot-frames", o.overshoot_frames, "frames per wall budget in the overshoot part")
      ->check(CLI::Range(1, 10000000));
  app.add_option("--overshoot-scene", o.overshoot_scene, "scene of the overshoot part")
      ->check(CLI::IsMember({"packed_rocks", "uniform_balls"}));
  app.add_option("--overshoot-schedulers", o.overshoot_schedulers, "schedulers of the overshoot part")
      ->delimiter(',')->check(CLI::IsMember({"round_robin", "sequential", "sorted_sequential", "priority_queues"}));
  app.add_option("--out", o.out, "CSV file to write (long form: part, scene, variant, budget_ms, quantity, value, unit)");
}

/// Rows of the long-form CSV: part, scene, variant, budget_ms, quantity, value, unit.
struct Rows {
  std::ofstream& csv;
  void operator()(const std::string& part, const std::string& scene, const std::string& variant,
                  const std::string& budget, const std::string& quantity, double value, const std::string& unit) const {
    bench::write_long_row(csv, {part, scene, variant, budget}, quantity, value, unit);
  }
};

/// Part 1: the descent beside the bare tests, per scene; false when a variant disagrees with
/// the descent.
bool report_descent(const Options& o, const Rows& row) {
  bool ok = true;
  std::printf("Descent: sphere tests per second on one core, every collision of %d frames to the end\n", o.snapshots);
  std::printf(
      "(median of repetitions; \"/ bare\" is ns per test over the bare test's)\n"
      "  descent_*: NarrowPhase::step under that scheduler with Budget::unlimited() (begin_frame not timed)\n"
      "  bare: the pairs the descent tested, centres pre-transformed into a's frame, comparison only,\n"
      "        cache-resident (vectorised: two tests per SSE2 instruction)\n"
      "  bare_scalar: the same one test at a time; bare_rotating_b: b's centre also rotated into a's frame\n"
      "  bare_rotating_b_branching: + a data-dependent branch that appends each hit (as the descent once did)\n"
      "  bare_rotating_b_branchless: the same appends without the branch\n"
      "  bare_streamed: bare, the whole record read from memory\n\n");
  std::printf("%-14s %-27s %10s %10s %14s %10s\n", "scene", "variant", "ns/test", "min ns", "Mtests/s/core", "/ bare");
  for (const std::string& scene : o.scenes) {
    std::fprintf(stderr, "fovea bench narrowphase: descent, %s...\n", scene.c_str());
    const DescentResult d = run_descent(scene, o.seed, o.warmup_frames, o.snapshots, o.snapshot_gap, o.min_time_s, o.min_reps,
                                         static_cast<std::size_t>(o.chunk));
    ok = ok && d.hits_agree;
    double bare_ns = std::nan("");
    double begin_ns = std::nan("");
    for (const Timing& t : d.timings) {
      if (t.variant == "bare") bare_ns = bench::quantile(t.ns_per_test, 0.5);
      if (t.variant == "descent_round_robin") begin_ns = t.begin_frame_ns_per_collision;
    }
    std::printf("%s: %lld collisions and %lld sphere tests a frame; %.1f%% of tests hit, %.2f tests a sphere hit,\n"
                "  %.2f steps (levels) a collision; begin_frame %.1f ns a collision; other processes used %.2f cores\n",
                scene.c_str(), static_cast<long long>(d.collisions_per_frame), static_cast<long long>(d.tests_per_frame),
                100 * d.hit_fraction, d.tests_per_sphere_hit, d.steps_per_collision, begin_ns, d.other_load_cores);
    const auto scene_row = [&](const std::string& variant, const std::string& quantity, double value, const std::string& unit) {
      row("descent", scene, variant, "NA", quantity, value, unit);
    };
    scene_row("all", "collisions_per_frame", static_cast<double>(d.collisions_per_frame), "collisions");
    scene_row("all", "tests_per_frame", static_cast<double>(d.tests_per_frame), "tests");
    scene_row("all", "hit_fraction", d.hit_fraction, "fraction");
    scene_row("all", "tests_per_sphere_hit", d.tests_per_sphere_hit, "tests");
    scene_row("all", "steps_per_collision", d.steps_per_collision, "steps");
    scene_row("all", "other_processes_load", d.other_load_cores, "cores");
    for (const Timing& t : d.timings) {
      const double median = bench::quantile(t.ns_per_test, 0.5);
      const double best = *std::min_element(t.ns_per_test.begin(), t.ns_per_test.end());
      std::printf("%-14s %-27s %10.3f %10.3f %14.1f %10.2f\n", scene.c_str(), t.variant.c_str(), median, best, 1e3 / median,
                  median / bare_ns);
      scene_row(t.variant, "ns_per_test_median", median, "ns");
      scene_row(t.variant, "ns_per_test_min", best, "ns");
      scene_row(t.variant, "tests_per_s_median", 1e9 / median, "tests/s");
      scene_row(t.variant, "over_bare", median / bare_ns, "ratio");
      scene_row(t.variant, "repetitions", static_cast<double>(t.ns_per_test.size()), "count");
      if (!std::isnan(t.begin_frame_ns_per_collision))
        scene_row(t.variant, "begin_frame_ns_per_collision", t.begin_frame_ns_per_collision, "ns");
    }
    row.csv.flush();
    std::fflush(stdout);
  }
  std::printf("%s\n\n", ok ? "every variant found the descent's intersections, test for test"
                           : "MISMATCH: a variant disagrees with the descent (see above)");
  return ok;
}

/// Part 2: the wall budget's overshoot, per scheduler and budget.
void report_overshoot(const Options& o, const Rows& row) {
  std::printf("Wall-budget overshoot: %s, %d frames per budget; microseconds past the deadline over the frames\n"
              "whose budget ran out (\"before 1st test\": frames whose deadline passed in the bookkeeping before\n"
              "any sphere test; \"descent p99.9\" leaves them out; \"others\": cores other processes kept busy meanwhile,\n"
              "whose preemptions make the millisecond tail on a shared machine)\n\n",
              o.overshoot_scene.c_str(), o.overshoot_frames);
  const ClockStalls stalls = measure_clock_stalls(2.0);
  std::printf("The machine itself: a thread spinning on the clock for %.0f s saw %.1f gaps a second over 20 us,\n"
              "%.1f over 100 us, the longest %.0f us.\n\n",
              stalls.seconds, static_cast<double>(stalls.over_20us) / stalls.seconds,
              static_cast<double>(stalls.over_100us) / stalls.seconds, stalls.max_us);
  row("overshoot", "none", "clock_spin", "NA", "stalls_over_20us_per_s", static_cast<double>(stalls.over_20us) / stalls.seconds, "1/s");
  row("overshoot", "none", "clock_spin", "NA", "stalls_over_100us_per_s", static_cast<double>(stalls.over_100us) / stalls.seconds, "1/s");
  row("overshoot", "none", "clock_spin", "NA", "stall_max", stalls.max_us, "us");
  std::printf("%-17s %9s %9s %9s %10s %9s %9s %9s %9s %8s %14s %7s\n", "scheduler", "budget ms", "tests/fr", "exhausted",
              "before 1st", "median", "p99", "p99.9", "max", ">20 us", "descent p99.9", "others");
  for (const std::string& name : o.overshoot_schedulers) {
    SchedulerKind kind = SchedulerKind::round_robin;
    for (const SchedulerKind k : {SchedulerKind::round_robin, SchedulerKind::sequential, SchedulerKind::sorted_sequential,
                                  SchedulerKind::priority_queues})
      if (name == scheduler_name(k)) kind = k;
    for (const double budget_ms : o.budgets_ms) {
      std::fprintf(stderr, "fovea bench narrowphase: overshoot, %s, %s ms...\n", name.c_str(), bench::significant_or_na(budget_ms).c_str());
      const OvershootResult r = run_overshoot(o.overshoot_scene, kind, budget_ms, o.seed, o.overshoot_frames);
      const double median = bench::quantile(r.overshoot_us, 0.5);
      const double p99 = bench::quantile(r.overshoot_us, 0.99);
      const double p999 = bench::quantile(r.overshoot_us, 0.999);
      const double max = r.overshoot_us.empty() ? std::nan("") : *std::max_element(r.overshoot_us.begin(), r.overshoot_us.end());
      const double descent_p999 = bench::quantile(r.overshoot_descent_us, 0.999);
      std::printf("%-17s %9s %9.0f %9lld %10lld %9.2f %9.2f %9.2f %9.1f %8lld %14.2f %7.2f\n", name.c_str(),
                  bench::significant_or_na(budget_ms).c_str(), r.full_tests_mean, static_cast<long long>(r.exhausted),
                  static_cast<long long>(r.exhausted_before_first_test), median, p99, p999, max,
                  static_cast<long long>(r.over_20us), descent_p999, r.other_load_cores);
      const std::string b = bench::significant_or_na(budget_ms, 6);
      row("overshoot", o.overshoot_scene, name, b, "frames", static_cast<double>(r.frames), "frames");
      row("overshoot", o.overshoot_scene, name, b, "exhausted_frames", static_cast<double>(r.exhausted), "frames");
      row("overshoot", o.overshoot_scene, name, b, "exhausted_before_first_test", static_cast<double>(r.exhausted_before_first_test), "frames");
      row("overshoot", o.overshoot_scene, name, b, "sphere_tests_mean", r.full_tests_mean, "tests");
      row("overshoot", o.overshoot_scene, name, b, "overshoot_median", median, "us");
      row("overshoot", o.overshoot_scene, name, b, "overshoot_p99", p99, "us");
      row("overshoot", o.overshoot_scene, name, b, "overshoot_p999", p999, "us");
      row("overshoot", o.overshoot_scene, name, b, "overshoot_max", max, "us");
      row("overshoot", o.overshoot_scene, name, b, "frames_over_20us", static_cast<double>(r.over_20us), "frames");
      row("overshoot", o.overshoot_scene, name, b, "overshoot_descent_p999", descent_p999, "us");
      row("overshoot", o.overshoot_scene, name, b, "other_processes_load", r.other_load_cores, "cores");
      row.csv.flush();
      std::fflush(stdout);
    }
  }
}

/// Part 3: pruning off and on, per scene. `ok`: whether every part so far agreed; returned
/// false too when pruning changed an outcome (the closing line says MISMATCH for either).
bool report_prune(const Options& o, const Rows& row, bool ok) {
  std::printf("Prune to the overlap region (003): every collision of %d frames to the end, pruning off and on\n"
              "(round robin, Budget::unlimited(); a frame's time is begin_frame and the scheduler's run, on the\n"
              "steady clock (ms) and the thread's CPU clock (cpu); medians of repetitions, off and on alternating\n"
              "frame by frame; \"on/off\" of a time is the median of the paired ratios; \"checks\": sphere-box\n"
              "checks against the region, which pruning does beside the tests it keeps; \"others\": cores other\n"
              "processes kept busy meanwhile)\n\n",
              o.prune_snapshots);
  std::printf("%-13s %10s %10s %10s %7s %10s %9s %9s %7s %9s %9s %7s %5s %6s\n", "scene", "collisions", "tests off",
              "tests on", "on/off", "checks on", "ms off", "ms on", "on/off", "cpu off", "cpu on", "on/off", "same",
              "others");
  for (const std::string& scene : o.prune_scenes) {
    std::fprintf(stderr, "fovea bench narrowphase: prune, %s...\n", scene.c_str());
    const PruneResult r = run_prune(scene, o.seed, o.prune_snapshots, o.min_time_s, o.min_reps);
    ok = ok && r.same_outcomes;
    const double ms_off = bench::quantile(r.ms_off, 0.5);
    const double ms_on = bench::quantile(r.ms_on, 0.5);
    const double ratio = bench::quantile(r.ratio, 0.5);
    const double cpu_off = bench::quantile(r.cpu_ms_off, 0.5);
    const double cpu_on = bench::quantile(r.cpu_ms_on, 0.5);
    const double cpu_ratio = bench::quantile(r.cpu_ratio, 0.5);
    std::printf("%-13s %10.1f %10.0f %10.0f %7.3f %10.0f %9.4f %9.4f %7.3f %9.4f %9.4f %7.3f %5s %6.2f\n", scene.c_str(),
                r.collisions_per_frame, r.tests_off, r.tests_on, r.tests_on / r.tests_off, r.checks_on, ms_off, ms_on,
                ratio, cpu_off, cpu_on, cpu_ratio, r.same_outcomes ? "yes" : "NO", r.other_load_cores);
    const auto scene_row = [&](const std::string& variant, const std::string& quantity, double value, const std::string& unit) {
      row("prune", scene, variant, "NA", quantity, value, unit);
    };
    scene_row("all", "frames", static_cast<double>(r.frames), "frames");
    scene_row("all", "collisions_per_frame", r.collisions_per_frame, "collisions");
    scene_row("off", "tests_per_frame", r.tests_off, "tests");
    scene_row("on", "tests_per_frame", r.tests_on, "tests");
    scene_row("on", "overlap_checks_per_frame", r.checks_on, "checks");
    scene_row("on_over_off", "tests_per_frame", r.tests_on / r.tests_off, "ratio");
    scene_row("off", "ms_per_frame_median", ms_off, "ms");
    scene_row("on", "ms_per_frame_median", ms_on, "ms");
    scene_row("on_over_off", "ms_per_frame_median", ratio, "ratio");
    scene_row("off", "cpu_ms_per_frame_median", cpu_off, "ms");
    scene_row("on", "cpu_ms_per_frame_median", cpu_on, "ms");
    scene_row("on_over_off", "cpu_ms_per_frame_median", cpu_ratio, "ratio");
    scene_row("all", "repetitions", static_cast<double>(r.ratio.size()), "count");
    scene_row("all", "same_outcomes", r.same_outcomes ? 1 : 0, "bool");
    scene_row("all", "other_processes_load", r.other_load_cores, "cores");
    row.csv.flush();
    std::fflush(stdout);
  }
  std::printf("%s\n", ok ? "pruning found the same status, leaf pair and contact pairs for every collision"
                         : "MISMATCH: pruning changed an outcome (see above)");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Narrow-phase benchmark (docs/narrowphase.md), three parts:\n"
      "  descent:   sphere tests per second per core of the staircase descent (NarrowPhase::step\n"
      "             under a scheduler with an unlimited budget, every collision of a frame to the\n"
      "             end), beside bare sphere-sphere tests on the same recorded pairs: pre-\n"
      "             transformed (the arithmetic's limit), rotating b's centres (the middle\n"
      "             variant), and streamed from memory. Prints ns per test and descent / bare.\n"
      "  overshoot: how far past a wall budget's deadline the descent stops, over thousands of\n"
      "             starved frames per budget: median, p99, p99.9 and max microseconds\n"
      "             (target: p99.9 below 20 us).\n"
      "  prune:     prune to the overlap region off and on, on the same frames: sphere tests and\n"
      "             narrow-phase ms a frame, their ratios, and whether the outcomes agree.\n"
      "Scenes: packed_rocks (configs/studies/packed500.yaml's world) and uniform_balls (2,000\n"
      "balls at random in a 12 m box). Writes one CSV row per measurement (--out)."};
  Options o;
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);

  // The packed scene and the pile are config files: say so at once when one cannot be read.
  const auto has = [](const std::vector<std::string>& v, const char* s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  try {
    if (has(o.scenes, "packed_rocks") || o.overshoot_scene == "packed_rocks") (void)scene_settings("packed_rocks");
    if (has(o.parts, "prune"))
      for (const std::string& scene : o.prune_scenes) (void)prune_scene_settings(scene);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fovea bench narrowphase: %s (run it from the repository root)\n", e.what());
    return 2;
  }

  std::ofstream csv = bench::open_csv(o.out, "narrowphase");
  if (!csv) return 1;
  csv << "part,scene,variant,budget_ms,quantity,value,unit\n";
  const Rows row{csv};
  bool ok = true;
  if (has(o.parts, "descent")) ok = report_descent(o, row) && ok;
  if (has(o.parts, "overshoot")) report_overshoot(o, row);
  if (has(o.parts, "prune")) ok = report_prune(o, row, ok);
  std::printf("\nwrote %s\n", o.out.c_str());
  return ok ? 0 : 1;
}
