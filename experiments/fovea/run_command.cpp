#include "fovea/run_command.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "config/config.hpp"
#include "core/build_info.hpp"
#include "core/format.hpp"
#include "core/setting_error.hpp"
#include "demos/demo.hpp"
#include "fovea/loopback_gaze.hpp"
#include "fovea/run_window.hpp"
#include "fovea/stop_signals.hpp"
#include "frame/animation.hpp"
#include "record/manifest.hpp"
#include "record/progress.hpp"
#include "record/results_folder.hpp"
#include "render/gl_window.hpp"
#include "render/viewer.hpp"
#include "run/run.hpp"
#include "trackers/stream_gaze.hpp"
#include "trackers/trackers.hpp"

namespace fovea {
namespace {

/// Loads a config (file or built-in) with --set overrides; prints the error and returns
/// nullopt when it is bad.
std::optional<config::LoadedConfig> load(const std::optional<std::string>& path,
                                         const std::vector<config::Override>& overrides) {
  try {
    if (path) return config::load_config_file(*path, overrides);
    return config::load_config_text(std::string(config::default_config_text()), config::kDefaultConfigName, overrides);
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return std::nullopt;
  }
}

}  // namespace

RunManifest start_manifest(const config::LoadedConfig& loaded, const std::vector<std::string>& command_line,
                           WallTime start) {
  RunManifest manifest;
  const BuildInfo build = build_info();
  manifest.fovea_version = build.version;
  manifest.git_commit = build.git_commit;
  manifest.git_dirty = build.git_dirty;
  manifest.seed = loaded.settings.seed;
  manifest.command_line = command_line;
  manifest.working_directory = std::filesystem::current_path().string();
  manifest.config = loaded.source;
  manifest.machine = describe_machine();
  manifest.start_time_utc = utc_iso8601(start);
  manifest.frames_requested = loaded.settings.frames;
  return manifest;
}

std::unique_ptr<Animation> make_world(const config::LoadedConfig& loaded, PointerInput* pointer) {
  const auto group = [](std::uint32_t g) { return "world.entities[" + std::to_string(g) + "]."; };
  try {
    // The window's pointer for the mouse (none headless), and the eye trackers.
    GazeEnvironment environment;
    environment.pointer = pointer;
    return std::make_unique<Animation>(static_cast<const AnimationSettings&>(loaded.settings),
                                       static_cast<std::uint64_t>(loaded.settings.seed), with_trackers(environment));
  } catch (const PlacementError& e) {
    throw config::ConfigError(loaded.error_at(group(e.group_index()) + "count", e.what()));
  } catch (const ModelError& e) {
    throw config::ConfigError(loaded.error_at(group(e.group_index()) + e.setting(), e.what()));
  } catch (const std::bad_alloc&) {
    throw config::ConfigError(loaded.source + ": not enough memory to build this world");
  } catch (const SettingError& e) {
    // A setting that cannot work where the program runs (the mouse in a headless run).
    throw config::ConfigError(loaded.error_at(e.key(), e.detail()));
  } catch (const std::invalid_argument& e) {
    throw config::ConfigError(loaded.source + ": " + e.what());
  }
}

std::unique_ptr<Animation> build_world(const config::LoadedConfig& loaded, PointerInput* pointer) {
  try {
    return make_world(loaded, pointer);
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return nullptr;
  }
}

bool build_demo(const config::LoadedConfig& loaded, Animation& world, std::unique_ptr<Demo>& demo) {
  try {
    demo = make_demo(loaded, world);
    return true;
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
}

std::unique_ptr<Demo> make_demo(const config::LoadedConfig& loaded, Animation& world) {
  try {
    return Demo::make(world, loaded.settings.demo, static_cast<std::uint64_t>(loaded.settings.seed));
  } catch (const SettingError& e) {
    throw config::ConfigError(loaded.error_at(e.key(), e.detail()));
  } catch (const std::exception& e) {
    throw config::ConfigError(loaded.error_at("demo.kind", e.what()));
  }
}

namespace {

/// Where this run's frames go, decided from the options and the machine; said on stderr.
struct DisplayDecision {
  bool draw = false;
  DisplayMode mode = DisplayMode::window;
  std::string said;  ///< what the run says about it once the world is built ("" with --quiet)
};

std::optional<DisplayDecision> decide_display(const RunOptions& options) {
  DisplayDecision d;
  std::string why;
  switch (options.display) {
    case DisplayChoice::headless:
      if (options.capture_dir) {
        std::cerr << "fovea: --capture needs pictures, --headless draws none; use --offscreen instead\n";
        return std::nullopt;
      }
      return d;
    case DisplayChoice::offscreen:
      d.draw = true;
      d.mode = DisplayMode::offscreen;
      if (!options.quiet) d.said = "drawing offscreen (--offscreen)";
      return d;
    case DisplayChoice::automatic:
      if (display_available(why)) {
        d.draw = true;
        if (!options.quiet) d.said = "drawing in a window (" + why + "); --headless runs without one";
      } else if (options.capture_dir) {
        d.draw = true;
        d.mode = DisplayMode::offscreen;
        if (!options.quiet) d.said = "drawing offscreen for --capture (" + why + ")";
      } else if (!options.quiet) {
        d.said = "headless (" + why + "); --offscreen draws pictures without a display";
      }
      return d;
  }
  return d;
}

/// Makes the --capture folder if needed and checks that it can take the pictures: writable,
/// and holding no frame_*.png of an earlier capture, which would mix with this run's. Returns
/// "" or what is wrong.
std::string prepare_capture_folder(const std::filesystem::path& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return "cannot create the folder: " + error.message();
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(error) && name.rfind("frame_", 0) == 0 && entry.path().extension() == ".png")
      return "holds pictures of an earlier capture (" + name + "); choose an empty folder";
  }
  if (error) return error.message();
  if (const std::string problem = folder_write_problem(folder); !problem.empty()) return "cannot write there: " + problem;
  return "";
}

/// The viewer `display` asks for (none when it draws nothing), into `viewer`. Offscreen,
/// what depends on the wall clock (the panel's numbers, the frame-time graph) is left out of
/// the picture unless the config asks for it, so the same config and seed give the same
/// pictures. A window that cannot be opened where none was asked for (a DISPLAY naming no
/// reachable server) is done without, as without a display, and `said` says so. False, said
/// on stderr, when drawing was asked for and cannot be had.
bool open_viewer(const RunOptions& options, const config::LoadedConfig& loaded, const DisplayDecision& display,
                 std::unique_ptr<Viewer>& viewer, std::string& said) {
  const Settings& settings = loaded.settings;
  RenderSettings render = settings.render;
  if (display.mode == DisplayMode::offscreen) {
    if (!loaded.locations.count("render.panel")) render.panel = false;
    if (!loaded.locations.count("render.overlays.frame_graph")) render.overlays.frame_graph = false;
  }
  if (display.draw) {
    try {
      viewer = std::make_unique<Viewer>(render, display.mode, settings.perception.view.screen, "fovea: " + settings.name);
    } catch (const RenderError& e) {
      if (options.display != DisplayChoice::automatic || display.mode != DisplayMode::window) {
        std::cerr << "fovea: " << e.what() << "\n"
                  << "fovea: --headless runs without drawing; --offscreen draws without a display\n";
        return false;
      }
      // A DISPLAY that names no reachable server (a dead ssh -X session, a CI job without
      // Xvfb): the run goes on as it would without one, and says so.
      said = std::string("no window: ") + e.what() + "; " +
             (options.capture_dir ? "drawing offscreen for --capture" : "running headless");
      if (options.capture_dir) {
        try {
          render.panel = loaded.locations.count("render.panel") && settings.render.panel;
          viewer = std::make_unique<Viewer>(render, DisplayMode::offscreen, settings.perception.view.screen, "fovea");
        } catch (const RenderError& offscreen_error) {
          std::cerr << "fovea: " << offscreen_error.what() << "\n";
          return false;
        }
      }
    }
  }
  return true;
}

/// One line per group whose tree file was grown to cover its model (sphere_tree.inflate).
void say_inflations(const Animation& world) {
  for (const TreeInflation& inflation : world.model_library().inflations()) {
    const EntityGroupSettings& group = world.settings().world.entities[inflation.group];
    const InflationReport& r = inflation.report;
    std::cerr << "fovea: group '" << group.name << "': sphere_tree.inflate grew " << r.grown << " of "
              << world.model_library().trees()[inflation.model].size() << " spheres of "
              << std::filesystem::path(group.sphere_tree.file).filename().string() << " to cover the model";
    if (r.grown > 0)
      std::cerr << ", by at most " << format_significant(r.max_growth_m) << " m and "
                << format_significant(100 * r.max_growth_fraction) << " % of a radius";
    std::cerr << "\n";
  }
}

}  // namespace

