// The study part (docs/studies.md): a study file read and checked, its runs planned, shards,
// and each run's row summarised from its frames.csv, each against a slow obvious oracle.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "config/schema.hpp"
#include "core/format.hpp"
#include "record/csv_reader.hpp"
#include "core/rng.hpp"
#include "study/launch_order.hpp"
#include "study/study_plan.hpp"
#include "study/study_settings.hpp"
#include "study/study_table.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using test::TempDir;

namespace {

/// A study whose base config is a file in `dir`.
StudySettings load(const TempDir& dir, const std::string& text) {
  std::ofstream(dir / "base.yaml") << "name: base\nframes: 5\n";
  return load_study_text(text, "study.yaml", dir.path().string());
}

/// The message of the ConfigError loading `text` throws ("" when it loads).
std::string error_of(const TempDir& dir, const std::string& text) {
  try {
    const StudySettings study = load(dir, text);
    plan_runs(study);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

const char* kStudy = R"(name: s
base: base.yaml
set:
  frames: 3
factors:
  entities:
    - {value: 10, set: {"world.entities[0].count": 10, world.box_size_m: [4, 4, 4]}}
    - {value: 20, set: {"world.entities[0].count": 20, world.box_size_m: [5, 5, 5]}}
    - {value: 30, set: {"world.entities[0].count": 30, world.box_size_m: [6, 6, 6]}}
  scheduler:
    key: schedule.kind
    values: [round_robin, priority_queues]
  budget:
    - {value: {budget_mode: work, budget: 100}, set: {budget.mode: work, budget.tests: 100}}
    - {value: {budget_mode: wall, budget: 0.5}, set: {budget.mode: wall, budget.ms: 0.5}}
  seed:
    key: seed
    values: [1, 2, 3]
exclude:
  - {entities: 30, budget_mode: wall}
  - {scheduler: priority_queues, seed: [2, 3], entities: 10}
metrics:
  skip_frames: 1
  columns:
    p_true: [mean, p25, median, p75, p95]
    slack: {column: nabla_est, minus: nabla_true, stats: [min]}
figures:
  - {file: p.png, kind: lines, x: budget, y: [p_true_mean], series: scheduler, panels: entities, where: {budget_mode: work}}
  - {file: f.png, kind: distribution, x: scheduler, column: p_true, whiskers: [mean, p95], where: {budget_mode: wall}}
)";

}  // namespace

TEST_CASE("A study file: factors in both forms, their columns and the keys they set", "[study]") {
  TempDir dir;
  const StudySettings study = load(dir, kStudy);
  CHECK(study.name == "s");
  CHECK(study.base_config == (dir / "base.yaml").lexically_normal().string());
  REQUIRE(study.factors.size() == 4);
  CHECK(study.factor_columns() == std::vector<std::string>{"entities", "scheduler", "budget_mode", "budget", "seed"});
  CHECK(study.metric_columns() == std::vector<std::string>{"p_true_mean", "p_true_p25", "p_true_median", "p_true_p75",
                                                            "p_true_p95", "slack_min"});
  CHECK(study.table_columns().front() == "run");
  CHECK(study.table_columns()[6] == "frames");
  const FactorLevel& second = study.factors[0].levels[1];
  CHECK(second.cells == std::vector<std::string>{"20"});
  REQUIRE(second.sets.size() == 2);
  CHECK(second.sets[0].assignment == "world.entities[0].count=20");
  CHECK(second.sets[1].assignment == "world.box_size_m=[5, 5, 5]");
  CHECK(second.sets[0].shown_as == "study.yaml:8:25");
  CHECK(study.factors[1].levels[1].sets[0].assignment == "schedule.kind=priority_queues");
  CHECK(study.factors[2].levels[1].cells == std::vector<std::string>{"wall", "0.5"});
  CHECK(study.sets.size() == 1);
  CHECK(study.skip_frames == 1);
  REQUIRE(study.figures.size() == 2);
  CHECK(study.figures[0]["where"]["budget_mode"] == "work");
  CHECK(study.figures[0]["y"][0] == "p_true_mean");
}

TEST_CASE("The runs of a study are the crossing, last factor fastest, less the exclusions", "[study]") {
  TempDir dir;
  const StudySettings study = load(dir, kStudy);
  const std::vector<PlannedRun> runs = plan_runs(study);
  // The oracle: every combination by nested loops, filtered by the exclusions written out.
  std::vector<std::vector<std::size_t>> expected;
  for (std::size_t e = 0; e < 3; ++e)
    for (std::size_t s = 0; s < 2; ++s)
      for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t seed = 0; seed < 3; ++seed) {
          if (e == 2 && b == 1) continue;
          if (s == 1 && seed >= 1 && e == 0) continue;
          expected.push_back({e, s, b, seed});
        }
  REQUIRE(runs.size() == expected.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    INFO("run " << i);
    CHECK(runs[i].index == static_cast<std::int64_t>(i));
    std::vector<std::string> cells;
    for (std::size_t f = 0; f < 4; ++f) {
      const auto& level_cells = study.factors[f].levels[expected[i][f]].cells;
      cells.insert(cells.end(), level_cells.begin(), level_cells.end());
    }
    CHECK(runs[i].cells == cells);
    // The study's keys first, then each factor's in order.
    REQUIRE(runs[i].overrides.size() == 1 + 2 + 1 + 2 + 1);
    CHECK(runs[i].overrides[0].assignment == "frames=3");
    CHECK(runs[i].overrides.back().assignment == "seed=" + std::to_string(expected[i][3] + 1));
    CHECK(runs[i].cells[0] == std::to_string(10 * (expected[i][0] + 1)));
  }
}

