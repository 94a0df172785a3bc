// `fovea sweep --quick` (docs/studies.md, "A quick look"): the study's plan shrunk by the
// documented rule, checked against the whole study's plan filtered by that rule; its runs cut
// to a tenth of the frames; and a quick sweep run end to end.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"
#include "fovea/sweep_command.hpp"
#include "fovea/sweep_plan.hpp"
#include "support/csv_text.hpp"
#include "support/process.hpp"
#include "support/sweep_study.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using namespace fovea::test;

namespace fs = std::filesystem;

namespace {

/// Every kind of factor --quick treats apart: text levels (scheduler: kept whole), numbers of
/// more than two levels (budget: first and last), numbers of two (speed: kept whole), the
/// seeds and the repeats (the first only); an exclusion that still matches quick runs and one
/// that matches none of them; a figure of a level --quick leaves out. 2 x 3 x 2 x 3 x 2 = 72
/// runs, 42 after the exclusions.
const char* kStudy = R"(name: shrinkable
base: base.yaml
set:
  frames: 40
  metrics.warmup_frames: 15
factors:
  scheduler:
    key: schedule.kind
    values: [round_robin, priority_queues]
  budget:
    key: budget.tests
    values: [300, 1000, 3000]
  speed:
    key: "world.entities[0].speed_mps"
    values: [1, 2]
  seed:
    key: seed
    values: [4, 5, 6]
repeats: 2
exclude:
  - {scheduler: priority_queues, budget: 1000}
  - {scheduler: round_robin, speed: 2}
metrics:
  skip_frames: 2
  columns:
    p_est: [mean]
figures:
  - {file: p.png, kind: lines, x: budget, y: [p_est_mean], series: scheduler}
  - {file: p_1000.png, kind: lines, x: speed, y: [p_est_mean], series: scheduler, where: {budget: 1000}}
)";

/// The study's plan as `fovea sweep` makes it, quietly, with --quick or not; what it said.
struct Planned {
  std::optional<SweepPlan> plan;
  std::string err;
};

Planned planned(const TempDir& dir, bool quick, const std::vector<std::string>& sets = {}, bool quiet = true) {
  SweepOptions options;
  options.study_path = (dir / "study.yaml").string();
  options.quick = quick;
  options.quiet = quiet;
  for (const std::string& s : sets) options.overrides.push_back(config::set_override(s));
  std::ostringstream err;
  std::streambuf* const cerr_before = std::cerr.rdbuf(err.rdbuf());
  Planned result{plan_sweep(options), ""};
  std::cerr.rdbuf(cerr_before);
  result.err = err.str();
  return result;
}

/// A run's cells by column.
std::map<std::string, std::string> cells_of(const SweepPlan& plan, const PlannedRun& run) {
  const std::vector<std::string> columns = plan.study.factor_columns();
  std::map<std::string, std::string> cells;
  for (std::size_t c = 0; c < columns.size(); ++c) cells[columns[c]] = run.cells[c];
  return cells;
}

Settings settings_of(const SweepPlan& plan, const PlannedRun& run) {
  return config::load_config_file(plan.study.base_config, run.overrides).settings;
}

}  // namespace

TEST_CASE("sweep --quick: plans the whole study's runs with the first seed and repeat and the first and last level of "
          "each numeric factor of more than two, no other",
          "[cli][sweep]") {
  TempDir dir;
  write_study(dir.path(), sweep_base_config(5, false), kStudy);
  const Planned full = planned(dir, false);
  const Planned quick = planned(dir, true);
  INFO(full.err << quick.err);
  REQUIRE(full.plan);
  REQUIRE(quick.plan);
  REQUIRE(full.plan->runs.size() == 42);

  // The slow obvious plan: every run of the whole study, kept when it passes the rule.
  std::vector<std::map<std::string, std::string>> expected;
  for (const PlannedRun& run : full.plan->runs) {
    std::map<std::string, std::string> cells = cells_of(*full.plan, run);
    if (cells["seed"] == "4" && cells["repeat"] == "1" && (cells["budget"] == "300" || cells["budget"] == "3000"))
      expected.push_back(cells);
  }
  std::vector<std::map<std::string, std::string>> got;
  for (const PlannedRun& run : quick.plan->runs) got.push_back(cells_of(*quick.plan, run));
  CHECK(got == expected);
  // The same, as docs/studies.md counts it: 2 schedulers x 2 budgets x 2 speeds, less round
  // robin at speed 2. The exclusion of budget 1000 matches no quick run and is left out.
  CHECK(got.size() == 6);
  CHECK(quick.plan->runs.size() < full.plan->runs.size());
  CHECK(quick.plan->study.exclusions.size() == 1);
  // Indices are the quick study's own, from 0.
  for (std::size_t i = 0; i < quick.plan->runs.size(); ++i) CHECK(quick.plan->runs[i].index == static_cast<std::int64_t>(i));

  // Each run: the same keys as the whole study's run of those cells, and a tenth of its
  // frames (40 -> at least 10), its warm-up and skip_frames alike (15 -> 3, 2 -> 1).
  for (const PlannedRun& run : quick.plan->runs) {
    const Settings settings = settings_of(*quick.plan, run);
    CHECK(settings.frames == 10);
    CHECK(settings.metrics.warmup_frames == 3);
    const auto same = std::find_if(full.plan->runs.begin(), full.plan->runs.end(), [&](const PlannedRun& r) {
      return cells_of(*full.plan, r) == cells_of(*quick.plan, run);
    });
    REQUIRE(same != full.plan->runs.end());
    const Settings whole = settings_of(*full.plan, *same);
    CHECK(whole.frames == 40);
    CHECK(settings.schedule.kind == whole.schedule.kind);
    CHECK(settings.budget.tests == whole.budget.tests);
    CHECK(settings.seed == whole.seed);
  }
  CHECK(quick.plan->study.skip_frames == 1);
  CHECK(full.plan->study.skip_frames == 2);
  // The figure of budget 1000 has no run left: left out, so the plots do not fail on it.
  REQUIRE(quick.plan->study.figures.size() == 1);
  CHECK(quick.plan->study.figures[0]["file"] == "p.png");
  // Its own folder, so a quick look never takes the whole study's.
  CHECK(quick.plan->out == fs::path("results/studies/shrinkable-quick"));
  CHECK(full.plan->out == fs::path("results/studies/shrinkable"));
}

