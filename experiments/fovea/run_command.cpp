#include "fovea/run_command.hpp"

#include <csignal>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "config/config.hpp"
#include "core/build_info.hpp"
#include "core/format.hpp"
#include "core/setting_error.hpp"
#include "core/stopwatch.hpp"
#include "trackers/trackers.hpp"
#include "run/collision_log.hpp"
#include "demos/demo.hpp"
#include "fovea/stop_signals.hpp"
#include "run/frame_log.hpp"
#include "run/gaze_log.hpp"
#include "record/manifest.hpp"
#include "record/progress.hpp"
#include "record/results_folder.hpp"
#include "render/capture.hpp"
#include "render/frame_pacer.hpp"
#include "render/gl_window.hpp"
#include "render/viewer.hpp"
#include "frame/animation.hpp"
#include "world/motion.hpp"

namespace fovea {
namespace {

RunManifest start_manifest(const config::LoadedConfig& loaded, const RunOptions& options, WallTime start) {
  RunManifest manifest;
  const BuildInfo build = build_info();
  manifest.fovea_version = build.version;
  manifest.git_commit = build.git_commit;
  manifest.git_dirty = build.git_dirty;
  manifest.seed = loaded.settings.seed;
  manifest.command_line = options.command_line;
  manifest.working_directory = std::filesystem::current_path().string();
  manifest.config = loaded.source;
  manifest.machine = describe_machine();
  manifest.start_time_utc = utc_iso8601(start);
  manifest.frames_requested = loaded.settings.frames;
  return manifest;
}

/// How often manifest.json's frames_completed is brought up to date during a run.
constexpr double kManifestRefreshMs = 2000;

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

std::unique_ptr<Animation> build_world(const config::LoadedConfig& loaded, PointerInput* pointer) {
  const auto group = [](std::uint32_t g) { return "world.entities[" + std::to_string(g) + "]."; };
  try {
    // The window's pointer for the mouse (none headless), and the eye trackers.
    GazeEnvironment environment;
    environment.pointer = pointer;
    return std::make_unique<Animation>(static_cast<const AnimationSettings&>(loaded.settings),
                                       static_cast<std::uint64_t>(loaded.settings.seed), with_trackers(environment));
  } catch (const PlacementError& e) {
    std::cerr << loaded.error_at(group(e.group_index()) + "count", e.what()) << "\n";
  } catch (const ModelError& e) {
    std::cerr << loaded.error_at(group(e.group_index()) + e.setting(), e.what()) << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << loaded.source << ": not enough memory to build this world\n";
  } catch (const SettingError& e) {
    // A setting that cannot work where the program runs (the mouse in a headless run).
    std::cerr << loaded.error_at(e.key(), e.detail()) << "\n";
  } catch (const std::invalid_argument& e) {
    std::cerr << loaded.source << ": " << e.what() << "\n";
  }
  return nullptr;
}

namespace {

}  // namespace

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

/// Where a screenshot of the run's frame `run_frame` goes (0-based over the whole run, so
/// never reused after a reset): screenshot_frame_000042.png, or _2, _3 ... for more
/// pictures of the same frame (taken while paused).
std::filesystem::path screenshot_path(const std::filesystem::path& folder, std::int64_t run_frame) {
  const std::string stem = "screenshot_" + capture_file_name(std::max<std::int64_t>(run_frame, 0)).stem().string();
  std::filesystem::path path = folder / (stem + ".png");
  for (int n = 2; std::filesystem::exists(path); ++n) path = folder / (stem + "_" + std::to_string(n) + ".png");
  return path;
}

/// Makes the --capture folder if needed and checks that it can take the pictures: writable,
/// and holding no frame_*.png of an earlier capture, which would mix with this run's. Returns
/// "" or what is wrong.
std::string prepare_capture_folder(const std::filesystem::path& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return error.message();
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.rfind("frame_", 0) == 0 && entry.path().extension() == ".png")
      return "holds pictures of an earlier capture (" + name + "); choose an empty folder";
  }
  if (error) return error.message();
  const std::filesystem::path probe = folder / ".fovea-capture-probe";
  try {
    write_file_atomically(probe, "");
  } catch (const std::exception&) {
    return "cannot write there";
  }
  std::filesystem::remove(probe, error);
  return "";
}

