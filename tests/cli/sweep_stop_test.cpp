// sweep_command (experiments/fovea/sweep_command.hpp) in this process, where the command line
// cannot set the stage: each run is a script around the fovea program
// (SweepOptions::fovea_binary), so a run can be made to end in a chosen way at a chosen moment,
// and the sweep's stop (docs/studies.md) is sent when that moment has come, not by a race.

#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "fovea/sweep_command.hpp"
#include "support/csv_text.hpp"
#include "support/process.hpp"
#include "support/sweep_study.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using namespace fovea::test;

namespace fs = std::filesystem;

namespace {

const std::string kFovea = FOVEA_BINARY;

const std::string kBase = test::sweep_base_config(5, false);

const char* kStudy = R"(name: three
base: base.yaml
factors:
  seed:
    key: seed
    values: [1, 2, 3]
metrics:
  columns:
    p_est: [mean]
)";

/// What a stopped sweep returned and said.
struct StoppedSweep {
  bool signal_sent = false;  ///< `when` appeared before the sweep returned, and the stop was sent
  int status = -1;           ///< sweep_command's return
  std::string err;           ///< what it wrote on std::cerr
};

/// Runs the study in `dir` (base.yaml, study.yaml) into dir/out with each run the shell
/// script `run_script`, one run at a time, and stops it with SIGTERM once the file `when`
/// exists: the stop a batch scheduler's time limit sends, caught by the sweep's StopSignals.
StoppedSweep sweep_stopped_when(const TempDir& dir, const std::string& run_script, const fs::path& when) {
  write_file(dir / "run.sh", run_script);
  fs::permissions(dir / "run.sh", fs::perms::owner_exec, fs::perm_options::add);
  SweepOptions options;
  options.study_path = (dir / "study.yaml").string();
  options.out = (dir / "out").string();
  options.jobs = 1;
  options.figures = false;
  options.quiet = true;
  options.fovea_binary = (dir / "run.sh").string();
  options.end_by_signal = false;  // return 128 + the signal: this process is the test's
  StoppedSweep result;
  std::ostringstream err;
  std::streambuf* const cerr_before = std::cerr.rdbuf(err.rdbuf());
  std::atomic<bool> returned{false};
  std::thread sweep([&] {
    result.status = sweep_command(options);
    returned = true;
  });
  for (int i = 0; i < 12000 && !fs::exists(when) && !returned; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // Not once the sweep has returned (its runs failed, say): the test's process would get it.
  result.signal_sent = fs::exists(when) && !returned;
  if (result.signal_sent) kill(getpid(), SIGTERM);
  sweep.join();
  std::cerr.rdbuf(cerr_before);
  result.err = err.str();
  return result;
}

}  // namespace

TEST_CASE("sweep command: a run the stop reaches after its last frame counts as complete, as a resume counts it",
          "[cli][sweep][signals]") {
  TempDir dir;
  write_study(dir.path(), kBase, kStudy);
  // Each run: fovea run, which completes its folder (manifest and frames.csv); then a file
  // saying so; then a wait that only the sweep's signal ends, as a run does that the signal
  // reaches between its last write and its exit: dead by the signal, its folder whole.
  const fs::path ended = dir / "ended";
  const StoppedSweep stopped = sweep_stopped_when(
      dir, "#!/bin/sh\n\"" + kFovea + "\" \"$@\" || exit $?\n: > '" + ended.string() + "'\nexec sleep 600\n", ended);
  INFO(stopped.err);
  REQUIRE(stopped.signal_sent);
  CHECK(stopped.status == 128 + SIGTERM);

  const auto json = nlohmann::json::parse(read_file(dir / "out" / "sweep.json"));
  CHECK(json["status"] == "interrupted");
  CHECK(json["runs_completed"] == 1);
  CHECK(json["runs_failed"].empty());
  CHECK(lines_of(read_file(dir / "out" / "table.csv")).size() == 2);

  // The resume agrees: one run already complete, two run now.
  const auto resumed =
      test::run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures", "-q"}, dir.path());
  INFO(resumed.err);
  REQUIRE(resumed.status == 0);
  const auto after = nlohmann::json::parse(read_file(dir / "out" / "sweep.json"));
  CHECK(after["runs_completed_before"] == 1);
  CHECK(after["runs_completed"] == 3);
  CHECK(lines_of(read_file(dir / "out" / "table.csv")).size() == 4);
}

TEST_CASE("sweep command: a run that fails by itself after the stop is a failed run, one the stop ended is not",
          "[cli][sweep][signals]") {
  TempDir dir;
  write_study(dir.path(), kBase, kStudy);
  // The run waits for the stop, then ends with exit status 3 and a message, as fovea run does
  // when its records cannot be finished: not by the signal.
  const fs::path started = dir / "started";
  const StoppedSweep stopped = sweep_stopped_when(dir,
                                                  "#!/bin/sh\ntrap 'echo \"could not finish its records\" >&2; exit 3' TERM\n: > '" +
                                                      started.string() + "'\nwhile :; do sleep 0.05; done\n",
                                                  started);
  INFO(stopped.err);
  REQUIRE(stopped.signal_sent);
  CHECK(stopped.status == 128 + SIGTERM);
  CHECK(stopped.err.find("fovea sweep: run 0 (seed=1) failed with exit status 3: could not finish its records") !=
        std::string::npos);
  const auto json = nlohmann::json::parse(read_file(dir / "out" / "sweep.json"));
  CHECK(json["status"] == "failed");  // a failed run says more than the stop
  CHECK(json["runs_failed"] == nlohmann::json::array({0}));
  CHECK(json["runs_completed"] == 0);

  // A run the stop ends (by the signal, as fovea run ends) is neither failed nor complete.
  TempDir again;
  write_study(again.path(), kBase, kStudy);
  const StoppedSweep ended_by_stop = sweep_stopped_when(
      again, "#!/bin/sh\n: > '" + (again / "started").string() + "'\nexec sleep 600\n", again / "started");
  INFO(ended_by_stop.err);
  REQUIRE(ended_by_stop.signal_sent);
  CHECK(ended_by_stop.err.find("failed") == std::string::npos);
  const auto quiet = nlohmann::json::parse(read_file(again / "out" / "sweep.json"));
  CHECK(quiet["status"] == "interrupted");
  CHECK(quiet["runs_failed"].empty());
  CHECK(quiet["runs_completed"] == 0);
}
