#include "config/config.hpp"

#include <cctype>
#include <charconv>
#include <filesystem>
#include <sstream>
#include <unordered_set>

#include <yaml-cpp/eventhandler.h>

#include "config/settings_schema.hpp"
#include "core/file_read.hpp"
#include "core/format.hpp"
#include "core/setting_error.hpp"
#include "gaze/replay_gaze.hpp"
#include "gaze/simulated_tracker.hpp"
#include "perception/perception_model.hpp"
#include "perception/view.hpp"
#include "psychophysics/display_calibration.hpp"
#include "schedule/scheduler.hpp"

namespace fovea::config {
namespace {

/// `source_name` names the text in messages; with `in_file`, a message adds the line and
/// column, as "file:L:C"; without (a --set value), it names the argument alone.
void check_yaml_structure(const std::string& text, const std::string& source_name, bool in_file = true);

/// One step of a key path: a map key, or a list index.
struct PathStep {
  std::string key;
  long long index = -1;
};

ConfigError bad_assignment(const Override& o) {
  return ConfigError(o.shown_as + ": expected key=value with a key like world.entities[0].count");
}

std::vector<PathStep> split_path(const std::string& path, const Override& o) {
  std::vector<PathStep> steps;
  std::size_t i = 0;
  while (i < path.size()) {
    const std::size_t end = path.find_first_of(".[", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (key.empty()) throw bad_assignment(o);
    steps.push_back({key, -1});
    i = end == std::string::npos ? path.size() : end;
    while (i < path.size() && path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string::npos) throw bad_assignment(o);
      long long index = -1;
      const char* first = path.data() + i + 1;
      const char* last = path.data() + close;
      const auto parsed = std::from_chars(first, last, index);
      if (first == last || parsed.ec != std::errc() || parsed.ptr != last || index < 0) throw bad_assignment(o);
      steps.push_back({"", index});
      i = close + 1;
    }
    if (i < path.size()) {
      if (path[i] != '.') throw bad_assignment(o);
      ++i;
      if (i == path.size()) throw bad_assignment(o);
    }
  }
  if (steps.empty()) throw bad_assignment(o);
  return steps;
}

std::string kind_of(const YAML::Node& node) {
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a map";
  return "a single value";
}

/// How many times `target` (by identity) is reachable in `node`: more than once when a YAML
/// alias (*anchor) shares it. The depth bound also stops a self-referencing alias.
int occurrences(const YAML::Node& node, const YAML::Node& target, int depth = 0) {
  if (depth > kMaxNestingDepth) return 0;
  int n = node.is(target) ? 1 : 0;
  if (node.IsSequence())
    for (const auto& child : node) n += occurrences(child, target, depth + 1);
  else if (node.IsMap())
    for (const auto& entry : node) n += occurrences(entry.second, target, depth + 1);
  return n;
}

/// Writes the override's value at its path into the document, creating maps on the way;
/// list elements must exist already.
void apply_override(YAML::Node& root, const Override& o, Sources& sources) {
  const std::size_t equals = o.assignment.find('=');
  if (equals == std::string::npos || equals == 0) throw bad_assignment(o);
  const std::string path = o.assignment.substr(0, equals);
  const std::vector<PathStep> steps = split_path(path, o);
  YAML::Node value;
  const std::string value_text = o.assignment.substr(equals + 1);
  try {
    check_yaml_structure(value_text, o.shown_as, false);
    value = YAML::Load(value_text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(o.shown_as + ": YAML syntax error in the value: " + e.msg);
  }
  sources.sets.emplace_back(path, o.shown_as);

  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  YAML::Node current;
  current.reset(root);
  std::string walked;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const PathStep& step = steps[s];
    const bool last = s + 1 == steps.size();
    // The path is the argument's own text: quoted as excerpt() quotes input.
    const std::string where = walked.empty() ? "the top level" : excerpt(walked);
    if (step.index >= 0) {
      if (!current.IsDefined() || current.IsNull())
        throw ConfigError(o.shown_as + ": " + where + " is not in the config; set the whole list, as " + where +
                          "=[...]");
      if (!current.IsSequence()) throw ConfigError(o.shown_as + ": " + where + " is " + kind_of(current) + ", not a list");
      const auto index = static_cast<std::size_t>(step.index);
      if (index >= current.size())
        throw ConfigError(o.shown_as + ": " + where + " has " + std::to_string(current.size()) +
                          (current.size() == 1 ? " entry" : " entries") + ", no [" + std::to_string(index) + "]");
      walked += "[" + std::to_string(index) + "]";
      YAML::Node next = current[index];
      if (!last && occurrences(root, next) > 1)
        throw ConfigError(o.shown_as + ": " + excerpt(walked) +
                          " is shared through a YAML alias (*anchor); write it out in the config to change one copy");
      if (last) {
        current[index] = value;
        return;
      }
      current.reset(next);
    } else {
      if (current.IsNull()) current = YAML::Node(YAML::NodeType::Map);
      if (!current.IsMap()) throw ConfigError(o.shown_as + ": " + where + " is " + kind_of(current) + ", not a map of keys");
      walked += (walked.empty() ? "" : ".") + step.key;
      if (last) {
        current[step.key] = value;
        return;
      }
      if (!current[step.key]) current[step.key] = YAML::Node(YAML::NodeType::Null);
      YAML::Node next = current[step.key];
      if (occurrences(root, next) > 1)
        throw ConfigError(o.shown_as + ": " + excerpt(walked) +
                          " is shared through a YAML alias (*anchor); write it out in the config to change one copy");
      current.reset(next);
    }
  }
}

/// The steps from the root to a node, joined into a key path only when a message needs one:
/// building the path at every node made the check quadratic in the depth of long paths.
std::string joined_path(const std::vector<std::string>& steps) {
  std::string path;
  for (const std::string& step : steps) path += (path.empty() || step.front() == '[' ? "" : ".") + step;
  return path;
}

/// The recursion is bounded: the document passed check_yaml_structure first (at most
/// kMaxNestingDepth levels, no alias inside its own anchor).
void check_duplicate_keys(const YAML::Node& node, std::vector<std::string>& steps, const Sources& sources) {
  if (node.IsSequence()) {
    std::size_t i = 0;
    for (const auto& item : node) {
      steps.push_back("[" + std::to_string(i++) + "]");
      check_duplicate_keys(item, steps, sources);
      steps.pop_back();
    }
  } else if (node.IsMap()) {
    // A set, not a list: a map of 40,000 keys took seconds compared pairwise.
    std::unordered_set<std::string> seen;
    for (const auto& entry : node) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "?";
      // As messages show it (excerpt): a megabyte-long key does not make a megabyte-long line.
      steps.push_back(excerpt(key));
      if (!seen.insert(key).second) {
        const std::string key_path = joined_path(steps);
        throw ConfigError(sources.where(key_path, entry.first.Mark()) + ": " + key_path + ": duplicate key");
      }
      check_duplicate_keys(entry.second, steps, sources);
      steps.pop_back();
    }
  }
}

/// Rejects a key written twice in one map, anywhere in the file. Done on the file as
/// written, before any override, so the message points at the file's second key.
void check_duplicate_keys(const YAML::Node& root, const Sources& sources) {
  std::vector<std::string> steps;
  check_duplicate_keys(root, steps, sources);
}

std::string read_text_file(const std::string& path, const char* what) {
  try {
    return read_regular_file(path, kMaxConfigFileBytes, what);
  } catch (const FileReadError& e) {
    throw ConfigError(e.what());
  }
}

std::string position(const std::string& source_name, const YAML::Mark& mark) {
  // yaml-cpp counts lines and columns from 0.
  return source_name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

/// Reads a perception-model file into `model` (keys it does not set keep their values);
/// returns the keys it set, with where.
std::map<std::string, std::string> read_perception_model_file(const std::string& path, PerceptionModelSettings& model) {
  const YAML::Node root = load_yaml_document(read_text_file(path, "perception model"), path);
  Sources sources{path, {}};
  std::map<std::string, std::string> locations;
  ParseState state{sources, locations};
  perception_model_schema(false).parse(root, model, "", root.IsDefined() ? root.Mark() : YAML::Mark(), state);
  return locations;
}

/// perception.model.file: the keys the file sets replace the inline ones; a key set both
/// inline and in the file must agree (a resolved config.yaml holds both, equal), otherwise
/// the config is refused rather than one silently ignored. Keys the file leaves out keep
/// their inline values.
void apply_perception_model_file(LoadedConfig& loaded) {
  PerceptionModelSettings& model = loaded.settings.perception.model;
  const PerceptionModelSettings inline_model = model;
  std::map<std::string, std::string> in_file;
  try {
    in_file = read_perception_model_file(model.file, model);
  } catch (const ConfigError& e) {
    throw ConfigError(loaded.error_at("perception.model.file", e.what()));
  }
  const auto check = [&](const char* key, bool same) {
    const std::string path = std::string("perception.model.") + key;
    if (!same && in_file.count(key) != 0 && loaded.locations.count(path) != 0)
      throw ConfigError(loaded.error_at(path, "differs from the value in perception.model.file (" + in_file.at(key) +
                                                  "); give it in one place"));
  };
  check("function", inline_model.function == model.function);
  check("threshold_deg", inline_model.threshold_deg == model.threshold_deg);
  check("eccentricity_scale_deg", inline_model.eccentricity_scale_deg == model.eccentricity_scale_deg);
  check("width", inline_model.width == model.width);
  check("guess_rate", inline_model.guess_rate == model.guess_rate);
  check("lapse_rate", inline_model.lapse_rate == model.lapse_rate);
}

/// A path key's value (Section::path: relative to the config file) made absolute from
/// `base_folder`, so the resolved config.yaml of a run finds the same file from anywhere.
/// Empty stays empty: no file.
void make_absolute(std::string& path, const std::filesystem::path& base_folder) {
  if (!path.empty() && std::filesystem::path(path).is_relative())
    path = std::filesystem::absolute(base_folder / path).lexically_normal().string();
}

/// What makes a tracker's port unusable, with `key` set to the key at fault; "" when it can
/// work. The stream's clock answers on the port after its samples' (trackers/stream_gaze.hpp).
/// (An empty host the schema refuses.)
std::string tracker_address_problem(const GazeSettings& gaze, const char*& key) {
  if (gaze.source == GazeSourceKind::stream && gaze.port > 65534) {
    key = "gaze.port";
    return "the stream's clock answers on the port after its samples', so the port must be at most 65534, not " +
           std::to_string(gaze.port);
  }
  return "";
}

/// The gaze keys that depend on each other or on a file: the replay file is read here, so a
/// bad recording is reported at load time with its own file and line.
void check_gaze(LoadedConfig& loaded, const std::filesystem::path& base_folder) {
  GazeSettings& gaze = loaded.settings.gaze;
  make_absolute(gaze.file, base_folder);
  if (gaze.source == GazeSourceKind::replay) {
    if (gaze.file.empty())
      throw ConfigError(loaded.error_at("gaze.source", "source: replay needs gaze.file, the gaze CSV to play back"));
    try {
      (void)read_gaze_csv(gaze.file);
    } catch (const std::runtime_error& e) {
      throw ConfigError(loaded.error_at("gaze.file", e.what()));
    }
  }
  // A simulated tracker samples a synthetic eye at any time it likes; a live source has its
  // own latency and answers for now only.
  const char* key = "";
  if (const std::string problem = simulated_tracker_problem(gaze, key); !problem.empty())
    throw ConfigError(loaded.error_at(key, problem));
  if (const std::string problem = tracker_address_problem(gaze, key); !problem.empty())
    throw ConfigError(loaded.error_at(key, problem));
  // Letters, digits, '.', '-' and ':' cover host names and IPv4 and IPv6 addresses; anything
  // else (a URL, a space) is a mistake better caught here than as a connection that never works.
  for (const char c : gaze.host)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':'))
      throw ConfigError(loaded.error_at("gaze.host", "expected a host name or an IP address (letters, digits, '.', '-', "
                                                     "':'), found \"" + excerpt(gaze.host) + "\""));
}

