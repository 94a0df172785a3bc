#include "fovea/session_files.hpp"

#include <chrono>
#include <stdexcept>

#include <unistd.h>

#include "config/schema.hpp"
#include "record/results_folder.hpp"
#include "psychophysics/trial_records.hpp"

namespace fovea {

bool valid_participant(const std::string& name) {
  return config::is_valid_name(name) && name.size() <= 64 && name != "." && name != ".." && name != kPooledParticipant;
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

}  // namespace fovea
