// End-to-end tests of `fovea sweep` (docs/studies.md): a small study run as a user runs it,
// sharded and merged, resumed after a kill, refused when its folder is another's.

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/file_read.hpp"
#include "support/csv_text.hpp"
#include "support/process.hpp"
#include "support/sweep_study.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using namespace fovea::test;

namespace fs = std::filesystem;

namespace {

const std::string kFovea = FOVEA_BINARY;

/// What a sweep says of an --out folder that holds another sweep (or a sweep.json it cannot use).
const std::string kAnotherSweep =
    "fovea sweep: out holds another sweep (another study, another version of this one, or another shard); give a new "
    "--out, or remove it to start again\n";

const std::string kBase = test::sweep_base_config(6, true);

/// 2 x 2 x 3 = 12 runs under work budgets, with deterministic metrics only, so the table is
/// the same bytes however the runs are spread.
const char* kStudy = R"(name: tiny
base: base.yaml
set:
  frames: 5
factors:
  scheduler:
    key: schedule.kind
    values: [round_robin, priority_queues]
  budget:
    - {value: 300, set: {budget.tests: 300}}
    - {value: 3000, set: {budget.tests: 3000}}
  seed:
    key: seed
    values: [1, 2, 3]
metrics:
  columns:
    p_true: [mean, max]
    nabla_est: [mean]
    sphere_tests: [sum]
    slack: {column: nabla_est, minus: nabla_true, stats: [min]}
)";

/// kStudy with runs of `frames` frames instead of 5.
std::string study_of_frames(int frames) {
  std::string study = kStudy;
  study.replace(study.find("frames: 5"), 9, "frames: " + std::to_string(frames));
  return study;
}

/// Sweeps kStudy on kBase in `dir`, into dir/out, quietly and without figures; the sweep
/// must succeed. Returns its table.csv.
std::string swept_table(const TempDir& dir) {
  write_study(dir.path(), kBase, kStudy);
  REQUIRE(run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures", "-q"}, dir.path()).status == 0);
  return read_file(dir / "out" / "table.csv");
}

nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(read_file(path)); }

/// 10 runs of 2 frames: 2 under a work budget alone, 4 evaluating a scheduler under a wall
/// budget, 4 under a wall budget of their own. Only `frame` is summarised, so the table does
/// not depend on the clock.
const char* kTimedStudy = R"(name: timed
base: base.yaml
set:
  frames: 2
factors:
  budget:
    - {value: work, set: {budget.mode: work}}
    - value: evaluated_wall
      set:
        evaluate.schedulers: [round_robin]
        evaluate.budgets: [{mode: work, tests: 100}, {mode: wall, ms: 0.5}]
    - {value: wall, set: {budget.mode: wall, budget.ms: 0.5}}
  seed: {key: seed, values: [1, 2, 3, 4]}
exclude:
  - {budget: work, seed: [3, 4]}
metrics:
  columns:
    frame: [count, max]
)";

/// A run's folder in `out` (runs/NNNN of 10 runs or fewer).
fs::path run_folder(const fs::path& out, std::int64_t run) {
  const std::string n = std::to_string(run);
  return out / "runs" / (std::string(4 - n.size(), '0') + n);
}

/// The timed runs a sweep's folder holds, in launch order, as its sweep.json lists them.
std::vector<std::int64_t> timed_runs_of(const fs::path& out) {
  return read_json(out / "sweep.json")["timed_runs"].get<std::vector<std::int64_t>>();
}

/// Checks that the runs `in_order` of a sweep's folder ran one at a time in that order, each
/// after every run of `before` had ended (their manifests' times, to the millisecond).
void check_ran_alone_in_order(const fs::path& out, const std::vector<std::int64_t>& before,
                              const std::vector<std::int64_t>& in_order) {
  const auto time = [&](std::int64_t run, const char* key) {
    return read_json(run_folder(out, run) / "manifest.json")[key].get<std::string>();
  };
  std::string last_end;
  for (const std::int64_t run : before) last_end = std::max(last_end, time(run, "end_time_utc"));
  for (const std::int64_t run : in_order) {
    INFO("run " << run);
    CHECK(time(run, "start_time_utc") >= last_end);
    last_end = time(run, "end_time_utc");
  }
}

}  // namespace

