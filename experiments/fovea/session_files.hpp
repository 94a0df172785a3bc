#pragma once

// What every `fovea experiment` session shares, whatever its method: the participant's id,
// the UTC time stamps of its records, and session.log (docs/psychophysics.md, "The records").

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "config/config.hpp"
#include "fovea/experiment_command.hpp"
#include "fovea/synthetic_keys.hpp"
#include "render/stimulus_display.hpp"

namespace fovea {

/// A participant id: a config name (it names a folder), not "." or "..", at most 64
/// characters, and not the name `fovea fit` gives its pooled fit.
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

/// The display a person watches: the spec's screen in a full-screen window, or offscreen for
/// --synthetic-keys. Null, with the message on stderr and `status` the exit status, when it
/// cannot be opened (1), is not the spec's size in pixels (2: every degree would be scaled),
/// or cannot hold the timing the spec asks, vsync at display.refresh_hz, unless the spec is a
/// development run (2). `shown` names what would not last as asked ("trials", "clips").
std::unique_ptr<StimulusDisplay> open_person_display(const config::LoadedExperiment& loaded, bool offscreen,
                                                     const std::string& shown, int& status);

}  // namespace fovea
