#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace fovea {

/// Where a child's output goes and how it relates to fovea.
struct ChildOptions {
  bool quiet = false;  ///< stdout and stderr to /dev/null (else both to fovea's stderr)
  /// Instead: stdout to /dev/null and stderr to this file (created or truncated).
  std::optional<std::string> stderr_file;
  /// Its own process group, so a Ctrl-C at the terminal reaches fovea alone, which then
  /// stops its children once, itself (fovea sweep).
  bool own_process_group = false;
};

/// Starts `argv` (argv[0] searched on PATH when it holds no '/') with stdin from /dev/null.
/// Returns its process id, or nullopt when it cannot be started.
std::optional<pid_t> start_program(const std::vector<std::string>& argv, const ChildOptions& options);

/// An exit status as shells give it: the status, or 128 + the signal that ended it.
int exit_status_of(int wait_status);

/// Runs `argv` to its end. Returns its exit status, 128 + a signal, or -1 when it cannot be
/// started.
int run_program(const std::vector<std::string>& argv, bool quiet);

}  // namespace fovea