TEST_CASE("Shards split the runs among them, each run in exactly one", "[study]") {
  for (const int count : {1, 2, 3, 7, 200}) {
    std::vector<int> owners(100, 0);
    for (int index = 0; index < count; ++index) {
      const std::optional<Shard> shard = parse_shard(std::to_string(index) + "/" + std::to_string(count));
      REQUIRE(shard);
      for (int run = 0; run < 100; ++run) owners[static_cast<std::size_t>(run)] += shard->contains(run) ? 1 : 0;
    }
    CHECK(std::all_of(owners.begin(), owners.end(), [](int n) { return n == 1; }));
  }
  for (const char* bad : {"2/2", "-1/2", "1/0", "1", "a/b", "1.5/3", "0/2/3", ""}) CHECK_FALSE(parse_shard(bad));
  // Slurm's array: the task counted from the array's first task.
  CHECK_FALSE(slurm_shard(nullptr, "4", nullptr));
  CHECK_FALSE(slurm_shard(nullptr, nullptr, nullptr));
  // A task without the count would run the whole study in every task: refused.
  CHECK_THROWS_WITH(slurm_shard("3", nullptr, nullptr), Catch::Contains("without SLURM_ARRAY_TASK_COUNT"));
  const std::optional<Shard> slurm = slurm_shard("3", "4", nullptr);
  REQUIRE(slurm);
  CHECK((slurm->index == 3 && slurm->count == 4));
  const std::optional<Shard> from_one = slurm_shard("4", "4", "1");
  REQUIRE(from_one);
  CHECK((from_one->index == 3 && from_one->count == 4));
  CHECK_THROWS_AS(slurm_shard("5", "4", "1"), std::invalid_argument);
  CHECK_THROWS_AS(slurm_shard("x", "4", nullptr), std::invalid_argument);
}

