#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include <yaml-cpp/yaml.h>

#include "config/config.hpp"
#include "study/study_plan.hpp"
#include "study/study_settings.hpp"
#include "frame/animation.hpp"
#include "support/process.hpp"
#include "support/refusals.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using fovea::config::ConfigError;
using fovea::config::load_config_text;
using fovea::test::check_refusals;

namespace {

/// The message a config gives, or "" when it is valid.
std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    load_config_text(yaml, "test.yaml", sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("config: an empty document gives every default", "[config]") {
  const auto loaded = load_config_text("", "empty.yaml");
  const Settings defaults;
  CHECK(loaded.settings.name == defaults.name);
  CHECK(loaded.settings.seed == defaults.seed);
  CHECK(loaded.settings.frames == defaults.frames);
  CHECK(loaded.settings.world.box_size_m == defaults.world.box_size_m);
  CHECK(loaded.settings.world.entities.empty());
}

TEST_CASE("config: values are read into the settings", "[config]") {
  const auto loaded = load_config_text(R"(
name: study-1
seed: 12
world:
  box_size_m: [4, 5.5, 6]
  entities:
    - name: rocks
      count: 7
      model: {shape: rock, size_m: 0.3, resolution_voxels: 10, aspect: [1, 2, 1], variants: 3}
      material: {density_kgpm3: 2600, restitution: 0.4, friction: 0.9, colour: [0.1, 0.2, 0.3]}
      placement: packed
      static: true
response:
  gravity_mps2: [0, -9.81, 0]
)",
                                       "test.yaml");
  const Settings& s = loaded.settings;
  CHECK(s.name == "study-1");
  CHECK(s.seed == 12);
  CHECK(s.world.box_size_m == Vec3(4, 5.5, 6));
  CHECK(s.response.gravity_mps2 == Vec3(0, -9.81, 0));
  REQUIRE(s.world.entities.size() == 1);
  const EntityGroupSettings& g = s.world.entities[0];
  CHECK(g.count == 7);
  CHECK(g.model.shape == Shape::rock);
  CHECK(g.model.aspect == Vec3(1, 2, 1));
  CHECK(g.model.variants == 3);
  CHECK(g.material.friction == 0.9);
  CHECK(g.placement == Placement::packed);
  CHECK(g.is_static);
  CHECK(g.speed_mps == EntityGroupSettings{}.speed_mps);  // unset keys keep their defaults
  CHECK(loaded.locations.at("world.entities[0].count") == "test.yaml:8:7");
  CHECK(loaded.locations.at("response.gravity_mps2") == "test.yaml:14:3");
}

TEST_CASE("config: a material that leaves out restitution or friction takes the response's defaults", "[config]") {
  const auto loaded = load_config_text(R"(
world:
  entities:
    - {name: a, material: {restitution: 0.4}}
    - {name: b, material: {friction: 0.9}}
    - {name: c}
response: {restitution: 0.2, friction: 0.3, walls: {restitution: 0.1, friction: 0.7}}
)",
                                       "test.yaml");
  const auto& groups = loaded.settings.world.entities;
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].material.restitution == 0.4);
  CHECK(groups[0].material.friction == 0.3);
  CHECK(groups[1].material.restitution == 0.2);
  CHECK(groups[1].material.friction == 0.9);
  CHECK(groups[2].material.restitution == 0.2);
  CHECK(groups[2].material.friction == 0.3);
  CHECK(loaded.settings.response.walls.restitution == 0.1);
  CHECK(loaded.settings.response.walls.friction == 0.7);
}

TEST_CASE("config errors: the exact message for each kind of bad input", "[config][errors]") {
  check_refusals(error_of, {
      {"world:\n  entites: []\n", {}, "test.yaml:2:3: world.entites: unknown key; did you mean world.entities?"},
      {"world:\n  zzz: 1\n", {},
       "test.yaml:2:3: world.zzz: unknown key; expected one of box_size_m, time_step_s, entities"},
      {"world:\n  gravity_mps2: [0, -9.81, 0]\n", {},
       "test.yaml:2:17: world.gravity_mps2: this key moved to response.gravity_mps2; write it there"},
      {"sede: 3\n", {}, "test.yaml:1:1: sede: unknown key; did you mean seed?"},
      {"world:\n  entities:\n    - count: ten\n", {},
       "test.yaml:3:14: world.entities[0].count: expected an integer in [0, 10000000], found \"ten\""},
      {"world:\n  entities:\n    - count: -5\n", {},
       "test.yaml:3:14: world.entities[0].count: expected an integer in [0, 10000000], found -5"},
      {"world:\n  entities:\n    - count: 2.5\n", {},
       "test.yaml:3:14: world.entities[0].count: expected an integer in [0, 10000000], found 2.5"},
      {"world:\n  time_step_s: 0\n", {}, "test.yaml:2:16: world.time_step_s: expected a number in (0, 1], found 0"},
      {"world:\n  box_size_m: [1, -2, 3]\n", {},
       "test.yaml:2:19: world.box_size_m[1]: expected a number in [1e-06, 1000000000], found -2"},
      {"world:\n  box_size_m: [1, 2]\n", {},
       "test.yaml:2:15: world.box_size_m: expected a list of 3 numbers in [1e-06, 1000000000], found a list of 2"},
      {"world:\n  box_size_m: 5\n", {},
       "test.yaml:2:15: world.box_size_m: expected a list of 3 numbers in [1e-06, 1000000000], found 5"},
      {"world:\n  entities:\n    - model:\n        shape: bal\n", {},
       "test.yaml:4:16: world.entities[0].model.shape: expected one of ball, box, rock, l_shape, humanoid, ravine, file, found "
       "\"bal\"; did you mean ball?"},
      {"world:\n  entities:\n    - static: maybe\n", {},
       "test.yaml:3:15: world.entities[0].static: expected true or false, found \"maybe\""},
      {"name: my run\n", {},
       "test.yaml:1:7: name: expected a name of letters, digits, '-', '_' or '.', found \"my run\""},
      {"world:\n  entities: {count: 3}\n", {},
       "test.yaml:2:13: world.entities: expected a list of entity groups, found a map"},
      {"world: [1, 2]\n", {}, "test.yaml:1:8: world: expected a map of keys, found a list"},
      {"- 1\n- 2\n", {}, "test.yaml:1:1: expected a map of keys at the top level, found a list"},
      {"seed: 1\nseed: 2\n", {}, "test.yaml:2:1: seed: duplicate key"},
      {"frames:\n", {}, "test.yaml:1:1: frames: expected an integer in [0, 1000000000000], found nothing"},
      {"frames: \"100\"\n", {}, "test.yaml:1:9: frames: expected an integer in [0, 1000000000000], found \"100\""},
      {"seed: 9007199254740993\n", {},
       "test.yaml:1:7: seed: expected an integer in [0, 9007199254740992], found 9007199254740993"},
  });
}

