#include "fovea/sweep_command.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "fovea/sweep_folder.hpp"
#include "fovea/sweep_json.hpp"
#include "fovea/sweep_merge.hpp"
#include "fovea/sweep_plan.hpp"
#include "fovea/sweep_tally.hpp"
#include "fovea/sweep_wait.hpp"
#include "record/progress.hpp"

namespace fovea {

namespace fs = std::filesystem;

// A sweep in four steps, each in its own file: plan (sweep_plan.cpp: the study's runs, the
// shard, the folder, each run's config checked), the folder taken and what it holds resumed
// (sweep_folder.cpp), launch and wait (sweep_launch.cpp, sweep_wait.cpp: `fovea run`
// processes, the stop signal), and merge (sweep_merge.cpp: table.csv, sweep.json, figures).
int sweep_command(const SweepOptions& options, SweepReport* report) {
  // The study, its runs, and this process's share of them: all checked before anything runs.
  std::optional<SweepPlan> plan = plan_sweep(options);
  if (!plan) return kExitBadInput;
  if (report) report->folder = plan->out;
  if (!check_run_configs(*plan, options.quiet)) return kExitBadInput;

  // The output folder: new, empty, or this very sweep's (resumed).
  SweepFolder folder;
  if (const int status = take_sweep_folder(*plan, options, folder); status != kExitOk) return status;
  const DefaultChildSignal child_signal;
  SweepJson sweep_json(folder.sweep_json, starting_sweep_fields(*plan, options, std::chrono::system_clock::now()));
  if (!sweep_json.write()) return kExitFailure;

  SweepTally tally;
  SweepQueue queue = queue_runs(*plan, folder, options, tally);
  if (!tally.fatal.empty()) {
    std::cerr << "fovea sweep: " << tally.fatal << "\n";
    sweep_json.fields()["status"] = "failed";
    sweep_json.write();
    return kExitBadInput;
  }
  const auto done_before = static_cast<std::int64_t>(tally.rows.size());
  if (folder.resuming && !options.quiet)
    std::cerr << "fovea sweep: resuming " << folder.out.string() << ": " << done_before << " of "
              << plan->shard_runs.size() << " runs already complete\n";
  if (!options.quiet && !queue.pending_timed.empty())
    std::cerr << "fovea sweep: " << queue.pending_timed.size()
              << " timed runs (a wall-clock budget, their own or one they evaluate) run one at a time, after the "
                 "others, in a shuffled order (sweep.json: timed_runs)\n";

  // Run them: up to `jobs` at a time, each a `fovea run` process in its own process group.
  std::error_code error;
  std::string fovea_binary =
      options.fovea_binary.empty() ? fs::read_symlink("/proc/self/exe", error).string() : options.fovea_binary;
  // A line redrawn in place on a terminal; in a batch job's log, a line at every twentieth.
  Progress progress(static_cast<std::int64_t>(plan->shard_runs.size()), !options.quiet,
                    Progress::stderr_is_terminal() ? Progress::Output::redrawn : Progress::Output::logged);
  SweepRunner runner(*plan, folder, std::move(fovea_binary), tally, progress, done_before);
  const int stop_signal = runner.run(std::move(queue));
  return merge_sweep_runs(*plan, folder, options, tally, sweep_json, {done_before, stop_signal, &progress});
}

void register_sweep_command(CLI::App& app, CommandContext& context) {
  const auto o = std::make_shared<SweepOptions>();
  const auto out = std::make_shared<std::string>();
  const auto shard = std::make_shared<std::string>();
  const auto sets = std::make_shared<std::vector<std::string>>();
  const auto no_figures = std::make_shared<bool>(false);
  o->command_line = context.command_line;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run a study: a base config with factors crossed into runs, run in parallel; one tidy table "
               "(table.csv) and the study's figures (docs/studies.md)");
  sweep->require_subcommand(0, 1);
  sweep->add_option("study", o->study_path, "the study file, e.g. configs/studies/schedulers.yaml");
  sweep->add_option("--out", *out,
                    "the sweep's folder (default results/studies/<name>/, or .../shard-<i>-of-<n>/ for a shard); "
                    "run the same command again to resume it");
  sweep->add_option("--jobs,-j", o->jobs,
                    "runs at a time (default: SLURM_CPUS_PER_TASK under Slurm, else the machine's cores); "
                    "timed runs (a wall-clock budget) always run alone, in a shuffled order")
      ->check(CLI::Range(1, 4096));
  sweep->add_option("--shard", *shard,
                    "run only the runs i, i+n, i+2n, ... (i from 0); default: Slurm's SLURM_ARRAY_TASK_ID of "
                    "SLURM_ARRAY_TASK_COUNT when set, else every run");
  add_set_option(*sweep, *sets, "override a config key in every run, e.g. --set frames=20 (repeatable)");
  sweep->add_flag("--quick", o->quick,
                  "a few short runs of the study: seeds and repeats to the first, numeric factors to their first "
                  "and last levels, a tenth of the frames; says what it shrank (docs/studies.md); default folder "
                  "results/studies/<name>-quick/");
  sweep->add_flag("--no-figures", *no_figures, "write the table only");
  sweep->add_flag("--quiet,-q", o->quiet, "no progress and no closing summary on stderr");
  register_sweep_merge_command(*sweep, context);
  sweep->callback([=, &context] {
    // `fovea sweep merge` ran instead (CLI11 calls the subcommand's callback, then this one).
    if (sweep->get_subcommands().size() > 0) return;
    if (o->study_path.empty()) {
      std::cerr << "fovea sweep: give a study file (fovea sweep STUDY.yaml), or `fovea sweep merge DIR...`\n";
      context.exit_status = kExitBadInput;
      return;
    }
    o->overrides = set_overrides(*sets);
    if (!out->empty()) o->out = *out;
    if (!shard->empty()) o->shard = *shard;
    o->figures = !*no_figures;
    context.exit_status = sweep_command(*o);
  });
}

}  // namespace fovea
