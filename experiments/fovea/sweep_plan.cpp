#include "fovea/sweep_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "config/schema.hpp"
#include "core/file_read.hpp"
#include "core/format.hpp"
#include "fovea/run_command.hpp"
#include "record/progress.hpp"
#include "study/launch_order.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;

int default_jobs() {
  if (const char* cpus = std::getenv("SLURM_CPUS_PER_TASK")) {
    const auto n = parse_finite_number(cpus);
    if (n && *n >= 1 && *n <= 4096) return static_cast<int>(*n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

/// --shard, else Slurm's array task, else the whole study; nullopt, said on stderr, when
/// either is malformed.
std::optional<Shard> choose_shard(const SweepOptions& options) {
  if (options.shard) {
    const std::optional<Shard> given = parse_shard(*options.shard);
    if (!given)
      std::cerr << "fovea sweep: --shard " << *options.shard << ": expected i/n with 0 <= i < n, such as 0/4\n";
    return given;
  }
  try {
    if (const auto slurm = slurm_shard(std::getenv("SLURM_ARRAY_TASK_ID"), std::getenv("SLURM_ARRAY_TASK_COUNT"),
                                       std::getenv("SLURM_ARRAY_TASK_MIN")))
      return *slurm;
  } catch (const std::invalid_argument& e) {
    std::cerr << "fovea sweep: " << e.what() << "\n";
    return std::nullopt;
  }
  return Shard{};
}

}  // namespace

std::string describe_run(const StudySettings& study, const PlannedRun& run) {
  const std::vector<std::string> columns = study.factor_columns();
  std::string text = "run " + std::to_string(run.index) + " (";
  for (std::size_t c = 0; c < columns.size(); ++c) text += (c == 0 ? "" : ", ") + columns[c] + "=" + run.cells[c];
  return text + ")";
}

std::string expected_run_config(const SweepPlan& plan, const RunJob& job) {
  return config::resolved_yaml(config::load_config_file(plan.study.base_config, job.run.overrides).settings);
}

std::optional<SweepPlan> plan_sweep(const SweepOptions& options) {
  SweepPlan plan;
  std::string base_text;
  try {
    plan.study = load_study_file(options.study_path, options.overrides);
    plan.runs = plan_runs(plan.study);
    // Under a config's limit, and named as one: the runs read the same file as their config.
    base_text = read_regular_file(plan.study.base_config, kMaxConfigFileBytes, "config");
  } catch (const std::exception& e) {
    std::cerr << "fovea sweep: " << e.what() << "\n";
    return std::nullopt;
  }
  const std::optional<Shard> shard = choose_shard(options);
  if (!shard) return std::nullopt;
  plan.shard = *shard;
  plan.jobs = options.jobs > 0 ? options.jobs : default_jobs();
  plan.fingerprint = plan_fingerprint(base_text, plan.runs);
  // A shard writes a folder of its own inside the study's, with --out too: the tasks of a
  // Slurm array share one command line, and so one --out.
  plan.out = options.out ? fs::path(*options.out) : fs::path("results") / "studies" / plan.study.name;
  if (!plan.shard.whole())
    plan.out /= "shard-" + std::to_string(plan.shard.index) + "-of-" + std::to_string(plan.shard.count);
  return plan;
}

bool measures_time(const Settings& settings) {
  if (settings.budget.mode == BudgetMode::wall) return true;
  // Evaluated budgets run only when a scheduler is evaluated; none listed means the run's own.
  return settings.evaluate.enabled() &&
         std::any_of(settings.evaluate.budgets.begin(), settings.evaluate.budgets.end(),
                     [](const BudgetSettings& b) { return b.mode == BudgetMode::wall; });
}

bool check_run_configs(SweepPlan& plan, bool quiet) {
  // Each config is loaded and checked as `fovea run` would, about a millisecond a run: a
  // study that takes more than a second says how far it has got (a small one says nothing).
  const std::int64_t shard_total = std::max<std::int64_t>(
      0, (static_cast<std::int64_t>(plan.runs.size()) - plan.shard.index + plan.shard.count - 1) / plan.shard.count);
  Progress progress(shard_total, !quiet,
                    Progress::stderr_is_terminal() ? Progress::Output::redrawn : Progress::Output::logged);
  std::int64_t checked = 0;
  for (const PlannedRun& run : plan.runs) {
    if (!plan.shard.contains(run.index)) continue;
    if (progress.elapsed_s() >= 1.0)
      progress.update(checked, "fovea sweep: checking the runs' configs: " + std::to_string(checked) + " of " +
                                   std::to_string(shard_total));
    ++checked;
    try {
      const config::LoadedConfig loaded = config::load_config_file(plan.study.base_config, run.overrides);
      // What a run writes back is checked on the shard's first run only (a base config or a
      // set too long to write back is every run's), as writing it costs more than the rest of
      // the check; a run whose own keys make it too long is refused by its `fovea run`.
      std::string refusal = run_refusal(loaded);
      if (refusal.empty() && checked == 1) refusal = config::written_back_problem(loaded);
      if (!refusal.empty()) {
        progress.finish();
        std::cerr << "fovea sweep: " << describe_run(plan.study, run) << ": " << refusal << "\n";
        return false;
      }
      plan.shard_runs.push_back({run, measures_time(loaded.settings), loaded.settings.metrics.warmup_frames});
    } catch (const config::ConfigError& e) {
      progress.finish();
      std::cerr << "fovea sweep: " << describe_run(plan.study, run) << ": " << e.what() << "\n";
      return false;
    }
  }
  progress.finish();
  if (plan.shard_runs.empty()) {
    std::cerr << "fovea sweep: shard " << plan.shard.index << "/" << plan.shard.count << " holds no run: the study has "
              << plan.runs.size() << " runs\n";
    return false;
  }
  // The timed runs in the study's shuffled order, restricted to this shard.
  std::vector<std::int64_t> timed_runs;
  for (const RunJob& job : plan.shard_runs)
    if (job.timed) timed_runs.push_back(job.run.index);
  timed_runs = shuffled_launch_order(std::move(timed_runs), static_cast<std::int64_t>(plan.runs.size()),
                                     launch_order_seed(plan.fingerprint));
  // shard_runs holds the shard's runs in run order: each index's place by binary search.
  for (const std::int64_t index : timed_runs)
    plan.timed_order.push_back(static_cast<std::size_t>(
        std::lower_bound(plan.shard_runs.begin(), plan.shard_runs.end(), index,
                         [](const RunJob& job, std::int64_t i) { return job.run.index < i; }) -
        plan.shard_runs.begin()));
  return true;
}

}  // namespace fovea
