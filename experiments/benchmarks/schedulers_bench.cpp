// Scheduler study (004 section 3.4.3): the four schedulers on one scene, one work budget,
// several seeds, and what each leaves unresolved, estimated and true. docs/narrowphase.md
// reads it.
//
// For each work budget (the config's, or --tests), each scheduler and each seed, the world
// of configs/studies/packed500.yaml runs --frames frames; each run gives the mean per frame
// of P and nabla (estimated and, with ground truth, true), false and missed collisions,
// interrupted collisions and sphere tests. The table gives the mean over seeds and each
// scheduler's ratio to round robin with a 95% t-interval over the per-seed ratios (the seeds
// pair the runs: one seed is one world and one viewer for all four schedulers).
//
// Beside it, to say why the ratios are what they are: the work that resolving every
// collision takes (round robin, no limit, no ground truth), and, by the priority band each
// collision's start-of-frame priority falls in, how many collisions there are, how many
// each scheduler resolved, and where P comes from.
//
//   ./fovea bench schedulers [--config FILE] [--tests 2000,10000] [--seeds 1,2,3,4,5] [--out FILE]
//
// --perceive measures instead what perceiving costs the schedulers that use priorities
// (docs/perception.md, "What perceiving costs"): on real frames of the config's world (as
// it is, and with --perceive-counts rocks in a box scaled to the same density),
// perceive_at_frame_start per collision beside one sphere test of the full-resolution
// narrow phase, then priority queues against round robin under a wall budget.
//
//   ./fovea bench schedulers --perceive [--perceive-counts 500,2000] [--wall-ms 0.25] [--seeds 1,2,3,4,5]

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>

#include "benchmarks/bench_stats.hpp"
#include "config/config.hpp"
#include "core/format.hpp"
#include "core/budget.hpp"
#include "core/stopwatch.hpp"
#include "prioritise/fast_priority.hpp"
#include "prioritise/perceived_collision.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "schedule/scheduler.hpp"
#include "frame/animation.hpp"
#include "run/stepper.hpp"

using namespace fovea;

namespace {

/// A work budget no frame reaches (the config allows up to 1e15).
constexpr std::int64_t kUnlimitedTests = 1'000'000'000'000'000;

constexpr SchedulerKind kAllSchedulers[] = {SchedulerKind::round_robin, SchedulerKind::sequential,
                                            SchedulerKind::sorted_sequential, SchedulerKind::priority_queues};

/// The per-frame means of one run.
struct RunMetrics {
  double p_est = 0;
  double nabla_est_m = 0;
  double p_true = 0;
  double nabla_true_m = 0;
  double false_collisions = 0;
  double missed_collisions = 0;
  double interrupted = 0;
  double sphere_tests = 0;
  double collisions = 0;
  double resolved_colliding = 0;
  double resolved_not_colliding = 0;
  double visible = 0;  ///< collisions whose centre of collision is on screen
};

/// Per priority band (the queue the collision's start-of-frame priority puts it in), per
/// frame: what the scheduler made of the collisions there.
struct BandMetrics {
  double collisions = 0;
  double resolved = 0;             ///< not interrupted
  double interrupted_touching = 0; ///< interrupted, voxels touching: repulsion was right
  double interrupted_apart = 0;    ///< interrupted, voxels apart: a false collision (repulse)
  double p_est = 0;
  double p_est_touching = 0;       ///< the part of p_est from collisions that do touch
  double p_true = 0;
};

struct Run {
  std::int64_t budget_tests = 0;
  SchedulerKind kind = SchedulerKind::round_robin;
  std::int64_t seed = 0;
  RunMetrics m;
  std::vector<BandMetrics> bands;
  std::int64_t queue_mismatches = 0;  ///< priority queues only: band of Collision::priority != Collision::queue
};

int band_of(double priority, const std::vector<double>& edges) {
  int q = 0;
  while (q < static_cast<int>(edges.size()) && priority < edges[static_cast<std::size_t>(q)]) ++q;
  return q;
}

/// The config with the study's overrides after the user's own (`--set`): the loader checks
/// them as it checks a config file.
Settings load_run_settings(const std::string& path, std::vector<std::string> sets, const char* scheduler,
                           std::int64_t seed, std::int64_t budget_tests, bool ground_truth_off) {
  sets.push_back(std::string("schedule.kind=") + scheduler);
  sets.push_back("seed=" + std::to_string(seed));
  sets.push_back("budget.mode=work");
  sets.push_back("budget.tests=" + std::to_string(budget_tests));
  if (ground_truth_off) sets.push_back("ground_truth=false");
  return config::load_config_file(path, sets).settings;
}

/// One run: `settings` as load_run_settings made them for (budget, scheduler, seed).
Run run_one(const Settings& settings, std::int64_t frames) {
  Run run;
  run.budget_tests = settings.budget.tests;
  run.kind = settings.schedule.kind;
  run.seed = settings.seed;
  const SchedulerKind kind = run.kind;
  const std::vector<double>& edges = settings.schedule.band_edges;
  run.bands.assign(edges.size() + 1, BandMetrics{});
  Stepper stepper(std::make_unique<Animation>(static_cast<const AnimationSettings&>(settings),
                                              static_cast<std::uint64_t>(settings.seed)),
                  nullptr);
  const Animation& world = stepper.world();
  RunMetrics& m = run.m;
  for (std::int64_t f = 0; f < frames; ++f) {
    const FrameStats& st = stepper.step().stats;
    m.p_est += st.metrics.p_est;
    m.nabla_est_m += st.metrics.nabla_est_m;
    m.p_true += st.metrics.p_true;
    m.nabla_true_m += st.metrics.nabla_true_m;
    m.false_collisions += static_cast<double>(st.metrics.false_collisions);
    m.missed_collisions += static_cast<double>(st.metrics.missed_collisions);
    m.interrupted += static_cast<double>(st.metrics.interrupted);
    m.sphere_tests += static_cast<double>(st.sphere_tests);
    m.collisions += static_cast<double>(st.collisions);
    m.resolved_colliding += static_cast<double>(st.metrics.resolved_colliding);
    m.resolved_not_colliding += static_cast<double>(st.metrics.resolved_not_colliding);
    // The collisions as the frame left them, each with its ground truth.
    const NarrowPhase& np = world.narrowphase();
    for (const std::uint32_t slot : np.order()) {
      const Collision& c = np.collision(slot);
      m.visible += c.visible;
      // Collision::priority is the start-of-frame f(e, g) for every scheduler (set before
      // the run for the two that use it, after it for the others).
      const int band = band_of(c.priority, edges);
      if (kind == SchedulerKind::priority_queues && band != c.queue) ++run.queue_mismatches;
      BandMetrics& b = run.bands[static_cast<std::size_t>(band)];
      const CollisionTruth& truth = world.meter().truth(slot);
      ++b.collisions;
      if (!c.interrupted) {
        ++b.resolved;
        continue;
      }
      const bool accepted = c.status == CollisionStatus::colliding;
      // FrameStats::p_est's term: f at the end-of-frame placement, 0 off screen.
      const double p_est = accepted ? c.probability : 0.0;
      b.p_est += p_est;
      if (!truth.checked) continue;
      if (truth.touching) {
        ++b.interrupted_touching;
        b.p_est_touching += p_est;
      } else {
        ++b.interrupted_apart;
        b.p_true += accepted ? truth.probability : 0.0;
      }
    }
  }
  const double n = static_cast<double>(std::max<std::int64_t>(frames, 1));
  for (double* v : {&m.p_est, &m.nabla_est_m, &m.p_true, &m.nabla_true_m, &m.false_collisions, &m.missed_collisions,
                    &m.interrupted, &m.sphere_tests, &m.collisions, &m.resolved_colliding, &m.resolved_not_colliding,
                    &m.visible})
    *v /= n;
  for (BandMetrics& b : run.bands)
    for (double* v : {&b.collisions, &b.resolved, &b.interrupted_touching, &b.interrupted_apart, &b.p_est,
                      &b.p_est_touching, &b.p_true})
      *v /= n;
  return run;
}

/// Sphere tests a frame that resolving every collision takes: round robin with no limit and
/// no ground truth (which does not change the descent), mean and max over the frames.
struct FullWork {
  std::int64_t seed = 0;
  double mean_tests = 0;
  double max_tests = 0;
};

FullWork full_work(const Settings& settings, std::int64_t frames) {
  Stepper stepper(std::make_unique<Animation>(static_cast<const AnimationSettings&>(settings),
                                              static_cast<std::uint64_t>(settings.seed)),
                  nullptr);
  FullWork w{settings.seed, 0, 0};
  for (std::int64_t f = 0; f < frames; ++f) {
    const double tests = static_cast<double>(stepper.step().stats.sphere_tests);
    w.mean_tests += tests;
    w.max_tests = std::max(w.max_tests, tests);
  }
  w.mean_tests /= static_cast<double>(std::max<std::int64_t>(frames, 1));
  return w;
}

/// Two-sided 95% quantile of Student's t with `df` degrees of freedom.
double t95(int df) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return std::nan("");
  return df <= 30 ? kTable[df - 1] : 1.96;
}

