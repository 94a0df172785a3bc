#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "fovea/command_context.hpp"

namespace fovea {

/// `fovea sweep`'s options (docs/studies.md), filled from the command line by
/// register_sweep_command.
struct SweepOptions {
  std::string study_path;                   ///< configs/studies/*.yaml with factors
  std::vector<config::Override> overrides;  ///< --set: applied to every run, after the study's keys
  std::optional<std::string> out;           ///< --out; none: results/studies/<name>[/shard-i-of-n]
  std::string out_name = "--out";           ///< how messages name `out` ("out=" from fovea.sweep)
  int jobs = 0;                             ///< --jobs; 0: SLURM_CPUS_PER_TASK, else the machine's cores
  std::optional<std::string> shard;         ///< --shard i/n; none: Slurm's array task, else all runs
  bool figures = true;                      ///< false: --no-figures
  bool quiet = false;
  /// --quick: the study shrunk to a few short runs (quick_study in sweep_plan.hpp), into
  /// results/studies/<name>-quick/ unless --out says otherwise.
  bool quick = false;
  std::vector<std::string> command_line;    ///< argv, for sweep.json
  /// The program each run is a `fovea run` process of; empty: this program (the Python
  /// module names the fovea binary built beside it).
  std::string fovea_binary;
  /// As RunOptions::end_by_signal: false returns 128 + the signal instead of ending by it.
  bool end_by_signal = true;
};

/// Where a sweep wrote, for a caller that goes on after it (the Python module).
struct SweepReport {
  std::filesystem::path folder;  ///< the study's output folder; empty when the study was refused first
};

/// `fovea sweep STUDY`: expands the study into runs, runs those of its shard that are not
/// complete yet as `fovea run` processes, writes table.csv and sweep.json, and draws the
/// study's figures. Returns the exit status (kExitOk; kExitFailure when a run failed;
/// kExitBadInput for a bad study or output folder, with nothing run); a stop by SIGINT or
/// SIGTERM ends the process by that signal, the table holding the runs finished.
/// `report`, when given, learns the study's folder (a shard's own, with a shard) once it is
/// decided.
int sweep_command(const SweepOptions& options, SweepReport* report = nullptr);

struct SweepMergeOptions {
  std::vector<std::string> folders;       ///< the shards' output folders
  std::optional<std::string> out;         ///< none: results/studies/<name>
  bool figures = true;
  bool quiet = false;
  std::vector<std::string> command_line;
};

/// `fovea sweep merge DIR...`: joins the tables of a study's shards into one table, as an
/// unsharded sweep would have written it, and draws the figures.
int sweep_merge_command(const SweepMergeOptions& options);

/// `fovea sweep` and its `merge` on the command line: adds the subcommands, their options and
/// callbacks to `app`.
void register_sweep_command(CLI::App& app, CommandContext& context);

}  // namespace fovea
