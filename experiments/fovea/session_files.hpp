#pragma once

// What every `fovea experiment` session shares, whatever its method: the participant's id,
// the UTC time stamps of its records, and session.log (docs/psychophysics.md, "The records").

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "fovea/experiment_command.hpp"
#include "fovea/synthetic_keys.hpp"
#include "perception/perception_settings.hpp"
#include "render/stimulus_display.hpp"

namespace fovea {

/// A participant id: a folder's name (core/folder_name.hpp: letters, digits, - _ ., not "."
/// or "..", at most 64 bytes), and not the name `fovea fit` gives its pooled fit.
bool valid_participant(const std::string& name);

/// Now, UTC, ISO 8601.
std::string now_utc();

/// session.log: one line per event, each on the disk (fsync) before the next, like the rows.
class SessionLog {
 public:
  explicit SessionLog(const std::filesystem::path& path);
  ~SessionLog();
  SessionLog(const SessionLog&) = delete;
  SessionLog& operator=(const SessionLog&) = delete;
  void line(const std::string& text);

 private:
  std::FILE* file_;
};

/// The command line's checks every session makes before anything is written: the
/// participant's id; --synthetic-keys, a person's only, parsed into `synthetic_keys`; and a
/// display for a person without them. False, with the message on stderr, when one fails (exit
/// status 2).
bool check_session_options(const ExperimentOptions& options, std::optional<SyntheticKeys>& synthetic_keys);

/// The display a person watches: the spec's screen in a full-screen window on display.index's
/// monitor, or offscreen for --synthetic-keys. Null, with the message on stderr and `status`
/// the exit status, when it cannot be opened (1), there is no monitor of display.index (2, at
/// the key, naming the monitors there are), is not the spec's size in pixels (2: every degree would be scaled),
/// or cannot hold the timing the spec asks, vsync at display.refresh_hz, unless the spec is a
/// development run (2). `shown` names what would not last as asked ("trials", "clips").
std::unique_ptr<StimulusDisplay> open_person_display(const config::LoadedExperiment& loaded, bool offscreen,
                                                     const std::string& shown, int& status);

/// --observer's perception model into `model` (left as it is without --observer); false,
/// said on stderr, when it cannot be loaded.
bool load_observer_model(const ExperimentOptions& options, PerceptionModelSettings& model);

/// The answer keys named at the spec's keys `paths`, in order, as SDL's keycodes (SDLK_UNKNOWN
/// for a name SDL does not know).
std::vector<SDL_Keycode> answer_keys(const std::vector<std::pair<std::string, std::string>>& paths_and_names);

/// For a person, who answers with them: false, said on stderr against the first key's path
/// SDL does not know, with `examples` of names it does ("y, n, Left, ...").
bool keys_known(const config::LoadedExperiment& loaded,
                const std::vector<std::pair<std::string, std::string>>& paths_and_names,
                const std::vector<SDL_Keycode>& keys, const char* examples);

/// The participant's folder (--out, or results/experiments/<spec's name>/<participant>/) and
/// what a session keeps there.
struct SessionFolder {
  std::filesystem::path folder;
  std::filesystem::path trials_path;  ///< trials.csv
  std::string resolved_spec;          ///< the spec as experiment.yaml holds it
};
SessionFolder session_folder(const ExperimentOptions& options, const ExperimentSettings& spec);

/// Whether a session may start in `folder`, which holds `trials_before` trials of earlier
/// sessions: only with --resume when there are some. False, said on stderr, when not.
bool may_start_session(const ExperimentOptions& options, const std::filesystem::path& folder,
                       std::size_t trials_before);

/// The trials earlier sessions left in trials.csv, read by `read` (the method's reader) into
/// `done` when the file exists. False, said on stderr, when it cannot be read or holds trials
/// and the session may not start (may_start_session).
template <class Record, class Read>
bool read_trials_before(const ExperimentOptions& options, const SessionFolder& where, Read read,
                        std::vector<Record>& done) {
  try {
    if (std::filesystem::exists(where.trials_path)) done = read(where.trials_path.string());
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return false;
  }
  return may_start_session(options, where.folder, done.size());
}

/// A resumed session's spec against the one it began with (`before`, its experiment.yaml):
/// false, said on stderr, when they differ.
bool spec_kept(const std::filesystem::path& folder, const std::string& before, const std::string& resolved);

/// The display as session.log records it: "display: <what>, W x H pixels, refresh R Hz, vsync
/// on; monitor 1 \"DP-2\", 1920 x 1080 at (1920, 0), of 2 (display.index); calibration: gamma
/// 2.3 (display.gamma)" (or the lookup table's path, rows and size).
std::string display_log_line(StimulusDisplay& display);

/// With a lookup table in force (display.lut_file), its bytes copied into the participant's
/// `folder` as display_lut_session<N>.csv for session `session`, so the records hold the very
/// table each session used, however the lab's file changes later; session.log's line for it.
/// "" without a table. Throws when the copy cannot be written.
std::string keep_display_table(const std::filesystem::path& folder, std::int64_t session, StimulusDisplay& display);

/// session.log's last line for the session, by how it ended after `answered` trials in all:
/// the participant quit, a signal stopped it, or it is complete. Returns the exit status:
/// 128 + the signal when stopped, else kExitOk.
int log_session_end(SessionLog& log, std::int64_t session, std::int64_t answered, bool quit);

/// A session's last word: synthetic keys left unpushed make it fail (kExitFailure, unless
/// `status` says worse); then, unless --quiet, the trials run now and in all. Returns the
/// exit status.
int close_session(const ExperimentOptions& options, const std::optional<SyntheticKeys>& synthetic_keys, int status,
                  std::int64_t session, std::int64_t answered_now, std::int64_t answered,
                  const std::filesystem::path& trials_path);

}  // namespace fovea