TEST_CASE("config errors: YAML syntax errors give the position", "[config][errors]") {
  check_refusals(error_of, {
      {"world:\n  box_size_m: [10, 10\n", {}, "test.yaml:3:1: YAML syntax error: end of sequence flow not found"},
      {"a: b: c\n", {}, "test.yaml:1:5: YAML syntax error: illegal map value"},
  });
}

TEST_CASE("config errors: a missing file names the file", "[config][errors]") {
  CHECK_THROWS_WITH(config::load_config_file("/nonexistent/fovea.yaml"),
                    "/nonexistent/fovea.yaml: cannot read the config: no such file");
}

TEST_CASE("config --set: overrides with the same checks, errors name the argument", "[config][set]") {
  const std::string base = "world:\n  entities:\n    - count: 3\n";
  const auto loaded = load_config_text(base, "test.yaml",
                                       {"seed=9", "world.entities[0].count=40", "response.gravity_mps2=[0, -1, 0]",
                                        "world.entities[0].model.shape=rock"});
  CHECK(loaded.settings.seed == 9);
  CHECK(loaded.settings.world.entities[0].count == 40);
  CHECK(loaded.settings.response.gravity_mps2 == Vec3(0, -1, 0));
  CHECK(loaded.settings.world.entities[0].model.shape == Shape::rock);
  CHECK(loaded.locations.at("world.entities[0].count") == "--set world.entities[0].count=40");
  CHECK(loaded.locations.at("world.entities[0].model.shape") == "--set world.entities[0].model.shape=rock");

  check_refusals(error_of, {
      {base, {"world.entites=3"}, "--set world.entites=3: world.entites: unknown key; did you mean world.entities?"},
      {base, {"world.entities[0].count=-1"},
       "--set world.entities[0].count=-1: world.entities[0].count: expected an integer in [0, 10000000], found -1"},
      {base, {"world.entities[2].count=1"}, "--set world.entities[2].count=1: world.entities has 1 entry, no [2]"},
      {base, {"frames"}, "--set frames: expected key=value with a key like world.entities[0].count"},
      {base, {"world..seed=1"}, "--set world..seed=1: expected key=value with a key like world.entities[0].count"},
      {base, {"world.new.deep=1"},
       "--set world.new.deep=1: world.new: unknown key; expected one of box_size_m, time_step_s, entities"},
      // An error in the file is still reported against the file when --set is used elsewhere.
      {"seed: x\n", {"frames=3"}, "test.yaml:1:7: seed: expected an integer in [0, 9007199254740992], found \"x\""},
  });
  CHECK(error_of(base, {"seed=[1"}).rfind("--set seed=[1: YAML syntax error in the value: ", 0) == 0);
}

TEST_CASE("config: the resolved config loads back to the same settings", "[config]") {
  const auto loaded = load_config_text(std::string(config::default_config_text()), config::kDefaultConfigName,
                                       {"world.entities[1].material.restitution=0.3333333333333333"});
  const std::string resolved = config::resolved_yaml(loaded.settings);
  const auto again = load_config_text(resolved, "resolved.yaml");
  CHECK(config::resolved_yaml(again.settings) == resolved);
  CHECK(again.settings.world.entities[1].material.restitution == 0.3333333333333333);
  // Every key appears in the resolved config, defaults included.
  CHECK(resolved.find("friction: 0.5") != std::string::npos);
  CHECK(resolved.find("placement: random") != std::string::npos);
}

TEST_CASE("config: the built-in default is configs/default.yaml and is valid", "[config]") {
  const std::string file = test::read_file(std::string(FOVEA_SOURCE_DIR) + "/configs/default.yaml");
  REQUIRE_FALSE(file.empty());
  CHECK(std::string(config::default_config_text()) == file);
  CHECK_NOTHROW(load_config_text(file, config::kDefaultConfigName));
}

