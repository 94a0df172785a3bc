// Experiment specs (config/: experiment_schema, load_experiment_file): the shipped spec loads
// and resolves to itself; malformed specs get one clear line at the key at fault.

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <string>

#include "config/config.hpp"
#include "support/refusals.hpp"

using namespace fovea;
using fovea::test::check_refusals;

namespace {

const std::string kShipped = std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml";

/// The error a spec text gets, or "" when it loads.
std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  std::vector<config::Override> overrides;
  for (const auto& s : sets) overrides.push_back(config::set_override(s));
  try {
    (void)config::load_experiment_text(text, "exp.yaml", overrides);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

const char* kMinimal = R"(name: tiny
constant_stimuli:
  gaps_deg: [0.1, 0.2]
  eccentricities_deg: [0, 5]
)";

}  // namespace

TEST_CASE("Experiment spec: the shipped spec loads, and its resolved form loads back to the same", "[psychophysics][config]") {
  const config::LoadedExperiment loaded = config::load_experiment_file(kShipped);
  const ExperimentSettings& e = loaded.spec;
  CHECK(e.name == "gap_eccentricity");
  CHECK(e.method == DesignMethod::constant_stimuli);
  CHECK(e.constant_stimuli.gaps_deg.size() == 6);
  CHECK(e.constant_stimuli.eccentricities_deg.size() == 4);
  CHECK(e.staircase.rules.step_type == StepType::db);
  CHECK(e.stimulus.collision_time_s == 0.75);
  CHECK(loaded.locations.at("constant_stimuli.gaps_deg").find("gap_eccentricity.yaml:26:") != std::string::npos);
  // The design the spec describes: 6 x 4 x 20 + 5 x 8 catch trials.
  CHECK(plan_constant_stimuli(e.constant_stimuli, 1).size() == 520);
  const std::string resolved = config::resolved_experiment_yaml(e);
  const config::LoadedExperiment again = config::load_experiment_text(resolved, "resolved.yaml");
  CHECK(config::resolved_experiment_yaml(again.spec) == resolved);
  // The staircase method from the same file, by one override.
  const config::LoadedExperiment stairs = config::load_experiment_file(kShipped, {config::set_override("method=staircase")});
  const InterleavedStaircases staircases(stairs.spec.staircase, 1);
  REQUIRE(staircases.staircase_count() == 4);
  for (int i = 0; i < 4; ++i) CHECK(staircases.staircase(i).intensity() == 0.5);
  // The psi method from the same file, by one override.
  const config::LoadedExperiment psi = config::load_experiment_file(kShipped, {config::set_override("method=psi")});
  CHECK(psi.spec.method == DesignMethod::psi);
  const InterleavedPsi procedures(psi.spec.psi, 1);
  CHECK(procedures.procedure_count() == 4);
  CHECK(procedures.planned() == 4 * (60 + 6));
  // Every experiment key is listed with a meaning.
  for (const config::KeyInfo& key : config::experiment_keys()) CHECK_FALSE(key.doc.empty());
}

