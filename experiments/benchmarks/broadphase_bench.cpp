// Broad-phase benchmark: one motion trace through four broad phases in one process, side
// by side: fovea's single SweepAndPrune, fovea's RegionSweepAndPrune (a sweep per region of
// a grid), Bullet's bt32BitAxisSweep3 (the single sweep's algorithm) and Bullet's
// btDbvtBroadphase (its default). Each frame it checks that all report the same exactly
// overlapping pairs (by count, after dropping the padded or stale pairs Bullet keeps), then
// prints median and p95 ms per frame, the ratios between them and ms per frame per 1,000
// entities, and writes the table as CSV. docs/broadphase.md reads it.
//
//   ./fovea bench broadphase [--entities 1000,10000,100000] [--frames 300] [--out FILE]

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <btBulletCollisionCommon.h>

#include "benchmarks/bench_stats.hpp"
#include "benchmarks/broadphase_trace.hpp"
#include "broadphase/region_sweep_and_prune.hpp"
#include "broadphase/sweep_and_prune.hpp"
#include "core/format.hpp"
#include "core/stopwatch.hpp"
#include "core/thread_pool.hpp"

using namespace fovea;
using namespace fovea::bench;

namespace {

/// What one broad phase did on one trace, frame by frame (the first frame, which builds the
/// structure, is not timed: Bullet's proxies and fovea's initial sort happen before it).
struct RunResult {
  std::string name;
  std::vector<double> frame_ms;
  std::vector<std::int64_t> exact_pairs;  ///< reported pairs whose cubes really overlap
  std::vector<std::int64_t> swaps;        ///< fovea only: insertion-sort swaps per frame
  double setup_ms = 0;
  std::size_t regions = 0;                ///< fovea's regions only: regions in the grid
  double memberships_per_proxy = 0;       ///< fovea's regions only: regions a box is in, mean
};

/// Times a frame by the wall clock, or by the calling thread's CPU time (--cpu-time): on a
/// machine shared with other work, the wall clock also counts the time the thread waited
/// for a core, which can be most of it.
class FrameClock {
 public:
  static inline bool use_cpu_time = false;
  FrameClock() : start_ms_(now_ms()) {}
  double elapsed_ms() const { return now_ms() - start_ms_; }