TEST_CASE("config: every shipped config under configs/ is valid and its world can be built", "[config][slow]") {
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(FOVEA_SOURCE_DIR) + "/configs")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    // Experiment specs and perception-model files are other kinds of document, each checked
    // by its own reader.
    const std::string folder = entry.path().parent_path().filename().string();
    if (folder == "experiments") {
      CHECK_NOTHROW(config::load_experiment_file(entry.path().string()));
      ++checked;
      continue;
    }
    if (folder == "perception") {
      CHECK_NOTHROW(config::load_perception_model_file(entry.path().string()));
      ++checked;
      continue;
    }
    if (YAML::LoadFile(entry.path().string())["factors"]) {
      // A study (docs/studies.md): every run's config must load, and every distinct world
      // of its runs be built, so that `fovea sweep` never fails an hour in.
      const StudySettings study = load_study_file(entry.path().string());
      std::set<std::string> worlds;
      for (const PlannedRun& run : plan_runs(study)) {
        const config::LoadedConfig loaded = config::load_config_file(study.base_config, run.overrides);
        std::string world;
        for (const config::Override& o : run.overrides)
          if (o.assignment.rfind("world.", 0) == 0) world += o.assignment + ";";
        if (!worlds.insert(world).second) continue;
        INFO(world);
        CHECK_NOTHROW(Animation(static_cast<const AnimationSettings&>(loaded.settings),
                                static_cast<std::uint64_t>(loaded.settings.seed)));
      }
      CHECK(worlds.size() >= 1);
      ++checked;
      continue;
    }
    auto loaded = config::load_config_file(entry.path().string());
    // A tracker's config must not contact whatever listens on its port here.
    loaded.settings.gaze = without_live_input(loaded.settings.gaze);
    CHECK_NOTHROW(Animation(static_cast<const AnimationSettings&>(loaded.settings), static_cast<std::uint64_t>(loaded.settings.seed)));
    ++checked;
  }
  CHECK(checked >= 1);
}

TEST_CASE("config errors: what a careless file or command line can hide", "[config][errors]") {
  // Content a YAML reader would silently drop or invent must be an error.
  check_refusals(error_of, {
      {"seed: 1\n---\nseed: 2\n", {}, "test.yaml:3:1: a config is one YAML document; this is a second one (after ---)"},
      {"world:\n  entities:\n    - count: 3\n    -\n", {},
       "test.yaml:3:5: world.entities[1]: expected a map of keys, found nothing"},
      {"seed: !!str 5\n", {}, "test.yaml:1:7: seed: explicit YAML tags are not supported, found tag:yaml.org,2002:str"},
      {"response:\n  gravity_mps2: [0, 1e309, 0]\n", {},
       "test.yaml:2:21: response.gravity_mps2[1]: expected a number in [-1000000, 1000000], found 1e309"},
      {"response:\n  gravity_mps2: [+1, -9.81, +0.5]\n", {}, ""},  // YAML 1.2 allows '+'
  });

  // An alias shares one node: changing one copy by --set would change both.
  const std::string aliased = "world:\n  entities: [&g {name: a, count: 3}, *g]\n";
  check_refusals(error_of, {
      {aliased, {}, ""},
      {aliased, {"world.entities[1].count=7"},
       "--set world.entities[1].count=7: world.entities[1] is shared through a YAML alias (*anchor); write it out in "
       "the config to change one copy"},

      // A --set names itself only for what it wrote: a duplicate key in the file stays the file's.
      {"seed: 1\nseed: 2\n", {"seed=3"}, "test.yaml:2:1: seed: duplicate key"},
      {"world:\n  entities: []\n", {"world.box_size_m[1]=3"},
       "--set world.box_size_m[1]=3: world.box_size_m is not in the config; set the whole list, as "
       "world.box_size_m=[...]"},
      {"seed: 1\n", {"seed[0]=3"}, "--set seed[0]=3: seed is a single value, not a list"},
      {"7\n", {"seed=3"}, "test.yaml:1:1: expected a map of keys at the top level, found 7"},
      {"", {"world.entities[99999999999999999999].count=1"},
       "--set world.entities[99999999999999999999].count=1: expected key=value with a key like world.entities[0].count"},
  });
  // --frames is an override under its own name.
  try {
    load_config_text("", "test.yaml", std::vector<config::Override>{{"frames=1e3", "--frames 1e3"}});
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "--frames 1e3: frames: expected an integer in [0, 1000000000000], found 1e3");
  }
}

TEST_CASE("config: a group's errors point at the group even where its keys are defaults", "[config]") {
  const auto loaded = load_config_text("world:\n  entities:\n    - name: a\n    - name: b\n", "test.yaml",
                                       {"world.entities[0].count=1"});
  // world.entities[1].count is not written: the message points at the group's own line.
  CHECK(loaded.error_at("world.entities[1].count", "world too small") ==
        "test.yaml:4:7: world.entities[1].count: world too small");
  CHECK(loaded.error_at("world.entities[0].count", "world too small") ==
        "--set world.entities[0].count=1: world.entities[0].count: world too small");
}

TEST_CASE("config errors: a folder is not a config", "[config][errors]") {
  test::TempDir dir;
  CHECK_THROWS_WITH(config::load_config_file(dir.path().string()),
                    dir.path().string() + ": cannot read the config: it is a folder, not a file");
}

TEST_CASE("config: file paths are resolved from the config's folder, to absolute paths", "[config]") {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "study");
  std::ofstream(dir / "study" / "c.yaml") << "world:\n  entities:\n    - model: {shape: file, file: ../models/a.vox}\n"
                                             "      sphere_tree: {file: trees/a.sph}\n";
  const auto loaded = config::load_config_file((dir / "study" / "c.yaml").string());
  CHECK(loaded.settings.world.entities[0].model.file == (dir / "models" / "a.vox").string());
  CHECK(loaded.settings.world.entities[0].sphere_tree.file == (dir / "study" / "trees" / "a.sph").string());
  check_refusals(error_of, {
      {"world:\n  entities:\n    - model: {shape: file}\n", {},
       "test.yaml:3:15: world.entities[0].model.shape: shape: file needs model.file, the .vox file to read"},
      {"world:\n  entities:\n    - model: {file: a.vox}\n", {},
       "test.yaml:3:15: world.entities[0].model.file: model.file is set but model.shape is not file; set shape: file"},
  });
}