std::string run_refusal(const config::LoadedConfig& loaded) {
  if (loaded.settings.gaze.source == GazeSourceKind::external)
    return loaded.error_at("gaze.source",
                           "external gaze is pushed by a program through fovea's Python module (World.set_gaze, "
                           "docs/python.md), and fovea run has no one to push it; to run on recorded gaze, use "
                           "source: replay with its file");
  return "";
}

std::string frame_explanation(const config::LoadedConfig& loaded) {
  const AnimationSettings& settings = loaded.settings;
  const std::vector<Stage> plan = plan_frame(frame_plan_inputs(settings));
  return "The frame of " + loaded.source + ": " + std::to_string(plan.size()) +
         " stages, in order (docs/architecture.md, \"One frame\").\n" +
         "Each: the frames.csv column its time goes to, \"on the threads\" where it splits its work over\n" +
         "them; what it reads and writes; what it does.\n\n" +
         explain_frame(plan);
}

int run_command(const RunOptions& options, RunReport* report) {
  const WallTime start = std::chrono::system_clock::now();
  std::optional<config::LoadedConfig> loaded =
      options.loaded ? options.loaded : load(options.config_path, options.overrides);
  if (!loaded) return kExitBadInput;
  if (options.explain_frame) {
    std::cout << frame_explanation(*loaded);
    return kExitOk;
  }
  if (const std::string refusal = run_refusal(*loaded); !refusal.empty()) {
    std::cerr << refusal << "\n";
    return kExitBadInput;
  }
  if (const std::string problem = config::written_back_problem(*loaded); !problem.empty()) {
    std::cerr << problem << "\n";
    return kExitBadInput;
  }
  Settings& settings = loaded->settings;
  const std::optional<DisplayDecision> display = decide_display(options);
  if (!display) return kExitBadInput;
  // The window comes first: the mouse gaze source reads its pointer.
  std::unique_ptr<Viewer> viewer;
  std::string said = display->said;
  if (!open_viewer(options, *loaded, *display, viewer, said)) return kExitFailure;
  std::unique_ptr<Animation> world = build_world(*loaded, viewer ? &viewer->pointer() : nullptr);
  if (!world) return kExitBadInput;
  std::unique_ptr<Demo> demo;
  if (!build_demo(*loaded, *world, demo)) return kExitBadInput;
  // In a window the rockfall's player follows the fly camera unless told to walk its path;
  // offscreen pictures walk it, as headless runs do.
  const bool player_follows_camera =
      viewer && viewer->window().mode() == DisplayMode::window && !settings.demo.rockfall.player.scripted;
  if (viewer) {
    try {
      viewer->attach(*world);
    } catch (const RenderError& e) {
      std::cerr << "fovea: " << e.what() << "\n";
      return kExitFailure;
    }
  }
  std::filesystem::path capture_folder;
  if (options.capture_dir) {
    capture_folder = *options.capture_dir;
    if (const std::string problem = prepare_capture_folder(capture_folder); !problem.empty()) {
      std::cerr << "fovea: --capture " << capture_folder.string() << ": " << problem << "\n";
      return kExitBadInput;
    }
  }
  if (!said.empty()) std::cerr << "fovea: " << said << "\n";
  if (viewer && !options.quiet) std::cerr << "fovea: " << viewer->window().description() << "\n";
  if (!options.quiet) say_inflations(*world);

  // Only now, with everything checked, does anything touch the disk.
  std::filesystem::path folder;
  RunManifest manifest = start_manifest(*loaded, options.command_line, start);
  try {
    folder = options.out ? create_named_run_folder(*options.out, options.out_name.c_str())
                         : create_run_folder("results", settings.name, start);
    write_file_atomically(folder / "config.yaml", config::resolved_yaml(settings));
    write_json_atomically(folder / "manifest.json", to_json(manifest));
  } catch (const std::exception& e) {
    std::cerr << "fovea: " << e.what() << "\n";
    return kExitFailure;
  }
  if (report) report->folder = folder;

  Stepper stepper(std::move(world), std::move(demo));
  // --gaze-latency-test: a tracker's samples at 1000 Hz on this machine, at the screen's
  // centre. Declared after the stepper, so it stops before the stream source it feeds.
  std::optional<LoopbackGaze> loopback;
  if (options.gaze_latency_test)
    loopback.emplace(settings.gaze.host, settings.gaze.port == 0 ? StreamGaze::kDefaultPort : settings.gaze.port,
                     0.5 * settings.perception.view.screen.width_px, 0.5 * settings.perception.view.screen.height_px);
  RunWindow window(viewer.get(), settings, folder, capture_folder, options.capture_every, player_follows_camera);
  if (!options.quiet) window.say_if_slower_than_real_time();
  const RunPlan plan{settings.frames, settings.record, viewer != nullptr, !options.quiet && Progress::stderr_is_terminal()};

  std::optional<StopSignals> stop_signals(std::in_place);
  const RunOutcome outcome = run_frames(stepper, plan, folder, manifest, &window, stop_signal_received);
  stop_signals.reset();

  for (const std::string& error : outcome.errors) std::cerr << "fovea: " << error << "\n";
  if (outcome.summarised && !options.quiet)
    std::cerr << "fovea: " << outcome.frames_done << " frames of " << stepper.world().live_entity_count() << " entities in "
              << format_significant(outcome.wall_s) << " s ("
              << static_cast<std::int64_t>(static_cast<double>(outcome.frames_done) / std::max(outcome.wall_s, 1e-9))
              << " frames/s)" << (outcome.interrupted ? ", interrupted" : "") << " -> " << folder.string() << "\n";
  // Offscreen only the captured frames are drawn (RunWindow::draws): the count says so.
  if (outcome.summarised && !options.quiet && options.capture_dir)
    std::cerr << "fovea: --capture: " << window.pictures_written() << " pictures in " << capture_folder.string()
              << ", " << window.frames_drawn() << " of " << outcome.frames_done << " frames drawn\n";
  // Stopped by a signal: with the results complete, die by that signal (default action),
  // so a shell loop or a scheduler sees it (exit(130) would tell bash the run handled
  // Ctrl-C itself, and a `for` loop of runs would carry on).
  if (outcome.stop_signal != 0 && options.end_by_signal) {
    std::signal(outcome.stop_signal, SIG_DFL);
    std::raise(outcome.stop_signal);
  }
  return outcome.exit_status();
}