TEST_CASE("sweep --quick: says what it shrank, and leaves alone the frames that --set or a factor sets",
          "[cli][sweep]") {
  TempDir dir;
  write_study(dir.path(), sweep_base_config(5, false), kStudy);
  const Planned said = planned(dir, true, {}, false);
  REQUIRE(said.plan);
  CHECK(said.err ==
        "fovea sweep: --quick: 42 runs -> 6\n"
        "  budget: 3 levels -> 2, the first and last (300, 3000)\n"
        "  seed: 3 levels -> 1, the first (4)\n"
        "  repeat: 2 levels -> 1, the first (1)\n"
        "  every level kept: scheduler (2), speed (2)\n"
        "  exclude: 2 entries -> 1 (those matching no run left)\n"
        "  figures: 2 -> 1 (no run left has the `where` of p_1000.png)\n"
        "  frames: 40 -> 10; metrics.warmup_frames: 15 -> 3; metrics.skip_frames: 2 -> 1\n");
  // --quiet: nothing said, the same plan.
  const Planned quiet = planned(dir, true);
  REQUIRE(quiet.plan);
  CHECK(quiet.err.empty());
  CHECK(quiet.plan->fingerprint == said.plan->fingerprint);

  // --set frames: the user's frames, warm-up and skip_frames as they were.
  const Planned set = planned(dir, true, {"frames=30"}, false);
  REQUIRE(set.plan);
  CHECK(set.err.find("  frames: set by --set, kept\n") != std::string::npos);
  CHECK(set.plan->runs.size() == 6);
  CHECK(settings_of(*set.plan, set.plan->runs[0]).frames == 30);
  CHECK(settings_of(*set.plan, set.plan->runs[0]).metrics.warmup_frames == 15);
  CHECK(set.plan->study.skip_frames == 2);

  // A factor's frames: kept, and said.
  std::string by_factor = kStudy;
  by_factor.replace(by_factor.find("  seed:\n"), 0, "  length:\n    key: frames\n    values: [20, 40, 80]\n");
  write_study(dir.path(), sweep_base_config(5, false), by_factor);
  const Planned factor = planned(dir, true, {}, false);
  INFO(factor.err);
  REQUIRE(factor.plan);
  CHECK(factor.err.find("  length: 3 levels -> 2, the first and last (20, 80)\n") != std::string::npos);
  CHECK(factor.err.find("  frames: set by the factor length, kept\n") != std::string::npos);
  for (const PlannedRun& run : factor.plan->runs) {
    const std::string length = cells_of(*factor.plan, run)["length"];
    CHECK(settings_of(*factor.plan, run).frames == std::stoll(length));
  }

  // A study short already: nothing to cut.
  CHECK(quick_frames(10) == 10);
  CHECK(quick_frames(5) == 5);
  CHECK(quick_frames(101) == 11);
  CHECK(quick_frames(1000) == 100);
}

TEST_CASE("sweep --quick: runs its runs end to end: the table has its rows, of the quick frames after the warm-up",
          "[cli][sweep]") {
  TempDir dir;
  write_study(dir.path(), sweep_base_config(5, false), kStudy);
  SweepOptions options;
  options.study_path = (dir / "study.yaml").string();
  options.out = (dir / "out").string();
  options.quick = true;
  options.quiet = true;
  options.figures = false;
  options.jobs = 2;
  options.fovea_binary = FOVEA_BINARY;
  REQUIRE(sweep_command(options) == 0);
  const std::vector<std::string> lines = lines_of(read_file(dir / "out" / "table.csv"));
  REQUIRE(lines.size() == 7);
  const std::vector<std::string> header = split(lines[0]);
  const auto frames_column = static_cast<std::size_t>(std::find(header.begin(), header.end(), "frames") - header.begin());
  REQUIRE(frames_column < header.size());
  for (std::size_t i = 1; i < lines.size(); ++i) CHECK(split(lines[i])[frames_column] == "7");  // 10 frames, 3 of warm-up
  const auto json = nlohmann::json::parse(read_file(dir / "out" / "sweep.json"));
  CHECK(json["quick"] == true);
  CHECK(json["runs_total"] == 6);
}