TEST_CASE("config: the narrow phase's keys are read and checked between each other", "[config][narrowphase]") {
  const auto loaded = load_config_text(R"(
schedule: {kind: priority_queues, queues: 4, band_edges: [0.9, 0.5, 0.05]}
budget: {mode: wall, ms: 1.5}
interrupt_policy: interpenetrate
ground_truth: true
perception:
  model: {function: weibull, threshold_deg: 0.1}
  view: {screen: {width_px: 800, height_px: 600}}
gaze: {source: fixed, x_px: 400, y_px: 300}
record: {collisions: true}
)",
                                       "test.yaml");
  const Settings& s = loaded.settings;
  CHECK(s.schedule.kind == SchedulerKind::priority_queues);
  CHECK(s.schedule.band_edges == std::vector<double>{0.9, 0.5, 0.05});
  CHECK(s.budget.mode == BudgetMode::wall);
  CHECK(s.budget.ms == 1.5);
  CHECK(s.interrupt_policy == InterruptPolicy::interpenetrate);
  CHECK(s.ground_truth);
  CHECK(s.perception.model.function == PsychometricFunction::weibull);
  CHECK(s.perception.view.screen.width_px == 800);
  CHECK(s.record.collisions);

  check_refusals(error_of, {
      {"schedule: {queues: 3, band_edges: [0.5]}\n", {},
       "test.yaml:1:23: schedule.band_edges: 3 queues need 2 band edges, found 1"},
      {"schedule: {band_edges: [0.1, 0.5]}\n", {},
       "test.yaml:1:12: schedule.band_edges: band edges must decrease strictly (queue 0 takes the highest priorities)"},
      {"schedule: {band_edges: [0.5, 1.5]}\n", {},
       "test.yaml:1:30: schedule.band_edges[1]: expected a number in [0, 1], found 1.5"},
      {"gaze: {x_px: 2000}\n", {},
       "test.yaml:1:8: gaze.x_px: the fixation point lies off the 1920 px wide screen (perception.view.screen.width_px)"},
      {"budget: {mode: fast}\n", {},
       "test.yaml:1:16: budget.mode: expected one of wall, work, unlimited, fraction, found \"fast\""},
      {"interupt_policy: repulse\n", {}, "test.yaml:1:1: interupt_policy: unknown key; did you mean interrupt_policy?"},
  });
  CHECK(error_of("perception: {model: {guess_rate: 0.5, lapse_rate: 0.5}}\n").find("perception.model") != std::string::npos);
  CHECK(error_of("perception: {view: {camera: {frame_box: false, position_m: [1, 2, 3], target_m: [1, 2, 3]}}}\n")
            .find("perception.view.camera") != std::string::npos);
}

TEST_CASE("config: the oracle is refused without ground truth, and narrowphase.coherence is a boolean",
          "[config][narrowphase]") {
  const std::string needs = "oracle orders collisions by the true p from the exact voxel test, which needs ground_truth: true";
  // The run's own schedule, and an evaluated one, each named with its line.
  const std::string own = "seed: 3\nschedule:\n  kind: oracle\n";
  const std::string evaluated = "seed: 3\nevaluate:\n  schedulers: [round_robin, oracle]\n";
  CHECK(error_of(own) == "test.yaml:3:3: schedule.kind: " + needs);
  CHECK(error_of(evaluated) == "test.yaml:3:3: evaluate.schedulers: " + needs);
  CHECK(error_of("", {"schedule.kind=oracle"}) == "--set schedule.kind=oracle: schedule.kind: " + needs);
  CHECK(error_of(own + "ground_truth: false\n") == "test.yaml:3:3: schedule.kind: " + needs);
  // With ground truth, both are taken.
  CHECK(error_of(own, {"ground_truth=true"}).empty());
  const auto loaded = load_config_text(own + "ground_truth: true\nevaluate:\n  schedulers: [oracle, hybrid, random]\n",
                                       "test.yaml");
  CHECK(loaded.settings.ground_truth);
  CHECK(loaded.settings.schedule.kind == SchedulerKind::oracle);
  CHECK(loaded.settings.evaluate.schedulers ==
        std::vector<SchedulerKind>{SchedulerKind::oracle, SchedulerKind::hybrid, SchedulerKind::random});
  CHECK(error_of(evaluated + "ground_truth: true\n").empty());

  // Coherence and the new schedule keys.
  const auto coherent = load_config_text(
      "narrowphase: {coherence: true}\nschedule: {kind: hybrid, hybrid_levels: 3, priorities: refined}\n", "test.yaml");
  CHECK(coherent.settings.narrowphase.coherence);
  CHECK(coherent.settings.schedule.kind == SchedulerKind::hybrid);
  CHECK(coherent.settings.schedule.hybrid_levels == 3);
  CHECK(coherent.settings.schedule.priorities == PriorityGap::refined);
  CHECK_FALSE(load_config_text("", "test.yaml").settings.narrowphase.coherence);  // off by default
  check_refusals(error_of, {
      {"narrowphase: {coherence: 3}\n", {}, "test.yaml:1:26: narrowphase.coherence: expected true or false, found 3"},
      {"narrowphase:\n  coherence: yes please\n", {},
       "test.yaml:2:14: narrowphase.coherence: expected true or false, found \"yes please\""},
  });
}

TEST_CASE("config: every scheduler of the table is named by its row, and lists of them hold each once",
          "[config][schedule]") {
  // Read from kSchedulerKinds (schedule/scheduler_kinds.hpp), so a new row is a new name here.
  std::string all;
  for (const SchedulerKindInfo& each : kSchedulerKinds) {
    INFO(each.name);
    all += (all.empty() ? "" : ", ") + std::string(each.name);
    const std::string own = "schedule:\n  kind: " + std::string(each.name) + "\n";
    const auto loaded = load_config_text(own + "ground_truth: true\n", "test.yaml");
    CHECK(loaded.settings.schedule.kind == each.kind);
    // Without ground truth, exactly the kinds that read the exact voxel test's verdict are refused.
    CHECK(error_of(own).empty() == !each.uses_true_priority);
  }
  const auto every = load_config_text("ground_truth: true\nevaluate:\n  schedulers: [" + all + "]\n", "test.yaml");
  CHECK(every.settings.evaluate.schedulers.size() == kSchedulerKinds.size());
  CHECK(error_of("ground_truth: true\nevaluate:\n  schedulers: [" + all + ", random]\n") ==
        "test.yaml:3:15: evaluate.schedulers: expected at most " + std::to_string(kSchedulerKinds.size()) +
            " names, found " + std::to_string(kSchedulerKinds.size() + 1));
  CHECK(error_of("schedule: {kind: robin}\n") == "test.yaml:1:18: schedule.kind: expected one of " + all +
                                                       ", found \"robin\"");
}