struct Interval {
  double mean = std::nan("");
  double lo = std::nan("");
  double hi = std::nan("");
};

/// Mean and 95% t-interval of `values` (NaNs left out).
Interval t_interval(const std::vector<double>& values) {
  std::vector<double> v;
  for (double x : values)
    if (std::isfinite(x)) v.push_back(x);
  Interval r;
  if (v.empty()) return r;
  double sum = 0;
  for (double x : v) sum += x;
  r.mean = sum / static_cast<double>(v.size());
  if (v.size() < 2) return r;
  double ss = 0;
  for (double x : v) ss += (x - r.mean) * (x - r.mean);
  const double half = t95(static_cast<int>(v.size()) - 1) * std::sqrt(ss / static_cast<double>(v.size() - 1)) /
                      std::sqrt(static_cast<double>(v.size()));
  r.lo = r.mean - half;
  r.hi = r.mean + half;
  return r;
}


/// For the tables: whole numbers from 1000 up, four significant digits below.
std::string table_num(double v) {
  if (std::isnan(v)) return "NA";
  if (std::fabs(v) >= 1000) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", v);
    return text;
  }
  return format_significant(v, 4);
}

std::string interval_text(const Interval& i) {
  if (std::isnan(i.mean)) return "NA";
  if (std::isnan(i.lo)) return bench::significant_or_na(i.mean, 3);
  return bench::significant_or_na(i.mean, 3) + " [" + bench::significant_or_na(i.lo, 3) + ", " + bench::significant_or_na(i.hi, 3) + "]";
}

/// Runs `tasks` on `jobs` threads; each task writes only its own result.
void run_parallel(std::size_t tasks, int jobs, const std::function<void(std::size_t)>& task) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, jobs); ++j)
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < tasks; i = next++) task(i);
    });
  for (std::thread& t : threads) t.join();
}


// ---------------------------------------------------------------------------------------
// --perceive: what placing every collision on screen costs, in sphere tests.

