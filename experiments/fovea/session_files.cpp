#include "fovea/session_files.hpp"

#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>
#include <stdexcept>

#include <unistd.h>

#include "config/schema.hpp"
#include "core/folder_name.hpp"
#include "core/format.hpp"
#include "fovea/exit_status.hpp"
#include "fovea/stop_signals.hpp"
#include "record/results_folder.hpp"
#include "psychophysics/trial_records.hpp"

namespace fovea {

bool valid_participant(const std::string& name) {
  return folder_name_problem(name).empty() && name != kPooledParticipant;
}

std::string now_utc() { return utc_iso8601(std::chrono::system_clock::now()); }

SessionLog::SessionLog(const std::filesystem::path& path) : file_(std::fopen(path.c_str(), "ab")) {
  if (file_ == nullptr) throw std::runtime_error(path.string() + ": cannot open for appending");
}

SessionLog::~SessionLog() { std::fclose(file_); }

void SessionLog::line(const std::string& text) {
  const std::string l = now_utc() + " " + text + "\n";
  if (std::fwrite(l.data(), 1, l.size(), file_) != l.size() || std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)
    throw std::runtime_error("session.log: write failed");
}

bool check_session_options(const ExperimentOptions& options, std::optional<SyntheticKeys>& synthetic_keys) {
  if (!valid_participant(options.participant)) {
    std::cerr << "--participant " << excerpt(options.participant)
              << ": expected a name of letters, digits, - _ . (it names the participant's folder; \"pooled\" names `fovea "
                 "fit`'s pooled fit)\n";
    return false;
  }
  const bool person = !options.observer;
  if (options.synthetic_keys) {
    if (!person) {
      std::cerr << "fovea experiment: --synthetic-keys stands in for a person's keyboard; a simulated observer "
                   "(--observer) answers without keys\n";
      return false;
    }
    try {
      synthetic_keys.emplace(*options.synthetic_keys);
    } catch (const std::invalid_argument& e) {
      std::cerr << "fovea experiment: --synthetic-keys: " << e.what() << "\n";
      return false;
    }
  }
  std::string why;
  if (person && !synthetic_keys && !display_available(why)) {
    std::cerr << "fovea experiment: a session with a person needs a window, and " << why
              << "; give --observer MODEL.yaml for a simulated observer (docs/psychophysics.md)\n";
    return false;
  }
  return true;
}

std::unique_ptr<StimulusDisplay> open_person_display(const config::LoadedExperiment& loaded, bool offscreen,
                                                     const std::string& shown, int& status) {
  const ExperimentSettings& spec = loaded.spec;
  std::unique_ptr<StimulusDisplay> display;
  try {
    display = std::make_unique<StimulusDisplay>(spec, offscreen ? DisplayMode::offscreen : DisplayMode::window);
  } catch (const NoSuchDisplay& e) {
    // The spec names a monitor this machine does not have: its key, and the monitors SDL sees.
    std::cerr << loaded.error_at("display.index", e.what()) << "\n";
    status = kExitBadInput;
    return nullptr;
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    status = kExitFailure;
    return nullptr;
  }
  const GlWindow& w = display->window();
  // Every degree in the spec is pixels of this screen: a window of another size would show
  // every stimulus scaled, and the records would not say.
  if (w.width_px() != spec.screen.width_px || w.height_px() != spec.screen.height_px) {
    std::cerr << "fovea experiment: the full-screen window is " << w.width_px() << " x " << w.height_px()
              << " pixels, not the spec's screen (" << spec.screen.width_px << " x " << spec.screen.height_px
              << "): set the display to that resolution, or measure this one into screen\n";
    status = kExitBadInput;
    return nullptr;
  }
  // Durations are whole refresh periods and dropped frames are counted against the display's
  // rate: without vsync, or at a rate other than the spec's, what is shown does not last what
  // the spec asks. Only a development run goes on so.
  const bool timing_held = w.vsync() && w.refresh_hz() > 0 && std::abs(w.refresh_hz() - spec.display.refresh_hz) <= 1;
  if (!timing_held && !spec.display.development_run) {
    const std::string problem =
        !w.vsync() ? std::string("vsync is off (") + w.description() + ")"
                   : w.refresh_hz() > 0 ? "the display refreshes at " + format_significant(w.refresh_hz()) + " Hz, not " +
                                               format_significant(spec.display.refresh_hz)
                                         : "the display does not say its refresh rate";
    std::cerr << loaded.error_at("display.development_run",
                                 problem + ": a person's " + shown +
                                     " would not last what the spec says; set the display to display.refresh_hz with "
                                     "vsync, or display.development_run: true for a pilot that is not data")
              << "\n";
    status = kExitBadInput;
    return nullptr;
  }
  return display;
}

bool load_observer_model(const ExperimentOptions& options, PerceptionModelSettings& model) {
  if (!options.observer) return true;
  try {
    model = config::load_perception_model_file(*options.observer);
  } catch (const config::ConfigError& e) {
    std::cerr << "--observer " << e.what() << "\n";
    return false;
  }
  return true;
}

std::vector<SDL_Keycode> answer_keys(const std::vector<std::pair<std::string, std::string>>& paths_and_names) {
  std::vector<SDL_Keycode> keys;
  for (const auto& [path, name] : paths_and_names) keys.push_back(SDL_GetKeyFromName(name.c_str()));
  return keys;
}

bool keys_known(const config::LoadedExperiment& loaded,
                const std::vector<std::pair<std::string, std::string>>& paths_and_names,
                const std::vector<SDL_Keycode>& keys, const char* examples) {
  for (std::size_t k = 0; k < keys.size(); ++k)
    if (keys[k] == SDLK_UNKNOWN) {
      std::cerr << loaded.error_at(paths_and_names[k].first, std::string("not a key name SDL knows (") + examples + ")")
                << "\n";
      return false;
    }
  return true;
}

SessionFolder session_folder(const ExperimentOptions& options, const ExperimentSettings& spec) {
  SessionFolder where;
  where.folder = options.out ? std::filesystem::path(*options.out)
                             : std::filesystem::path("results") / "experiments" / spec.name / options.participant;
  where.trials_path = where.folder / "trials.csv";
  where.resolved_spec = config::resolved_experiment_yaml(spec);
  return where;
}

bool may_start_session(const ExperimentOptions& options, const std::filesystem::path& folder,
                       std::size_t trials_before) {
  if (trials_before == 0 || options.resume) return true;
  std::cerr << "fovea experiment: " << folder.string() << " holds " << trials_before << " trials of participant "
            << options.participant << " already; --resume continues that session, or give another --participant\n";
  return false;
}

bool spec_kept(const std::filesystem::path& folder, const std::string& before, const std::string& resolved) {
  if (before == resolved) return true;
  std::cerr << "fovea experiment: --resume: the spec differs from the one the session began with ("
            << (folder / "experiment.yaml").string() << "); a resumed session must keep its design\n";
  return false;
}

std::string display_log_line(StimulusDisplay& display) {
  GlWindow& w = display.window();
  const VideoDisplay monitor = w.video_display();
  return "display: " + w.description() + ", " + std::to_string(w.width_px()) + " x " + std::to_string(w.height_px()) +
         " pixels, refresh " + std::to_string(w.refresh_hz()) + " Hz, vsync " + (w.vsync() ? "on" : "off") +
         "; monitor " + video_display_text(monitor) + ", of " + std::to_string(monitor.count) +
         " (display.index); calibration: " + display.calibration().description();
}

std::string keep_display_table(const std::filesystem::path& folder, std::int64_t session, StimulusDisplay& display) {
  const std::optional<DisplayLut>& table = display.calibration().table();
  if (!table) return "";
  const std::string name = "display_lut_session" + std::to_string(session) + ".csv";
  write_file_atomically(folder / name, table->text);
  return "the lookup table in force is copied to " + name;
}

int log_session_end(SessionLog& log, std::int64_t session, std::int64_t answered, bool quit) {
  if (quit) {
    log.line("session " + std::to_string(session) + " ended by the participant (Escape or the window closed) after " +
             std::to_string(answered) + " trials; --resume continues it");
    return kExitOk;
  }
  if (stop_signal_received() != 0) {
    log.line("session " + std::to_string(session) + " stopped by signal " + std::to_string(stop_signal_received()) +
             " after " + std::to_string(answered) + " trials; --resume continues it");
    return 128 + stop_signal_received();
  }
  log.line("session " + std::to_string(session) + " complete: " + std::to_string(answered) + " trials");
  return kExitOk;
}

int close_session(const ExperimentOptions& options, const std::optional<SyntheticKeys>& synthetic_keys, int status,
                  std::int64_t session, std::int64_t answered_now, std::int64_t answered,
                  const std::filesystem::path& trials_path) {
  if (synthetic_keys && synthetic_keys->left() > 0) {
    std::cerr << "fovea experiment: --synthetic-keys: the session ended with " << synthetic_keys->left()
              << " keys not pushed (next: " << synthetic_keys->next() << ")\n";
    if (status == kExitOk) status = kExitFailure;
  }
  if (!options.quiet)
    std::cerr << "fovea experiment: participant " << options.participant << ", session " << session << ": "
              << answered_now << " trials this session, " << answered << " in all -> " << trials_path.string() << "\n";
  return status;
}

}  // namespace fovea