/// Writes a screenshot asked for in the window; a failure is an event, not the run's end
/// (the person at the window sees it in events.csv and on stderr).
void take_screenshot(const std::filesystem::path& path, const Image& picture, std::vector<std::string>& events) {
  try {
    write_png(path, picture);
    events.push_back("screenshot " + path.filename().string());
  } catch (const std::exception& e) {
    std::cerr << "fovea: screenshot: " << e.what() << "\n";
    events.push_back(std::string("screenshot failed: ") + e.what());
  }
}

/// The panel's first line: what the run is and where it stands.
std::string status_line(const Animation& world, const Demo* demo, std::int64_t frames_done, std::int64_t frames,
                        bool paused) {
  return std::to_string(world.live_entity_count()) + " entities, frame " + std::to_string(frames_done) + " of " +
         std::to_string(frames) + (demo ? ", " + demo->status() : "") + (paused ? " (paused)" : "");
}

/// The config's demo on `world`, or null for none; false when the world does not suit it
/// (the error printed against the demo's key).
bool make_demo(const config::LoadedConfig& loaded, Animation& world, std::unique_ptr<Demo>& demo) {
  try {
    demo = Demo::make(world, loaded.settings.demo, static_cast<std::uint64_t>(loaded.settings.seed));
    return true;
  } catch (const SettingError& e) {
    std::cerr << loaded.error_at(e.key(), e.detail()) << "\n";
    return false;
  } catch (const std::exception& e) {
    std::cerr << loaded.error_at("demo.kind", e.what()) << "\n";
    return false;
  }
}

/// Whether any group's trees grow on demand (frames.csv then reports their growth).
bool grows_trees(const Settings& settings) {
  if (settings.demo.kind == DemoKind::rockfall) return true;  // fragments always do
  for (const EntityGroupSettings& g : settings.world.entities)
    if (g.sphere_tree.on_demand && g.sphere_tree.file.empty()) return true;
  return false;
}

}  // namespace