TEST_CASE("The plan's fingerprint changes with what the runs are and only with that", "[study]") {
  TempDir dir;
  const StudySettings study = load(dir, kStudy);
  const std::string base = "name: base\n";
  const std::string f = plan_fingerprint(base, plan_runs(study));
  const std::string t = table_fingerprint(study);
  CHECK(f.size() == 16);
  CHECK(plan_fingerprint(base, plan_runs(study)) == f);
  CHECK(plan_fingerprint(base + "frames: 2\n", plan_runs(study)) != f);
  const auto changed = [&](const std::string& from, const std::string& to) {
    std::string text = kStudy;
    text.replace(text.find(from), from.size(), to);
    const StudySettings other = load(dir, text);
    return std::pair{plan_fingerprint(base, plan_runs(other)) != f, table_fingerprint(other) != t};
  };
  CHECK(changed("values: [1, 2, 3]", "values: [1, 3, 2]") == std::pair{true, false});
  CHECK(changed("frames: 3", "frames: 4") == std::pair{true, false});
  CHECK(changed("budget.tests: 100}", "budget.tests: 101}") == std::pair{true, false});
  // How runs are summarised is the table's, not the runs': a resumed sweep may change it.
  CHECK(changed("skip_frames: 1", "skip_frames: 2") == std::pair{false, true});
  CHECK(changed("column: nabla_est, minus: nabla_true", "column: nabla_est, minus: p_true") == std::pair{false, true});
  CHECK(changed("p_true: [mean, p25,", "p_true: [mean, p20, p25,") == std::pair{false, true});
  // Figures are drawn from the table: changing them changes neither.
  CHECK(changed("file: p.png", "file: q.png") == std::pair{false, false});
  CHECK(run_folder_name(7, 4560) == "0007");
  CHECK(run_folder_name(12345, 20000) == "12345");
  CHECK(run_folder_name(3, 100000) == "00003");
}

