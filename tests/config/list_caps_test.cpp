// The caps on lists (issue 42; docs/formats.md, "Lists and their caps"): every list a config,
// an experiment spec, a study file or a command line can make long has a named cap, and each
// is accepted at its edge and refused one past it, at its key. The config's and the spec's
// caps are read from their schemas (KeyInfo::max_items), so a list key added without a cap,
// or without a case here, fails the first test; the study file's are a table of their own.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/settings_schema.hpp"
#include "core/file_read.hpp"
#include "study/study_plan.hpp"
#include "study/study_settings.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using fovea::config::ConfigError;
using fovea::config::KeyInfo;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

/// How to make one list of the schema valid at any length up to its cap: its i-th element
/// (YAML), and the other keys it needs (overrides, applied after the file).
struct ListCase {
  std::function<std::string(std::size_t)> element;
  std::vector<std::string> context;
};

/// The names a list of names takes, from its type: "list of a, b, c, each at most once".
std::vector<std::string> names_of(const KeyInfo& key) {
  const std::string prefix = "list of ", suffix = ", each at most once";
  REQUIRE(key.type.rfind(prefix, 0) == 0);
  REQUIRE(key.type.size() > prefix.size() + suffix.size());
  const std::string all = key.type.substr(prefix.size(), key.type.size() - prefix.size() - suffix.size());
  std::vector<std::string> names;
  for (std::size_t at = 0; at <= all.size();) {
    const std::size_t comma = all.find(", ", at);
    names.push_back(all.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 2;
  }
  return names;
}

/// "a.b.c" holding `elements` as YAML text: a map for each step, the list in flow style.
std::string nested_list(const std::string& path, std::size_t count, const std::function<std::string(std::size_t)>& element) {
  std::string text, indent;
  std::size_t at = 0;
  for (std::size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', at)) {
    text += indent + path.substr(at, dot - at) + ":\n";
    indent += "  ";
    at = dot + 1;
  }
  text += indent + path.substr(at) + ": [";
  for (std::size_t i = 0; i < count; ++i) text += (i ? ", " : "") + element(i);
  return text + "]\n";
}

std::vector<config::Override> overrides_of(const std::vector<std::string>& sets) {
  std::vector<config::Override> overrides;
  for (const std::string& s : sets) overrides.push_back(config::set_override(s));
  return overrides;
}

/// The schema's list keys: every key whose type is a list, but for lists of exactly 3 numbers.
std::vector<KeyInfo> list_keys(const std::vector<KeyInfo>& keys) {
  std::vector<KeyInfo> lists;
  for (const KeyInfo& key : keys)
    if (key.type.rfind("list of", 0) == 0 && key.type.rfind("list of 3 numbers", 0) != 0) lists.push_back(key);
  return lists;
}

/// "" when `load` accepts, else its message.
std::string error_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

/// The cap's message for `count` elements of a list whose elements are `what`.
std::string cap_message(const KeyInfo& key, const std::string& what) {
  return key.path + ": expected at most " + std::to_string(key.max_items) + " " + what + ", found " +
         std::to_string(key.max_items + 1);
}

/// What a list's elements are called in its cap's message: "numbers", "names", or its noun.
std::string element_word(const KeyInfo& key) {
  if (key.type.find(" numbers") != std::string::npos) return "numbers";
  if (key.type.find("each at most once") != std::string::npos) return "names";
  return key.type.substr(("list of at most " + std::to_string(key.max_items) + " ").size());
}

/// Each list key at its cap and one past it: `load(text, overrides)` reads the document.
void check_caps(const std::vector<KeyInfo>& keys, const std::map<std::string, ListCase>& cases,
                const std::function<void(const std::string&, const std::vector<config::Override>&)>& load) {
  const std::vector<KeyInfo> lists = list_keys(keys);
  REQUIRE(lists.size() >= 3);
  for (const KeyInfo& key : lists) {
    INFO(key.path << " (" << key.type << ")");
    CHECK(key.max_items > 0);  // every list has a cap
    const auto found = cases.find(key.path);
    REQUIRE(found != cases.end());  // and a case here
    ListCase list = found->second;
    if (!list.element) {
      const std::vector<std::string> names = names_of(key);
      CHECK(names.size() == key.max_items);  // a list of names: each at most once
      list.element = [names](std::size_t i) { return names[i % names.size()]; };
    }
    CHECK((key.type.find(std::to_string(key.max_items)) != std::string::npos ||
           key.type.find("each at most once") != std::string::npos));  // `fovea keys` names the cap
    const auto overrides = overrides_of(list.context);
    const std::string at_cap = nested_list(key.path, key.max_items, list.element);
    CHECK(error_of([&] { load(at_cap, overrides); }) == "");
    const std::string past = error_of([&] { load(nested_list(key.path, key.max_items + 1, list.element), overrides); });
    CHECK_THAT(past, StartsWith("caps.yaml:"));
    CHECK_THAT(past, Contains(cap_message(key, element_word(key))));
  }
  for (const auto& [path, list] : cases) {
    INFO("a case for a key that is no list of the schema: " << path);
    CHECK(std::any_of(lists.begin(), lists.end(), [&](const KeyInfo& k) { return k.path == path; }));
  }
}

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string numbers(std::size_t count, const std::function<double(std::size_t)>& value) {
  std::string text = "[";
  for (std::size_t i = 0; i < count; ++i) text += (i ? ", " : "") + number(value(i));
  return text + "]";
}

/// The distinct tree sets evaluate.trees takes (a sixth is refused by its cap before its
/// value is read).
const std::vector<std::string> kTreeSets = {"{builder: octree, fit: cell}", "{builder: octree, fit: voxels}",
                                            "{builder: tightest, fit: cell}", "{builder: tightest, fit: voxels}",
                                            "{builder: medial}", "{builder: medial}"};

/// The config's lists, each valid at any length up to its cap.
std::map<std::string, ListCase> config_cases() {
  return {
      {"world.entities", {[](std::size_t i) { return "{name: g" + std::to_string(i) + ", count: 0}"; }, {}}},
      {"schedule.band_edges",
       {[](std::size_t i) { return number(1.0 - static_cast<double>(i + 1) / 100.0); },
        {"schedule.kind=priority_queues", "schedule.queues=64"}}},
      {"evaluate.schedulers", {nullptr, {"ground_truth=true"}}},
      {"evaluate.gaze", {nullptr, {}}},
      {"evaluate.budgets", {[](std::size_t i) { return "{mode: work, tests: " + std::to_string(1000 + i) + "}"; }, {}}},
      {"evaluate.trees", {[](std::size_t i) { return kTreeSets.at(i); }, {"evaluate.schedulers=[round_robin]"}}},
      {"render.overlays.rings_deg", {[](std::size_t i) { return std::to_string(i + 1); }, {}}},
      {"demo.rockfall.player.path",
       {[](std::size_t i) { return "{x_m: " + std::to_string(i) + ", z_m: 0}"; }, {}}},
  };
}

/// The experiment spec's lists; clip scenes are world configs written into `folder`.
std::map<std::string, ListCase> experiment_cases(const std::filesystem::path& folder) {
  const std::string scene = (folder / "scene.yaml").string();
  const std::string clip_scene = "clip_comparison.scenes=[{name: s, file: " + scene + "}]";
  return {
      {"constant_stimuli.gaps_deg",
       {[](std::size_t i) { return number(0.01 * static_cast<double>(i + 1)); }, {"constant_stimuli.eccentricities_deg=[0]"}}},
      {"constant_stimuli.eccentricities_deg",
       {[](std::size_t i) { return number(0.1 * static_cast<double>(i)); }, {"constant_stimuli.gaps_deg=[1]"}}},
      {"staircase.eccentricities_deg",
       {[](std::size_t i) { return number(0.1 * static_cast<double>(i)); },
        {"method=staircase", "staircase.start_values_deg=[1]"}}},
      {"staircase.start_values_deg",
       {[](std::size_t) { return std::string("1"); },
        {"method=staircase", "staircase.eccentricities_deg=" +
                                 numbers(kMaxSpecEccentricities, [](std::size_t i) { return 0.1 * static_cast<double>(i); })}}},
      {"staircase.step_sizes",
       {[](std::size_t i) { return number(4.0 / static_cast<double>(i + 1)); },
        {"method=staircase", "staircase.eccentricities_deg=[0]", "staircase.start_values_deg=[1]"}}},
      {"psi.eccentricities_deg", {[](std::size_t i) { return number(0.1 * static_cast<double>(i)); }, {"method=psi"}}},
      {"clip_comparison.scenes",
       {[scene](std::size_t i) { return "{name: s" + std::to_string(i) + ", file: " + scene + "}"; },
        {"method=clip_comparison", "clip_comparison.schedulers=[hybrid]", "clip_comparison.budgets_tests=[1000]"}}},
      {"clip_comparison.schedulers",
       {nullptr, {"method=clip_comparison", clip_scene, "clip_comparison.budgets_tests=[1000]"}}},
      {"clip_comparison.budgets_tests",
       {[](std::size_t i) { return std::to_string(1000 + i); },
        {"method=clip_comparison", clip_scene, "clip_comparison.schedulers=[hybrid]"}}},
  };
}

}  // namespace