TEST_CASE("Experiment spec: malformed specs get one clear line at the key at fault", "[psychophysics][config][errors]") {
  check_refusals(error_of, {
      {kMinimal, {}, ""},
      // Unknown keys, with the nearest valid one.
      {std::string(kMinimal) + "stimulus:\n  duraton_s: 2\n", {},
       "exp.yaml:6:3: stimulus.duraton_s: unknown key; did you mean stimulus.duration_s?"},
      // Empty grids.
      {"constant_stimuli:\n  gaps_deg: []\n  eccentricities_deg: [0]\n", {},
       "exp.yaml:2:3: constant_stimuli.gaps_deg: an empty list: constant stimuli need at least one gap"},
      {"constant_stimuli:\n  gaps_deg: [0.1]\n", {},
       "exp.yaml:1:1: constant_stimuli.eccentricities_deg: an empty list: constant stimuli need at least one eccentricity"},
      {"method: staircase\n", {},
       "exp.yaml: staircase.eccentricities_deg: an empty list: the staircase method needs at least one eccentricity"},
      // Negative or zero durations.
      {std::string(kMinimal) + "stimulus: {duration_s: -1}\n", {},
       "exp.yaml:5:24: stimulus.duration_s: expected a number in (0, 600], found -1"},
      {std::string(kMinimal) + "task: {inter_trial_interval_s: -0.5}\n", {},
       "exp.yaml:5:32: task.inter_trial_interval_s: expected a number in [0, 600], found -0.5"},
      {std::string(kMinimal) + "stimulus: {duration_s: 0.5, collision_time_s: 0.75}\n", {},
       "exp.yaml:5:29: stimulus.collision_time_s: the collision at 0.75 s must come before the stimulus ends "
       "(stimulus.duration_s 0.5 s)"},
      // A gap larger than the screen (53.1 x 29.9 cm at 57 cm: 49.95 x 29.4 deg).
      {"constant_stimuli:\n  gaps_deg: [0.1, 35]\n  eccentricities_deg: [0]\n", {},
       "exp.yaml:2:3: constant_stimuli.gaps_deg: a gap of 35 deg is larger than the screen (50 x 29.4 deg at 57 cm)"},
      {kMinimal, {"screen.viewing_distance_cm=5"}, ""},  // nearer, the screen is larger
      {"method: staircase\nstaircase: {eccentricities_deg: [0], start_values_deg: [1], max_gap_deg: 40}\n", {},
       "exp.yaml:2:61: staircase.max_gap_deg: a gap of 40 deg is larger than the screen (50 x 29.4 deg at 57 cm)"},
      // A target pair off the screen.
      {"constant_stimuli:\n  gaps_deg: [0.1]\n  eccentricities_deg: [0, 12]\n", {},
       "exp.yaml:3:3: constant_stimuli.eccentricities_deg: an eccentricity of 12 deg puts the target pair (1 deg "
       "entities, approaching from 3 deg farther out) off the screen in some directions: half the screen is 14.7 deg "
       "(50 x 29.4 deg at 57 cm); stimulus.directions: horizontal uses the width"},
      {"constant_stimuli:\n  gaps_deg: [0.1]\n  eccentricities_deg: [0, 10.5]\n", {}, ""},
      // Staircase lists that do not match, keys that clash.
      {"method: staircase\nstaircase: {eccentricities_deg: [0, 5, 10], start_values_deg: [1, 2]}\n", {},
       "exp.yaml:2:45: staircase.start_values_deg: one value for all staircases, or one per eccentricity (3), not 2"},
      // The staircases' own check, at the spec key of the field it names: a range with no room
      // (min_gap_deg equal to max_gap_deg is refused too), a start value outside the range.
      {"method: staircase\nstaircase: {eccentricities_deg: [0], start_values_deg: [1], min_gap_deg: 1, "
       "max_gap_deg: 1}\n",
       {},
       "exp.yaml:2:61: staircase.min_gap_deg: must be below the maximum (1), not 1: a staircase with no room to move "
       "measures nothing"},
      {"method: staircase\nstaircase: {eccentricities_deg: [0, 5], start_values_deg: [1, 8]}\n", {},
       "exp.yaml:2:41: staircase.start_values_deg[1]: must be in the staircase's range [0.001, 5], not 8"},
      {"method: staircase\nstaircase: {eccentricities_deg: [0], start_values_deg: [1], step_sizes: []}\n", {},
       "exp.yaml:2:61: staircase.step_sizes: an empty list: give at least one step size"},
      // The psi's own check, at the spec key of the field it names, and the screen's.
      {"method: psi\n", {},
       "exp.yaml: psi.eccentricities_deg: an empty list: the psi method needs at least one eccentricity"},
      {"method: psi\npsi: {eccentricities_deg: [0], min_gap_deg: 1, max_gap_deg: 1}\n", {},
       "exp.yaml:2:32: psi.min_gap_deg: must be below max_gap_deg (1), not 1: a grid of 41 points needs room"},
      {"method: psi\npsi: {eccentricities_deg: [0], n_trials: 4, catch_trials: 5}\n", {},
       "exp.yaml:2:45: psi.catch_trials: must be in [0, n_trials (4)], not 5"},
      {"method: psi\npsi: {eccentricities_deg: [0], lapse_points: 0}\n", {},
       "exp.yaml:2:46: psi.lapse_points: expected an integer in [1, 1000], found 0"},
      {"method: psi\npsi: {eccentricities_deg: [0], max_gap_deg: 40}\n", {},
       "exp.yaml:2:32: psi.max_gap_deg: a gap of 40 deg is larger than the screen (50 x 29.4 deg at 57 cm)"},
      {"method: psi\npsi: {eccentricities_deg: [0, 10], function: probit}\n", {},
       "exp.yaml:2:46: psi.function: expected one of logistic, weibull, found \"probit\""},
      {"method: psi\npsi: {eccentricities_deg: [0, 10], max_width: 2, width_points: 1}\n", {},
       "exp.yaml:2:36: psi.max_width: must equal min_width (0.25) with one point, not 2"},
      {std::string(kMinimal) + "task: {yes_key: y, no_key: y}\n", {},
       "exp.yaml:5:20: task.no_key: the same key as task.yes_key; yes and no need two keys"},
      // An override gets the same checks and names itself.
      {kMinimal, {"stimulus.duration_s=0"},
       "--set stimulus.duration_s=0: stimulus.duration_s: expected a number in (0, 600], found 0"},
  });
  CHECK(error_of("method: psi\npsi: {eccentricities_deg: [0, 12]}\n").find(
            "exp.yaml:2:7: psi.eccentricities_deg: an eccentricity of 12 deg puts the target pair") == 0);
  // What the design itself refuses, at its section.
  CHECK(error_of("constant_stimuli:\n  gaps_deg: [0.1, 0.1]\n  eccentricities_deg: [0]\n").find(
            "exp.yaml:1:1: constant_stimuli: ") == 0);
}