TEST_CASE("Study errors name the file, line, column and key", "[study]") {
  TempDir dir;
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string text = kStudy;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return error_of(dir, text.replace(at, from.size(), to));
  };
  CHECK(error_of(dir, kStudy).empty());
  CHECK(with("factors:", "factor:") == "study.yaml:5:1: factor: unknown key; did you mean 'factors'?");
  // The name is the study's folder, results/studies/<name>/: "." and ".." would be
  // results/studies/ itself and results/ (core/folder_name.hpp, as a participant's id).
  CHECK(with("name: s", "name: ..") == "study.yaml:1:7: name: \"..\" names the folder above, not a folder of its own: it "
                                       "names the study's folder, results/studies/<name>/");
  CHECK(with("name: s", "name: .") == "study.yaml:1:7: name: \".\" names the folder it would sit in, not a folder of "
                                      "its own: it names the study's folder, results/studies/<name>/");
  CHECK(with("name: s", "name: " + std::string(65, 's')) ==
        "study.yaml:1:7: name: a name of 65 bytes, more than the 64 a folder's name may have: it names the study's "
        "folder, results/studies/<name>/");
  CHECK(with("name: s", "name: " + std::string(64, 's')).empty());
  CHECK(with("p_true: [mean, p25,", "p_true: [mean, p101,") ==
        "study.yaml:25:20: metrics.columns.p_true: expected a statistic: mean, sd, min, max, sum, median, count, "
        "or a percentile p<number> in (0, 100] such as p5 or p99.9; found \"p101\"");
  CHECK(with("base: base.yaml", "base: nothere.yaml").find("study.yaml:2:7: base: ") == 0);
  CHECK(with("{scheduler: priority_queues, seed: [2, 3]", "{scheduler: priority_queue, seed: [2, 3]") ==
        "study.yaml:21:17: exclude[1].scheduler: 'priority_queue' is not one of its levels");
  CHECK(with("{entities: 30, budget_mode: wall}", "{entities: 30, budget_mod: wall}") ==
        "study.yaml:20:20: exclude[0]: 'budget_mod' is not a factor's column; did you mean 'budget_mode'?");
  // Every value of every factor listed: it matches runs, so the study loads.
  CHECK(with("{entities: 30, budget_mode: wall}", "{entities: 30, scheduler: [round_robin, priority_queues], "
                                                  "budget: [100, 0.5], seed: [1, 2, 3]}")
            .empty());
  CHECK(with("x: budget, y: [p_true_mean]", "x: budget, y: [p_true_men]") ==
        "study.yaml:28:47: figures[0].y[0]: expected a column of the table, found \"p_true_men\"; did you mean 'p_true_mean'?");
  // The kinds and their keys (figure_kinds()), listed in the message.
  CHECK(with("kind: lines", "kind: bars") ==
        "study.yaml:28:25: figures[0].kind: expected lines, distribution, scatter or ratio, found \"bars\"");
  CHECK(with("kind: lines", "kind: ratio") ==
        "study.yaml:28:61: figures[0].series: unknown key; expected one of file, kind, title, where, panels, rows, x, y, "
        "compare, reference, pair, lines, log_x, log_y, x_label, y_label");
  CHECK(with("kind: distribution, x: scheduler,", "kind: distribution,") ==
        "study.yaml:29:5: figures[1].x: missing: a distribution figure needs it");
  CHECK(with("whiskers: [mean, p95]", "whiskers: [p5, p95]") ==
        "study.yaml:29:61: figures[1].column: the box needs the table column p_true_p5; add p5 to that metric's statistics");
  CHECK(with("  seed:\n    key: seed", "  seed:\n    key: seed\n    value: 3").find("factors.seed.value: unknown key; did you mean 'values'?") !=
        std::string::npos);
  CHECK(with("scheduler:\n    key", "budget:\n    key") == "study.yaml:13:3: factors.budget: duplicate key");
  CHECK(with("  seed:\n    key: seed", "  budget_mode:\n    key: seed") ==
        "study.yaml:16:3: factors.budget_mode: column 'budget_mode' is already a column of the table (run, frames, or an "
        "earlier factor's)");
  CHECK(with("figures:", "---\nfigures:") == "study.yaml:28:1: a config is one YAML document; this is a second one (after ---)");
  // Keys left out where they are needed: the line of the map that lacks them.
  CHECK(with(", set: {budget.mode: wall, budget.ms: 0.5}}", "}") ==
        "study.yaml:15:7: factors.budget[1].set: a level sets at least one config key");
  CHECK(with("{file: f.png, kind: distribution", "{kind: distribution") ==
        "study.yaml:29:5: figures[1].file: missing: expected a name (letters, digits, - _ .)");
  CHECK(with("slack: {column: nabla_est, minus", "slack: {minus") ==
        "study.yaml:26:12: metrics.columns.slack.column: missing: expected a name (letters, digits, - _ .)");
  CHECK(with("metrics:\n  skip_frames: 1\n  columns:", "metric:\n  skip_frames: 1\n  columns:") ==
        "study.yaml:22:1: metric: unknown key; did you mean 'metrics'?");
  // Two columns of one factor that never go together exclude nothing: an error, not a no-op.
  CHECK(with("{entities: 30, budget_mode: wall}", "{budget_mode: wall, budget: 100}") ==
        "study.yaml:20:5: exclude: matches no run of the crossing");
  // The sweep's --set cannot change what a factor varies.
  std::ofstream(dir / "base.yaml") << "name: base\nframes: 5\n";
  CHECK_THROWS_WITH(load_study_text(kStudy, "study.yaml", dir.path().string(), {config::set_override("seed=4")}),
                    "--set seed=4: seed is set by the factor seed; a value for every run cannot change what a factor "
                    "varies (edit the study instead)");
  CHECK(load_study_text(kStudy, "study.yaml", dir.path().string(), {config::set_override("frames=2")}).sets.size() == 2);
  CHECK(with("{value: {budget_mode: wall, budget: 0.5}", "{value: {mode: wall, budget: 0.5}") ==
        "study.yaml:15:15: factors.budget[1].value: every level of a factor names the same columns, in the same "
        "order, as its first level");
  CHECK(with("  - {entities: 30, budget_mode: wall}\n", "  - {seed: [1, 2, 3]}\n") == "study.yaml: exclude: every run is excluded");
}