/// The config's world with `rocks` entities in its first group, in a cubic box scaled so
/// that the density stays the config's (500 rocks in 6 m: 2,000 in 9.5 m). The overrides
/// go after the user's own --set.
std::vector<std::string> scene_sets(const Settings& base, std::vector<std::string> sets, std::int64_t rocks) {
  const std::int64_t base_count = base.world.entities.empty() ? 0 : base.world.entities[0].count;
  if (rocks == base_count || base_count == 0) return sets;
  // Side scaled by the cube root of the count ratio, to one decimal: 6 m x (2000 / 500)^(1/3) = 9.5 m.
  const double side = std::round(10 * base.world.box_size_m.x * std::cbrt(static_cast<double>(rocks) / static_cast<double>(base_count))) / 10;
  const std::string s = format_significant(side, 6);
  sets.push_back("world.entities[0].count=" + std::to_string(rocks));
  sets.push_back("world.box_size_m=[" + s + "," + s + "," + s + "]");
  return sets;
}

/// One frame of the world, frozen: a narrow phase synced to that frame's pairs, the poses,
/// and where the viewer looked.
struct PerceiveSnapshot {
  NarrowPhase narrowphase;
  std::vector<EntityState> states;
  FrameGaze gaze;
};

/// As the world places its collisions (Animation::viewing).
Viewing viewing_of(const Animation& world, const FrameGaze& gaze) {
  return {world.view(), world.perception_model(), gaze.x_px, gaze.y_px};
}

/// Median of per-repetition values, with at least `min_reps` repetitions and `min_time_s`
/// seconds of timed work. `pass` returns its seconds and adds to `count` what it did.
template <class Pass>
double median_per_item_ns(double min_time_s, int min_reps, Pass pass) {
  std::vector<double> ns;
  double total_s = 0;
  while (total_s < min_time_s || static_cast<int>(ns.size()) < min_reps) {
    double items = 0;
    const double seconds = pass(items);
    total_s += seconds;
    ns.push_back(seconds * 1e9 / std::max(items, 1.0));
  }
  return bench::quantile(ns, 0.5);
}

struct PerceiveCost {
  std::int64_t rocks = 0;
  double collisions_per_frame = 0;
  double visible_fraction = 0;          ///< of the collisions, those whose centre is on screen
  double perceive_ns_per_collision = 0; ///< perceive_at_frame_start, per collision
  double fast_ns_per_collision = 0;     ///< prioritise_for_order's fast placement, per collision
  double begin_frame_ns_per_collision = 0;
  double test_ns = 0;                   ///< full-resolution descent time over its sphere tests
  double tests_per_frame = 0;           ///< full resolution
};

PerceiveCost measure_perceive_cost(const Settings& settings, std::int64_t rocks, int warmup_frames, int snapshot_count,
                                   int snapshot_gap, double min_time_s, int min_reps) {
  PerceiveCost r;
  r.rocks = rocks;
  Stepper stepper(std::make_unique<Animation>(static_cast<const AnimationSettings&>(settings),
                                              static_cast<std::uint64_t>(settings.seed)),
                  nullptr);
  const Animation& world = stepper.world();
  for (int f = 0; f < warmup_frames; ++f) stepper.step();
  std::vector<PerceiveSnapshot> snapshots;
  for (int s = 0; s < snapshot_count; ++s) {
    FrameGaze gaze = world.last_gaze();
    for (int f = 0; f < (s == 0 ? 1 : snapshot_gap); ++f) gaze = stepper.step().stats.gaze;
    const std::span<const CollisionModel> models = world.narrowphase().models();
    PerceiveSnapshot snap{NarrowPhase(std::vector<CollisionModel>(models.begin(), models.end())),
                          std::vector<EntityState>(world.states().begin(), world.states().end()), gaze};
    snap.narrowphase.set_settings(world.settings().narrowphase);
    snap.narrowphase.sync(world.broadphase().pairs(), world.entities(), world.frames_done());
    snapshots.push_back(std::move(snap));
  }
  double collisions = 0, visible = 0;
  for (PerceiveSnapshot& snap : snapshots) {
    snap.narrowphase.begin_frame(snap.states);
    perceive_at_frame_start(snap.narrowphase, snap.states, viewing_of(world, snap.gaze));
    collisions += static_cast<double>(snap.narrowphase.size());
    for (const std::uint32_t slot : snap.narrowphase.order()) visible += snap.narrowphase.collision(slot).visible;
  }
  r.collisions_per_frame = collisions / snapshot_count;
  r.visible_fraction = visible / std::max(collisions, 1.0);

  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  // Perceiving, as the frame does it: after begin_frame, every collision in list order; and
  // the fast placement of the order alone (schedule.fast_priorities), interleaved with it
  // snapshot by snapshot so that both meet the same machine.
  std::vector<double> exact_ns, fast_ns;
  const PriorityOptions fast{true, nullptr, nullptr};
  double timed_s = 0;
  while (timed_s < min_time_s || static_cast<int>(exact_ns.size()) < min_reps) {
    double exact_s = 0, fast_s = 0, items = 0;
    for (PerceiveSnapshot& snap : snapshots) {
      const Viewing viewing = viewing_of(world, snap.gaze);
      snap.narrowphase.begin_frame(snap.states);
      auto t0 = Clock::now();
      perceive_at_frame_start(snap.narrowphase, snap.states, viewing);
      exact_s += seconds_since(t0);
      snap.narrowphase.begin_frame(snap.states);
      t0 = Clock::now();
      prioritise_for_order(snap.narrowphase, snap.states, viewing, fast, snap.narrowphase.order(), false);
      fast_s += seconds_since(t0);
      items += static_cast<double>(snap.narrowphase.size());
    }
    timed_s += exact_s + fast_s;
    exact_ns.push_back(exact_s * 1e9 / std::max(items, 1.0));
    fast_ns.push_back(fast_s * 1e9 / std::max(items, 1.0));
  }
  r.perceive_ns_per_collision = bench::quantile(exact_ns, 0.5);
  r.fast_ns_per_collision = bench::quantile(fast_ns, 0.5);
  // One sphere test: the full-resolution narrow phase (round robin, no limit) over its tests;
  // begin_frame apart, per collision.
  ScheduleSettings schedule;
  schedule.kind = SchedulerKind::round_robin;
  const std::unique_ptr<Scheduler> scheduler = make_scheduler(schedule);
  double begin_s = 0, begin_collisions = 0, tests = 0, passes = 0;
  r.test_ns = median_per_item_ns(min_time_s, min_reps, [&](double& items) {
    double seconds = 0;
    for (PerceiveSnapshot& snap : snapshots) {
      const auto t0 = Clock::now();
      snap.narrowphase.begin_frame(snap.states);
      begin_s += seconds_since(t0);
      begin_collisions += static_cast<double>(snap.narrowphase.size());
      Budget budget = Budget::unlimited();
      const auto t1 = Clock::now();
      scheduler->run(snap.narrowphase, budget);
      seconds += seconds_since(t1);
      items += static_cast<double>(snap.narrowphase.sphere_tests());
      tests += static_cast<double>(snap.narrowphase.sphere_tests());
      ++passes;
    }
    return seconds;
  });
  r.begin_frame_ns_per_collision = begin_s * 1e9 / std::max(begin_collisions, 1.0);
  r.tests_per_frame = tests / std::max(passes, 1.0);
  return r;
}

