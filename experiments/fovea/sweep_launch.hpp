#pragma once

// The launch step of `fovea sweep`: each run a `fovea run --headless` process of its own,
// in its own process group, its stderr read by the sweep into runs/NNNN.log.

#include <sys/types.h>
#include <signal.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "fovea/sweep_plan.hpp"

namespace fovea {

/// What a run says on stderr, read from its pipe as it comes. It goes to runs/NNNN.log,
/// created at the first byte (a run that says nothing leaves no log), and its first line is
/// kept here too, so the sweep can say why a run failed even when the log cannot be written
/// (a full disk). The first line, not the last: a run prints its errors in the order they
/// happen, and on a full disk the first is the cause (frames.csv), the next its consequence
/// (manifest.json).
class RunMessages {
 public:
  RunMessages(int pipe, std::filesystem::path log) : pipe_(pipe), log_path_(std::move(log)) {}
  ~RunMessages();
  RunMessages(const RunMessages&) = delete;
  RunMessages& operator=(const RunMessages&) = delete;

  /// Reads what the run has written since the last call; never waits.
  void read_available();
  /// Once the run has ended: reads the rest and closes the log. A log that could not take a
  /// single byte is removed, so no message names it as holding anything.
  void finish();
  /// Its first line ("" when it said nothing), at most kMaxLineBytes long.
  const std::string& first_line() const { return first_line_; }
  /// The sweep's note on where the messages are, for the line that says the run failed:
  /// "(all its messages: runs/0003.log)", or why the log does not hold them all.
  std::string where() const;

 private:
  static constexpr std::size_t kMaxLineBytes = 4096;

  void keep_first_line(std::string_view text);
  void write_log(const char* bytes, std::size_t size);

  int pipe_ = -1;
  int log_ = -1;
  std::filesystem::path log_path_;
  std::uintmax_t log_bytes_ = 0;  ///< what the log holds
  std::string log_problem_;       ///< "" while the log holds every message, else the OS's reason
  std::string first_line_;
  bool first_line_done_ = false;
};

/// A run under way.
struct LaunchedRun {
  pid_t pid = -1;
  const RunJob* job = nullptr;
  std::filesystem::path folder;            ///< runs/NNNN, its --out
  std::unique_ptr<RunMessages> messages;   ///< what it says, into runs/NNNN.log
};

/// Starts `job` as `fovea_binary run BASE --out runs/NNNN --headless --quiet --set ...`,
/// after removing the log of an earlier attempt (runs/NNNN.log; a resumed sweep). nullopt
/// when the program cannot be started.
std::optional<LaunchedRun> launch_run(const std::string& fovea_binary, const SweepPlan& plan,
                                      const std::filesystem::path& runs_folder, const RunJob& job);

/// SIGCHLD at its default while the sweep runs, then as it was: a SIGCHLD inherited as
/// ignored would reap the runs by itself, and the sweep would never see them end. Put back
/// on return, for a caller that goes on (the Python module).
class DefaultChildSignal {
 public:
  DefaultChildSignal();
  ~DefaultChildSignal();
  DefaultChildSignal(const DefaultChildSignal&) = delete;
  DefaultChildSignal& operator=(const DefaultChildSignal&) = delete;

 private:
  struct sigaction previous_ {};
};

}  // namespace fovea