TEST_CASE("fovea sweep: runs a study into one table, and two shards merged give the same bytes", "[cli][sweep]") {
  TempDir dir;
  write_study(dir.path(), kBase, kStudy);
  const auto whole = run_process({kFovea, "sweep", "study.yaml", "--jobs", "2", "--out", "whole", "--no-figures"}, dir.path());
  INFO(whole.err);
  REQUIRE(whole.status == 0);
  const std::string table = read_file(dir / "whole" / "table.csv");
  const auto rows = lines_of(table);
  REQUIRE(rows.size() == 13);
  CHECK(rows[0] == "run,scheduler,budget,seed,frames,p_true_mean,p_true_max,nabla_est_mean,sphere_tests_sum,slack_min");
  CHECK(rows[1].rfind("0,round_robin,300,1,5,", 0) == 0);
  CHECK(rows[12].rfind("11,priority_queues,3000,3,5,", 0) == 0);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = split(rows[i]);
    REQUIRE(cells.size() == 10);
    CHECK(std::stod(cells[9]) >= 0);  // the estimate bounds the truth in every frame
    // The row is the run's own frames.csv summarised: the sphere tests add up.
    const std::string run = std::to_string(i - 1);
    const auto frames = lines_of(read_file(dir / "whole" / "runs" / (std::string(4 - run.size(), '0') + run) / "frames.csv"));
    REQUIRE(frames.size() == 6);
    const auto header = split(frames[0]);
    const auto column = static_cast<std::size_t>(std::find(header.begin(), header.end(), "sphere_tests") - header.begin());
    long long sum = 0;
    for (std::size_t f = 1; f < frames.size(); ++f) sum += std::stoll(split(frames[f])[column]);
    CHECK(cells[8] == std::to_string(sum));
  }
  const auto sweep = read_json(dir / "whole" / "sweep.json");
  CHECK(sweep["status"] == "completed");
  CHECK(sweep["runs_total"] == 12);
  CHECK(sweep["runs_completed"] == 12);
  CHECK(sweep["shard"]["count"] == 1);
  // Not a terminal: the progress is logged, a line at every twentieth of the runs, here every
  // run, and the last one with nothing left.
  std::vector<std::string> progress;
  for (const std::string& line : lines_of(whole.err))
    if (line.find(" runs done, ") != std::string::npos) progress.push_back(line);
  REQUIRE(progress.size() == 12);
  CHECK(progress[0].rfind("fovea sweep: 1 of 12 runs done, ", 0) == 0);
  CHECK(progress[11].rfind("fovea sweep: 12 of 12 runs done, 0 running, ", 0) == 0);
  CHECK(progress[11].find("left") == std::string::npos);
  CHECK(whole.err.find('\r') == std::string::npos);

  // Shard 0 from the option, shard 1 as task 2 of a Slurm array numbered from 1.
  const auto first = run_process({kFovea, "sweep", "study.yaml", "--shard", "0/2", "--no-figures", "-q"}, dir.path());
  INFO(first.err);
  REQUIRE(first.status == 0);
  CHECK(first.err.find("runs done") == std::string::npos);  // -q: no progress
  const auto second = run_process({"/usr/bin/env", "SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=2",
                                   "SLURM_ARRAY_TASK_MIN=1", kFovea, "sweep", "study.yaml", "--no-figures", "-q"},
                                  dir.path());
  INFO(second.err);
  REQUIRE(second.status == 0);
  const fs::path shards = dir / "results" / "studies" / "tiny";
  CHECK(lines_of(read_file(shards / "shard-0-of-2" / "table.csv")).size() == 7);
  CHECK(lines_of(read_file(shards / "shard-1-of-2" / "table.csv")).size() == 7);
  const auto merged = run_process({kFovea, "sweep", "merge", (shards / "shard-0-of-2").string(),
                                   (shards / "shard-1-of-2").string(), "--out", "merged", "--no-figures"},
                                  dir.path());
  INFO(merged.err);
  REQUIRE(merged.status == 0);
  CHECK(read_file(dir / "merged" / "table.csv") == table);
  CHECK(read_json(dir / "merged" / "sweep.json")["runs_missing"].empty());

  // One shard alone: the merge says what is missing and fails.
  const auto partial = run_process({kFovea, "sweep", "merge", (shards / "shard-1-of-2").string(), "--out", "partial",
                                    "--no-figures"},
                                   dir.path());
  CHECK(partial.status == 1);
  CHECK(partial.err.find("6 runs missing, the first 0") != std::string::npos);
  // A shard given twice is refused.
  const auto twice = run_process({kFovea, "sweep", "merge", (shards / "shard-1-of-2").string(),
                                  (shards / "shard-1-of-2").string(), "--out", "twice"},
                                 dir.path());
  CHECK(twice.status == 2);
  CHECK(twice.err.find("shard 1 is given twice") != std::string::npos);
}