 private:
  static double now_ms() {
    if (!use_cpu_time) return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
  }
  double start_ms_;
};

/// fovea's single sweep and its regions on one trace, in lockstep: each frame the single
/// sweep's step and then the regions' are timed, so that a machine shared with other work
/// slows both alike and their ratio stays readable. The regions' updates get `pool` (may be
/// null).
std::pair<RunResult, RunResult> run_fovea(const TraceSpec& spec, const RegionGrid& grid, ThreadPool* pool) {
  RunResult single_run{"fovea_sweep_and_prune", {}, {}, {}, 0, 0, 0};
  RunResult regions_run{"fovea_regions", {}, {}, {}, 0, 0, 0};
  Trace trace(spec);
  SweepAndPrune single;
  RegionSweepAndPrune regions(grid);
  {
    Stopwatch setup;
    for (const Aabb& box : trace.boxes()) single.add(box);
    single.update();
    single_run.setup_ms = setup.elapsed_ms();
  }
  {
    Stopwatch setup;
    for (const Aabb& box : trace.boxes()) regions.add(box);
    regions.update(pool);
    regions_run.setup_ms = setup.elapsed_ms();
  }
  const auto exact_pairs = [&](const PairSet& pairs) {
    std::int64_t exact = 0;
    for (const ProxyPair& p : pairs.current()) exact += overlaps(trace.boxes()[p.a], trace.boxes()[p.b]);
    return exact;
  };
  for (int frame = 1; frame < spec.frames; ++frame) {
    trace.advance();
    const std::vector<Aabb>& boxes = trace.boxes();
    {
      FrameClock clock;
      for (std::size_t i = 0; i < boxes.size(); ++i) single.set_box(static_cast<ProxyId>(i), boxes[i]);
      single.update();
      single_run.frame_ms.push_back(clock.elapsed_ms());
    }
    {
      FrameClock clock;
      for (std::size_t i = 0; i < boxes.size(); ++i) regions.set_box(static_cast<ProxyId>(i), boxes[i]);
      regions.update(pool);
      regions_run.frame_ms.push_back(clock.elapsed_ms());
    }
    single_run.exact_pairs.push_back(exact_pairs(single.pairs()));
    regions_run.exact_pairs.push_back(exact_pairs(regions.pairs()));
    single_run.swaps.push_back(single.last_swap_count());
    regions_run.swaps.push_back(regions.last_swap_count());
  }
  regions_run.regions = regions.region_count();
  regions_run.memberships_per_proxy = static_cast<double>(regions.membership_count()) / spec.entities;
  return {std::move(single_run), std::move(regions_run)};
}

/// Bullet's broad phases through their common interface. Boxes go in as the same floats
/// fovea stores; the conversion happens before the clock starts.
RunResult run_bullet(const TraceSpec& spec, const std::string& name, btBroadphaseInterface& broadphase,
                     btDispatcher& dispatcher) {
  RunResult r{name, {}, {}, {}, 0, 0, 0};
  Trace trace(spec);
  const auto n = trace.boxes().size();
  std::vector<btBroadphaseProxy*> proxies(n);
  std::vector<btVector3> mins(n), maxs(n);
  auto convert = [&] {
    for (std::size_t i = 0; i < n; ++i) {
      const Aabb& b = trace.boxes()[i];
      mins[i].setValue(static_cast<btScalar>(b.min_m.x), static_cast<btScalar>(b.min_m.y), static_cast<btScalar>(b.min_m.z));
      maxs[i].setValue(static_cast<btScalar>(b.max_m.x), static_cast<btScalar>(b.max_m.y), static_cast<btScalar>(b.max_m.z));
    }
  };
  convert();
  Stopwatch setup;
  for (std::size_t i = 0; i < n; ++i)
    proxies[i] = broadphase.createProxy(mins[i], maxs[i], BOX_SHAPE_PROXYTYPE, reinterpret_cast<void*>(i + 1),
                                        btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter, &dispatcher);
  broadphase.calculateOverlappingPairs(&dispatcher);
  r.setup_ms = setup.elapsed_ms();
  for (int frame = 1; frame < spec.frames; ++frame) {
    trace.advance();
    convert();
    FrameClock clock;
    for (std::size_t i = 0; i < n; ++i) broadphase.setAabb(proxies[i], mins[i], maxs[i], &dispatcher);
    broadphase.calculateOverlappingPairs(&dispatcher);
    r.frame_ms.push_back(clock.elapsed_ms());
    // Bullet's pairs may be padded (dbvt's fat leaves, the axis sweep's quantisation) or
    // stale (dbvt removes lazily): count the ones whose cubes overlap.
    btBroadphasePairArray& pairs = broadphase.getOverlappingPairCache()->getOverlappingPairArray();
    std::int64_t exact = 0;
    for (int i = 0; i < pairs.size(); ++i) {
      const auto a = reinterpret_cast<std::uintptr_t>(pairs[i].m_pProxy0->m_clientObject) - 1;
      const auto b = reinterpret_cast<std::uintptr_t>(pairs[i].m_pProxy1->m_clientObject) - 1;
      exact += overlaps(trace.boxes()[a], trace.boxes()[b]);
    }
    r.exact_pairs.push_back(exact);
  }
  for (btBroadphaseProxy* p : proxies) broadphase.destroyProxy(p, &dispatcher);
  return r;
}

RunResult run_axis_sweep(const TraceSpec& spec) {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  const double pad = spec.max_half_m + 1;
  const auto lo = static_cast<btScalar>(-pad);
  const auto hi = static_cast<btScalar>(Trace(spec).box_side_m() + pad);
  // The ray-cast accelerator off (last argument): left on, it keeps a second tree in step
  // on every setAabb, which a broad phase used only for pairs does not need.
  bt32BitAxisSweep3 axis_sweep(btVector3(lo, lo, lo), btVector3(hi, hi, hi),
                               static_cast<unsigned>(spec.entities) + 2, nullptr, true);
  return run_bullet(spec, "bullet_axis_sweep_32", axis_sweep, dispatcher);
}

RunResult run_dbvt(const TraceSpec& spec) {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase dbvt;
  return run_bullet(spec, "bullet_dbvt", dbvt, dispatcher);
}

/// The exact pairs of frame 0 by brute force, to check the three against an oracle too.
std::int64_t brute_force_pairs_after_first_step(const TraceSpec& spec) {
  Trace trace(spec);
  trace.advance();
  const auto& boxes = trace.boxes();
  std::int64_t count = 0;
  for (std::size_t i = 0; i < boxes.size(); ++i)
    for (std::size_t j = i + 1; j < boxes.size(); ++j) count += overlaps(boxes[i], boxes[j]);
  return count;
}

/// The command line.
struct Options {
  std::vector<int> entity_counts = {1000, 10000, 100000};
  std::vector<std::string> layouts = {"uniform", "packed"};
  TraceSpec base;
  std::string out = "results/bench/broadphase.csv";
  int brute_force_up_to = 10000;
  bool fovea_only = false;
  RegionGrid grid;
  int threads = 1;
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--entities", o.entity_counts, "entity counts to run")->delimiter(',')->check(CLI::Range(1, 10000000));
  app.add_option("--layouts", o.layouts, "uniform (half a pair per entity) and/or packed (8x denser)")
      ->delimiter(',')->check(CLI::IsMember({"uniform", "packed"}));
  app.add_option("--frames", o.base.frames, "frames per trace (the first builds, the rest are timed)")->check(CLI::Range(2, 100000));
  app.add_option("--max-speed", o.base.max_speed_mpf, "fastest entity, metres per frame (cubes are about 1 m)")->check(CLI::Range(0.0, 100.0));
  app.add_option("--seed", o.base.seed, "trace seed");
  app.add_option("--out", o.out, "CSV file to write");
  app.add_option("--brute-force-up-to", o.brute_force_up_to, "check the pair count by brute force up to this many entities");
  app.add_flag("--fovea-only", o.fovea_only, "run fovea's broad phases alone (for profiling with perf or callgrind)");
  app.add_option("--proxies-per-region", o.grid.proxies_per_region, "fovea's regions: the automatic grid's target per region")
      ->check(CLI::Range(1, 100000000));
  app.add_flag("--cpu-time", FrameClock::use_cpu_time,
               "time frames by the thread's CPU time, not the wall clock (a shared machine; with --threads 1 only)");
  app.add_option("--threads", o.threads, "fovea's regions: threads sorting the regions (1: none but the caller's)")
      ->check(CLI::Range(1, 64));
}

/// The mean of per-frame counts; 0 for none.
double mean_count(const std::vector<std::int64_t>& counts) {
  double mean = 0;
  for (std::int64_t c : counts) mean += static_cast<double>(c);
  return mean / static_cast<double>(std::max<std::size_t>(1, counts.size()));
}

/// Whether every broad phase reported fovea's exact pairs every frame, and fovea the brute
/// force's after the first step (up to --brute-force-up-to entities); the first mismatch of
/// all is said on stderr, and `all_agree` turns false at any.
void check_pairs(const std::vector<RunResult>& runs, const TraceSpec& spec, const std::string& layout, int n,
                 int brute_force_up_to, bool& all_agree) {
  for (std::size_t f = 0; f < runs[0].exact_pairs.size(); ++f)
    for (std::size_t r = 1; r < runs.size(); ++r)
      if (runs[r].exact_pairs[f] != runs[0].exact_pairs[f]) {
        if (all_agree)
          std::fprintf(stderr, "MISMATCH: %s N=%d frame %zu: fovea %lld exact pairs, %s %lld\n", layout.c_str(), n, f + 1,
                       static_cast<long long>(runs[0].exact_pairs[f]), runs[r].name.c_str(),
                       static_cast<long long>(runs[r].exact_pairs[f]));
        all_agree = false;
      }
  if (n <= brute_force_up_to && !runs[0].exact_pairs.empty()) {
    const std::int64_t brute = brute_force_pairs_after_first_step(spec);
    if (brute != runs[0].exact_pairs[0]) {
      std::fprintf(stderr, "MISMATCH: %s N=%d: brute force %lld pairs, fovea %lld\n", layout.c_str(), n,
                   static_cast<long long>(brute), static_cast<long long>(runs[0].exact_pairs[0]));
      all_agree = false;
    }
  }
}

/// One trace's rows of the CSV, a row per broad phase.
void write_rows(std::ofstream& csv, const std::vector<RunResult>& runs, const std::string& layout, int n, int frames,
                int threads) {
  const double pairs_mean = mean_count(runs[0].exact_pairs);
  const double fovea_median = bench::quantile(runs[0].frame_ms, 0.5);
  const double regions_median = bench::quantile(runs[1].frame_ms, 0.5);
  for (const RunResult& r : runs) {
    const double median = bench::quantile(r.frame_ms, 0.5);
    const double swaps_mean = mean_count(r.swaps);
    csv << layout << ',' << n << ',' << frames << ',' << r.name << ',' << format_significant(median, 4) << ','
        << format_significant(bench::quantile(r.frame_ms, 0.95), 4) << ',' << format_significant(median / n * 1000, 4)
        << ',' << format_significant(pairs_mean / n, 4) << ',' << format_significant(fovea_median / median, 4) << ','
        << format_significant(regions_median / median, 4) << ','
        << (r.swaps.empty() ? std::string("NA") : format_significant(swaps_mean / n, 4)) << ','
        << format_significant(r.setup_ms, 4) << ',' << (r.regions == 0 ? std::string("NA") : std::to_string(r.regions))
        << ',' << (r.regions == 0 ? std::string("NA") : format_significant(r.memberships_per_proxy, 4)) << ','
        << (r.regions == 0 ? 1 : threads) << '\n';
  }
  csv.flush();
}

/// One trace's line of the table.
void print_row(const std::vector<RunResult>& runs, const std::string& layout, int n, bool fovea_only) {
  const double pairs_mean = mean_count(runs[0].exact_pairs);
  const double fovea_median = bench::quantile(runs[0].frame_ms, 0.5);
  const double regions_median = bench::quantile(runs[1].frame_ms, 0.5);
  const double axis_median = fovea_only ? 0 : bench::quantile(runs[2].frame_ms, 0.5);
  const double dbvt_median = fovea_only ? 0 : bench::quantile(runs[3].frame_ms, 0.5);
  std::printf("%-8s %7d %9.3f %9.3f %9.3f %9.3f  %8.3f %8.3f %8.3f  %8.4f %8.4f %8.3f  %7.3f %6zu %6.3f\n", layout.c_str(),
              n, fovea_median, regions_median, axis_median, dbvt_median, regions_median / fovea_median,
              fovea_only ? 0 : regions_median / axis_median, fovea_only ? 0 : regions_median / dbvt_median,
              fovea_median / n * 1000, regions_median / n * 1000, bench::quantile(runs[1].frame_ms, 0.95), pairs_mean / n,
              runs[1].regions, runs[1].memberships_per_proxy);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Broad-phase benchmark: fovea's SweepAndPrune beside Bullet's bt32BitAxisSweep3 and\n"
               "btDbvtBroadphase on the same motion traces (docs/broadphase.md)."};
  Options o;
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);
  if (FrameClock::use_cpu_time && o.threads > 1) {
    std::fprintf(stderr, "fovea bench broadphase: --cpu-time counts one thread's time; it needs --threads 1\n");
    return 1;
  }

  std::ofstream csv = bench::open_csv(o.out, "broadphase");
  if (!csv) return 1;
  csv << "layout,entities,frames,broadphase,median_ms,p95_ms,median_ms_per_1000_entities,"
         "pairs_per_entity,fovea_over_this,regions_over_this,swaps_per_entity_per_frame,setup_ms,regions,"
         "regions_per_proxy,threads\n";
  csv.flush();
  ThreadPool pool(o.threads);
  ThreadPool* const region_pool = o.threads > 1 ? &pool : nullptr;

  bool all_agree = true;
  // "single" is fovea's one sweep, "regions" its RegionSweepAndPrune; ms/1k per 1,000 entities.
  std::printf("%-8s %7s %9s %9s %9s %9s  %8s %8s %8s  %8s %8s %8s  %7s %6s %6s\n", "layout", "N", "single", "regions",
              "axis ms", "dbvt ms", "reg/sgl", "reg/axis", "reg/dbvt", "sgl/1k", "reg/1k", "reg p95", "pairs/N",
              "cells", "in/box");
  for (const std::string& layout_text : o.layouts) {
    for (int n : o.entity_counts) {
      TraceSpec spec = o.base;
      spec.layout = layout_text == "uniform" ? Layout::uniform : Layout::packed;
      spec.entities = n;
      std::fprintf(stderr, "fovea bench broadphase: %s, %d entities, %d frames...\n", layout_text.c_str(), n, spec.frames);
      std::vector<RunResult> runs;
      {
        auto [single, regions] = run_fovea(spec, o.grid, region_pool);
        runs.push_back(std::move(single));
        runs.push_back(std::move(regions));
      }
      if (!o.fovea_only) {
        runs.push_back(run_axis_sweep(spec));
        runs.push_back(run_dbvt(spec));
      }
      // The same exactly overlapping pairs, every frame, from all three.
      check_pairs(runs, spec, layout_text, n, o.brute_force_up_to, all_agree);
      write_rows(csv, runs, layout_text, n, spec.frames, o.threads);
      print_row(runs, layout_text, n, o.fovea_only);
    }
  }
  std::printf("%s\nwrote %s\n", all_agree ? "all the broad phases reported the same exact pairs every frame"
                                          : "MISMATCH: the broad phases disagree (see above)",
              o.out.c_str());
  return all_agree ? 0 : 1;
}
