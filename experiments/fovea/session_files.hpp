#pragma once

// What every `fovea experiment` session shares, whatever its method: the participant's id,
// the UTC time stamps of its records, and session.log (docs/psychophysics.md, "The records").

#include <cstdio>
#include <filesystem>
#include <string>

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

}  // namespace fovea