TEST_CASE("fovea sweep: timed runs, a wall budget of their own or evaluated, run alone after the others, in a seeded "
          "shuffle that a second sweep, a shard and a resume keep",
          "[cli][sweep]") {
  TempDir dir;
  write_study(dir.path(), kBase, kTimedStudy);
  const auto first =
      run_process({kFovea, "sweep", "study.yaml", "--jobs", "2", "--out", "first", "--no-figures"}, dir.path());
  INFO(first.err);
  REQUIRE(first.status == 0);
  CHECK(first.err.find("fovea sweep: 8 timed runs (a wall-clock budget, their own or one they evaluate) run one at a "
                       "time, after the others, in a shuffled order (sweep.json: timed_runs)\n") != std::string::npos);
  const std::vector<std::int64_t> timed = timed_runs_of(dir / "first");
  check_ran_alone_in_order(dir / "first", {0, 1}, timed);
  // Runs 2-5 evaluate under a wall budget, 6-9 run under one: all timed, in another order
  // than the plan's.
  std::vector<std::int64_t> sorted = timed;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<std::int64_t>{2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(timed != sorted);
  const std::string table = read_file(dir / "first" / "table.csv");
  CHECK(lines_of(table).size() == 11);

  // The same study again: the same order.
  REQUIRE(run_process({kFovea, "sweep", "study.yaml", "--out", "second", "--no-figures", "-q"}, dir.path()).status ==
          0);
  CHECK(timed_runs_of(dir / "second") == timed);
  check_ran_alone_in_order(dir / "second", {0, 1}, timed);
  // A shard runs its timed runs in the order the whole study has them.
  REQUIRE(run_process({kFovea, "sweep", "study.yaml", "--shard", "1/2", "--out", "shards", "--no-figures", "-q"},
                      dir.path())
              .status == 0);
  std::vector<std::int64_t> odd;
  for (const std::int64_t run : timed)
    if (run % 2 == 1) odd.push_back(run);
  CHECK(timed_runs_of(dir / "shards" / "shard-1-of-2") == odd);
  // Merged, each shard's order is kept beside it, and the table is the unsharded one.
  REQUIRE(run_process({kFovea, "sweep", "study.yaml", "--shard", "0/2", "--out", "shards", "--no-figures", "-q"},
                      dir.path())
              .status == 0);
  REQUIRE(run_process({kFovea, "sweep", "merge", "shards/shard-1-of-2", "shards/shard-0-of-2", "--out", "merged",
                       "--no-figures", "-q"},
                      dir.path())
              .status == 0);
  CHECK(read_file(dir / "merged" / "table.csv") == table);
  const auto merged_from = read_json(dir / "merged" / "sweep.json")["merged_from"];
  REQUIRE(merged_from.size() == 2);
  CHECK(merged_from[0]["timed_runs"].get<std::vector<std::int64_t>>() == odd);
  CHECK(merged_from[1]["timed_runs"] == read_json(dir / "shards" / "shard-0-of-2" / "sweep.json")["timed_runs"]);

  // Resumed after three timed runs and a work run were lost: they run again, the timed ones
  // alone and in the study's order, and the table is the same.
  std::vector<std::int64_t> lost = {timed[1], timed[4], timed[6]};
  for (const std::int64_t run : lost) fs::remove_all(run_folder(dir / "first", run));
  fs::remove_all(run_folder(dir / "first", 1));
  const auto resumed = run_process({kFovea, "sweep", "study.yaml", "--jobs", "2", "--out", "first", "--no-figures"},
                                   dir.path());
  INFO(resumed.err);
  REQUIRE(resumed.status == 0);
  CHECK(resumed.err.find("resuming first: 6 of 10 runs already complete") != std::string::npos);
  CHECK(resumed.err.find("fovea sweep: 3 timed runs (") != std::string::npos);
  CHECK(timed_runs_of(dir / "first") == timed);
  check_ran_alone_in_order(dir / "first", {1}, lost);
  CHECK(read_file(dir / "first" / "table.csv") == table);
}

TEST_CASE("fovea sweep: repeats: N runs each configuration N times, a repeat column 1..N, and two repeats of a "
          "work-budget run give the same row",
          "[cli][sweep]") {
  TempDir dir;
  std::string study = kStudy;
  study.replace(study.find("values: [1, 2, 3]"), 17, "values: [1]");
  study.replace(study.find("metrics:"), 8, "repeats: 2\nmetrics:");
  write_study(dir.path(), kBase, study);
  const auto r = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures", "-q"}, dir.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto rows = lines_of(read_file(dir / "out" / "table.csv"));
  REQUIRE(rows.size() == 9);
  CHECK(rows[0] ==
        "run,scheduler,budget,seed,repeat,frames,p_true_mean,p_true_max,nabla_est_mean,sphere_tests_sum,slack_min");
  CHECK(rows[1].rfind("0,round_robin,300,1,1,5,", 0) == 0);
  CHECK(rows[2].rfind("1,round_robin,300,1,2,5,", 0) == 0);
  CHECK(rows[8].rfind("7,priority_queues,3000,1,2,5,", 0) == 0);
  for (std::size_t i = 1; i < rows.size(); i += 2) {
    auto a = split(rows[i]);
    auto b = split(rows[i + 1]);
    CHECK(a[4] == "1");
    CHECK(b[4] == "2");
    // Everything but the run and the repeat is the same: the runs are one config.
    a.erase(a.begin() + 4);
    b.erase(b.begin() + 4);
    CHECK(std::vector<std::string>(a.begin() + 1, a.end()) == std::vector<std::string>(b.begin() + 1, b.end()));
    CHECK(read_file(run_folder(dir / "out", static_cast<std::int64_t>(i) - 1) / "config.yaml") ==
          read_file(run_folder(dir / "out", static_cast<std::int64_t>(i)) / "config.yaml"));
  }
  CHECK(read_json(dir / "out" / "sweep.json")["timed_runs"].empty());
}

TEST_CASE("fovea sweep: a study on external gaze is refused at the key before any run or folder", "[cli][sweep][gaze]") {
  TempDir dir;
  std::string base = kBase;
  base.replace(base.find("source: scripted"), 16, "source: external");
  write_study(dir.path(), base, kStudy);
  const auto r = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures"}, dir.path());
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("fovea sweep: run 0 (scheduler=round_robin, budget=300, seed=1): ") &&
                        Catch::Contains("base.yaml:14:8: gaze.source: external gaze is pushed by a program") &&
                        Catch::Contains("fovea run has no one to push it"));
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("fovea sweep: resumes, running again only the runs whose folder is not complete", "[cli][sweep]") {
  TempDir dir;
  const std::string table = swept_table(dir);
  // A run killed mid-way leaves a manifest saying so; another lost its folder.
  const fs::path killed = dir / "out" / "runs" / "0004" / "manifest.json";
  std::string manifest = read_file(killed);
  manifest.replace(manifest.find("\"completed\""), 11, "\"running\"");
  write_file(killed, manifest);
  fs::remove_all(dir / "out" / "runs" / "0009");
  const auto frames_before = fs::last_write_time(dir / "out" / "runs" / "0001" / "frames.csv");
  const auto again = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures"}, dir.path());
  INFO(again.err);
  REQUIRE(again.status == 0);
  CHECK(again.err.find("run 4 (scheduler=round_robin, budget=3000, seed=2): its manifest says running; running it again") !=
        std::string::npos);
  CHECK(again.err.find("resuming out: 10 of 12 runs already complete") != std::string::npos);
  CHECK(again.err.find("12 of 12 runs complete (2 run now") != std::string::npos);
  CHECK(read_file(dir / "out" / "table.csv") == table);
  CHECK(fs::last_write_time(dir / "out" / "runs" / "0001" / "frames.csv") == frames_before);

  // A complete run whose config is not the run's (the checkout moved, and file paths with
  // it) is never deleted: the sweep stops and says so.
  const fs::path config = dir / "out" / "runs" / "0002" / "config.yaml";
  write_file(config, read_file(config) + "# edited\n");
  const auto mismatch = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures", "-q"}, dir.path());
  CHECK(mismatch.status == 2);
  CHECK(mismatch.err == "fovea sweep: out/runs/0002: a complete run, but its config.yaml is not this run's; move the "
                        "folder away to run it again, or give a new --out\n");
  CHECK(fs::exists(config));
  CHECK(read_json(dir / "out" / "sweep.json")["status"] == "failed");

  // Another study in the same folder is refused, and nothing is run.
  std::string other = kStudy;
  other.replace(other.find("values: [1, 2, 3]"), 17, "values: [1, 2, 4]");
  write_file(dir / "other.yaml", other);
  const auto refused = run_process({kFovea, "sweep", "other.yaml", "--out", "out"}, dir.path());
  CHECK(refused.status == 2);
  CHECK(refused.err == kAnotherSweep);
  CHECK(read_file(dir / "out" / "table.csv") == table);
}

TEST_CASE("fovea sweep: a resume runs again a complete run whose frames.csv does not hold the frames its manifest counts",
          "[cli][sweep]") {
  TempDir dir;
  const std::string table = swept_table(dir);
  const fs::path runs = dir / "out" / "runs";
  // Run 2's frames.csv cut to its header and 2 of its 5 rows; run 5's cut inside a row; run
  // 7's gone. Each manifest still says "completed" with 5 frames.
  const auto frames_2 = lines_of(read_file(runs / "0002" / "frames.csv"));
  REQUIRE(frames_2.size() == 6);
  write_file(runs / "0002" / "frames.csv", frames_2[0] + "\n" + frames_2[1] + "\n" + frames_2[2] + "\n");
  const std::string frames_5 = read_file(runs / "0005" / "frames.csv");
  write_file(runs / "0005" / "frames.csv", frames_5.substr(0, frames_5.size() - 10));
  fs::remove(runs / "0007" / "frames.csv");
  const auto again = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures"}, dir.path());
  INFO(again.err);
  REQUIRE(again.status == 0);
  CHECK(again.err.find("fovea sweep: run 2 (scheduler=round_robin, budget=300, seed=3): its frames.csv holds 2 of the 5 "
                       "frames its manifest.json counts; running it again\n") != std::string::npos);
  CHECK(again.err.find("fovea sweep: run 5 (scheduler=round_robin, budget=3000, seed=3): its frames.csv is cut short or "
                       "damaged (out/runs/0005/frames.csv:6: ") != std::string::npos);
  CHECK(again.err.find("fovea sweep: run 7 (scheduler=priority_queues, budget=300, seed=2): it has no frames.csv; running "
                       "it again\n") != std::string::npos);
  CHECK(again.err.find("resuming out: 9 of 12 runs already complete") != std::string::npos);
  CHECK(read_file(dir / "out" / "table.csv") == table);
  for (const char* run : {"0002", "0005", "0007"}) CHECK(lines_of(read_file(runs / run / "frames.csv")).size() == 6);
}

TEST_CASE("fovea sweep: a resume keeps a run whose manifest.json cannot be read, and refuses a sweep.json that cannot",
          "[cli][sweep]") {
  TempDir dir;
  const std::string table = swept_table(dir);
  const fs::path manifest = dir / "out" / "runs" / "0003" / "manifest.json";
  const std::string manifest_text = read_file(manifest);
  const auto resume = [&]() { return run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures"}, dir.path()); };
  const std::string keep_advice = "; move the folder away to run it again, or give a new --out\n";

  // A manifest.json the OS does not give, here a pipe (which a plain read would wait on for
  // ever) and a folder, is not known to be damaged: the run's folder is kept, the sweep stops.
  fs::remove(manifest);
  REQUIRE(mkfifo(manifest.c_str(), 0644) == 0);
  const auto pipe = resume();
  CHECK(pipe.status == 2);
  CHECK(pipe.err == "fovea sweep: out/runs/0003: its manifest.json cannot be read (out/runs/0003/manifest.json: cannot read "
                    "the manifest: not a regular file (a device, a pipe or a socket))" + keep_advice);
  CHECK(fs::exists(dir / "out" / "runs" / "0003" / "frames.csv"));
  fs::remove(manifest);
  fs::create_directories(manifest / "x");
  const auto folder = resume();
  CHECK(folder.status == 2);
  CHECK(folder.err == "fovea sweep: out/runs/0003: its manifest.json cannot be read (out/runs/0003/manifest.json: cannot "
                      "read the manifest: it is a folder, not a file)" + keep_advice);
  CHECK(fs::exists(dir / "out" / "runs" / "0003" / "frames.csv"));
  // Given back, the run is whole again and not run again.
  fs::remove_all(manifest);
  write_file(manifest, manifest_text);
  const auto restored = resume();
  INFO(restored.err);
  CHECK(restored.status == 0);
  CHECK(restored.err.find("resuming out: 12 of 12 runs already complete") != std::string::npos);
  // One cut short was written by a run that did not end well: run again.
  write_file(manifest, manifest_text.substr(0, manifest_text.size() / 2));
  const auto cut = resume();
  INFO(cut.err);
  CHECK(cut.status == 0);
  CHECK(cut.err.find("fovea sweep: run 3 (scheduler=round_robin, budget=3000, seed=1): its manifest.json is cut short or "
                     "damaged (out/runs/0003/manifest.json: not JSON: [json.exception.parse_error.") != std::string::npos);
  CHECK(cut.err.find("); running it again\n") != std::string::npos);
  CHECK(read_file(dir / "out" / "table.csv") == table);

  // sweep.json a pipe: one line at once, nothing run.
  const fs::path sweep_json = dir / "out" / "sweep.json";
  const std::string sweep_text = read_file(sweep_json);
  fs::remove(sweep_json);
  REQUIRE(mkfifo(sweep_json.c_str(), 0644) == 0);
  const auto sweep_pipe = resume();
  CHECK(sweep_pipe.status == 2);
  CHECK(sweep_pipe.err == "fovea sweep: out/sweep.json: cannot read the sweep.json: not a regular file (a device, a pipe or "
                          "a socket)\n");
  // Larger than any sweep.json: refused by its size, not read.
  fs::remove(sweep_json);
  write_file(sweep_json, sweep_text + std::string((std::size_t{16} << 20) + 1, ' '));
  const auto huge = resume();
  CHECK(huge.status == 2);
  CHECK(huge.err.rfind("fovea sweep: out/sweep.json: cannot read the sweep.json: it is ", 0) == 0);
  CHECK(huge.err.find(" bytes, more than the 16 MiB a sweep.json may be\n") != std::string::npos);
  // A field of the wrong type is another sweep's, not an exception.
  auto edited = nlohmann::json::parse(sweep_text);
  edited["fingerprint"] = 5;
  edited["shard"] = "all";
  write_file(sweep_json, edited.dump(2));
  const auto wrong_type = resume();
  CHECK(wrong_type.status == 2);
  CHECK(wrong_type.err == kAnotherSweep);
  CHECK(read_file(dir / "out" / "table.csv") == table);
}

TEST_CASE("fovea sweep: a run's manifest nested 100,000 deep is named as damaged and run again, and the sweep finishes",
          "[cli][sweep][json]") {
  // The sweep died by a stack overflow reading it (exit 139, nothing said, sweep.json left
  // "running"): the JSON reader now refuses past 64 levels before parsing (issue 42).
  TempDir dir;
  const std::string table = swept_table(dir);
  const fs::path manifest = dir / "out" / "runs" / "0004" / "manifest.json";
  // Its status a list in a list ... 100,000 deep: reading the status copied it, recursively.
  std::string text = read_file(manifest);
  const std::size_t status = text.find("\"status\": \"completed\"");
  REQUIRE(status != std::string::npos);
  text.replace(status, 21, "\"status\": " + std::string(100000, '[') + std::string(100000, ']'));
  write_file(manifest, text);
  const auto again = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures"}, dir.path());
  INFO(again.err.substr(0, 2000));
  CHECK(again.status == 0);
  CHECK(again.err.find("fovea sweep: run 4 (scheduler=round_robin, budget=3000, seed=2): its manifest.json is cut short "
                       "or damaged (out/runs/0004/manifest.json: byte ") != std::string::npos);
  CHECK(again.err.find(": arrays and objects nested deeper than 64 levels; no JSON file fovea reads needs as many); "
                       "running it again\n") != std::string::npos);
  CHECK(again.err.find("resuming out: 11 of 12 runs already complete") != std::string::npos);
  CHECK(read_json(dir / "out" / "sweep.json")["status"] == "completed");
  CHECK(read_file(dir / "out" / "table.csv") == table);
  CHECK(read_json(manifest)["status"] == "completed");  // run again, whole
}

TEST_CASE("fovea sweep merge: a table.csv that lost its last bytes is refused, naming the line, never merged cut",
          "[cli][sweep][csv]") {
  // It was merged, exit 0, with the last row's last value cut (2228 read as 22, issue 42).
  TempDir dir;
  const std::string table = swept_table(dir);
  // The last row's last value (slack_min) made 2228, then the file's last 3 bytes lost, as a
  // copy cut short loses them: what is left still has every cell, 22 last.
  const std::size_t last_value = table.rfind(',') + 1;
  const std::string edited = table.substr(0, last_value) + "2228\n";
  write_file(dir / "out" / "table.csv", edited.substr(0, edited.size() - 3));
  const auto merged = run_process({kFovea, "sweep", "merge", "out", "--out", "merged", "--no-figures"}, dir.path());
  CHECK(merged.status == 2);
  CHECK(merged.err == "fovea sweep merge: out/table.csv:13: its last row has no line end; it was never finished (the "
                      "table was cut short; copy the shard's table.csv whole, or run its sweep again, which writes it "
                      "anew)\n");
  CHECK_FALSE(fs::exists(dir / "merged"));
  // Its sweep again writes it whole, and the merge takes it.
  REQUIRE(run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures", "-q"}, dir.path()).status == 0);
  CHECK(read_file(dir / "out" / "table.csv") == table);
  const auto again = run_process({kFovea, "sweep", "merge", "out", "--out", "merged", "--no-figures", "-q"}, dir.path());
  CHECK(again.status == 0);
  CHECK(read_file(dir / "merged" / "table.csv") == table);
}

TEST_CASE("fovea sweep merge: a sweep.json damaged or edited is one line naming the file and the field, exit 2",
          "[cli][sweep]") {
  TempDir dir;
  write_study(dir.path(), kBase, kStudy);
  REQUIRE(run_process({kFovea, "sweep", "study.yaml", "--shard", "0/2", "--out", "s", "--no-figures", "-q"}, dir.path())
              .status == 0);
  const fs::path shard = dir / "s" / "shard-0-of-2";
  const auto original = read_json(shard / "sweep.json");
  int copies = 0;
  // A copy of the shard whose sweep.json is `edit`ed; returns the copy's name.
  const auto copy_shard = [&](const std::function<void(nlohmann::json&)>& edit) {
    const std::string name = "edited" + std::to_string(++copies);
    fs::create_directories(dir / name);
    fs::copy_file(shard / "table.csv", dir / name / "table.csv");
    nlohmann::json j = original;
    edit(j);
    write_file(dir / name / "sweep.json", j.dump(2));
    return name;
  };
  const auto merge = [&](const std::string& name) {
    return run_process({kFovea, "sweep", "merge", name, "--out", name + "-merged", "--no-figures"}, dir.path());
  };
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
      {[](nlohmann::json& j) { j.erase("study"); }, "study: missing"},
      {[](nlohmann::json& j) { j["study"] = "../../elsewhere"; },
       "study: expected a name of letters, digits, - _ . (no path separators), found \"../../elsewhere\""},
      // A name a folder could not take (core/folder_name.hpp): over 64 bytes.
      {[](nlohmann::json& j) { j["study"] = std::string(65, 'a'); },
       "study: a name of 65 bytes, more than the 64 a folder's name may have"},
      {[](nlohmann::json& j) { j["fingerprint"] = 7; }, "fingerprint: expected a text, found 7"},
      {[](nlohmann::json& j) { j.erase("shard"); }, "shard: missing"},
      {[](nlohmann::json& j) { j["shard"] = 0; }, "shard: expected an object with index and count, found 0"},
      {[](nlohmann::json& j) { j["shard"].erase("count"); }, "shard.count: missing"},
      // Each run's shard is its number modulo the count: 0 would divide by zero.
      {[](nlohmann::json& j) { j["shard"]["count"] = 0; }, "shard.count: expected a whole number from 1 to 10000, found 0"},
      {[](nlohmann::json& j) { j["shard"]["index"] = "0"; },
       "shard.index: expected a whole number from 0 to 1, found \"0\""},
      {[](nlohmann::json& j) { j["shard"]["index"] = 2; }, "shard.index: expected a whole number from 0 to 1, found 2"},
      // Every run up to the total is looked for: 10^18 would loop for ever.
      {[](nlohmann::json& j) { j["runs_total"] = 1'000'000'000'000'000'000LL; },
       "runs_total: expected a whole number from 1 to 10000, found 1000000000000000000"},
      {[](nlohmann::json& j) { j["runs_total"] = -1; }, "runs_total: expected a whole number from 1 to 10000, found -1"},
      {[](nlohmann::json& j) { j["runs_total"] = 2.5; }, "runs_total: expected a whole number from 1 to 10000, found 2.5"},
      {[](nlohmann::json& j) { j["columns"] = "run"; }, "columns: expected a list of column names, found \"run\""},
      {[](nlohmann::json& j) { j["columns"] = {"run", 3}; }, "columns: expected a list of column names, found a list"},
      {[](nlohmann::json& j) { j["table_fingerprint"] = false; }, "table_fingerprint: expected a text, found false"},
      {[](nlohmann::json& j) { j["figures"] = 3; }, "figures: expected a list, found 3"},
  };
  for (const auto& [edit, expected] : cases) {
    const std::string name = copy_shard(edit);
    const auto r = merge(name);
    INFO(name << ": " << expected);
    CHECK(r.status == 2);
    CHECK(r.err == "fovea sweep merge: " + name + "/sweep.json: " + expected + "\n");
    CHECK_FALSE(fs::exists(dir / (name + "-merged")));
  }
  // Fields merge only copies may hold anything: the merge goes on (and fails for the shard
  // it lacks).
  const std::string odd_status = copy_shard([](nlohmann::json& j) {
    j["status"] = 5;
    j["machine"] = nullptr;
  });
  const auto odd = merge(odd_status);
  CHECK(odd.status == 1);
  CHECK(odd.err.find("6 runs missing, the first 1") != std::string::npos);
  CHECK(odd.err.find("json") == std::string::npos);
  // A table whose runs are past the study's total.
  const std::string fewer = copy_shard([](nlohmann::json& j) { j["runs_total"] = 4; });
  const auto past = merge(fewer);
  CHECK(past.status == 2);
  CHECK(past.err == "fovea sweep merge: " + fewer + "/table.csv: run 4 is not one of the study's 4 runs\n");

  // A sweep.json that is a pipe (which a plain read would wait on for ever), or larger than
  // any sweep.json, is refused at once; so is one in the --out folder.
  fs::create_directories(dir / "piped");
  fs::copy_file(shard / "table.csv", dir / "piped" / "table.csv");
  REQUIRE(mkfifo((dir / "piped" / "sweep.json").c_str(), 0644) == 0);
  const auto piped = merge("piped");
  CHECK(piped.status == 2);
  CHECK(piped.err == "fovea sweep merge: piped/sweep.json: cannot read the sweep.json: not a regular file (a device, a "
                     "pipe or a socket)\n");
  const std::string huge = copy_shard([](nlohmann::json&) {});
  write_file(dir / huge / "sweep.json", original.dump(2) + std::string((std::size_t{16} << 20) + 1, ' '));
  const auto too_large = merge(huge);
  CHECK(too_large.status == 2);
  CHECK(too_large.err.find("fovea sweep merge: " + huge + "/sweep.json: cannot read the sweep.json: it is ") == 0);
  CHECK(too_large.err.find(" bytes, more than the 16 MiB a sweep.json may be\n") != std::string::npos);
  fs::create_directories(dir / "out-piped");
  REQUIRE(mkfifo((dir / "out-piped" / "sweep.json").c_str(), 0644) == 0);
  const auto out_piped =
      run_process({kFovea, "sweep", "merge", (shard).string(), "--out", "out-piped", "--no-figures"}, dir.path());
  CHECK(out_piped.status == 2);
  CHECK(out_piped.err == "fovea sweep merge: out-piped/sweep.json: cannot read the sweep.json: not a regular file (a "
                         "device, a pipe or a socket)\n");
}

TEST_CASE("fovea sweep: a stopped sweep keeps its finished runs, and the same command finishes it", "[cli][sweep]") {
  TempDir dir;
  write_study(dir.path(), kBase, study_of_frames(400));
  {
    test::ChildProcess sweep({kFovea, "sweep", "study.yaml", "--out", "out", "--jobs", "1", "--no-figures", "-q"}, dir.path(),
                             dir / "stdout.txt", dir / "stderr.txt");
    // Stop it once its first run is complete.
    for (int i = 0; i < 3000 && read_file(dir / "out" / "runs" / "0000" / "manifest.json").find("\"completed\"") ==
                                    std::string::npos;
         ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    // A second sweep in the same folder while the first runs is refused.
    const auto second = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures", "-q"}, dir.path());
    CHECK(second.status == 2);
    CHECK(second.err == "fovea sweep: out is in use by another fovea sweep; wait for it to end\n");
    sweep.send_signal(SIGTERM);
    CHECK(sweep.wait() == 128 + SIGTERM);
    CHECK(sweep.terminating_signal() == SIGTERM);
  }
  const auto json = read_json(dir / "out" / "sweep.json");
  CHECK(json["status"] == "interrupted");
  const auto completed = json["runs_completed"].get<int>();
  CHECK(completed >= 1);
  CHECK(completed < 12);
  CHECK(lines_of(read_file(dir / "out" / "table.csv")).size() == static_cast<std::size_t>(completed) + 1);
  const auto resumed = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures", "--jobs", "2"}, dir.path());
  INFO(resumed.err);
  REQUIRE(resumed.status == 0);
  CHECK(lines_of(read_file(dir / "out" / "table.csv")).size() == 13);
  CHECK(read_json(dir / "out" / "sweep.json")["runs_completed_before"] == completed);
}

TEST_CASE("fovea sweep: kill -9 of the sweep ends its runs with it, so none writes into a folder a resume takes over",
          "[cli][sweep][signals]") {
  TempDir dir;
  // Runs that would go on for hours.
  write_study(dir.path(), kBase, study_of_frames(10000000));
  test::ChildProcess sweep({kFovea, "sweep", "study.yaml", "--out", "out", "--jobs", "2", "--no-figures", "-q"},
                           dir.path(), dir / "stdout.txt", dir / "stderr.txt");
  // Both runs under way: started, and past their first frames.
  std::vector<pid_t> runs;
  for (int i = 0; i < 3000; ++i) {
    runs = test::child_processes(sweep.pid());
    if (runs.size() == 2 && fs::exists(dir / "out" / "runs" / "0000" / "frames.csv") &&
        fs::exists(dir / "out" / "runs" / "0001" / "frames.csv"))
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(runs.size() == 2);
  sweep.send_signal(SIGKILL);
  CHECK(sweep.wait() == 128 + SIGKILL);
  const auto all_ended = [&]() {
    return std::none_of(runs.begin(), runs.end(), [](pid_t run) { return test::process_is_alive(run); });
  };
  for (int i = 0; i < 500 && !all_ended(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(all_ended());
  // Nothing writes into the runs' folders any more.
  const auto sizes = [&]() {
    return std::vector<std::uintmax_t>{fs::file_size(dir / "out" / "runs" / "0000" / "frames.csv"),
                                       fs::file_size(dir / "out" / "runs" / "0001" / "frames.csv")};
  };
  const auto before = sizes();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(sizes() == before);
  // Runs that outlived their sweep (the defect this test guards against) are not left
  // running for hours: ended here, each checked to be this test's by its command line.
  for (const pid_t run : runs)
    if (test::process_is_alive(run) && read_file("/proc/" + std::to_string(run) + "/cmdline").find(dir.path().string()) !=
                                           std::string::npos)
      kill(run, SIGKILL);
}

TEST_CASE("fovea sweep: its runs hold stdin, stdout and stderr, and no other descriptor from their start", "[cli][sweep]") {
  TempDir dir;
  // Runs that would go on for hours.
  write_study(dir.path(), kBase, study_of_frames(10000000));
  test::ChildProcess sweep({kFovea, "sweep", "study.yaml", "--out", "out", "--jobs", "1", "--no-figures", "-q"}, dir.path(),
                           dir / "stdout.txt", dir / "stderr.txt");
  std::vector<pid_t> runs;
  for (int i = 0; i < 3000; ++i) {
    runs = test::child_processes(sweep.pid());
    if (runs.size() == 1 && fs::exists(dir / "out" / "runs" / "0000" / "frames.csv")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(runs.size() == 1);
  // The run's stdin and stdout are /dev/null. Past 2, only what it inherited from the sweep
  // (which got it from whatever started the test) may be: no /dev/null of its start.
  const auto target = [](pid_t pid, const std::string& fd) {
    std::error_code error;
    return fs::read_symlink("/proc/" + std::to_string(pid) + "/fd/" + fd, error).string();
  };
  CHECK(target(runs[0], "0") == "/dev/null");
  CHECK(target(runs[0], "1") == "/dev/null");
  std::vector<std::string> leaked;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc/" + std::to_string(runs[0]) + "/fd", error)) {
    const std::string fd = entry.path().filename().string();
    if (fd != "0" && fd != "1" && fd != "2" && target(runs[0], fd) == "/dev/null" && target(sweep.pid(), fd) != "/dev/null")
      leaked.push_back(fd);
  }
  CHECK(leaked.empty());
  sweep.send_signal(SIGTERM);
  CHECK(sweep.wait() == 128 + SIGTERM);
}

TEST_CASE("fovea sweep: bad studies and runs that fail are named", "[cli][sweep]") {
  TempDir dir;
  write_file(dir / "base.yaml", kBase);
  std::string bad = kStudy;
  bad.replace(bad.find("key: schedule.kind"), 18, "key: schedule.knid");
  write_file(dir / "bad.yaml", bad);
  const auto r = run_process({kFovea, "sweep", "bad.yaml", "--out", "out"}, dir.path());
  CHECK(r.status == 2);
  CHECK(r.err.find("fovea sweep: run 0 (scheduler=round_robin, budget=300, seed=1): bad.yaml:8:14: schedule.knid: unknown "
                   "key") == 0);
  CHECK_FALSE(fs::exists(dir / "out"));

  // A base config past a config's size limit is named as the config it is, once.
  fs::create_directories(dir / "huge");
  const std::string huge_base = kBase + std::string(static_cast<std::size_t>(fovea::kMaxConfigFileBytes) + 1, '#') + "\n";
  write_study(dir / "huge", huge_base, kStudy);
  const auto huge = run_process({kFovea, "sweep", "study.yaml", "--out", "out"}, dir / "huge");
  CHECK(huge.status == 2);
  CHECK(huge.err == "fovea sweep: " + (dir / "huge" / "base.yaml").string() + ": cannot read the config: it is " +
                        std::to_string(kBase.size() + static_cast<std::size_t>(fovea::kMaxConfigFileBytes) + 2) +
                        " bytes, more than the 1 MiB a config may be\n");

  // A world too small for its entities is found by the run itself: the sweep goes on,
  // names the run and its log, and fails at the end with the other runs in the table.
  std::string crowded = kStudy;
  crowded.replace(crowded.find("  seed:\n"), 8,
                  "  count:\n    key: world.entities[0].count\n    values: [30, 5000]\n  seed:\n");
  write_file(dir / "crowded.yaml", crowded);
  const auto failed = run_process({kFovea, "sweep", "crowded.yaml", "--out", "crowded", "--no-figures"}, dir.path());
  CHECK(failed.status == 1);
  CHECK(failed.err.find("fovea sweep: run 3 (scheduler=round_robin, budget=300, count=5000, seed=1) failed with exit status 2: "
                        "--set world.entities[0].count=5000: world.entities[0].count: world too small") != std::string::npos);
  CHECK(failed.err.find("(all its messages: crowded/runs/0003.log)") != std::string::npos);
  CHECK(lines_of(read_file(dir / "crowded" / "table.csv")).size() == 13);
  CHECK(read_json(dir / "crowded" / "sweep.json")["runs_failed"].size() == 12);
}

TEST_CASE("fovea sweep: on a full disk, each failed run's message still reaches the sweep's output, and no line names "
          "a file that was not written",
          "[cli][sweep][disk]") {
  TempDir dir;
  write_study(dir.path(), kBase, study_of_frames(2000));
  // The disk fills once the sweep has begun: sweep.json is written, then no file can grow
  // (a file size limit of 0 bytes, which the runs started from then on inherit). The
  // sweep's own stderr reaches the test through a pipe, which no limit touches.
  test::ChildSetup setup;
  setup.ignored = {SIGXFSZ};
  setup.output_through_pipes = true;
  test::ChildProcess sweep({kFovea, "sweep", "study.yaml", "--out", "out", "--jobs", "1", "--no-figures"}, dir.path(),
                           dir / "stdout.txt", dir / "stderr.txt", setup);
  // Up to 30 s: the sweep checks every run's config first, which on a loaded machine takes
  // seconds; the limit set before sweep.json is written would test another failure.
  for (int i = 0; i < 300000 && !fs::exists(dir / "out" / "sweep.json"); ++i)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  REQUIRE(fs::exists(dir / "out" / "sweep.json"));
  sweep.limit_file_size(0);
  CHECK(sweep.wait() == 1);
  const std::string err = read_file(dir / "stderr.txt");
  INFO(err);
  // Every failed run is named with the message its log could not hold.
  int failed = 0;
  for (const std::string& line : lines_of(err)) {
    const std::size_t at = line.find(" failed with exit status 1: ");
    if (at == std::string::npos) continue;
    ++failed;
    CHECK(line.find("fovea: out/runs/", at) != std::string::npos);
    CHECK(line.find(": cannot write: File too large", at) != std::string::npos);
    CHECK(line.find("(its messages could not be written to out/runs/") != std::string::npos);
    CHECK(line.find(".log: File too large)") != std::string::npos);
  }
  CHECK(failed >= 11);
  // No log, table or temporary that is not whole: none at all.
  for (const auto& entry : fs::directory_iterator(dir / "out" / "runs")) CHECK(entry.path().extension() != ".log");
  CHECK(test::stray_temporaries(dir / "out").empty());
  CHECK_FALSE(fs::exists(dir / "out" / "table.csv"));
  const std::vector<std::string> lines = lines_of(err);
  const auto closing = std::find_if(lines.rbegin(), lines.rend(),
                                    [](const std::string& l) { return l.find(" runs complete (") != std::string::npos; });
  REQUIRE(closing != lines.rend());
  CHECK(closing->find("table.csv") == std::string::npos);
  CHECK(closing->find("the table could not be written") != std::string::npos);
  // sweep.json could not be brought up to date either, and the sweep says so.
  CHECK(err.find("fovea sweep: out/sweep.json: cannot write: File too large") != std::string::npos);
}

TEST_CASE("fovea sweep: a table that cannot be written fails the sweep, says why, and is not named as written",
          "[cli][sweep][disk]") {
  TempDir dir;
  const std::string table = swept_table(dir);
  // The table's temporary lands on a full device (/dev/full: every write fails with ENOSPC).
  fs::create_symlink("/dev/full", dir / "out" / "table.csv.partial");
  const auto full = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures"}, dir.path());
  CHECK(full.status == 1);
  CHECK(full.err.find("fovea sweep: out/table.csv: write failed: No space left on device\n") != std::string::npos);
  const std::size_t closing = full.err.find("fovea sweep: 12 of 12 runs complete (0 run now, in ");
  REQUIRE(closing != std::string::npos);
  CHECK(full.err.find("); the table could not be written\n", closing) != std::string::npos);
  CHECK(full.err.find("table: ") == std::string::npos);
  CHECK(read_file(dir / "out" / "table.csv") == table);  // the one before, whole
  CHECK_FALSE(fs::exists(fs::symlink_status(dir / "out" / "table.csv.partial")));
  CHECK(read_json(dir / "out" / "sweep.json")["status"] == "failed");
}

TEST_CASE("fovea sweep: an output that cannot be written is one line saying where and why, before any run",
          "[cli][sweep][disk]") {
  TempDir dir;
  write_study(dir.path(), kBase, kStudy);
  write_file(dir / "afile", "not a folder\n");
  const auto out_under_file = run_process({kFovea, "sweep", "study.yaml", "--out", "afile/out", "--no-figures"}, dir.path());
  CHECK(out_under_file.status == 1);
  CHECK(out_under_file.err == "fovea sweep: afile/out: cannot create the folder: Not a directory\n");

  REQUIRE(run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures", "-q"}, dir.path()).status == 0);
  const auto merge = run_process({kFovea, "sweep", "merge", "out", "--out", "afile/merged", "--no-figures"}, dir.path());
  CHECK(merge.status == 1);
  CHECK(merge.err == "fovea sweep merge: afile/merged: cannot create the folder: Not a directory\n");

  // table.csv a folder: said before run 3 is run again, not after.
  fs::remove(dir / "out" / "table.csv");
  fs::create_directories(dir / "out" / "table.csv" / "x");
  fs::remove_all(dir / "out" / "runs" / "0003");
  const auto table_folder = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "--no-figures"}, dir.path());
  CHECK(table_folder.status == 1);
  CHECK(table_folder.err == "fovea sweep: out/table.csv: cannot write: Is a directory\n");
  CHECK_FALSE(fs::exists(dir / "out" / "runs" / "0003"));
}

TEST_CASE("fovea sweep: draws the study's figures when python3 has matplotlib, one message when not",
          "[cli][sweep][plots][slow]") {
  TempDir dir;
  write_study(dir.path(), kBase, std::string(kStudy) + R"(figures:
  - {file: p.png, kind: lines, x: budget, y: [p_true_mean], series: scheduler, log_x: true}
  - {file: bound.png, kind: scatter, x: p_true_mean, y: p_true_max, series: scheduler, diagonal: true}
)");
  const bool matplotlib = test::python_has_matplotlib();
  const auto r = run_process({kFovea, "sweep", "study.yaml", "--out", "out", "-q"}, dir.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  if (matplotlib) {
    CHECK(is_png(dir / "out" / "figures" / "p.png"));
    CHECK(is_png(dir / "out" / "figures" / "bound.png"));
    // The mean of a run's frames never exceeds their maximum: no point below the diagonal.
    CHECK(r.err.find("bound.png: below the diagonal: 0 of 12") != std::string::npos);
  } else {
    CHECK(r.err.find("fovea sweep: plots skipped: python3-matplotlib is not installed") != std::string::npos);
  }
  const auto without = run_process({"/usr/bin/env", "FOVEA_PYTHON=/nonexistent/python3", kFovea, "sweep", "study.yaml",
                                    "--out", "out", "-q"},
                                   dir.path());
  CHECK(without.status == 0);
  CHECK(without.err == "fovea sweep: plots skipped: python3-matplotlib is not installed (apt install python3-matplotlib)\n");
}
