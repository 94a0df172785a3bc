#pragma once

// The wait step of `fovea sweep`: the queued runs started up to `jobs` at a time
// (sweep_launch.hpp), each reaped by its pid and judged when it ends, and the stop: SIGINT
// or SIGTERM stops the runs under way, once, and the sweep waits for them to end.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fovea/sweep_folder.hpp"
#include "fovea/sweep_launch.hpp"
#include "fovea/sweep_plan.hpp"
#include "fovea/sweep_tally.hpp"
#include "record/progress.hpp"

namespace fovea {

class SweepRunner {
 public:
  /// `done_before`: runs the folder held complete already (the progress line's estimate
  /// counts only the runs done now).
  SweepRunner(const SweepPlan& plan, const SweepFolder& folder, std::string fovea_binary, SweepTally& tally,
              Progress& progress, std::int64_t done_before);

  /// Runs `queue` to its end, or to a stop or a fatal problem (tally.fatal) once the runs
  /// under way have ended. Each run that ends whole is summarised into the tally, one that
  /// fails is counted and said. Returns the signal that stopped the sweep, 0 without one.
  int run(SweepQueue queue);

 private:
  /// A stop signal or a fatal problem: nothing more starts.
  bool stopping() const;
  /// Starts what may start: up to `jobs` runs, a timed run only alone, and nothing beside it.
  void start_what_may_start(SweepQueue& queue);
  void launch(const RunJob& job);
  bool timed_running() const;
  /// The runs under way are stopped once, by the signal the sweep got or SIGTERM: a second
  /// signal would end them without their records (fovea run's StopSignals).
  void stop_runs(int signal);
  /// A run that has ended, taken out of the running ones, with its exit status; nullopt when
  /// none has.
  std::optional<std::pair<LaunchedRun, int>> reap();
  /// A run that ended with `status`: summarised when its folder is whole, else counted as
  /// failed and said, unless the stop ended it.
  void judge(const LaunchedRun& run, int status);

  const SweepPlan& plan_;
  const SweepFolder& folder_;
  std::string fovea_binary_;
  SweepTally& tally_;
  Progress& progress_;
  std::int64_t done_before_;
  std::vector<LaunchedRun> running_;
  int stop_signal_ = 0;       ///< the signal the sweep got, 0 before it
  bool runs_stopped_ = false;
  int runs_stop_signal_ = 0;  ///< the signal the runs under way were sent
};

}  // namespace fovea