TEST_CASE("Experiment spec: docs/psychophysics.md documents exactly the keys a spec reads", "[psychophysics][config][docs]") {
  std::ifstream in(std::string(FOVEA_SOURCE_DIR) + "/docs/psychophysics.md");
  REQUIRE(in.good());
  std::set<std::string> documented, in_code;
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "## Spec keys") in_table = true;
    if (!in_table || line.rfind("| `", 0) != 0) continue;
    documented.insert(line.substr(3, line.find('`', 3) - 3));
  }
  for (const config::KeyInfo& key : config::experiment_keys()) in_code.insert(key.path);
  for (const auto& key : in_code) {
    INFO("key in the code but not in docs/psychophysics.md: " << key);
    CHECK(documented.count(key) == 1);
  }
  for (const auto& key : documented) {
    INFO("key in docs/psychophysics.md that a spec does not read: " << key);
    CHECK(in_code.count(key) == 1);
  }
}

TEST_CASE("Experiment spec: a two-interval task refuses catch trials, a psi without the forced choice's guess rate, and one key for both",
          "[psychophysics][config][errors]") {
  const std::string two_interval = std::string(kMinimal) + "  catch_trials_per_block: 0\ntask: {kind: 2ifc}\n";
  check_refusals(error_of, {
      {two_interval, {}, ""},
      {std::string(kMinimal) + "  catch_trials_per_block: 2\ntask: {kind: 2ifc}\n", {},
       "exp.yaml:5:3: constant_stimuli.catch_trials_per_block: must be 0 with task.kind 2ifc: every two-interval trial "
       "shows its gap in one animation and the pair touching in the other, so there are no catch trials (set it to 0)"},
      {two_interval, {"task.second_key=1"}, "--set task.second_key=1: task.second_key: the same key as task.first_key; the two intervals need two keys"},
      {"method: psi\npsi: {eccentricities_deg: [0, 5], catch_trials: 0}\ntask: {kind: 2ifc}\n", {},
       "exp.yaml:2:1: psi.guess_rate: must be 0.5 with task.kind 2ifc: a guess names the interval with the gap half the time"},
      {"method: psi\npsi: {eccentricities_deg: [0, 5], guess_rate: 0.5}\ntask: {kind: 2ifc}\n", {},
       "exp.yaml:2:1: psi.catch_trials: must be 0 with task.kind 2ifc: every two-interval trial shows its gap in one "
       "animation and the pair touching in the other, so there are no catch trials (set it to 0)"},
  });
  // The shipped forced-choice spec loads, with its task and design as written.
  const ExperimentSettings spec =
      config::load_experiment_file(std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_2ifc.yaml").spec;
  CHECK(spec.task.kind == TaskKind::two_interval);
  CHECK(spec.psi.grid.guess_rate == 0.5);
  CHECK(task_instructions(spec.task) == std::string(kTwoIntervalInstructions));
}