TEST_CASE("config: a perception model file replaces the inline model, and a conflicting key is refused",
          "[config][narrowphase]") {
  test::TempDir dir;
  std::ofstream(dir / "model.yaml") << "function: weibull\nthreshold_deg: 0.2\nwidth: 0.5\n";
  std::ofstream(dir / "run.yaml") << "perception:\n  model:\n    file: model.yaml\n";
  const auto loaded = config::load_config_file((dir / "run.yaml").string());
  CHECK(loaded.settings.perception.model.function == PsychometricFunction::weibull);
  CHECK(loaded.settings.perception.model.threshold_deg == 0.2);
  CHECK(loaded.settings.perception.model.width == 0.5);
  CHECK(loaded.settings.perception.model.lapse_rate == 0.02);  // the file's default
  // The resolved config holds the file and the equal values: it loads back.
  const std::string resolved = config::resolved_yaml(loaded.settings);
  CHECK(config::resolved_yaml(load_config_text(resolved, "resolved.yaml").settings) == resolved);

  std::ofstream(dir / "conflict.yaml") << "perception:\n  model:\n    file: model.yaml\n    threshold_deg: 0.3\n";
  CHECK_THROWS_WITH(config::load_config_file((dir / "conflict.yaml").string()),
                    Catch::Contains("conflict.yaml:4:5: perception.model.threshold_deg: differs from the value in "
                                    "perception.model.file"));
  std::ofstream(dir / "bad_model.yaml") << "threshold_deg: -1\n";
  std::ofstream(dir / "uses_bad.yaml") << "perception: {model: {file: bad_model.yaml}}\n";
  CHECK_THROWS_WITH(config::load_config_file((dir / "uses_bad.yaml").string()),
                    Catch::Contains("bad_model.yaml:1:16: threshold_deg: expected a number in [1e-06, 180], found -1"));
}

TEST_CASE("config: a simulated tracker and the schedulers' gaze inputs are read", "[config][gaze]") {
  const auto loaded = load_config_text(R"(
gaze: {source: scripted, latency_ms: 12, rate_hz: 200, noise_deg: 0.08}
schedule: {gaze: landing}
evaluate: {schedulers: [hybrid], gaze: [tracked, blind]}
)",
                                       "test.yaml");
  CHECK(loaded.settings.gaze.latency_ms == 12);
  CHECK(loaded.settings.gaze.rate_hz == 200);
  CHECK(loaded.settings.gaze.noise_deg == 0.08);
  CHECK(loaded.settings.schedule.gaze == SchedulerGaze::landing);
  CHECK(loaded.settings.evaluate.gaze == std::vector{SchedulerGaze::tracked, SchedulerGaze::blind});
  const auto again = load_config_text(config::resolved_yaml(loaded.settings), "resolved.yaml");
  CHECK(again.settings.gaze.latency_ms == 12);
  CHECK(again.settings.evaluate.gaze == loaded.settings.evaluate.gaze);
}

TEST_CASE("config: the gaze keys are read, the replay file is read at load, bad values named", "[config][gaze]") {
  const auto loaded = load_config_text(R"(
gaze:
  source: pupil
  host: tracker-pc.lab
  port: 50021
  surface: Screen 1
  topic: gaze
  min_confidence: 0.8
  max_age_ms: 50
  fallback: {hold_ms: 150, then: mouse}
record: {gaze: true}
)",
                                       "test.yaml");
  const GazeSettings& g = loaded.settings.gaze;
  CHECK(g.source == GazeSourceKind::pupil);
  CHECK(g.host == "tracker-pc.lab");
  CHECK(g.port == 50021);
  CHECK(g.surface == "Screen 1");
  CHECK(g.topic == PupilTopic::gaze);
  CHECK(g.min_confidence == 0.8);
  CHECK(g.max_age_ms == 50);
  CHECK(g.fallback.hold_ms == 150);
  CHECK(g.fallback.then == GazeFallbackKind::mouse);
  CHECK(loaded.settings.record.gaze);
  // The resolved config loads back the same (the surface's space survives quoting).
  const auto again = load_config_text(config::resolved_yaml(loaded.settings), "resolved.yaml");
  CHECK(again.settings.gaze.surface == "Screen 1");
  CHECK(again.settings.gaze.host == "tracker-pc.lab");

  check_refusals(error_of, {
      {"gaze: {source: replay}\n", {},
       "test.yaml:1:8: gaze.source: source: replay needs gaze.file, the gaze CSV to play back"},
      {"gaze: {host: 'http://x'}\n", {},
       "test.yaml:1:8: gaze.host: expected a host name or an IP address (letters, digits, '.', '-', ':'), found "
       "\"http://x\""},
      {"gaze: {surface: ''}\n", {},
       "test.yaml:1:17: gaze.surface: expected one line of text (1 to 256 characters), found \"\""},
      {"gaze: {port: 70000}\n", {}, "test.yaml:1:14: gaze.port: expected an integer in [0, 65535], found 70000"},
      {"gaze: {fallback: {then: nowhere}}\n", {},
       "test.yaml:1:25: gaze.fallback.then: expected one of centre, mouse, found \"nowhere\""},
      {"gaze: {source: pupil, latency_ms: 10}\n", {},
       "test.yaml:1:23: gaze.latency_ms: a simulated tracker samples a synthetic eye (source fixed, scripted or "
       "replay), and pupil is a live input with a latency of its own; leave latency_ms, rate_hz and noise_deg at 0"},
      {"gaze: {rate_hz: 5000}\n", {}, "test.yaml:1:17: gaze.rate_hz: expected a number in [0, 2000], found 5000"},
      {"schedule: {gaze: eye}\n", {},
       "test.yaml:1:18: schedule.gaze: expected one of tracked, landing, blind, found \"eye\""},
  });
  CHECK(error_of("gaze: {source: eyelink}\n").find("expected one of fixed, mouse, scripted, replay, pupil, gazepoint") !=
        std::string::npos);

  // A replay file: relative to the config's folder, read at load, its errors with its line.
  test::TempDir dir;
  std::filesystem::create_directories(dir / "study");
  std::ofstream(dir / "study" / "session.csv") << "t_s,x_px,y_px\n0,1,2\n0,3,4\n";
  std::ofstream(dir / "study" / "run.yaml") << "gaze: {source: replay, file: session.csv}\n";
  try {
    config::load_config_file((dir / "study" / "run.yaml").string());
    FAIL("a replay file with repeated times was accepted");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("run.yaml:1:24: gaze.file: ") &&
                             Catch::Contains("session.csv:3: t_s 0 does not come after the previous row's 0"));
  }
  std::ofstream(dir / "study" / "session.csv") << "t_s,x_px,y_px\n0,1,2\n0.5,3,4\n";
  const auto replay = config::load_config_file((dir / "study" / "run.yaml").string());
  CHECK(replay.settings.gaze.file == (dir / "study" / "session.csv").lexically_normal().string());
}