TEST_CASE("repeats: N crosses a repeat column 1..N last, setting no key, and is checked like every key", "[study]") {
  TempDir dir;
  const std::string study_text = R"(name: s
base: base.yaml
factors:
  scheduler: {key: schedule.kind, values: [round_robin, priority_queues]}
  seed: {key: seed, values: [1, 2]}
repeats: 3
exclude:
  - {scheduler: priority_queues, repeat: 3}
metrics:
  columns:
    p_est: [mean]
figures:
  - {file: r.png, kind: lines, x: repeat, y: [p_est_mean], series: scheduler}
)";
  const StudySettings study = load(dir, study_text);
  CHECK(study.factor_columns() == std::vector<std::string>{"scheduler", "seed", "repeat"});
  CHECK(study.table_columns() ==
        std::vector<std::string>{"run", "scheduler", "seed", "repeat", "frames", "p_est_mean"});
  const std::vector<PlannedRun> runs = plan_runs(study);
  // The oracle: nested loops, repeat innermost, less priority queues' third repeat.
  std::vector<std::vector<std::string>> expected;
  for (const char* scheduler : {"round_robin", "priority_queues"})
    for (const char* seed : {"1", "2"})
      for (const char* repeat : {"1", "2", "3"})
        if (!(std::string(scheduler) == "priority_queues" && std::string(repeat) == "3"))
          expected.push_back({scheduler, seed, repeat});
  REQUIRE(runs.size() == expected.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    INFO("run " << i);
    CHECK(runs[i].cells == expected[i]);
    // A repeat sets nothing: the same keys as the run's first repeat, so the same config.
    REQUIRE(runs[i].overrides.size() == 2);
    const std::size_t first_repeat = i - static_cast<std::size_t>(std::stoi(expected[i][2]) - 1);
    CHECK(runs[i].overrides[0].assignment == runs[first_repeat].overrides[0].assignment);
    CHECK(runs[i].overrides[1].assignment == runs[first_repeat].overrides[1].assignment);
  }
  // Two repeats are two runs: the plan's fingerprint tells them apart.
  std::string two = study_text;
  two.replace(two.find("repeats: 3"), 10, "repeats: 2");
  two.replace(two.find("repeat: 3}"), 10, "repeat: 2}");
  CHECK(plan_fingerprint("", plan_runs(load(dir, two))) != plan_fingerprint("", runs));

  const auto with = [&](const std::string& from, const std::string& to) {
    std::string text = study_text;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return error_of(dir, text.replace(at, from.size(), to));
  };
  for (const auto& [bad, found] : std::vector<std::pair<std::string, std::string>>{
           {"0", "0"}, {"1001", "1001"}, {"2.5", "2.5"}, {"-1", "-1"}, {"many", "\"many\""}, {"[2]", "a list"}})
    CHECK(with("repeats: 3", "repeats: " + bad) ==
          "study.yaml:6:10: repeats: expected a whole number from 1 to 1000, found " + found);
  CHECK(with("repeats: 3", "repeats: 1000").empty());
  CHECK(with("repeats: 3", "repeat: 3") == "study.yaml:6:1: repeat: unknown key; did you mean 'repeats'?");
  CHECK(with("  seed: {key: seed", "  repeat: {key: seed") ==
        "study.yaml:6:10: repeats: the column 'repeat' it adds is already a factor's column; drop that factor or "
        "`repeats`");
  CHECK(with("repeat: 3}", "repeat: 4}") == "study.yaml:8:42: exclude[0].repeat: '4' is not one of its levels");
}