TEST_CASE("list caps: every list of a config is accepted at its cap and refused one past it, at its key",
          "[config][caps]") {
  check_caps(config::config_keys(), config_cases(),
             [](const std::string& text, const std::vector<config::Override>& overrides) {
               (void)config::load_config_text(text, "caps.yaml", overrides);
             });
}

TEST_CASE("list caps: every list of an experiment spec is accepted at its cap and refused one past it, at its key",
          "[config][caps][psychophysics]") {
  test::TempDir dir;
  test::write_file(dir / "scene.yaml", "frames: 5\n");
  check_caps(config::experiment_keys(), experiment_cases(dir.path()),
             [](const std::string& text, const std::vector<config::Override>& overrides) {
               (void)config::load_experiment_text(text, "caps.yaml", overrides);
             });
}

TEST_CASE("list caps: a config with every list at its cap writes back a config fovea reads again", "[config][caps]") {
  // Issue 42: 20,000 evaluate.budgets wrote back a 1.46 MB config.yaml that fovea validate
  // refused as over 1 MiB. Every list at its cap at once, as the run writes it back: every
  // key resolved.
  const std::map<std::string, ListCase> cases = config_cases();
  std::string text = "ground_truth: true\nschedule: {kind: priority_queues, queues: 64}\n";
  std::vector<std::string> sets;
  for (const KeyInfo& key : list_keys(config::config_keys())) {
    const ListCase& list = cases.at(key.path);
    std::string elements = "[";
    const std::vector<std::string> names =
        list.element ? std::vector<std::string>{} : names_of(key);
    for (std::size_t i = 0; i < key.max_items; ++i)
      elements += (i ? ", " : "") + (list.element ? list.element(i) : names[i]);
    sets.push_back(key.path + "=" + elements + "]");
  }
  const config::LoadedConfig loaded = config::load_config_text(text, "caps.yaml", overrides_of(sets));
  CHECK(loaded.settings.world.entities.size() == config::kMaxEntityGroups);
  CHECK(loaded.settings.evaluate.budgets.size() == config::kMaxEvaluatedBudgets);
  const std::string written = config::resolved_yaml(loaded.settings);
  INFO(written.size() << " bytes");
  CHECK(written.size() < kMaxConfigFileBytes / 2);  // far from the limit, with room for long paths
  const config::LoadedConfig again = config::load_config_text(written, "config.yaml", std::vector<config::Override>{});
  CHECK(config::resolved_yaml(again.settings) == written);
}