TEST_CASE("config: gaze.source external loads for a program to push, and an experiment spec refuses it",
          "[config][gaze]") {
  const auto loaded = load_config_text("gaze: {source: external, max_age_ms: 40}\n", "test.yaml");
  CHECK(loaded.settings.gaze.source == GazeSourceKind::external);
  CHECK(loaded.settings.gaze.max_age_ms == 40);
  // The resolved config names it and loads back the same.
  const std::string resolved = config::resolved_yaml(loaded.settings);
  CHECK(resolved.find("source: external") != std::string::npos);
  CHECK(load_config_text(resolved, "resolved.yaml").settings.gaze.source == GazeSourceKind::external);
  // The world builds with it: nothing is contacted, and the frame falls back until a push.
  Animation world(static_cast<const AnimationSettings&>(loaded.settings), 1);
  CHECK(std::string(world.step().gaze.source) == "centre");

  try {
    (void)config::load_experiment_text("gaze: {source: external}\n", "exp.yaml");
    FAIL("an experiment spec with external gaze was accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "exp.yaml:1:8: gaze.source: external gaze is pushed by a program through fovea's Python module "
          "(World.set_gaze), and a session has no one to push it; use pupil, gazepoint or stream (any tracker through a "
          "sender, docs/gaze.md) for gaze-contingent trials");
  }
}

TEST_CASE("config: a stream on the last port is refused at gaze.port, run and spec alike",
          "[config][gaze][stream]") {
  CHECK(error_of("gaze: {source: stream, port: 65535}\n") ==
        "test.yaml:1:24: gaze.port: the stream's clock answers on the port after its samples', so the port must be at "
        "most 65534, not 65535");
  CHECK_NOTHROW(load_config_text("gaze: {source: stream, port: 65534}\n", "test.yaml"));
  CHECK_NOTHROW(load_config_text("gaze: {source: gazepoint, port: 65535}\n", "test.yaml"));
  try {
    (void)config::load_experiment_text("gaze: {source: stream, port: 65535}\n", "exp.yaml");
    FAIL("an experiment spec with a stream on port 65535 was accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("exp.yaml:1:24: gaze.port: the stream's clock answers") == 0);
  }
}

TEST_CASE("config: the evaluation and metrics keys are read, and what cannot work together is refused",
          "[config][evaluation]") {
  const auto loaded = load_config_text(R"(
budget: {mode: unlimited}
metrics: {visibility: occlusion, min_f: 0.1, warmup_frames: 50}
evaluate:
  schedulers: [round_robin, priority_queues]
  budgets:
    - {mode: fraction, fraction: 0.2}
    - {mode: work, tests: 500}
)",
                                       "test.yaml");
  const Settings& s = loaded.settings;
  CHECK(s.budget.mode == BudgetMode::unlimited);
  CHECK(s.metrics.visibility == VisibilityKind::occlusion);
  CHECK(s.metrics.min_f == 0.1);
  CHECK(s.metrics.warmup_frames == 50);
  REQUIRE(s.evaluate.schedulers.size() == 2);
  CHECK(s.evaluate.schedulers[1] == SchedulerKind::priority_queues);
  REQUIRE(s.evaluate.budgets.size() == 2);
  CHECK(s.evaluate.budgets[0].mode == BudgetMode::fraction);
  CHECK(s.evaluate.budgets[0].fraction == 0.2);
  CHECK(s.evaluate.budgets[1].tests == 500);
  // The resolved config says the same.
  const auto again = load_config_text(config::resolved_yaml(s), "resolved.yaml");
  CHECK(again.settings.evaluate.schedulers == s.evaluate.schedulers);
  CHECK(again.settings.evaluate.budgets.size() == 2);

  // As fovea run --set takes it.
  const auto set = load_config_text("", "test.yaml", {"evaluate.schedulers=[round_robin, sequential]"});
  CHECK(set.settings.evaluate.schedulers.size() == 2);

  CHECK(error_of("evaluate: {schedulers: [round_robin, round_robin]}\n") ==
        "test.yaml:1:38: evaluate.schedulers[1]: round_robin is listed twice");
  CHECK(error_of("evaluate: {schedulers: [round_robn]}\n").find("evaluate.schedulers[0]: expected one of round_robin") !=
        std::string::npos);
  check_refusals(error_of, {
      {"budget: {mode: unlimited}\nevaluate: {schedulers: [round_robin]}\n", {},
       "test.yaml:2:12: evaluate.schedulers: the run's budget is unlimited, so the evaluated schedulers need budgets "
       "of their own: set evaluate.budgets"},
      {"budget: {mode: fraction}\n", {},
       "test.yaml:1:10: budget.mode: fraction budgets are for evaluate.budgets only: a run's own budget is work, "
       "wall or unlimited"},
      {"metrics: {min_f: 2}\n", {}, "test.yaml:1:18: metrics.min_f: expected a number in [0, 1], found 2"},
  });
}