TEST_CASE("Timed runs launch in one seeded shuffle of the study, restricted to the runs asked for", "[study]") {
  std::vector<std::int64_t> all(40);
  std::iota(all.begin(), all.end(), std::int64_t{0});
  const std::uint64_t seed = launch_order_seed("00c0ffee12345678");
  CHECK(seed == 0x00c0ffee12345678ull);
  const std::vector<std::int64_t> order = shuffled_launch_order(all, 40, seed);
  // A permutation, not the plan's order, the same twice; another seed gives another.
  std::vector<std::int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == all);
  CHECK(order != all);
  CHECK(shuffled_launch_order(all, 40, seed) == order);
  CHECK(shuffled_launch_order(all, 40, seed + 1) != order);
  // The oracle: Fisher-Yates on the launch-order stream, written out.
  std::vector<std::int64_t> shuffled = all;
  Rng rng(seed, rng_stream(RngStream::launch_order));
  for (std::size_t i = shuffled.size(); i > 1; --i) std::swap(shuffled[i - 1], shuffled[rng.below(i)]);
  CHECK(order == shuffled);
  // A shard's share (every third run, given in any order) launches as the study's order has
  // it: the whole order with the other runs left out.
  std::vector<std::int64_t> share = {33, 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 36, 39};
  std::vector<std::int64_t> expected;
  for (const std::int64_t run : order)
    if (run % 3 == 0) expected.push_back(run);
  CHECK(shuffled_launch_order(share, 40, seed) == expected);
  CHECK(shuffled_launch_order({}, 40, seed).empty());
  CHECK_THROWS_AS(shuffled_launch_order({40}, 40, seed), std::invalid_argument);
  CHECK_THROWS_AS(shuffled_launch_order({-1}, 40, seed), std::invalid_argument);
  CHECK_THROWS_AS(launch_order_seed(""), std::invalid_argument);
  CHECK_THROWS_AS(launch_order_seed("xyz"), std::invalid_argument);
  CHECK_THROWS_AS(launch_order_seed("00c0ffee123456789"), std::invalid_argument);
}

TEST_CASE("A run's row: every statistic against its definition, missing cells left out", "[study]") {
  TempDir dir;
  const StudySettings study = load(dir, R"(name: s
base: base.yaml
factors:
  seed: {key: seed, values: [5]}
metrics:
  skip_frames: 2
  columns:
    a: [mean, sd, min, max, sum, median, count, p5, p50, p95, p99.9, p100]
    d: {column: a, minus: b, stats: [min, max, count]}
    e: [mean, sd, count]
)");
  // Frames 0 and 1 are skipped; a's values from frame 2 on, b with one missing cell.
  std::string csv = "frame,a,b,e\n0,1000,0,\n1,-1000,0,\n";
  std::vector<double> a;
  std::vector<double> d;
  std::uint64_t state = 7;
  for (int frame = 2; frame < 42; ++frame) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double value = static_cast<double>(state >> 40) / 1000.0 - 5000.0;
    a.push_back(value);
    const bool b_missing = frame == 10;
    if (!b_missing) d.push_back(value - frame);
    csv += std::to_string(frame) + "," + format_number(value) + "," + (b_missing ? "" : std::to_string(frame)) + ",\n";
  }
  const std::vector<PlannedRun> runs = plan_runs(study);
  const std::vector<std::string> row = summarise_run(study, runs[0], parse_csv(csv, "frames.csv"), "frames.csv");
  REQUIRE(row.size() == study.table_columns().size());
  CHECK(row[0] == "0");
  CHECK(row[1] == "5");
  CHECK(row[2] == "40");
  const auto cell = [&](const std::string& column) {
    const auto names = study.table_columns();
    return row[static_cast<std::size_t>(std::find(names.begin(), names.end(), column) - names.begin())];
  };
  const auto number = [&](const std::string& column) { return parse_number(cell(column)).value(); };
  // The oracle: the definitions, computed plainly.
  double sum = 0;
  for (const double v : a) sum += v;
  const double mean = sum / 40;
  double squares = 0;
  for (const double v : a) squares += (v - mean) * (v - mean);
  std::vector<double> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  // Nearest rank: the smallest value with at least q % of the values at or below it.
  const auto rank = [&](double q) {
    for (const double v : sorted)
      if (static_cast<double>(std::count_if(sorted.begin(), sorted.end(), [&](double w) { return w <= v; })) >= q / 100 * 40)
        return v;
    return sorted.back();
  };
  CHECK(number("a_mean") == Approx(mean).epsilon(1e-12));
  CHECK(number("a_sd") == Approx(std::sqrt(squares / 39)).epsilon(1e-12));
  CHECK(number("a_min") == sorted.front());
  CHECK(number("a_max") == sorted.back());
  CHECK(number("a_sum") == Approx(sum).epsilon(1e-12));
  CHECK(number("a_median") == 0.5 * (sorted[19] + sorted[20]));
  CHECK(cell("a_count") == "40");
  CHECK(number("a_p5") == rank(5));
  CHECK(number("a_p50") == rank(50));
  CHECK(number("a_p95") == rank(95));
  CHECK(number("a_p99.9") == rank(99.9));
  CHECK(number("a_p100") == sorted.back());
  CHECK(cell("d_count") == "39");
  CHECK(number("d_min") == *std::min_element(d.begin(), d.end()));
  CHECK(number("d_max") == *std::max_element(d.begin(), d.end()));
  // A column with no value in any frame: empty cells, a count of 0.
  CHECK(cell("e_mean").empty());
  CHECK(cell("e_sd").empty());
  CHECK(cell("e_count") == "0");
  // A metric reading a column the run did not write.
  CHECK_THROWS_WITH(summarise_run(study, runs[0], parse_csv("frame,a\n0,1\n", "x/frames.csv"), "x/frames.csv"),
                    Catch::Contains("study.yaml:9:5: metrics.columns.d: x/frames.csv has no column 'b'"));
}