TEST_CASE("list caps: a config whose written-back form would pass 1 MiB is said to be one", "[config][caps]") {
  // Long names are allowed, and each group's written-back form adds every key: 256 groups
  // named with 3.5 KB each fit in a 0.9 MiB config and write back more than 1 MiB.
  std::string text = "world:\n  entities:\n";
  for (std::size_t g = 0; g < config::kMaxEntityGroups; ++g)
    text += "    - {count: 0, name: " + std::string(3500, 'a') + std::to_string(g) + "}\n";
  REQUIRE(text.size() < kMaxConfigFileBytes);
  const config::LoadedConfig loaded = config::load_config_text(text, "long.yaml", std::vector<config::Override>{});
  CHECK_THAT(config::written_back_problem(loaded),
             StartsWith("long.yaml: the config a run writes back (config.yaml: every key, paths made absolute) would be "));
  CHECK_THAT(config::written_back_problem(loaded), Contains(" bytes, more than the 1 MiB a config may be;"));
  // At 3 KB each it fits: nothing to say.
  std::string shorter = "world:\n  entities:\n";
  for (std::size_t g = 0; g < config::kMaxEntityGroups; ++g)
    shorter += "    - {count: 0, name: " + std::string(3000, 'a') + std::to_string(g) + "}\n";
  CHECK(config::written_back_problem(config::load_config_text(shorter, "long.yaml", std::vector<config::Override>{})) == "");
}