/// One wall-budget run: the per-frame means.
struct WallRun {
  std::int64_t rocks = 0;
  SchedulerKind kind = SchedulerKind::round_robin;
  std::int64_t seed = 0;
  double sphere_tests = 0;
  double collisions = 0;
  double narrowphase_ms = 0;
  double p_est = 0;
};

WallRun run_wall(const Settings& settings, std::int64_t rocks, std::int64_t frames) {
  WallRun w{rocks, settings.schedule.kind, settings.seed, 0, 0, 0, 0};
  Stepper stepper(std::make_unique<Animation>(static_cast<const AnimationSettings&>(settings),
                                              static_cast<std::uint64_t>(settings.seed)),
                  nullptr);
  for (std::int64_t f = 0; f < frames; ++f) {
    const FrameStats& st = stepper.step().stats;
    w.sphere_tests += static_cast<double>(st.sphere_tests);
    w.collisions += static_cast<double>(st.collisions);
    w.narrowphase_ms += st.phase_ms[static_cast<int>(Phase::narrowphase)];
    w.p_est += st.metrics.p_est;
  }
  const double n = static_cast<double>(std::max<std::int64_t>(frames, 1));
  w.sphere_tests /= n;
  w.collisions /= n;
  w.narrowphase_ms /= n;
  w.p_est /= n;
  return w;
}