int validate_command(const std::string& config_path, const std::vector<config::Override>& overrides) {
  std::optional<config::LoadedConfig> loaded = load(config_path, overrides);
  if (!loaded) return kExitBadInput;
  // What a run of it writes back must load again (issue 42).
  if (const std::string problem = config::written_back_problem(*loaded); !problem.empty()) {
    std::cerr << problem << "\n";
    return kExitBadInput;
  }
  // Live gaze (the mouse, a tracker) depends on where the config runs, not on the config:
  // validating on a machine with no window or no tracker must not fail, nor connect to one.
  // External gaze is valid as written: a program using the Python module runs it.
  loaded->settings.gaze = without_live_input(loaded->settings.gaze);
  const std::unique_ptr<Animation> world = build_world(*loaded);
  if (!world) return kExitBadInput;
  std::unique_ptr<Demo> demo;
  if (!build_demo(*loaded, *world, demo)) return kExitBadInput;
  return kExitOk;
}

int keys_command(bool experiment) {
  for (const config::KeyInfo& key : experiment ? config::experiment_keys() : config::config_keys()) {
    std::cout << key.path << "\n    " << key.type;
    if (!key.default_text.empty()) std::cout << ", default " << key.default_text;
    std::cout << "\n    " << key.doc << "\n";
  }
  return kExitOk;
}

