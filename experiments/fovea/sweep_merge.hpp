#pragma once

// The merge step of `fovea sweep`: rows into one table.csv and its sweep.json. A sweep merges
// its own runs when they have ended (merge_sweep_runs); `fovea sweep merge` joins the tables
// of a study's shards into one, as an unsharded sweep would have written it.

#include <cstdint>

#include "fovea/command_context.hpp"
#include "fovea/sweep_folder.hpp"
#include "fovea/sweep_json.hpp"
#include "fovea/sweep_plan.hpp"
#include "fovea/sweep_tally.hpp"
#include "record/progress.hpp"

namespace fovea {

/// How a sweep's runs ended, for the merge.
struct SweepEnd {
  std::int64_t done_before = 0;  ///< runs the folder held complete when the sweep began
  int stop_signal = 0;           ///< the signal that stopped it, 0 without one
  const Progress* progress = nullptr;  ///< its clock: the sweep's wall time
};

/// Writes table.csv with every run finished so far, closes sweep.json (end time, runs
/// completed and failed, status), says how the sweep ended, and draws the study's figures
/// unless it was stopped. Returns the exit status; stopped by a signal, ends the process by
/// it when options.end_by_signal, else returns 128 + the signal.
int merge_sweep_runs(const SweepPlan& plan, const SweepFolder& folder, const SweepOptions& options,
                     const SweepTally& tally, SweepJson& sweep_json, const SweepEnd& end);

/// `fovea sweep merge` on the command line: adds its subcommand, options and callback to
/// `sweep`, `fovea sweep`'s own.
void register_sweep_merge_command(CLI::App& sweep, CommandContext& context);

}  // namespace fovea