/// The sphere_tree keys that cannot work together. Values, not the keys written, decide: a
/// run's resolved config.yaml writes every key, defaults included, and must load back.
void check_sphere_tree(const LoadedConfig& loaded, const SphereTreeSettings& trees, const std::string& at) {
  const SphereTreeSettings defaults;
  if (!trees.file.empty()) {
    const auto refuse = [&](const char* key) {
      throw ConfigError(loaded.error_at(at + key, std::string("the tree is read from sphere_tree.file, not built; leave out ") +
                                                      key + " or file"));
    };
    if (trees.builder != defaults.builder) refuse("builder");
    if (trees.fit != defaults.fit) refuse("fit");
    if (trees.branching != defaults.branching) refuse("branching");
  } else if (trees.inflate) {
    throw ConfigError(loaded.error_at(at + "inflate", "inflate grows the spheres of a tree read from sphere_tree.file; "
                                                      "built trees cover the voxels already: set file or leave out inflate"));
  }
  if (trees.on_demand && trees.file.empty() && !kind_row(kSphereTreeBuilders, trees.builder).grows_on_demand)
    throw ConfigError(loaded.error_at(at + "on_demand", std::string("on-demand growth builds octree trees only, and builder is ") +
                                                            std::string(sphere_tree_builder_name(trees.builder)) +
                                                            "; set builder: octree or on_demand: false"));
}