TEST_CASE("list caps: a config takes at most kMaxOverrides keys set on it", "[config][caps]") {
  std::vector<config::Override> overrides(config::kMaxOverrides, config::set_override("frames=5"));
  CHECK(error_of([&] { (void)config::load_config_text("", "sets.yaml", overrides); }) == "");
  overrides.push_back(config::set_override("frames=6"));
  CHECK(error_of([&] { (void)config::load_config_text("", "sets.yaml", overrides); }) ==
        "sets.yaml: 4097 keys set on it (--set, a study's set and its levels'), more than the 4096 one config may take");
  CHECK(error_of([&] { (void)config::load_experiment_text("", "sets.yaml", overrides); }) ==
        "sets.yaml: 4097 keys set on it (--set, a study's set and its levels'), more than the 4096 one config may take");
}

namespace {

/// One of a study file's caps: the study's text with `n` elements of the list, the key its
/// message names, and the elements' word in it.
struct StudyCase {
  const char* name;
  std::size_t cap;
  std::function<std::string(std::size_t)> study;
  std::string key;
  std::string what;
};

std::string joined(std::size_t n, const std::function<std::string(std::size_t)>& element) {
  std::string text;
  for (std::size_t i = 0; i < n; ++i) text += (i ? ", " : "") + element(i);
  return text;
}

std::string index_text(std::size_t i) { return std::to_string(i); }

/// A study around the parts a case varies: `factors` (the `factors:` map's lines), then
/// `tail` (exclude, metrics, figures...); metrics default to one.
std::string study_text(const std::string& factors, const std::string& tail = "",
                       const std::string& metrics = "  columns: {p_est: [mean]}\n", const std::string& head = "") {
  return "name: caps\nbase: base.yaml\n" + head + "factors:\n" + factors + tail + "metrics:\n" + metrics;
}

const std::string kSeedFactor = "  seed: {key: seed, values: [1, 2]}\n";

std::vector<StudyCase> study_cases() {
  const auto thousand_seeds = [] { return "  seed: {key: seed, values: [" + joined(kMaxFactorLevels, index_text) + "]}\n"; };
  return {
      {"factors", kMaxFactors,
       [](std::size_t n) {
         std::string factors;
         for (std::size_t f = 0; f < n; ++f) factors += "  f" + std::to_string(f) + ": {key: seed, values: [1]}\n";
         return study_text(factors);
       },
       "factors", "factors"},
      {"a factor's values", kMaxFactorLevels,
       [](std::size_t n) { return study_text("  seed: {key: seed, values: [" + joined(n, index_text) + "]}\n"); },
       "factors.seed.values", "values"},
      {"a factor's levels", kMaxFactorLevels,
       [](std::size_t n) {
         return study_text("  seed:\n" + [&] {
           std::string levels;
           for (std::size_t i = 0; i < n; ++i) levels += "    - {value: " + std::to_string(i) + ", set: {seed: " + std::to_string(i) + "}}\n";
           return levels;
         }());
       },
       "factors.seed", "levels"},
      {"a level's columns", kMaxLevelColumns,
       [](std::size_t n) {
         return study_text("  pair:\n    - {value: {" + joined(n, [](std::size_t i) { return "c" + std::to_string(i) + ": 1"; }) +
                           "}, set: {seed: 1}}\n");
       },
       "factors.pair[0].value", "columns"},
      {"the study's set", kMaxStudySetKeys,
       [](std::size_t n) {
         return study_text(kSeedFactor, "", "  columns: {p_est: [mean]}\n",
                           "set: {" + joined(n, [](std::size_t i) { return "k" + std::to_string(i) + ": 1"; }) + "}\n");
       },
       "set", "config keys"},
      {"a level's set", kMaxLevelSetKeys,
       [](std::size_t n) {
         return study_text("  level:\n    - {value: a, set: {" +
                           joined(n, [](std::size_t i) { return "k" + std::to_string(i) + ": 1"; }) + "}}\n");
       },
       "factors.level[0].set", "config keys"},
      {"exclude", kMaxExclusions,
       [thousand_seeds](std::size_t n) {
         return study_text(thousand_seeds(), "exclude:\n" + [&] {
           std::string entries;
           for (std::size_t i = 0; i < n; ++i) entries += "  - {seed: " + std::to_string(i) + "}\n";
           return entries;
         }());
       },
       "exclude", "entries"},
      {"an exclusion's values", kMaxFactorLevels,
       [thousand_seeds](std::size_t n) {
         return study_text(thousand_seeds() + "  other: {key: frames, values: [5, 6]}\n",
                           "exclude:\n  - {other: 5, seed: [" +
                               joined(n, [](std::size_t i) { return std::to_string(i % kMaxFactorLevels); }) + "]}\n");
       },
       "exclude[0].seed", "values"},
      {"metrics", kMaxMetrics,
       [](std::size_t n) {
         return study_text(kSeedFactor, "",
                           "  columns: {" + joined(n, [](std::size_t i) { return "m" + std::to_string(i) + ": [mean]"; }) + "}\n");
       },
       "metrics.columns", "metrics"},
      {"a metric's statistics", kMaxMetricStats,
       [](std::size_t n) {
         return study_text(kSeedFactor, "",
                           "  columns: {p_est: [" + joined(n, [](std::size_t i) { return "p" + std::to_string(i + 1); }) + "]}\n");
       },
       "metrics.columns.p_est", "statistics"},
      {"figures", kMaxFigures,
       [](std::size_t n) {
         std::string figures = "figures:\n";
         for (std::size_t i = 0; i < n; ++i)
           figures += "  - {file: f" + std::to_string(i) + ".png, kind: lines, x: seed, y: p_est_mean}\n";
         return study_text(kSeedFactor, "", "  columns: {p_est: [mean]}\n") + figures;
       },
       "figures", "figures"},
      {"a figure's y", kMaxFigureColumns,
       [](std::size_t n) {
         return study_text(kSeedFactor) + "figures:\n  - {file: f.png, kind: lines, x: seed, y: [" +
                joined(n, [](std::size_t) { return std::string("p_est_mean"); }) + "]}\n";
       },
       "figures[0].y", "columns"},
      {"a figure's pair", kMaxFigureColumns,
       [](std::size_t n) {
         return study_text(kSeedFactor) +
                "figures:\n  - {file: f.png, kind: ratio, x: seed, y: p_est_mean, compare: seed, reference: 1, pair: [" +
                joined(n, [](std::size_t) { return std::string("seed"); }) + "]}\n";
       },
       "figures[0].pair", "columns"},
      {"a figure's where", kMaxFigureColumns,
       [](std::size_t n) {
         const std::string metrics =
             "  columns: {" + joined(n, [](std::size_t i) { return "m" + std::to_string(i) + ": [mean]"; }) + "}\n";
         return study_text(kSeedFactor, "", metrics) + "figures:\n  - {file: f.png, kind: lines, x: seed, y: m0_mean, where: {" +
                joined(n, [](std::size_t i) { return "m" + std::to_string(i) + "_mean: 1"; }) + "}}\n";
       },
       "figures[0].where", "columns"},
      {"a figure's where values", kMaxFactorLevels,
       [](std::size_t n) {
         return study_text(kSeedFactor) + "figures:\n  - {file: f.png, kind: lines, x: seed, y: p_est_mean, where: {seed: [" +
                joined(n, [](std::size_t) { return std::string("1"); }) + "]}}\n";
       },
       "figures[0].where.seed", "values"},
  };
}

}  // namespace

