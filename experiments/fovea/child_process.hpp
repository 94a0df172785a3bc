#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace fovea {

/// Where a child's output goes and how it relates to fovea.
struct ChildOptions {
  enum class Output {
    inherited,  ///< stdout and stderr to fovea's stderr
    discarded,  ///< stdout and stderr to /dev/null
    /// stdout to /dev/null, stderr to a pipe whose read end StartedProgram::stderr_pipe holds:
    /// fovea itself reads what the child says, so a message still reaches the user when no
    /// file can take it (a full disk).
    stderr_to_pipe,
  };
  Output output = Output::inherited;
  /// Its own process group, so a Ctrl-C at the terminal reaches fovea alone, which then
  /// stops its children once, itself (fovea sweep).
  bool own_process_group = false;
  /// Killed (SIGKILL) when fovea ends, however it ends, kill -9 included: a run must not
  /// outlive the sweep that started it and write on into a folder that a resumed sweep has
  /// removed and given to a run of its own.
  bool dies_with_fovea = false;
};

/// A child started by start_program.
struct StartedProgram {
  pid_t pid = -1;
  /// With ChildOptions::Output::stderr_to_pipe: the read end, non-blocking and
  /// close-on-exec, which the caller closes. Else -1.
  int stderr_pipe = -1;
};

/// Starts `argv` (argv[0] searched on PATH when it holds no '/') with stdin from /dev/null.
/// Returns it, or nullopt when it cannot be started (no such program, no process left).
std::optional<StartedProgram> start_program(const std::vector<std::string>& argv, const ChildOptions& options);

/// An exit status as shells give it: the status, or 128 + the signal that ended it.
int exit_status_of(int wait_status);

/// Runs `argv` to its end. Returns its exit status, 128 + a signal, or -1 when it cannot be
/// started.
int run_program(const std::vector<std::string>& argv, bool quiet);

}  // namespace fovea