/// Checks between keys, and file paths made absolute from `base_folder`.
void finish(LoadedConfig& loaded, const std::filesystem::path& base_folder) {
  Settings& settings = loaded.settings;
  if (const std::string problem = check_schedule_settings(settings.schedule); !problem.empty())
    throw ConfigError(loaded.error_at(loaded.locations.count("schedule.band_edges") ? "schedule.band_edges" : "schedule.queues",
                                      problem));
  if (const BudgetModeInfo& mode = kind_row(kBudgetModes, settings.budget.mode); !mode.runs_a_world)
    throw ConfigError(loaded.error_at("budget.mode", std::string(mode.name) + " budgets are for evaluate.budgets only: "
                                                     "a run's own budget is work, wall or unlimited"));
  for (std::size_t i = 0; i < settings.evaluate.trees.size(); ++i) {
    const EvaluatedTreeSettings& trees = settings.evaluate.trees[i];
    const std::string at = "evaluate.trees[" + std::to_string(i) + "].";
    if (trees.builder == SphereTreeBuilder::medial && trees.fit == SphereFit::voxels)
      throw ConfigError(loaded.error_at(at + "fit", "medial trees fit their own spheres; fit applies to octree (and "
                                                    "tightest) trees: leave it out"));
    for (std::size_t j = 0; j < i; ++j)
      if (evaluated_tree_name(settings.evaluate.trees[j]) == evaluated_tree_name(trees))
        throw ConfigError(loaded.error_at(at + "builder", "the same tree set as evaluate.trees[" + std::to_string(j) +
                                                              "] (" + evaluated_tree_name(trees) +
                                                              "): its rows could not be told apart"));
  }
  // The oracle orders by the exact voxel test's verdict, which only ground truth computes.
  if (!settings.ground_truth) {
    const auto refuse_without_truth = [&](const std::string& key, SchedulerKind kind) {
      if (scheduler_kind_info(kind).uses_true_priority)
        throw ConfigError(loaded.error_at(key, std::string(scheduler_name(kind)) +
                                                   " orders collisions by the true p from the exact voxel test, which "
                                                   "needs ground_truth: true"));
    };
    refuse_without_truth("schedule.kind", settings.schedule.kind);
    for (const SchedulerKind kind : settings.evaluate.schedulers) refuse_without_truth("evaluate.schedulers", kind);
  }
  if (!settings.evaluate.trees.empty() && !settings.evaluate.enabled())
    throw ConfigError(loaded.error_at("evaluate.trees", "the tree sets are run by the evaluated schedulers, and there are "
                                                        "none: set evaluate.schedulers"));
  if (settings.evaluate.enabled() && settings.evaluate.budgets.empty() && settings.budget.mode == BudgetMode::unlimited)
    throw ConfigError(loaded.error_at("evaluate.schedulers", "the run's budget is unlimited, so the evaluated schedulers "
                                                             "need budgets of their own: set evaluate.budgets"));
  const ScreenSettings& screen = settings.perception.view.screen;
  if (settings.gaze.source == GazeSourceKind::fixed) {
    if (settings.gaze.x_px > screen.width_px)
      throw ConfigError(loaded.error_at("gaze.x_px", "the fixation point lies off the " + std::to_string(screen.width_px) +
                                                         " px wide screen (perception.view.screen.width_px)"));
    if (settings.gaze.y_px > screen.height_px)
      throw ConfigError(loaded.error_at("gaze.y_px", "the fixation point lies off the " + std::to_string(screen.height_px) +
                                                         " px high screen (perception.view.screen.height_px)"));
  }
  check_gaze(loaded, base_folder);
  std::string& model_file = settings.perception.model.file;
  if (!model_file.empty()) {
    make_absolute(model_file, base_folder);
    apply_perception_model_file(loaded);
  }
  try {
    const PerceptionModel model(settings.perception.model);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(loaded.error_at("perception.model", e.what()));
  }
  try {
    const View view(settings.perception.view, Aabb{Vec3(0.0), settings.world.box_size_m});
  } catch (const std::invalid_argument& e) {
    throw ConfigError(loaded.error_at("perception.view.camera", e.what()));
  }
  if (glm::length(settings.render.light_direction) < 1e-9)
    throw ConfigError(loaded.error_at("render.light_direction", "expected a direction, not a zero vector"));

  for (std::size_t g = 0; g < loaded.settings.world.entities.size(); ++g) {
    EntityGroupSettings& group = loaded.settings.world.entities[g];
    const std::string at = "world.entities[" + std::to_string(g) + "].";
    // A material that leaves out restitution or friction takes the response's defaults.
    if (loaded.locations.count(at + "material.restitution") == 0)
      group.material.restitution = settings.response.restitution;
    if (loaded.locations.count(at + "material.friction") == 0) group.material.friction = settings.response.friction;
    if (group.model.shape == Shape::file && group.model.file.empty())
      throw ConfigError(loaded.error_at(at + "model.shape", "shape: file needs model.file, the .vox file to read"));
    if (group.model.shape != Shape::file && !group.model.file.empty())
      throw ConfigError(loaded.error_at(at + "model.file", "model.file is set but model.shape is not file; set shape: file"));
    make_absolute(group.model.file, base_folder);
    make_absolute(group.sphere_tree.file, base_folder);
    check_sphere_tree(loaded, group.sphere_tree, at + "sphere_tree.");
  }
}