namespace {

/// `fovea run`'s command line as CLI11 fills it, before it becomes RunOptions: what has no
/// place of its own there (an option given or not, two flags for one choice).
struct RunArguments {
  RunOptions options;
  std::string config_path;
  std::string frames;  // checked by the config, as `frames`
  CLI::Option* frames_option = nullptr;
  std::string out;
  std::vector<std::string> sets;
  bool headless = false;
  bool offscreen = false;
  std::string capture_dir;
};

RunOptions run_options_of(const RunArguments& a) {
  RunOptions options = a.options;
  if (!a.config_path.empty()) options.config_path = a.config_path;
  options.overrides = set_overrides(a.sets);
  // --frames N is `--set frames=N` under its own name: the config's checks and messages.
  if (a.frames_option->count() > 0)
    options.overrides.push_back({"frames=" + a.frames, "--frames " + (a.frames.empty() ? "''" : excerpt(a.frames))});
  if (options.gaze_latency_test) options.overrides.push_back({"gaze.source=stream", "--gaze-latency-test"});
  if (!a.out.empty()) options.out = a.out;
  if (a.headless) options.display = DisplayChoice::headless;
  if (a.offscreen) options.display = DisplayChoice::offscreen;
  if (!a.capture_dir.empty()) options.capture_dir = a.capture_dir;
  return options;
}

}  // namespace