int perceive_mode(const std::string& config_path, const std::vector<std::string>& sets, const Settings& base,
                  const std::vector<std::int64_t>& counts, const std::vector<std::int64_t>& seeds, double wall_ms,
                  std::int64_t wall_frames, double min_time_s, int min_reps, const std::string& out) {
  std::ofstream csv = bench::open_csv(out, "schedulers");
  if (!csv) return 1;
  csv << "part,rocks,scheduler,seed,quantity,value,unit\n";
  const auto row = [&](const char* part, std::int64_t rocks, const std::string& scheduler, const std::string& seed,
                       const char* quantity, double value, const char* unit) {
    bench::write_long_row(csv, {part, std::to_string(rocks), scheduler, seed}, quantity, value, unit);
  };
  const auto load = [&](std::vector<std::string> s) { return config::load_config_file(config_path, s).settings; };

  std::printf("What perceiving costs: perceive_at_frame_start (each collision placed on screen: the gap\n"
              "estimate, three projections, eccentricity, gap angle, f(e, g)), which a scheduler that uses\n"
              "priorities pays from a wall budget, against one sphere test of the full-resolution narrow\n"
              "phase (round robin, no limit: its time over its tests; begin_frame apart). %s, seed %lld,\n"
              "frames 61, 81, 101, 121; medians of repetitions.\n\n",
              config_path.c_str(), static_cast<long long>(seeds.front()));
  std::printf("%6s %11s %8s %15s %12s %12s %12s %14s   %s\n", "rocks", "collisions", "visible", "perceive ns/col",
              "fast ns/col", "ns/test", "tests/frame", "begin ns/col", "perceiving one collision costs, exact | fast");
  std::vector<Settings> scene_settings;
  try {
    for (const std::int64_t rocks : counts) {
      std::vector<std::string> s = scene_sets(base, sets, rocks);
      s.push_back("seed=" + std::to_string(seeds.front()));
      s.push_back("ground_truth=false");
      scene_settings.push_back(load(s));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fovea bench schedulers: %s\n", e.what());
    return 2;
  }
  for (std::size_t i = 0; i < counts.size(); ++i) {
    std::fprintf(stderr, "fovea bench schedulers: perceiving, %lld rocks...\n", static_cast<long long>(counts[i]));
    const PerceiveCost c = measure_perceive_cost(scene_settings[i], counts[i], 60, 4, 20, min_time_s, min_reps);
    const double ratio = c.perceive_ns_per_collision / c.test_ns;
    const double fast_ratio = c.fast_ns_per_collision / c.test_ns;
    std::printf("%6lld %11.0f %7.0f%% %15.1f %12.1f %12.2f %12.0f %14.1f   %s | %s sphere tests\n",
                static_cast<long long>(c.rocks), c.collisions_per_frame, 100 * c.visible_fraction,
                c.perceive_ns_per_collision, c.fast_ns_per_collision, c.test_ns, c.tests_per_frame,
                c.begin_frame_ns_per_collision, format_significant(ratio, 3).c_str(),
                format_significant(fast_ratio, 3).c_str());
    row("perceive", c.rocks, "NA", std::to_string(seeds.front()), "collisions_per_frame", c.collisions_per_frame, "collisions");
    row("perceive", c.rocks, "NA", std::to_string(seeds.front()), "visible_fraction", c.visible_fraction, "fraction");
    row("perceive", c.rocks, "NA", std::to_string(seeds.front()), "perceive_ns_per_collision", c.perceive_ns_per_collision, "ns");
    row("perceive", c.rocks, "NA", std::to_string(seeds.front()), "sphere_test_ns", c.test_ns, "ns");
    row("perceive", c.rocks, "NA", std::to_string(seeds.front()), "full_resolution_tests_per_frame", c.tests_per_frame, "tests");
    row("perceive", c.rocks, "NA", std::to_string(seeds.front()), "begin_frame_ns_per_collision", c.begin_frame_ns_per_collision, "ns");
    row("perceive", c.rocks, "NA", std::to_string(seeds.front()), "perceive_over_test", ratio, "tests");
    row("perceive", c.rocks, "NA", std::to_string(seeds.front()), "fast_ns_per_collision", c.fast_ns_per_collision, "ns");
    row("perceive", c.rocks, "NA", std::to_string(seeds.front()), "fast_over_test", fast_ratio, "tests");
    csv.flush();
    std::fflush(stdout);
  }

  if (wall_ms <= 0 || wall_frames <= 0) return 0;
  std::printf("\nUnder a wall budget of %s ms: priority queues against round robin, one run each per seed (%zu seeds,\n"
              "%lld frames, one run at a time); sphere tests a frame, mean over frames, then the median over seeds\n"
              "and the median of the per-seed ratios (this machine is shared: read the ratio)\n\n",
              format_significant(wall_ms, 4).c_str(), seeds.size(), static_cast<long long>(wall_frames));
  std::printf("%6s %11s %14s %14s %10s %16s %16s\n", "rocks", "collisions", "tests RR", "tests PQ", "PQ / RR",
              "narrow ms RR", "narrow ms PQ");
  for (const std::int64_t rocks : counts) {
    std::vector<WallRun> rr, pq;
    for (const std::int64_t seed : seeds) {
      for (const char* kind : {"round_robin", "priority_queues"}) {
        std::vector<std::string> s = scene_sets(base, sets, rocks);
        s.push_back(std::string("schedule.kind=") + kind);
        s.push_back("seed=" + std::to_string(seed));
        s.push_back("budget.mode=wall");
        s.push_back("budget.ms=" + format_significant(wall_ms, 9));
        s.push_back("ground_truth=false");
        Settings settings;
        try {
          settings = load(s);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "fovea bench schedulers: %s\n", e.what());
          return 2;
        }
        std::fprintf(stderr, "\rfovea bench schedulers: wall budget, %lld rocks, seed %lld, %s...        ",
                     static_cast<long long>(rocks), static_cast<long long>(seed), kind);
        const WallRun w = run_wall(settings, rocks, wall_frames);
        (w.kind == SchedulerKind::round_robin ? rr : pq).push_back(w);
        for (const auto& [quantity, value, unit] :
             {std::tuple{"sphere_tests_per_frame", w.sphere_tests, "tests"}, std::tuple{"collisions_per_frame", w.collisions, "collisions"},
              std::tuple{"narrowphase_ms", w.narrowphase_ms, "ms"}, std::tuple{"p_est", w.p_est, "expected noticed gaps"}})
          row("wall", rocks, kind, std::to_string(seed), quantity, value, unit);
      }
    }
    std::fprintf(stderr, "\n");
    std::vector<double> t_rr, t_pq, ratio, n_rr, n_pq, coll;
    for (std::size_t i = 0; i < rr.size(); ++i) {
      t_rr.push_back(rr[i].sphere_tests);
      t_pq.push_back(pq[i].sphere_tests);
      ratio.push_back(pq[i].sphere_tests / rr[i].sphere_tests);
      n_rr.push_back(rr[i].narrowphase_ms);
      n_pq.push_back(pq[i].narrowphase_ms);
      coll.push_back(0.5 * (rr[i].collisions + pq[i].collisions));
    }
    const double median_ratio = bench::quantile(ratio, 0.5);
    std::printf("%6lld %11.0f %14.0f %14.0f %10.3f %16.3f %16.3f\n", static_cast<long long>(rocks), bench::quantile(coll, 0.5),
                bench::quantile(t_rr, 0.5), bench::quantile(t_pq, 0.5), median_ratio, bench::quantile(n_rr, 0.5),
                bench::quantile(n_pq, 0.5));
    row("wall", rocks, "priority_queues", "median", "tests_ratio_to_round_robin", median_ratio, "ratio");
    csv.flush();
    std::fflush(stdout);
  }
  std::printf("\nwrote %s\n", out.c_str());
  return 0;
}