/// One YAML document's text, the overrides applied, parsed by `schema` into `out`; returns
/// where each key was written. Any document kind: a config, an experiment spec.
template <class T>
std::map<std::string, std::string> parse_text(const std::string& text, const std::string& source_name,
                                              const std::vector<Override>& overrides, const Section<T>& schema, T& out) {
  if (overrides.size() > kMaxOverrides)
    throw ConfigError(source_name + ": " + std::to_string(overrides.size()) + " keys set on it (--set, a study's set "
                      "and its levels'), more than the " + std::to_string(kMaxOverrides) + " one config may take");
  YAML::Node root = load_yaml_document(text, source_name);
  Sources sources{source_name, {}};
  for (const auto& o : overrides) apply_override(root, o, sources);
  std::map<std::string, std::string> locations;
  ParseState state{sources, locations};
  schema.parse(root, out, "", root.IsDefined() ? root.Mark() : YAML::Mark(), state);
  return locations;
}

std::vector<Override> as_overrides(const std::vector<std::string>& sets) {
  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(set_override(s));
  return overrides;
}


/// YAML text to validated settings; relative file paths resolve from `base_folder`.
LoadedConfig load_document(const std::string& text, const std::string& source_name,
                           const std::vector<Override>& overrides, const std::filesystem::path& base_folder) {
  LoadedConfig loaded;
  loaded.source = source_name;
  loaded.locations = parse_text(text, source_name, overrides, settings_schema(), loaded.settings);
  finish(loaded, base_folder);
  return loaded;
}

/// The screen's extent in degrees of visual angle, width and height, at its viewing distance.
std::pair<double, double> screen_extent_deg(const ScreenSettings& screen) {
  const double to_deg = 180.0 / 3.141592653589793;
  return {2 * std::atan(0.5 * screen.width_cm / screen.viewing_distance_cm) * to_deg,
          2 * std::atan(0.5 * screen.height_cm / screen.viewing_distance_cm) * to_deg};
}