int run_command(const RunOptions& options) {
  const WallTime start = std::chrono::system_clock::now();
  std::optional<config::LoadedConfig> loaded = load(options.config_path, options.overrides);
  if (!loaded) return kExitBadInput;
  Settings& settings = loaded->settings;
  const std::optional<DisplayDecision> display = decide_display(options);
  if (!display) return kExitBadInput;
  // The window comes first: the mouse gaze source reads its pointer. Offscreen, what depends
  // on the wall clock (the panel's numbers, the frame-time graph) is left out of the picture
  // unless the config asks for it, so the same config and seed give the same pictures.
  RenderSettings render = settings.render;
  if (display->mode == DisplayMode::offscreen) {
    if (!loaded->locations.count("render.panel")) render.panel = false;
    if (!loaded->locations.count("render.overlays.frame_graph")) render.overlays.frame_graph = false;
  }
  std::unique_ptr<Viewer> viewer;
  std::string said = display->said;
  if (display->draw) {
    try {
      viewer = std::make_unique<Viewer>(render, display->mode, settings.perception.view.screen, "fovea: " + settings.name);
    } catch (const RenderError& e) {
      if (options.display != DisplayChoice::automatic || display->mode != DisplayMode::window) {
        std::cerr << "fovea: " << e.what() << "\n"
                  << "fovea: --headless runs without drawing; --offscreen draws without a display\n";
        return kExitFailure;
      }
      // A DISPLAY that names no reachable server (a dead ssh -X session, a CI job without
      // Xvfb): the run goes on as it would without one, and says so.
      said = std::string("no window: ") + e.what() + "; " +
             (options.capture_dir ? "drawing offscreen for --capture" : "running headless");
      if (options.capture_dir) {
        try {
          render.panel = loaded->locations.count("render.panel") && settings.render.panel;
          viewer = std::make_unique<Viewer>(render, DisplayMode::offscreen, settings.perception.view.screen, "fovea");
        } catch (const RenderError& offscreen_error) {
          std::cerr << "fovea: " << offscreen_error.what() << "\n";
          return kExitFailure;
        }
      }
    }
  }
  const DisplayMode mode = viewer ? viewer->window().mode() : DisplayMode::window;
  std::unique_ptr<Animation> world = build_world(*loaded, viewer ? &viewer->pointer() : nullptr);
  if (!world) return kExitBadInput;
  std::unique_ptr<Demo> demo;
  if (!make_demo(*loaded, *world, demo)) return kExitBadInput;
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

  // Only now, with everything checked, does anything touch the disk.
  std::filesystem::path folder;
  RunManifest manifest = start_manifest(*loaded, options, start);
  try {
    folder = options.out ? create_named_run_folder(*options.out)
                         : create_run_folder("results", settings.name, start);
    write_file_atomically(folder / "config.yaml", config::resolved_yaml(settings));
    write_json_atomically(folder / "manifest.json", to_json(manifest));
  } catch (const std::exception& e) {
    std::cerr << "fovea: " << e.what() << "\n";
    return kExitFailure;
  }

  std::optional<StopSignals> stop_signals(std::in_place);
  int status = kExitOk;
  bool interrupted = false;
  int stop_signal = 0;
  std::int64_t frames_done = 0;
  std::int64_t contacts = 0;
  std::int64_t sphere_tests = 0;
  std::int64_t interrupted_collisions = 0;
  std::int64_t frames_exhausted = 0;
  Stopwatch wall;
  double manifest_written_ms = 0;
  try {
    FrameLog log((folder / "frames.csv").string(),
                 FrameLogColumns{settings.ground_truth, viewer != nullptr, grows_trees(settings),
                                 demo ? demo->columns() : std::vector<std::string>{}});
    // Live changes made in the window (panel, reset), for whoever reads frames.csv later.
    // `frames` is how many frames the world had run when it happened (0 before the first).
    std::optional<CsvWriter> events;
    if (viewer) events.emplace((folder / "events.csv").string(), std::vector<std::string>{"wall_time_s", "frames", "event"});
    std::vector<std::string> new_events;
    const auto write_events = [&](std::int64_t frame) {
      if (!viewer) return;
      viewer->take_events(new_events);
      for (const std::string& e : new_events) {
        events->cell(wall.elapsed_ms() / 1000.0).cell(frame).cell(std::string_view(e));
        events->end_row();
      }
      new_events.clear();
    };
    std::optional<CollisionLog> collision_log;
    if (settings.record.collisions) collision_log.emplace((folder / "collisions.csv").string(), settings.ground_truth);
    std::optional<GazeLog> gaze_log;
    if (settings.record.gaze) gaze_log.emplace((folder / "gaze.csv").string());
    // A tracker's state changes (not found, connected, lost), each said once.
    std::vector<std::string> gaze_messages;
    const auto print_gaze_messages = [&] {
      world->gaze().take_messages(gaze_messages);
      for (const std::string& message : gaze_messages) std::cerr << "fovea: gaze: " << message << "\n";
      gaze_messages.clear();
    };
    Progress progress(settings.frames, !options.quiet && Progress::stderr_is_terminal());
    // A live source (a tracker, the mouse) follows a person in real time, and so does a
    // window someone watches: frame k starts no earlier than k frame periods after the first.
    // A frame that falls behind starts at once; none is skipped. Synthetic sources headless
    // or offscreen run as fast as they can.
    const double period_s = settings.render.target_fps > 0 ? 1.0 / settings.render.target_fps : settings.world.time_step_s;
    // Decided every frame: a gaze source switched live to the mouse or a tracker starts it.
    const auto paced = [&] {
      return world->gaze().source().clock() == GazeClock::wall || (viewer && mode == DisplayMode::window);
    };
    if (viewer) viewer->set_target_frame_ms(1000.0 * period_s);
    // With vsync a window shows at most one frame per refresh: a display slower than the
    // target holds the world below real time. Said once, with the setting that fixes it.
    if (viewer && viewer->window().vsync() && !options.quiet) {
      const int hz = viewer->window().refresh_hz();
      if (hz > 0 && hz * period_s < 0.99)
        std::cerr << "fovea: the display refreshes at " << hz << " Hz and the world steps "
                  << format_significant(1.0 / period_s) << " times a second: it runs at "
                  << format_significant(hz * period_s, 2) << " x real time (world.time_step_s: "
                  << format_significant(1.0 / hz, 4) << " or render.vsync: false keeps real time)\n";
    }
    FramePacer pacer(period_s);
    bool window_closed = false;
    std::string capture_error;
    while (frames_done < settings.frames) {
      if (stop_signal_received() != 0) break;
      if (viewer) {
        if (!viewer->poll_events(*world)) {
          window_closed = true;
          break;
        }
        ViewerControls& controls = viewer->controls();
        if (controls.reset) {
          // The same config and seed with the live changes kept; the log goes on (its frame
          // column starts again at 0, and events.csv says where).
          controls.reset = false;
          AnimationSettings live = world->settings();
          live.gaze = world->gaze().settings();
          GazeEnvironment environment;
          environment.pointer = &viewer->pointer();
          try {
            // The new world and its meshes first: if either fails, the old ones run on.
            auto fresh = std::make_unique<Animation>(live, static_cast<std::uint64_t>(settings.seed), with_trackers(environment));
            std::unique_ptr<Demo> fresh_demo = Demo::make(*fresh, settings.demo, static_cast<std::uint64_t>(settings.seed));
            viewer->attach(*fresh);
            world = std::move(fresh);
            demo = std::move(fresh_demo);
            new_events.push_back("reset");
          } catch (const std::exception& e) {
            new_events.push_back(std::string("reset failed: ") + e.what());
          }
          write_events(world->frames_done());
        }
        if (controls.paused && !controls.step_once) {
          // Paused: the picture stays live (camera, panel) without stepping the world.
          viewer->draw(*world, static_cast<std::uint64_t>(settings.seed),
                       status_line(*world, demo.get(), frames_done, settings.frames, true));
          if (controls.screenshot) {
            controls.screenshot = false;
            take_screenshot(screenshot_path(folder, frames_done - 1), viewer->capture(), new_events);
          }
          viewer->present();
          write_events(world->frames_done());
          // Without vsync nothing holds a paused loop back: redraw at most every 15 ms.
          if (!viewer->window().vsync()) std::this_thread::sleep_for(std::chrono::milliseconds(15));
          pacer.restart();
          continue;
        }
        controls.step_once = false;
      }
      if (paced()) pacer.wait();
      if (demo) demo->before_step(*world, player_follows_camera);
      const FrameStats stats = world->step();
      if (demo) demo->after_step(*world);
      FrameMeasures measures{kinetic_energy_j(world->states(), world->entities()),
                             potential_energy_j(world->states(), world->entities(), settings.response.gravity_mps2)};
      std::optional<Image> capture;  // read before the frame is shown, written after it is logged
      if (viewer) {
        measures.render_ms = viewer->draw(*world, static_cast<std::uint64_t>(settings.seed),
                                          status_line(*world, demo.get(), frames_done + 1, settings.frames, false));
        if (options.capture_dir && frames_done % options.capture_every == 0) capture = viewer->capture();
        if (viewer->controls().screenshot) {
          viewer->controls().screenshot = false;
          take_screenshot(screenshot_path(folder, frames_done), viewer->capture(), new_events);
        }
        measures.frame_interval_ms = viewer->present();
        viewer->record(measures.frame_interval_ms, stats.metrics.nabla_est_m, stats.metrics.p_est);
        write_events(world->frames_done());
      }
      log.write(stats, measures, demo ? demo->values() : std::span<const double>{});
      if (collision_log) collision_log->write(stats.frame, *world);
      if (gaze_log) gaze_log->write(stats);
      print_gaze_messages();
      contacts += stats.response.contacts;
      sphere_tests += stats.sphere_tests;
      interrupted_collisions += stats.metrics.interrupted;
      frames_exhausted += stats.budget_exhausted ? 1 : 0;
      ++frames_done;
      progress.update(frames_done);
      if (capture) {
        // A picture that cannot be written stops the run, its frames and summary kept.
        try {
          write_png(capture_folder / capture_file_name(frames_done - 1), *capture);
        } catch (const std::exception& e) {
          capture_error = e.what();
          break;
        }
      }
      if (wall.elapsed_ms() - manifest_written_ms > kManifestRefreshMs) {
        manifest.frames_completed = frames_done;
        write_json_atomically(folder / "manifest.json", to_json(manifest));
        manifest_written_ms = wall.elapsed_ms();
      }
    }
    progress.finish();
    print_gaze_messages();  // what a tracker said during or just after the last frame
    // A signal during the last frame still counts: the user asked to stop, and a shell loop
    // of runs must see it.
    // Closing the window ends the run as the user asked: results complete, exit status 0.
    if (window_closed) interrupted = true;
    if (!capture_error.empty()) {
      std::cerr << "fovea: --capture: " << capture_error << "; the run stopped after frame " << frames_done - 1 << "\n";
      interrupted = true;
      status = kExitFailure;
    }
    if (stop_signal_received() != 0) {
      interrupted = true;
      stop_signal = stop_signal_received();
      status = 128 + stop_signal;  // the shell's convention: 130 for SIGINT, 143 for SIGTERM
    }
    const double wall_s = wall.elapsed_ms() / 1000.0;

    nlohmann::ordered_json summary;
    summary["frames"] = frames_done;
    summary["frames_requested"] = settings.frames;
    summary["interrupted"] = interrupted;
    summary["entities"] = world->live_entity_count();
    summary["sim_time_s"] = world->sim_time_s();
    summary["wall_time_s"] = wall_s;
    summary["frames_per_second"] = wall_s > 0 ? static_cast<double>(frames_done) / wall_s : 0.0;
    summary["totals"] = {{"contacts", contacts},
                         {"sphere_tests", sphere_tests},
                         {"interrupted_collisions", interrupted_collisions},
                         {"frames_budget_exhausted", frames_exhausted}};
    // Models alive at the end; a whole tree counts its spheres, an on-demand one those built now.
    std::size_t models = 0, spheres = 0;
    for (ModelId m = 0; m < world->models().size(); ++m) {
      if (!world->has_model(m)) continue;
      ++models;
      spheres += world->narrowphase().model(m).spheres.size();
    }
    summary["sphere_trees"] = {{"models", models},
                               {"spheres", spheres},
                               {"build_ms", world->sphere_tree_build_ms()}};
    summary["columns"] = log.column_summaries();
    // Median and p95 are exact up to 2^20 frames, then from every quantile_stride-th frame.
    summary["quantile_stride"] = log.quantile_stride();
    write_json_atomically(folder / "summary.json", summary);

    if (!options.quiet)
      std::cerr << "fovea: " << frames_done << " frames of " << world->live_entity_count() << " entities in "
                << format_significant(wall_s) << " s ("
                << static_cast<std::int64_t>(static_cast<double>(frames_done) / std::max(wall_s, 1e-9)) << " frames/s)"
                << (interrupted ? ", interrupted" : "") << " -> " << folder.string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "fovea: " << e.what() << "\n";
    status = kExitFailure;
  }
  stop_signals.reset();

  manifest.end_time_utc = utc_iso8601(std::chrono::system_clock::now());
  manifest.status = status == kExitFailure ? "failed" : interrupted || status != kExitOk ? "interrupted" : "completed";
  manifest.exit_status = status;
  manifest.frames_completed = frames_done;
  try {
    write_json_atomically(folder / "manifest.json", to_json(manifest));
  } catch (const std::exception& e) {
    std::cerr << "fovea: " << e.what() << "\n";
    return kExitFailure;
  }
  // Stopped by a signal: with the results complete, die by that signal (default action),
  // so a shell loop or a scheduler sees it (exit(130) would tell bash the run handled
  // Ctrl-C itself, and a `for` loop of runs would carry on).
  if (status == 128 + stop_signal && stop_signal != 0) {
    std::signal(stop_signal, SIG_DFL);
    std::raise(stop_signal);
  }
  return status;
}

int validate_command(const std::string& config_path, const std::vector<config::Override>& overrides) {
  std::optional<config::LoadedConfig> loaded = load(config_path, overrides);
  if (!loaded) return kExitBadInput;
  // Live gaze (the mouse, a tracker) depends on where the config runs, not on the config:
  // validating on a machine with no window or no tracker must not fail, nor connect to one.
  loaded->settings.gaze = without_live_input(loaded->settings.gaze);
  const std::unique_ptr<Animation> world = build_world(*loaded);
  if (!world) return kExitBadInput;
  std::unique_ptr<Demo> demo;
  if (!make_demo(*loaded, *world, demo)) return kExitBadInput;
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

}  // namespace fovea