TEST_CASE("A run's mean and sd of values near the largest double are finite, not inf (issue 42, 13)", "[study]") {
  TempDir dir;
  const StudySettings study = load(dir, R"(name: s
base: base.yaml
factors:
  seed: {key: seed, values: [5]}
metrics:
  skip_frames: 0
  columns:
    collisions: [mean, sd]
)");
  // A plain sum of these overflows to inf; their mean is 1.7e308 and their sd 0.
  const std::string csv = "frame,collisions\n0,1.7e308\n1,1.7e308\n2,1.7e308\n3,1.7e308\n4,1.7e308\n";
  const std::vector<std::string> row = summarise_run(study, plan_runs(study)[0], parse_csv(csv, "frames.csv"), "frames.csv");
  const auto names = study.table_columns();
  const auto cell = [&](const std::string& column) {
    return row[static_cast<std::size_t>(std::find(names.begin(), names.end(), column) - names.begin())];
  };
  CHECK(cell("collisions_mean") == "1.7e+308");
  CHECK(cell("collisions_sd") == "0");
}

TEST_CASE("The table reads back as written, and a foreign or broken one is refused", "[study]") {
  TempDir dir;
  const std::vector<std::string> columns = {"run", "placement", "frames", "p_mean"};
  StudyRows rows;
  rows[3] = {"3", "packed, tight", "10", "0.25"};
  rows[0] = {"0", "uniform", "10", ""};
  const std::string path = (dir / "table.csv").string();
  write_study_table(path, columns, rows);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "run,placement,frames,p_mean\n0,uniform,10,\n3,\"packed, tight\",10,0.25\n");
  CHECK(read_study_table(path, columns) == rows);
  CHECK_THROWS_WITH(read_study_table(path, {"run", "frames"}), Catch::Contains("its columns are not this study's"));
  std::ofstream(path) << "run,placement,frames,p_mean\n1,a,1,1\n1,b,1,1\n";
  CHECK_THROWS_WITH(read_study_table(path, columns), Catch::Contains(":3: run 1 appears twice"));
}