/// The spec key of a field of InterleavedStaircaseSettings ("rules.min_value",
/// "start_values_deg[1]"): the spec's staircase section holds the rules' keys beside the others
/// (staircase_rules_schema() in settings_schema.cpp) and names the range by what it bounds.
std::string staircase_spec_key(const std::string& field) {
  const std::string key = field.starts_with("rules.") ? field.substr(6) : field;
  if (key == "min_value") return "staircase.min_gap_deg";
  if (key == "max_value") return "staircase.max_gap_deg";
  return "staircase." + key;
}

/// The spec key of a field of InterleavedPsiSettings ("grid.max_gap_deg" is psi.max_gap_deg:
/// the spec's psi section holds the grid's keys beside the others, psi_grid_schema()).
std::string psi_spec_key(const std::string& field) {
  return "psi." + (field.starts_with("grid.") ? field.substr(5) : field);
}

/// A clip comparison's checks across keys: psychophysics/clip_design.hpp's validate(), at the
/// key it names.
void check_clip_comparison(const LoadedExperiment& loaded) {
  const ClipComparisonSettings& c = loaded.spec.clip_comparison;
  try {
    validate(c);
  } catch (const std::invalid_argument& problem) {
    const std::string what = problem.what();
    const std::size_t colon = what.find(": ");
    throw ConfigError(loaded.error_at(what.substr(0, colon), what.substr(colon + 2)));
  }
}

/// A clip comparison's scenes: each file made absolute from `base_folder` (the spec's) and
/// loaded as a config now, so a missing or broken scene is refused at its key before anything
/// runs.
void finish_clip_scenes(LoadedExperiment& loaded, const std::filesystem::path& base_folder) {
  if (loaded.spec.method != DesignMethod::clip_comparison) return;
  std::vector<ClipScene>& scenes = loaded.spec.clip_comparison.scenes;
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    const std::string key = "clip_comparison.scenes[" + std::to_string(i) + "].file";
    if (scenes[i].file.empty()) throw ConfigError(loaded.error_at(key, "a scene needs its world config file"));
    make_absolute(scenes[i].file, base_folder);
    try {
      (void)load_config_file(scenes[i].file, std::vector<Override>{});
    } catch (const std::exception& problem) {
      throw ConfigError(loaded.error_at(key, std::string("the scene does not load: ") + problem.what()));
    }
  }
}

/// The display's calibration: a gamma or a lookup table, not both; the table's file made
/// absolute from `base_folder` (the spec's) and read now, so a table that cannot be used is
/// refused at its key, with its own file and line, before anything runs.
void finish_display(LoadedExperiment& loaded, const std::filesystem::path& base_folder) {
  DisplaySettings& display = loaded.spec.display;
  if (display.gamma && !display.lut_file.empty())
    throw ConfigError(loaded.error_at("display.lut_file",
                                      "display.gamma and display.lut_file are both given; the table is the display's "
                                      "measured response and replaces a gamma: give one"));
  if (display.lut_file.empty()) return;
  make_absolute(display.lut_file, base_folder);
  try {
    (void)read_display_lut(display.lut_file);
  } catch (const std::runtime_error& e) {
    throw ConfigError(loaded.error_at("display.lut_file", e.what()));
  }
}

/// A two-interval task's checks: two keys, and a design whose every trial has a gap (a catch
/// trial would show the pair touching in both animations: no answer could be right) and whose
/// psi assumes the forced choice's guess rate.
void check_two_interval(const LoadedExperiment& loaded) {
  const ExperimentSettings& e = loaded.spec;
  const auto fail = [&](const std::string& key, const std::string& message) { throw ConfigError(loaded.error_at(key, message)); };
  if (e.task.first_key == e.task.second_key)
    fail("task.second_key", "the same key as task.first_key; the two intervals need two keys");
  const std::string no_catch = " with task.kind 2ifc: every two-interval trial shows its gap in one animation and the "
                               "pair touching in the other, so there are no catch trials (set it to 0)";
  if (e.method == DesignMethod::constant_stimuli && e.constant_stimuli.catch_trials_per_block != 0)
    fail("constant_stimuli.catch_trials_per_block", "must be 0" + no_catch);
  if (e.method == DesignMethod::psi && e.psi.catch_trials != 0) fail("psi.catch_trials", "must be 0" + no_catch);
  if (e.method == DesignMethod::psi && e.psi.grid.guess_rate != forced_choice_guess_rate(e.task.kind))
    fail("psi.guess_rate", "must be 0.5 with task.kind 2ifc: a guess names the interval with the gap half the time");
  if (e.method == DesignMethod::clip_comparison)
    fail("task.kind", "2ifc is a gap design's task; a clip comparison has its own (clip_comparison.task)");
}