/// The command line.
struct Options {
  std::string config_path = "configs/studies/packed500.yaml";
  std::vector<std::int64_t> budgets;
  std::vector<std::int64_t> seeds = {1, 2, 3, 4, 5};
  std::int64_t frames = -1;
  std::vector<std::string> scheduler_names = {"round_robin", "sequential", "sorted_sequential", "priority_queues"};
  std::vector<std::string> sets;
  int jobs = static_cast<int>(std::max(1u, std::min(2u, std::thread::hardware_concurrency())));
  bool skip_full = false;
  std::string out = "results/bench/schedulers.csv";
  bool perceive = false;
  std::vector<std::int64_t> perceive_counts = {500, 2000};
  double wall_ms = 0.25;
  std::int64_t wall_frames = -1;
  double min_time_s = 1.0;
  int min_reps = 7;
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--config", o.config_path, "scene config (its budget.tests, frames and schedule.band_edges are the defaults)");
  app.add_option("--tests", o.budgets, "work budgets, sphere tests a frame (default: the config's budget.tests)")
      ->delimiter(',')->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 50));
  app.add_option("--seeds", o.seeds, "seeds; each is one world and one viewer for every scheduler")
      ->delimiter(',')->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 52));
  app.add_option("--frames", o.frames, "frames per run (default: the config's)")->check(CLI::Range(std::int64_t{1}, std::int64_t{10000000}));
  app.add_option("--schedulers", o.scheduler_names, "schedulers; round_robin is the reference of the ratios")
      ->delimiter(',')->check(CLI::IsMember({"round_robin", "sequential", "sorted_sequential", "priority_queues"}));
  app.add_option("--set", o.sets, "a config override key=value, as fovea run --set (repeatable)");
  app.add_option("--jobs", o.jobs, "runs at a time (threads; the results do not depend on it)")->check(CLI::Range(1, 256));
  app.add_flag("--skip-full", o.skip_full, "do not measure the work that resolving every collision takes");
  app.add_option("--out", o.out, "CSV file to write; the band table goes beside it with _bands before .csv");
  app.add_flag("--perceive", o.perceive,
               "instead of the study: what perceive_at_frame_start costs per collision, in sphere tests, on the\n"
               "config's world with --perceive-counts rocks, then priority queues against round robin under a\n"
               "--wall-ms budget, one run each per seed (--out default results/bench/perceive.csv)");
  app.add_option("--perceive-counts", o.perceive_counts,
                 "--perceive: rock counts; the config's first group gets the count and the box is scaled to keep its\n"
                 "density (500 in 6 m: 2,000 in 9.5 m)")
      ->delimiter(',')->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000}));
  app.add_option("--wall-ms", o.wall_ms, "--perceive: the wall budget of the scheduler comparison, ms (0: none)")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--wall-frames", o.wall_frames, "--perceive: frames per wall-budget run (default: the config's)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{10000000}));
  app.add_option("--min-time", o.min_time_s, "--perceive: seconds each timing is repeated for, at least")->check(CLI::Range(0.0, 600.0));
  app.add_option("--min-reps", o.min_reps, "--perceive: repetitions of each timing, at least (the median is reported)")
      ->check(CLI::Range(1, 10000));
}

/// What the study measured: every run, and the work of resolving everything per seed.
struct Study {
  std::vector<SchedulerKind> kinds;  ///< in kAllSchedulers' order, round robin always
  std::int64_t frames = 0;
  std::vector<FullWork> full;        ///< per seed; empty with --skip-full
  double full_mean = std::nan("");
  std::vector<Run> runs;

  const Run& find_run(std::int64_t b, SchedulerKind k, std::int64_t s) const {
    for (const Run& r : runs)
      if (r.budget_tests == b && r.kind == k && r.seed == s) return r;
    return runs.front();
  }
};

/// The work of resolving everything, per seed, into the study, and its line; false, said
/// on stderr, when a seed's config cannot be loaded.
bool measure_full_work(const Options& o, Study& study) {
  study.full.resize(o.seeds.size());
  std::fprintf(stderr, "fovea bench schedulers: full resolution, %zu seeds...\n", o.seeds.size());
  std::vector<Settings> full_settings;
  try {
    for (const std::int64_t seed : o.seeds)
      full_settings.push_back(load_run_settings(o.config_path, o.sets, "round_robin", seed, kUnlimitedTests, true));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fovea bench schedulers: %s\n", e.what());
    return false;
  }
  run_parallel(o.seeds.size(), o.jobs, [&](std::size_t i) { study.full[i] = full_work(full_settings[i], study.frames); });
  study.full_mean = 0;
  double full_max = 0;
  for (const FullWork& w : study.full) {
    study.full_mean += w.mean_tests / static_cast<double>(study.full.size());
    full_max = std::max(full_max, w.max_tests);
  }
  std::printf("resolving every collision takes %s sphere tests a frame (mean over frames and seeds; most in one frame %s)\n",
              table_num(study.full_mean).c_str(), table_num(full_max).c_str());
  return true;
}

/// Every budget x scheduler x seed run, `jobs` at a time; their settings are loaded first,
/// before any thread starts. False, said on stderr, when one cannot be loaded.
bool run_study(const Options& o, Study& study, const Stopwatch& total_clock) {
  std::vector<Settings> run_settings;
  try {
    for (const std::int64_t b : o.budgets)
      for (const SchedulerKind k : study.kinds)
        for (const std::int64_t s : o.seeds) {
          study.runs.push_back(Run{b, k, s, {}, {}, 0});
          run_settings.push_back(load_run_settings(o.config_path, o.sets, scheduler_name(k), s, b, false));
        }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fovea bench schedulers: %s\n", e.what());
    return false;
  }
  std::mutex progress_mutex;
  std::size_t done = 0;
  run_parallel(study.runs.size(), o.jobs, [&](std::size_t i) {
    study.runs[i] = run_one(run_settings[i], study.frames);
    const std::lock_guard<std::mutex> lock(progress_mutex);
    ++done;
    std::fprintf(stderr, "\rfovea bench schedulers: %zu/%zu runs (%.0f s)", done, study.runs.size(),
                 total_clock.elapsed_ms() / 1000);
  });
  std::fprintf(stderr, "\n");
  return true;
}

/// A column of the tables: its heading and the run's metric.
struct Column {
  const char* name;
  double RunMetrics::*field;
};