TEST_CASE("list caps: every list of a study file is accepted at its cap and refused one past it, at its key",
          "[study][caps]") {
  test::TempDir dir;
  test::write_file(dir / "base.yaml", "frames: 5\n");
  for (const StudyCase& c : study_cases()) {
    INFO(c.name);
    const auto load = [&](std::size_t n) {
      return error_of([&] {
        const StudySettings study = load_study_text(c.study(n), "caps.yaml", dir.path().string());
        (void)plan_runs(study);
      });
    };
    CHECK(load(c.cap) == "");
    const std::string past = load(c.cap + 1);
    CHECK_THAT(past, StartsWith("caps.yaml:"));
    CHECK_THAT(past, Contains(c.key + ": expected at most " + std::to_string(c.cap) + " " + c.what + ", found " +
                              std::to_string(c.cap + 1)));
  }
}

TEST_CASE("list caps: a study's crossing is planned at kMaxStudyRuns runs and refused one past it", "[study][caps]") {
  test::TempDir dir;
  test::write_file(dir / "base.yaml", "frames: 5\n");
  // Two factors crossing to exactly the cap, then with one level more of the first.
  constexpr std::size_t kSecond = 100;
  static_assert(kMaxStudyRuns % kSecond == 0 && kMaxStudyRuns / kSecond < kMaxFactorLevels);
  const auto study = [](std::size_t first_levels) {
    return study_text("  a: {key: seed, values: [" + joined(first_levels, index_text) + "]}\n" +
                      "  b: {key: frames, values: [" + joined(kSecond, [](std::size_t i) { return std::to_string(i + 1); }) +
                      "]}\n");
  };
  const std::vector<PlannedRun> runs = plan_runs(load_study_text(study(kMaxStudyRuns / kSecond), "caps.yaml", dir.path().string()));
  CHECK(runs.size() == kMaxStudyRuns);
  CHECK(runs.back().index == static_cast<std::int64_t>(kMaxStudyRuns) - 1);
  CHECK(error_of([&] { (void)plan_runs(load_study_text(study(kMaxStudyRuns / kSecond + 1), "caps.yaml", dir.path().string())); }) ==
        "caps.yaml: factors: the crossing has more than " + std::to_string(kMaxStudyRuns) +
            " runs; split the study, or use fewer levels");
}