TEST_CASE("config: the sphere_tree keys are read, and what cannot work together is refused", "[config][spheretree]") {
  const auto loaded = load_config_text(R"(
world:
  entities:
    - name: a
      sphere_tree: {builder: medial, levels: 3, branching: 4, remove_hidden: false}
    - name: b
      sphere_tree: {builder: tightest, fit: voxels}
    - name: c
      sphere_tree: {file: c.sph, inflate: true}
    - name: d
      sphere_tree: {fit: voxels, on_demand: true}
)",
                                       "test.yaml");
  const auto& groups = loaded.settings.world.entities;
  REQUIRE(groups.size() == 4);
  CHECK(groups[0].sphere_tree.builder == SphereTreeBuilder::medial);
  CHECK(groups[0].sphere_tree.branching == 4);
  CHECK(groups[0].sphere_tree.fit == SphereFit::cell);
  CHECK(groups[1].sphere_tree.builder == SphereTreeBuilder::tightest);
  CHECK(groups[1].sphere_tree.fit == SphereFit::voxels);
  CHECK(groups[2].sphere_tree.inflate);
  CHECK(groups[3].sphere_tree.on_demand);
  CHECK(groups[3].sphere_tree.builder == SphereTreeBuilder::octree);
  // The resolved config writes every key, defaults with a file included, and loads back.
  const std::string resolved = config::resolved_yaml(loaded.settings);
  CHECK(resolved.find("builder: tightest") != std::string::npos);
  CHECK(config::resolved_yaml(load_config_text(resolved, "resolved.yaml").settings) == resolved);

  check_refusals(error_of, {
      {"world:\n  entities:\n    - sphere_tree: {builder: fastest}\n", {},
       "test.yaml:3:30: world.entities[0].sphere_tree.builder: expected one of octree, medial, tightest, found "
       "\"fastest\""},
      {"world:\n  entities:\n    - sphere_tree: {fit: box}\n", {},
       "test.yaml:3:26: world.entities[0].sphere_tree.fit: expected one of cell, voxels, found \"box\""},
      {"world:\n  entities:\n    - sphere_tree: {branching: 9}\n", {},
       "test.yaml:3:32: world.entities[0].sphere_tree.branching: expected an integer in [2, 8], found 9"},
      // On-demand growth makes octree trees only.
      {"world:\n  entities:\n    - sphere_tree: {builder: medial, on_demand: true}\n", {},
       "test.yaml:3:38: world.entities[0].sphere_tree.on_demand: on-demand growth builds octree trees only, and "
       "builder is medial; set builder: octree or on_demand: false"},
      {"world:\n  entities:\n    - sphere_tree: {on_demand: true}\n",
       {"world.entities[0].sphere_tree.builder=tightest"},
       "test.yaml:3:21: world.entities[0].sphere_tree.on_demand: on-demand growth builds octree trees only, and "
       "builder is tightest; set builder: octree or on_demand: false"},
      // A tree read from a file is not built: the builder's keys are refused beside it.
      {"world:\n  entities:\n    - sphere_tree: {file: t.sph, builder: medial}\n", {},
       "test.yaml:3:34: world.entities[0].sphere_tree.builder: the tree is read from sphere_tree.file, not built; "
       "leave out builder or file"},
      {"world:\n  entities:\n    - sphere_tree: {file: t.sph, fit: voxels}\n", {},
       "test.yaml:3:34: world.entities[0].sphere_tree.fit: the tree is read from sphere_tree.file, not built; leave "
       "out fit or file"},
      {"world:\n  entities:\n    - sphere_tree: {file: t.sph, branching: 2}\n", {},
       "test.yaml:3:34: world.entities[0].sphere_tree.branching: the tree is read from sphere_tree.file, not built; "
       "leave out branching or file"},
      // Their defaults, as a resolved config writes them, are not refused.
      {"world:\n  entities:\n    - sphere_tree: {file: t.sph, builder: octree, fit: cell, branching: 8}\n", {}, ""},
      // Inflating needs a file to inflate.
      {"world:\n  entities:\n    - sphere_tree: {inflate: true}\n", {},
       "test.yaml:3:21: world.entities[0].sphere_tree.inflate: inflate grows the spheres of a tree read from "
       "sphere_tree.file; built trees cover the voxels already: set file or leave out inflate"},
      // evaluate.trees: sets whose rows could not be told apart, a fit medial trees ignore, and
      // sets with no scheduler to run them.
      {"evaluate:\n  schedulers: [round_robin]\n  trees:\n    - {builder: medial}\n    - {builder: medial}\n", {},
       "test.yaml:5:8: evaluate.trees[1].builder: the same tree set as evaluate.trees[0] (medial): its rows could not "
       "be told apart"},
      {"evaluate:\n  schedulers: [round_robin]\n  trees:\n    - {builder: medial, fit: voxels}\n", {},
       "test.yaml:4:25: evaluate.trees[0].fit: medial trees fit their own spheres; fit applies to octree (and "
       "tightest) trees: leave it out"},
      {"evaluate:\n  trees:\n    - {builder: medial}\n", {},
       "test.yaml:2:3: evaluate.trees: the tree sets are run by the evaluated schedulers, and there are none: set "
       "evaluate.schedulers"},
  });
  const config::LoadedConfig trees = load_config_text(
      "evaluate:\n  schedulers: [round_robin]\n  trees:\n    - {builder: octree, fit: voxels}\n    - {builder: medial}\n",
      "test.yaml");
  REQUIRE(trees.settings.evaluate.trees.size() == 2);
  CHECK(evaluated_tree_name(trees.settings.evaluate.trees[0]) == "octree_fit");
  CHECK(evaluated_tree_name(trees.settings.evaluate.trees[1]) == "medial");
}