void register_run_command(CLI::App& app, CommandContext& context) {
  const auto a = std::make_shared<RunArguments>();
  a->options.command_line = context.command_line;
  CLI::App* run = app.add_subcommand(
      "run", "Run a scene and write results/<name>-<UTC time>/; in a window when a display is present (docs/render.md)");
  run->add_option("config", a->config_path, "YAML config (default: the built-in configs/default.yaml)");
  a->frames_option =
      run->add_option("--frames", a->frames, "frames to run, overriding the config's `frames` (same checks)");
  run->add_option("--out", a->out, "write the results here instead (a new or empty folder)");
  add_set_option(*run, a->sets, "override a config key, e.g. --set world.entities[0].count=500 (repeatable)");
  run->add_flag("--quiet,-q", a->options.quiet, "no progress line and no closing summary on stderr");
  run->add_flag("--gaze-latency-test", a->options.gaze_latency_test,
                "run on gaze.source: stream fed at 1000 Hz by a sender in this process, and report the age of the "
                "sample each frame used: the latency fovea adds, with no tracker in it (docs/gaze.md, \"Latency\")");
  run->add_flag("--explain-frame", a->options.explain_frame,
                "print the stages a frame of this config runs, in order (what each reads and writes, its time "
                "column, its threads), and run nothing");
  CLI::Option* headless =
      run->add_flag("--headless", a->headless, "draw nothing (the default when no display is present)");
  run->add_flag("--offscreen", a->offscreen,
                "draw into an offscreen context, no display needed (Mesa's EGL): the same pictures as a window")
      ->excludes(headless);
  CLI::Option* capture = run->add_option("--capture", a->capture_dir,
                                         "write a PNG of every drawn frame (see --capture-every) into this folder, "
                                         "frame_000000.png ...; draws offscreen when there is no display");
  run->add_option("--capture-every", a->options.capture_every, "with --capture: every N-th frame only (default 1)")
      ->needs(capture)
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  run->callback([a, &context] { context.exit_status = run_command(run_options_of(*a)); });
}

void register_validate_command(CLI::App& app, CommandContext& context) {
  const auto path = std::make_shared<std::string>();
  const auto sets = std::make_shared<std::vector<std::string>>();
  CLI::App* validate = app.add_subcommand("validate", "Check a config; print nothing and exit 0 when it is valid");
  validate->add_option("config", *path, "YAML config to check")->required();
  add_set_option(*validate, *sets, "override a config key before checking (repeatable)");
  validate->callback([path, sets, &context] { context.exit_status = validate_command(*path, set_overrides(*sets)); });
}

void register_keys_command(CLI::App& app, CommandContext& context) {
  const auto experiment = std::make_shared<bool>(false);
  CLI::App* keys = app.add_subcommand("keys", "List every config key with its type, default and meaning");
  keys->add_flag("--experiment", *experiment, "the keys of an experiment spec instead (docs/psychophysics.md)");
  keys->callback([experiment, &context] { context.exit_status = keys_command(*experiment); });
}

}  // namespace fovea