/// Budget `b`'s mean table and its ratios to round robin with their t-intervals.
void print_means_and_ratios(const Options& o, const Study& study, std::int64_t b) {
  const Column columns[] = {{"p_est", &RunMetrics::p_est},
                            {"nabla_est_m", &RunMetrics::nabla_est_m},
                            {"p_true", &RunMetrics::p_true},
                            {"nabla_true_m", &RunMetrics::nabla_true_m},
                            {"false", &RunMetrics::false_collisions},
                            {"missed", &RunMetrics::missed_collisions},
                            {"interrupted", &RunMetrics::interrupted},
                            {"sphere_tests", &RunMetrics::sphere_tests}};
  const Column ratio_columns[] = {{"P est", &RunMetrics::p_est},
                                  {"P true", &RunMetrics::p_true},
                                  {"nabla est", &RunMetrics::nabla_est_m},
                                  {"nabla true", &RunMetrics::nabla_true_m}};
  const std::string t_label = "t with " + std::to_string(o.seeds.size() - 1) + " df";
  std::printf("\n== work budget %lld sphere tests a frame", static_cast<long long>(b));
  if (!std::isnan(study.full_mean))
    std::printf(" (%s%% of full resolution)",
                bench::significant_or_na(100.0 * static_cast<double>(b) / study.full_mean, 3).c_str());
  std::printf("\nmean per frame, mean over seeds:\n%-18s", "scheduler");
  for (const Column& c : columns) std::printf(" %12s", c.name);
  std::printf("\n");
  for (const SchedulerKind k : study.kinds) {
    std::printf("%-18s", scheduler_name(k));
    for (const Column& c : columns) {
      double sum = 0;
      for (const std::int64_t s : o.seeds) sum += study.find_run(b, k, s).m.*c.field;
      std::printf(" %12s", table_num(sum / static_cast<double>(o.seeds.size())).c_str());
    }
    std::printf("\n");
  }
  std::printf("ratio to round_robin: mean of the per-seed ratios [95%% CI, %s]\n%-18s", t_label.c_str(), "scheduler");
  for (const Column& c : ratio_columns) std::printf(" %-24s", c.name);
  std::printf("\n");
  for (const SchedulerKind k : study.kinds) {
    if (k == SchedulerKind::round_robin) continue;
    std::printf("%-18s", scheduler_name(k));
    for (const Column& c : ratio_columns) {
      std::vector<double> ratios;
      for (const std::int64_t s : o.seeds)
        ratios.push_back(study.find_run(b, k, s).m.*c.field / study.find_run(b, SchedulerKind::round_robin, s).m.*c.field);
      std::printf(" %-24s", interval_text(t_interval(ratios)).c_str());
    }
    std::printf("\n");
  }
}

/// Budget `b`'s table of where P comes from, by start-of-frame priority band.
void print_bands(const Options& o, const Study& study, std::int64_t b, const std::vector<double>& edges) {
  const std::size_t band_count = edges.size() + 1;
  std::printf("by start-of-frame priority band (the priority queue it goes in; per frame, mean over seeds):\n");
  std::printf("%-18s %-13s %10s %9s %9s %9s %9s %9s %12s\n", "scheduler", "band", "collisions", "resolved", "int.touch",
              "int.apart", "P est", "P true", "P est touch");
  for (const SchedulerKind k : study.kinds) {
    for (std::size_t q = 0; q < band_count; ++q) {
      BandMetrics mean;
      for (const std::int64_t s : o.seeds) {
        const BandMetrics& x = study.find_run(b, k, s).bands[q];
        const double w = 1.0 / static_cast<double>(o.seeds.size());
        mean.collisions += w * x.collisions;
        mean.resolved += w * x.resolved;
        mean.interrupted_touching += w * x.interrupted_touching;
        mean.interrupted_apart += w * x.interrupted_apart;
        mean.p_est += w * x.p_est;
        mean.p_est_touching += w * x.p_est_touching;
        mean.p_true += w * x.p_true;
      }
      const std::string label = q == 0 ? "f >= " + bench::significant_or_na(edges[0], 3)
                                : q + 1 == band_count ? "f < " + bench::significant_or_na(edges[q - 1], 3) + "/off"
                                                      : "[" + bench::significant_or_na(edges[q], 3) + ", " + bench::significant_or_na(edges[q - 1], 3) + ")";
      std::printf("%-18s %-13s %10.1f %9.1f %9.1f %9.1f %9.3f %9.3f %12.3f\n", q == 0 ? scheduler_name(k) : "",
                  label.c_str(), mean.collisions, mean.resolved, mean.interrupted_touching, mean.interrupted_apart,
                  mean.p_est, mean.p_true, mean.p_est_touching);
    }
  }
}

