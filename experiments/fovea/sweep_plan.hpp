#pragma once

// The first step of `fovea sweep` (docs/studies.md): the study's factors crossed into runs,
// this process's shard of them, the folder they go to, and each run's config checked as
// `fovea run` would check it. Nothing is written or started here.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fovea/sweep_command.hpp"
#include "study/study_plan.hpp"

namespace fovea {

/// What a sweep knows of one run of its shard before running it.
struct RunJob {
  PlannedRun run;
  /// Measures time (measures_time): runs alone, after the others, in the shuffled order of
  /// SweepPlan::timed_order.
  bool timed = false;
  std::int64_t warmup_frames = 0;  ///< the run's metrics.warmup_frames: left out of its row's statistics
};

/// A sweep's plan: the study, all its runs, and the share of them this process runs.
struct SweepPlan {
  StudySettings study;
  std::vector<PlannedRun> runs;  ///< every run of the study, whatever the shard
  Shard shard;
  int jobs = 1;                  ///< runs at a time
  std::string fingerprint;       ///< of the base config's text and the runs: a resumed folder must match
  /// The study's output folder: --out or results/studies/<name>, with the shard's own folder
  /// inside it when sharded.
  std::filesystem::path out;
  std::vector<RunJob> shard_runs;  ///< filled by check_run_configs, in run order
  /// The timed runs of shard_runs (their places in it) in the order they launch: the study's
  /// seeded shuffle (study/launch_order.hpp), not run order. Filled by check_run_configs.
  std::vector<std::size_t> timed_order;
};

/// A study as `fovea sweep --quick` runs it (docs/studies.md, "A quick look"): fewer runs,
/// each shorter, and what was shrunk, a line each.
struct QuickStudy {
  StudySettings study;              ///< the study with fewer levels, shorter runs and the exclusions still in play
  std::vector<std::string> shrunk;  ///< "seed: 10 levels -> 1, the first (1)", ...: what --quick says it did
};

/// The frames a quick run keeps of `frames`: a tenth, rounded up, but at least
/// kQuickMinFrames (and never more than `frames`).
std::int64_t quick_frames(std::int64_t frames);
/// The fewest frames --quick cuts a run to.
inline constexpr std::int64_t kQuickMinFrames = 10;

/// `study` shrunk for --quick. Its factors: one whose levels set `seed`, and `repeats`, keep
/// their first level; one of more than two levels whose cells in some column are all numbers
/// (entity counts, budgets) keeps its first and last levels as written; every other factor
/// (schedulers, placements: what a study compares) keeps every level. Its runs: `frames` cut
/// to quick_frames, and `metrics.warmup_frames` and the study's `skip_frames` by the same
/// ratio, rounded down but at least 1 where they were not 0; a key a factor sets, or the
/// sweep's --set (`user_sets`), is left as it is. An exclusion that no longer matches any run
/// is left out (plan_runs refuses those). Throws config::ConfigError when the base config
/// with the study's keys does not load.
QuickStudy quick_study(const StudySettings& study, const std::vector<config::Override>& user_sets);

/// The study loaded with --set, its runs (shrunk with --quick, saying how unless quiet), the
/// shard (--shard, else Slurm's array task, else all), the jobs and the folder. nullopt, said
/// on stderr, when the study or the shard is bad.
std::optional<SweepPlan> plan_sweep(const SweepOptions& options);

/// Whether a run with these settings measures time, and so must run alone (docs/studies.md,
/// "Timed runs"): its own budget is `wall`, or it evaluates schedulers under a `wall` budget.
bool measures_time(const Settings& settings);

/// Each run of the shard loaded and checked as `fovea run` would, into plan.shard_runs, and
/// the order its timed runs launch in, into plan.timed_order; how far it has got on stderr
/// (record/progress.hpp) unless `quiet`. False, said on stderr, at the first run refused or
/// when the shard holds no run.
bool check_run_configs(SweepPlan& plan, bool quiet);

/// config.yaml as the run writes it, loaded again (a complete folder must hold this): asked
/// only of runs found in the folder, so planning keeps no config text per run. Throws
/// config::ConfigError if the run's config no longer loads.
std::string expected_run_config(const SweepPlan& plan, const RunJob& job);

/// "run 3 (entities=100, placement=packed, ...)": a run as messages name it.
std::string describe_run(const StudySettings& study, const PlannedRun& run);

}  // namespace fovea