TEST_CASE("config: an experiment's display keys: a monitor index, a gamma or a lookup table, their errors named",
          "[config][display]") {
  test::TempDir dir;
  // A design, last: the display's keys are on line 1.
  const std::string design = "constant_stimuli: {gaps_deg: [0.2], eccentricities_deg: [5]}\n";
  const auto spec_error = [&](const std::string& text, const std::vector<std::string>& sets = {}) -> std::string {
    std::vector<config::Override> overrides;
    for (const std::string& s : sets) overrides.push_back(config::set_override(s));
    try {
      (void)config::load_experiment_text(text + design, "exp.yaml", overrides);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  // The defaults: the primary monitor, no calibration given (2.2 assumed when drawing).
  const ExperimentSettings defaults = config::load_experiment_text(design, "exp.yaml").spec;
  CHECK(defaults.display.index == 0);
  CHECK_FALSE(defaults.display.gamma.has_value());
  CHECK(defaults.display.lut_file.empty());
  const config::LoadedExperiment gamma = config::load_experiment_text("display: {index: 2, gamma: 2.35}\n" + design, "exp.yaml");
  CHECK(gamma.spec.display.index == 2);
  CHECK(gamma.spec.display.gamma == 2.35);

  // The index: an integer from 0; whether the monitor is there is the session's to say.
  CHECK(spec_error("display: {index: 1.5}\n") == "exp.yaml:1:18: display.index: expected an integer in [0, 63], found 1.5");
  CHECK(spec_error("display: {index: -1}\n") == "exp.yaml:1:18: display.index: expected an integer in [0, 63], found -1");
  CHECK(spec_error("display: {index: second}\n") ==
        "exp.yaml:1:18: display.index: expected an integer in [0, 63], found \"second\"");
  CHECK(spec_error("", {"display.index=[1]"}) == "--set display.index=[1]: display.index: expected an integer in [0, 63], found a list");
  // The gamma: a number in [0.5, 5] (22 for 2.2 is refused), or ~ for none.
  CHECK(spec_error("display: {gamma: 22}\n") == "exp.yaml:1:18: display.gamma: expected a number in [0.5, 5], found 22");
  CHECK(spec_error("display: {gamma: srgb}\n") == "exp.yaml:1:18: display.gamma: expected a number in [0.5, 5], found \"srgb\"");
  CHECK(spec_error("display: {gamma: ~}\n").empty());

  // A lookup table: read when the spec loads, its path from the spec's folder.
  test::write_file(dir / "lut.csv", "level,luminance\n0,0.4\n0.5,21.8\n1,97.2\n");
  test::write_file(dir / "spec.yaml", "display:\n  lut_file: lut.csv\n" + design);
  const config::LoadedExperiment table = config::load_experiment_file((dir / "spec.yaml").string());
  const std::string path = (dir / "lut.csv").lexically_normal().string();
  CHECK(table.spec.display.lut_file == path);
  // Resolved, it names the table and no gamma, and loads back to itself.
  const std::string resolved = config::resolved_experiment_yaml(table.spec);
  CHECK(resolved.find("  gamma: ~\n  lut_file: \"" + path + "\"\n") != std::string::npos);
  CHECK(config::resolved_experiment_yaml(config::load_experiment_text(resolved, "resolved.yaml").spec) == resolved);

  // Both: the table replaces a gamma, so one of them is a mistake.
  test::write_file(dir / "both.yaml", "display:\n  gamma: 2.2\n  lut_file: lut.csv\n" + design);
  CHECK_THROWS_WITH(config::load_experiment_file((dir / "both.yaml").string()),
                    (dir / "both.yaml").string() +
                        ":3:3: display.lut_file: display.gamma and display.lut_file are both given; the table is the "
                        "display's measured response and replaces a gamma: give one");
  // A table that cannot be used: the spec's key, then the table's own file and line.
  test::write_file(dir / "bad.csv", "level,luminance\n0,0.4\n0.5,21.8\n0.7,20.1\n1,97.2\n");
  test::write_file(dir / "bad.yaml", "name: bad\ndisplay: {lut_file: bad.csv}\n" + design);
  CHECK_THROWS_WITH(config::load_experiment_file((dir / "bad.yaml").string()),
                    (dir / "bad.yaml").string() + ":2:11: display.lut_file: " + (dir / "bad.csv").string() +
                        ":4: luminance 20.1 is below the previous row's 21.8: a display's luminance does not fall as its "
                        "level rises; measure again (or average repeated readings)");
  test::write_file(dir / "missing.yaml", "display: {lut_file: none.csv}\n" + design);
  CHECK_THROWS_WITH(config::load_experiment_file((dir / "missing.yaml").string()),
                    (dir / "missing.yaml").string() + ":1:11: display.lut_file: " + (dir / "none.csv").string() +
                        ": cannot read the display lookup table: no such file");
}