TEST_CASE("list caps: a study whose runs would set more than kMaxOverrides keys is refused when it is read",
          "[study][caps]") {
  test::TempDir dir;
  test::write_file(dir / "base.yaml", "frames: 5\n");
  const std::string study = study_text(kSeedFactor);
  // The sweep's --set is every run's: at the cap with the factor's one key, and one past.
  std::vector<config::Override> sets(config::kMaxOverrides - 1, config::set_override("frames=5"));
  CHECK(error_of([&] { (void)load_study_text(study, "caps.yaml", dir.path().string(), sets); }) == "");
  sets.push_back(config::set_override("frames=5"));
  CHECK(error_of([&] { (void)load_study_text(study, "caps.yaml", dir.path().string(), sets); }) ==
        "caps.yaml: a run would set 4097 config keys (set, --set and one level of each factor), more than the 4096 "
        "one config may take");
}

TEST_CASE("list caps: a study is split into at most kMaxShards shards", "[study][caps]") {
  const std::string cap = std::to_string(kMaxShards);
  CHECK(parse_shard("0/" + cap));
  CHECK(parse_shard(std::to_string(kMaxShards - 1) + "/" + cap));
  CHECK_FALSE(parse_shard("0/" + std::to_string(kMaxShards + 1)));
  CHECK(slurm_shard("0", cap.c_str(), nullptr));
  CHECK_THROWS_WITH(slurm_shard("0", std::to_string(kMaxShards + 1).c_str(), nullptr), Contains("not a job array's task"));
}

namespace {

/// The type cell of each key row (`| \`key\` | type | ...`) of a doc.
std::map<std::string, std::string> documented_types(const std::string& doc) {
  std::map<std::string, std::string> types;
  std::istringstream in(test::read_file(std::string(FOVEA_SOURCE_DIR) + "/" + doc));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::size_t key_end = line.find('`', 3);
    const std::size_t type_start = line.find("| ", key_end) + 2;
    types[line.substr(3, key_end - 3)] = line.substr(type_start, line.find(" |", type_start) - type_start);
  }
  return types;
}

}  // namespace

TEST_CASE("list caps: the docs name every list's cap", "[config][caps][docs]") {
  const std::string formats = test::read_file(std::string(FOVEA_SOURCE_DIR) + "/docs/formats.md");
  const std::size_t table = formats.find("### Lists and their caps");
  REQUIRE(table != std::string::npos);
  for (const auto& [doc, keys] : {std::pair{std::string("docs/config.md"), config::config_keys()},
                                  std::pair{std::string("docs/psychophysics.md"), config::experiment_keys()}}) {
    const std::map<std::string, std::string> types = documented_types(doc);
    for (const KeyInfo& key : list_keys(keys)) {
      INFO(doc << ": " << key.path);
      CHECK(types.count(key.path) == 1);
      if (types.count(key.path)) CHECK(types.at(key.path) == key.type);  // the cap, as `fovea keys` says it
      CHECK(formats.find("`" + key.path + "`", table) != std::string::npos);  // in the table of caps
    }
  }
}