/// Budget `b`'s rows: one per scheduler and seed in `csv`, one per band more in `bands_csv`.
/// Returns the collisions the priority queues held in another band than their priority's.
std::int64_t write_budget_rows(const Options& o, const Study& study, std::int64_t b, const std::vector<double>& edges,
                               std::ofstream& csv, std::ofstream& bands_csv) {
  const std::size_t band_count = edges.size() + 1;
  std::int64_t queue_mismatches = 0;
  for (const SchedulerKind k : study.kinds)
    for (std::size_t si = 0; si < o.seeds.size(); ++si) {
      const std::int64_t s = o.seeds[si];
      const Run& r = study.find_run(b, k, s);
      const RunMetrics& rr = study.find_run(b, SchedulerKind::round_robin, s).m;
      queue_mismatches += r.queue_mismatches;
      csv << b << ',' << scheduler_name(k) << ',' << s << ',' << study.frames << ','
          << (study.full.empty() ? std::string("NA") : bench::significant_or_na(study.full[si].mean_tests, 8));
      for (const double v : {r.m.p_est, r.m.nabla_est_m, r.m.p_true, r.m.nabla_true_m, r.m.false_collisions,
                             r.m.missed_collisions, r.m.interrupted, r.m.sphere_tests, r.m.collisions,
                             r.m.resolved_colliding, r.m.resolved_not_colliding, r.m.visible, r.m.p_est / rr.p_est,
                             r.m.p_true / rr.p_true, r.m.nabla_est_m / rr.nabla_est_m, r.m.nabla_true_m / rr.nabla_true_m})
        csv << ',' << bench::significant_or_na(v, 8);
      csv << '\n';
      for (std::size_t q = 0; q < band_count; ++q) {
        const BandMetrics& x = r.bands[q];
        const double low = q + 1 == band_count ? -1.0 : edges[q];
        const double high = q == 0 ? 1.0 : edges[q - 1];
        bands_csv << b << ',' << scheduler_name(k) << ',' << s << ',' << q << ',' << bench::significant_or_na(low, 8) << ',' << bench::significant_or_na(high, 8);
        for (const double v : {x.collisions, x.resolved, x.interrupted_touching, x.interrupted_apart, x.p_est,
                               x.p_est_touching, x.p_true})
          bands_csv << ',' << bench::significant_or_na(v, 8);
        bands_csv << '\n';
      }
    }
  return queue_mismatches;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Scheduler study (docs/narrowphase.md): round robin, sequential, sorted sequential and priority\n"
      "queues on one scene (default configs/studies/packed500.yaml, from the working directory: run it\n"
      "from the repository root, as ./fovea bench schedulers does), the same work budget for all, over\n"
      "several seeds. Per run: the mean per frame of P and nabla (estimated and true), false and missed\n"
      "collisions, interrupted collisions and sphere tests. Prints the mean over seeds and each\n"
      "scheduler's ratio to round robin with a 95% t-interval over the per-seed ratios; then the work\n"
      "that resolving everything takes, and, by start-of-frame priority band, what each scheduler\n"
      "resolved and where P comes from. Writes one CSV row per budget x scheduler x seed (--out) and\n"
      "one per budget x scheduler x seed x band (the same name with _bands)."};
  Options o;
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);
  if (o.perceive && app.count("--out") == 0) o.out = "results/bench/perceive.csv";

  if (!std::filesystem::exists(o.config_path)) {
    std::fprintf(stderr,
                 "fovea bench schedulers: cannot find %s (looked in %s); run from the repository root, as "
                 "./fovea bench schedulers does, or pass --config\n",
                 o.config_path.c_str(), std::filesystem::current_path().string().c_str());
    return 2;
  }
  if (std::find(o.scheduler_names.begin(), o.scheduler_names.end(), "round_robin") == o.scheduler_names.end())
    o.scheduler_names.insert(o.scheduler_names.begin(), "round_robin");
  Study study;
  for (const SchedulerKind k : kAllSchedulers)
    if (std::find(o.scheduler_names.begin(), o.scheduler_names.end(), scheduler_name(k)) != o.scheduler_names.end())
      study.kinds.push_back(k);

  config::LoadedConfig loaded;
  try {
    loaded = config::load_config_file(o.config_path, o.sets);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fovea bench schedulers: %s\n", e.what());
    return 2;
  }
  const Settings& settings = loaded.settings;
  study.frames = o.frames < 0 ? settings.frames : o.frames;
  if (o.perceive)
    return perceive_mode(o.config_path, o.sets, settings, o.perceive_counts, o.seeds, o.wall_ms,
                         o.wall_frames < 0 ? study.frames : o.wall_frames, o.min_time_s, o.min_reps, o.out);
  if (o.budgets.empty()) o.budgets.push_back(settings.budget.tests);
  if (settings.budget.mode != BudgetMode::work)
    std::fprintf(stderr, "fovea bench schedulers: %s has a wall budget; the study uses work budgets of %lld tests instead\n",
                 o.config_path.c_str(), static_cast<long long>(settings.budget.tests));
  const std::vector<double>& edges = settings.schedule.band_edges;

  const std::filesystem::path out_path(o.out);
  std::filesystem::path bands_path = out_path;
  bands_path.replace_filename(out_path.stem().string() + "_bands" + out_path.extension().string());
  std::ofstream csv = bench::open_csv(o.out, "schedulers");
  std::ofstream bands_csv = bench::open_csv(bands_path.string(), "schedulers");
  if (!csv || !bands_csv) return 1;

  std::int64_t entity_count = 0;
  for (const EntityGroupSettings& g : settings.world.entities) entity_count += g.count;
  std::printf("%s: %lld entities, %lld frames, seeds", o.config_path.c_str(), static_cast<long long>(entity_count),
              static_cast<long long>(study.frames));
  for (std::int64_t s : o.seeds) std::printf(" %lld", static_cast<long long>(s));
  std::printf(", ground truth %s\n", settings.ground_truth ? "on" : "off");
  std::fflush(stdout);

  if (!o.skip_full && !measure_full_work(o, study)) return 2;
  Stopwatch total_clock;
  if (!run_study(o, study, total_clock)) return 2;

  csv << "budget_tests,scheduler,seed,frames,full_resolution_tests,p_est,nabla_est_m,p_true,nabla_true_m,"
         "false_collisions,missed_collisions,interrupted,sphere_tests,collisions,resolved_colliding,"
         "resolved_not_colliding,visible,p_est_ratio_rr,p_true_ratio_rr,nabla_est_ratio_rr,nabla_true_ratio_rr\n";
  bands_csv << "budget_tests,scheduler,seed,band,band_low,band_high,collisions,resolved,interrupted_touching,"
               "interrupted_apart,p_est,p_est_touching,p_true\n";
  std::int64_t queue_mismatches = 0;
  for (const std::int64_t b : o.budgets) {
    print_means_and_ratios(o, study, b);
    print_bands(o, study, b, edges);
    queue_mismatches += write_budget_rows(o, study, b, edges, csv, bands_csv);
  }
  if (queue_mismatches > 0)
    std::printf("\nWARNING: %lld collisions sat in another priority queue than their start-of-frame priority puts them in\n",
                static_cast<long long>(queue_mismatches));
  std::printf("\nwrote %s and %s (%.0f s)\n", o.out.c_str(), bands_path.string().c_str(), total_clock.elapsed_ms() / 1000);
  return 0;
}
