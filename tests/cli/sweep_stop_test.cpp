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
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "fovea/sweep_command.hpp"
#include "support/csv_text.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using test::lines_of;
using test::read_file;
using test::TempDir;

namespace fs = std::filesystem;

namespace {

const std::string kFovea = FOVEA_BINARY;

const char* kBase = R"(name: base
seed: 1
frames: 5
world:
  box_size_m: [4, 4, 4]
  entities:
    - name: rocks
      count: 30
      placement: packed
      model: {shape: rock, size_m: 0.4, resolution_voxels: 6, variants: 2}
      speed_mps: 2
budget: {mode: work, tests: 400}
gaze: {source: scripted}
)";

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

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("sweep command: a run the stop reaches after its last frame counts as complete, as a resume counts it",
          "[cli][sweep][signals]") {
  TempDir dir;
  write(dir / "base.yaml", kBase);
  write(dir / "study.yaml", kStudy);
  // Each run: fovea run, which completes its folder (manifest and frames.csv); then a file
  // saying so; then a wait that only the sweep's signal ends, as a run does that the signal
  // reaches between its last write and its exit: dead by the signal, its folder whole.
  const fs::path ended = dir / "ended";
  write(dir / "run.sh", "#!/bin/sh\n\"" + kFovea + "\" \"$@\" || exit $?\n: > '" + ended.string() + "'\nexec sleep 600\n");
  fs::permissions(dir / "run.sh", fs::perms::owner_exec, fs::perm_options::add);

  SweepOptions options;
  options.study_path = (dir / "study.yaml").string();
  options.out = (dir / "out").string();
  options.jobs = 1;
  options.figures = false;
  options.quiet = true;
  options.fovea_binary = (dir / "run.sh").string();
  options.end_by_signal = false;  // return 128 + the signal: this process is the test's
  int status = -1;
  std::atomic<bool> returned{false};
  std::thread sweep([&] {
    status = sweep_command(options);
    returned = true;
  });
  for (int i = 0; i < 12000 && !fs::exists(ended) && !returned; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool first_run_ended = fs::exists(ended);
  // The sweep's StopSignals catches it: the stop a batch scheduler's time limit sends. Not
  // once the sweep has returned (its runs failed, say): the test's process would get it.
  if (!returned) kill(getpid(), SIGTERM);
  sweep.join();
  REQUIRE(first_run_ended);
  CHECK(status == 128 + SIGTERM);

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