/// The checks that span keys (docs/psychophysics.md, "Errors"), each against the key at fault.
void check_experiment(const LoadedExperiment& loaded) {
  const ExperimentSettings& e = loaded.spec;
  const auto fail = [&](const std::string& key, const std::string& message) { throw ConfigError(loaded.error_at(key, message)); };
  if (e.stimulus.collision_time_s >= e.stimulus.duration_s)
    fail("stimulus.collision_time_s", "the collision at " + format_significant(e.stimulus.collision_time_s) +
                                          " s must come before the stimulus ends (stimulus.duration_s " +
                                          format_significant(e.stimulus.duration_s) + " s)");
  if (e.task.yes_key == e.task.no_key) fail("task.no_key", "the same key as task.yes_key; yes and no need two keys");
  if (e.task.kind == TaskKind::two_interval) check_two_interval(loaded);
  const char* gaze_key = "";
  if (const std::string problem = tracker_address_problem(e.gaze, gaze_key); !problem.empty()) fail(gaze_key, problem);
  if (e.gaze.source == GazeSourceKind::external)
    fail("gaze.source", "external gaze is pushed by a program through fovea's Python module (World.set_gaze), and "
                        "a session has no one to push it; use pupil, gazepoint or stream (any tracker through a "
                        "sender, docs/gaze.md) for gaze-contingent trials");

  // Every stimulus must fit on the screen: the largest gap, and the target pair at the
  // largest eccentricity in any direction.
  const auto [width_deg, height_deg] = screen_extent_deg(e.screen);
  // Targets on the horizontal meridian need the screen's width only.
  const bool horizontal = e.stimulus.directions == StimulusDirections::horizontal;
  const double smaller_deg = horizontal ? width_deg : std::min(width_deg, height_deg);
  const std::string screen_text = format_significant(width_deg) + " x " + format_significant(height_deg) +
                                  " deg at " + format_significant(e.screen.viewing_distance_cm) + " cm";
  const auto check_gap = [&](const std::string& key, double gap_deg) {
    if (gap_deg >= smaller_deg)
      fail(key, "a gap of " + format_significant(gap_deg) + " deg is larger than the screen (" + screen_text + ")");
  };
  const auto check_eccentricity = [&](const std::string& key, double eccentricity_deg) {
    // The outer entity of the pair starts speed x collision time farther out than it meets.
    const double approach_deg = e.stimulus.speed_degps * e.stimulus.collision_time_s;
    const double reach_deg = eccentricity_deg + e.stimulus.entity_size_deg + approach_deg;
    if (reach_deg > 0.5 * smaller_deg)
      fail(key, "an eccentricity of " + format_significant(eccentricity_deg) + " deg puts the target pair (" +
                    format_significant(e.stimulus.entity_size_deg) + " deg entities, approaching from " +
                    format_significant(approach_deg) + " deg farther out) off the screen" +
                    (horizontal ? ": half its width is " : " in some directions: half the screen is ") +
                    format_significant(0.5 * smaller_deg) + " deg (" + screen_text + ")" +
                    (horizontal ? "" : "; stimulus.directions: horizontal uses the width"));
  };
  // An adaptive design's own check (psychophysics/psi.hpp, trial_design.hpp validate()) at
  // the spec key of the field it names, then its largest gap and its eccentricities.
  const auto check_adaptive = [&](const auto& design, auto spec_key, const std::string& section, double max_gap_deg) {
    try {
      validate(design);
    } catch (const SettingError& problem) {
      fail(spec_key(problem.key()), problem.detail());
    }
    check_gap(section + ".max_gap_deg", max_gap_deg);
    for (const double x : design.eccentricities_deg) check_eccentricity(section + ".eccentricities_deg", x);
  };
  if (e.stimulus.kind == StimulusKind::scene) {
    if (glm::length(e.stimulus.scene.light_direction) < 1e-9)
      fail("stimulus.scene.light_direction", "expected a direction, not a zero vector");
  }
  if (e.method == DesignMethod::constant_stimuli) {
    const ConstantStimuliSettings& c = e.constant_stimuli;
    if (c.gaps_deg.empty()) fail("constant_stimuli.gaps_deg", "an empty list: constant stimuli need at least one gap");
    if (c.eccentricities_deg.empty())
      fail("constant_stimuli.eccentricities_deg", "an empty list: constant stimuli need at least one eccentricity");
    for (const double g : c.gaps_deg) check_gap("constant_stimuli.gaps_deg", g);
    for (const double x : c.eccentricities_deg) check_eccentricity("constant_stimuli.eccentricities_deg", x);
    try {
      (void)plan_constant_stimuli(c, 1);
    } catch (const std::invalid_argument& problem) {
      fail("constant_stimuli", problem.what());
    }
  } else if (e.method == DesignMethod::psi) {
    check_adaptive(e.psi, psi_spec_key, "psi", e.psi.grid.max_gap_deg);
  } else if (e.method == DesignMethod::clip_comparison) {
    check_clip_comparison(loaded);
  } else {
    check_adaptive(e.staircase, staircase_spec_key, "staircase", e.staircase.rules.max_value);
  }
}

/// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// past U+10FFFF).
bool is_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t code = 0;
    if ((lead & 0xE0) == 0xC0) {
      length = 2;
      code = lead & 0x1Fu;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      code = lead & 0x0Fu;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      code = lead & 0x07u;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) return false;
      code = (code << 6) | (byte(i + k) & 0x3Fu);
    }
    const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

