#pragma once

// A sweep's output folder (docs/studies.md, "Resuming"): new, empty, or this very sweep's,
// resumed; made, and locked against a second sweep for as long as this one runs.

#include <deque>
#include <filesystem>
#include <memory>
#include <string>

#include "fovea/folder_lock.hpp"
#include "fovea/sweep_plan.hpp"
#include "fovea/sweep_tally.hpp"
#include "record/csv_reader.hpp"

namespace fovea {

/// The folder a sweep writes, taken.
struct SweepFolder {
  std::filesystem::path out;         ///< SweepPlan::out
  std::filesystem::path runs;        ///< runs/: a folder per run, NNNN, and its messages, NNNN.log
  std::filesystem::path table;       ///< table.csv
  std::filesystem::path sweep_json;  ///< sweep.json
  bool resuming = false;             ///< it held this sweep's sweep.json
  std::unique_ptr<FolderLock> lock;  ///< held while the SweepFolder lives
};

/// Checks plan.out (a file, another sweep's or a foreign folder are refused), makes it and
/// runs/, locks it, and checks that table.csv can be written there; warns when a resumed
/// folder was begun by another build. Returns kExitOk, or the exit status with the reason
/// said on stderr.
int take_sweep_folder(const SweepPlan& plan, const SweepOptions& options, SweepFolder& folder);

/// What a run's folder holds, and so what the sweep does with it.
struct RunFolder {
  enum class Verdict {
    whole,      ///< exactly this run, complete: summarised from `frames`, not run again
    run_again,  ///< incomplete or damaged (killed, failed, frames.csv cut short): removed and run again
    keep,       ///< a complete run of another config, or one that cannot be read: never deleted; the sweep stops
  };
  Verdict verdict = Verdict::run_again;
  std::string problem;  ///< why, unless whole
  CsvTable frames;      ///< when whole: its frames.csv
};

/// The run-folder check of record/run_folder.hpp, with the sweep's own step between its two
/// parts: a complete run must be of this run's config.
RunFolder examine_run_folder(const std::filesystem::path& folder, const SweepPlan& plan, const RunJob& job);

/// The runs still to do: the timed ones apart, to run after the others, one at a time.
struct SweepQueue {
  std::deque<const RunJob*> pending;        ///< in run order, up to `jobs` at a time
  std::deque<const RunJob*> pending_timed;  ///< in SweepPlan::timed_order, alone
};

/// The shard's runs as the folder holds them: a run finished before (a resumed sweep) is
/// summarised into `tally`, not run again; a folder left incomplete (killed, failed) or
/// damaged (frames.csv short of its manifest's count) is removed and its run queued again,
/// as is every run without a folder. A folder to keep stops it with tally.fatal set. The
/// folders are looked at in run order; the timed runs are queued in their launch order.
SweepQueue queue_runs(const SweepPlan& plan, const SweepFolder& folder, const SweepOptions& options,
                      SweepTally& tally);

}  // namespace fovea
