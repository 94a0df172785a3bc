#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <filesystem>
#include <memory>

#include "config/config.hpp"
#include "demos/demo.hpp"
#include "fovea/command_context.hpp"
#include "fovea/exit_status.hpp"
#include "frame/animation.hpp"
#include "record/manifest.hpp"
#include "record/results_folder.hpp"

namespace fovea {

/// Whether and where a run draws its frames (docs/render.md).
enum class DisplayChoice {
  automatic,  ///< a window when a display is present, else headless (offscreen with --capture)
  headless,   ///< --headless: no drawing at all
  offscreen,  ///< --offscreen: draw into an offscreen context (no display needed)
};

struct RunOptions {
  std::optional<std::string> config_path;  ///< none: the built-in default scene
  std::vector<config::Override> overrides; ///< --set key=value and --frames N, in order
  std::optional<std::string> out;          ///< --out
  /// How messages name `out`: the Python module's fovea.run says "out=", a keyword argument.
  std::string out_name = "--out";
  bool quiet = false;
  DisplayChoice display = DisplayChoice::automatic;
  std::optional<std::string> capture_dir;  ///< --capture: a PNG of every capture_every-th frame here
  std::int64_t capture_every = 1;
  std::vector<std::string> command_line;   ///< argv, for the manifest
  /// A config already loaded and checked (the Python module's fovea.run): config_path and
  /// overrides are then not read.
  std::optional<config::LoadedConfig> loaded;
  /// Stopped by SIGINT or SIGTERM, the process ends by that signal once the results are
  /// complete, as a shell expects of a command. false (the Python module): run_command
  /// returns 128 + the signal instead, and the caller decides.
  bool end_by_signal = true;
  /// --explain-frame: print the frame's stage list for the config (frame_explanation) and
  /// run nothing.
  bool explain_frame = false;
  /// --gaze-latency-test: gaze.source is stream, fed by a loopback sender in this process
  /// (fovea/loopback_gaze.hpp); the run reports the latency fovea adds.
  bool gaze_latency_test = false;
};

/// The stages a frame of `loaded` runs, in order, as `fovea run --explain-frame` prints them
/// (frame/frame_stages.hpp, explain_frame), under a line naming the config.
std::string frame_explanation(const config::LoadedConfig& loaded);

/// What a run wrote, for a caller that goes on after it (the Python module).
struct RunReport {
  std::filesystem::path folder;  ///< the results folder; empty when none was made
};

/// Builds a config's world. A group that cannot be built or placed, or a setting that
/// cannot work here (the mouse without a window), throws config::ConfigError whose message
/// names the line of the setting at fault. `pointer` is the window's mouse for the mouse
/// gaze source (none when headless).
std::unique_ptr<Animation> make_world(const config::LoadedConfig& loaded, PointerInput* pointer = nullptr);
/// The config's demo on `world`, or null for none; throws config::ConfigError, against the
/// demo's key, when the world does not suit it.
std::unique_ptr<Demo> make_demo(const config::LoadedConfig& loaded, Animation& world);
/// make_world, with the error printed on stderr and nullptr returned.
std::unique_ptr<Animation> build_world(const config::LoadedConfig& loaded, PointerInput* pointer = nullptr);
/// make_demo into `demo`, with the error printed on stderr and false returned.
bool build_demo(const config::LoadedConfig& loaded, Animation& world, std::unique_ptr<Demo>& demo);

/// "" when `fovea run` can run the config; else the error at the key at fault, for stderr.
/// gaze.source: external is refused: its samples are pushed by a program through fovea's
/// Python module, and a command has no one to push them. `fovea sweep` asks it of every run.
std::string run_refusal(const config::LoadedConfig& loaded);

/// The manifest.json a run starts with (status "running"): the build, the seed, the
/// machine, `command_line` and the config's name and frames.
RunManifest start_manifest(const config::LoadedConfig& loaded, const std::vector<std::string>& command_line,
                           WallTime start);

/// `fovea run`: loads and checks the config, builds the world, runs it (in a window,
/// offscreen or headless) and writes the results folder. Returns the exit status; messages
/// go to stderr. `report`, when given, learns where the results went.
int run_command(const RunOptions& options, RunReport* report = nullptr);

/// `fovea validate`: checks a config (keys, types, ranges, and that its entities fit) and
/// prints nothing on success.
int validate_command(const std::string& config_path, const std::vector<config::Override>& overrides);

/// `fovea keys`: prints every config key (or, with `experiment`, every experiment-spec key)
/// with its type, default and meaning.
int keys_command(bool experiment = false);

/// `fovea run`, `fovea validate` and `fovea keys` on the command line: each adds its
/// subcommand, options and callback to `app` (main.cpp).
void register_run_command(CLI::App& app, CommandContext& context);
void register_validate_command(CLI::App& app, CommandContext& context);
void register_keys_command(CLI::App& app, CommandContext& context);

}  // namespace fovea