/// What aliases may add to a document, in nodes: far more than any config shares through
/// anchors (a few entity groups), far less than a walk of the document can afford.
constexpr std::int64_t kMaxAliasNodes = 100'000;

/// Checks a YAML text's structure on the parser's events, before any node is built or
/// walked: nesting at most kMaxNestingDepth deep, aliases adding at most kMaxAliasNodes nodes
/// when expanded, and no alias inside its own anchor. yaml-cpp shares an aliased node rather
/// than copying it, so a few hundred bytes of nested aliases ("billion laughs") make a
/// document of billions of nodes for every walk that follows, and a self-containing anchor an
/// endless one. Counting here costs one pass over the events, whatever the aliases expand to.
class YamlStructureCheck final : public YAML::EventHandler {
 public:
  YamlStructureCheck(const std::string& source_name, bool in_file) : source_name_(source_name), in_file_(in_file) {}

  /// Where `mark` is, as messages name it.
  std::string where(const YAML::Mark& mark) const { return in_file_ ? position(source_name_, mark) : source_name_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    document_starts_.push_back(mark);
    first_nodes_.push_back(mark);
    document_has_node_ = false;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    // YAML is Unicode text: bytes that are not UTF-8 would be written back as other text in a
    // run's config.yaml (found by fuzz/targets/config.cpp), so they are refused here.
    if (!is_utf8(value))
      throw ConfigError(where(mark) + ": not UTF-8 text; a YAML file is UTF-8 (save it as UTF-8)");
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    node_at(mark);
    if (anchor >= anchored_nodes_.size()) return;  // an unknown anchor: yaml-cpp reports it
    if (anchored_nodes_[anchor] == kOpen)
      throw ConfigError(where(mark) + ": an alias (*name) inside the node its anchor (&name) marks "
                                                       "would make an endless document");
    nodes_ += anchored_nodes_[anchor];
    alias_nodes_ += anchored_nodes_[anchor];
    if (alias_nodes_ > kMaxAliasNodes)
      throw ConfigError(where(mark) + ": YAML aliases (*name) expand the document by more than " +
                        std::to_string(kMaxAliasNodes) + " nodes by here; write the shared values out, or share fewer");
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

  /// Where each document began, and where its first node is (its start when it has none).
  const std::vector<YAML::Mark>& document_starts() const { return document_starts_; }
  const std::vector<YAML::Mark>& first_nodes() const { return first_nodes_; }

 private:
  static constexpr std::int64_t kOpen = -1;

  void mark_anchor(YAML::anchor_t anchor, std::int64_t nodes) {
    if (anchor == YAML::NullAnchor) return;
    if (anchor >= anchored_nodes_.size()) anchored_nodes_.resize(anchor + 1, 0);
    anchored_nodes_[anchor] = nodes;
  }
  void node_at(const YAML::Mark& mark) {
    if (!document_has_node_ && !first_nodes_.empty()) first_nodes_.back() = mark;
    document_has_node_ = true;
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    node_at(mark);
    ++nodes_;
    mark_anchor(anchor, 1);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    node_at(mark);
    if (static_cast<int>(open_.size()) >= kMaxNestingDepth)
      throw ConfigError(where(mark) + ": nested deeper than " + std::to_string(kMaxNestingDepth) +
                        " levels of lists and maps; no config needs as many");
    mark_anchor(anchor, kOpen);
    open_.push_back({anchor, nodes_});
    ++nodes_;
  }
  void close() {
    const Open done = open_.back();
    open_.pop_back();
    mark_anchor(done.anchor, nodes_ - done.first_node);
  }

  struct Open {
    YAML::anchor_t anchor;
    std::int64_t first_node;  ///< nodes_ when it opened
  };
  const std::string& source_name_;
  bool in_file_;
  std::vector<YAML::Mark> document_starts_;
  std::vector<YAML::Mark> first_nodes_;
  bool document_has_node_ = false;
  std::vector<Open> open_;
  std::vector<std::int64_t> anchored_nodes_;  ///< by anchor: the nodes it stands for; kOpen while open
  std::int64_t nodes_ = 0;                    ///< nodes so far, aliases expanded
  std::int64_t alias_nodes_ = 0;              ///< of those, added by aliases
};

void check_yaml_structure(const std::string& text, const std::string& source_name, bool in_file) {
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  YamlStructureCheck check(source_name, in_file);
  // A config is one document, so reading stops at the second: beyond the message, this
  // bounds the loop, which yaml-cpp 0.7 would never end on some input (a lone ','), starting
  // the same empty document at the same place again and again.
  while (parser.HandleNextDocument(check)) {
    const std::vector<YAML::Mark>& starts = check.document_starts();
    if (starts.size() < 2) continue;
    if (starts[1].pos == starts[0].pos)
      throw ConfigError(check.where(starts[1]) +
                        ": YAML syntax error: the YAML reader cannot go past this point (a ',' outside [ ] or { }?)");
    throw ConfigError(check.where(check.first_nodes()[1]) +
                      ": a config is one YAML document; this is a second one (after ---)");
  }
}

// A document's every key with its value, defaults filled in, headed by where its keys are
// documented: a run's config.yaml, and a session's resolved spec.
template <class S>
std::string resolved_document(const Section<S>& schema, const S& document, const char* docs_file) {
  YAML::Emitter out;
  out << YAML::Comment(std::string("resolved by fovea: every key, defaults filled in (") + docs_file + ")");
  out << YAML::Newline;
  schema.emit(out, document);
  return std::string(out.c_str()) + "\n";
}

// Every key a schema reads, with its default: what `fovea keys` lists and the docs tests check.
template <class S>
std::vector<KeyInfo> keys_of(const Section<S>& schema) {
  std::vector<KeyInfo> keys;
  schema.describe("", S{}, keys);
  return keys;
}

}  // namespace

YAML::Node load_yaml_document(const std::string& text, const std::string& source_name) {
  YAML::Node root;
  try {
    // The structure first (one document, its depth, its aliases), on the parser's events:
    // nothing is built or walked before it passes.
    check_yaml_structure(text, source_name);
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(position(source_name, e.mark) + ": YAML syntax error: " + e.msg);
  }
  // Checked here, before any --set override is applied, so the file is blamed, not the
  // command line.
  if (root.IsDefined() && !root.IsNull() && !root.IsMap())
    throw ConfigError(position(source_name, root.Mark()) + ": expected a map of keys at the top level, found " +
                      found_text(root));
  check_duplicate_keys(root, Sources{source_name, {}});
  return root;
}

std::string error_at(const std::map<std::string, std::string>& locations, const std::string& source,
                     const std::string& path, const std::string& message) {
  for (std::string p = path; !p.empty();) {
    if (const auto it = locations.find(p); it != locations.end()) return it->second + ": " + path + ": " + message;
    const std::size_t cut = p.find_last_of(".[");
    p = cut == std::string::npos ? "" : p.substr(0, cut);
  }
  return source + ": " + path + ": " + message;
}

std::string LoadedConfig::error_at(const std::string& path, const std::string& message) const {
  return config::error_at(locations, source, path, message);
}

std::string LoadedExperiment::error_at(const std::string& path, const std::string& message) const {
  return config::error_at(locations, source, path, message);
}

PerceptionModelSettings load_perception_model_file(const std::string& path) {
  PerceptionModelSettings model;
  (void)read_perception_model_file(path, model);
  try {
    const PerceptionModel check(model);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(path + ": " + e.what());
  }
  return model;
}

LoadedExperiment load_experiment_text(const std::string& text, const std::string& source_name,
                                      const std::vector<Override>& overrides) {
  LoadedExperiment loaded;
  loaded.source = source_name;
  loaded.locations = parse_text(text, source_name, overrides, experiment_schema(), loaded.spec);
  check_experiment(loaded);
  // Text has no folder of its own: a clip comparison's scenes and the display's table are
  // taken from the working folder.
  finish_clip_scenes(loaded, std::filesystem::path());
  finish_display(loaded, std::filesystem::path());
  return loaded;
}

LoadedExperiment load_experiment_file(const std::string& path, const std::vector<Override>& overrides) {
  LoadedExperiment loaded;
  loaded.source = path;
  loaded.locations = parse_text(read_text_file(path, "experiment"), path, overrides, experiment_schema(), loaded.spec);
  check_experiment(loaded);
  finish_clip_scenes(loaded, std::filesystem::path(path).parent_path());
  finish_display(loaded, std::filesystem::path(path).parent_path());
  return loaded;
}

std::string resolved_experiment_yaml(const ExperimentSettings& spec) {
  return resolved_document(experiment_schema(), spec, "docs/psychophysics.md");
}

std::vector<KeyInfo> experiment_keys() { return keys_of(experiment_schema()); }

LoadedConfig load_config_text(const std::string& text, const std::string& source_name,
                              const std::vector<Override>& overrides) {
  // Text has no folder of its own: its relative paths are taken from the working folder.
  return load_document(text, source_name, overrides, std::filesystem::path());
}

LoadedConfig load_config_text(const std::string& text, const std::string& source_name,
                              const std::vector<std::string>& sets) {
  return load_config_text(text, source_name, as_overrides(sets));
}

LoadedConfig load_config_file(const std::string& path, const std::vector<Override>& overrides) {
  return load_document(read_text_file(path, "config"), path, overrides, std::filesystem::path(path).parent_path());
}

LoadedConfig load_config_file(const std::string& path, const std::vector<std::string>& sets) {
  return load_config_file(path, as_overrides(sets));
}

std::string resolved_yaml(const Settings& settings) {
  return resolved_document(settings_schema(), settings, "docs/config.md");
}

std::string written_back_problem(const LoadedConfig& loaded) {
  // The lists' caps (settings_schema.hpp) keep the written form small; names and paths have
  // no length limit of their own, and an alias may repeat a long one.
  const std::size_t bytes = resolved_yaml(loaded.settings).size();
  if (bytes <= kMaxConfigFileBytes) return "";
  return loaded.source + ": the config a run writes back (config.yaml: every key, paths made absolute) would be " +
         std::to_string(bytes) + " bytes, more than the 1 MiB a config may be; use fewer list elements or shorter "
         "names and paths";
}

std::vector<KeyInfo> config_keys() { return keys_of(settings_schema()); }

}  // namespace fovea::config
