#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fovea::test {

/// A child process with stdout and stderr going to files, for end-to-end tests that need to
/// signal it while it runs.
class ChildProcess {
 public:
  /// Starts argv[0] (a path) with `argv` in folder `cwd`; stdin is /dev/null. The signals
  /// in `ignored` start ignored, as for a background job of a non-interactive shell.
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
               const std::filesystem::path& stdout_file, const std::filesystem::path& stderr_file,
               const std::vector<int>& ignored = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void send_signal(int signal);
  /// Waits for the end: the exit status, or 128 + the signal that killed it.
  int wait();
  /// After wait(): the signal that ended the process, 0 when it exited by itself.
  int terminating_signal() const { return signal_; }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  int signal_ = 0;
};

struct ProcessResult {
  int status = 0;        ///< exit status, or 128 + signal
  std::string out;       ///< everything written to stdout
  std::string err;       ///< everything written to stderr
};

/// Runs a command to its end in `cwd` and collects its output.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd);

/// A whole file as a string ("" when missing).
std::string read_file(const std::filesystem::path& path);

/// Whether the file starts with PNG's eight-byte signature and holds more than a header.
bool is_png(const std::filesystem::path& path);

/// Whether fovea's plots can be drawn here, asked the way fovea asks (FOVEA_PYTHON when set,
/// else python3 on PATH, then Debian's /usr/bin/python3): a python3 that imports matplotlib.
/// Plot tests pass either way and check what each case must give.
bool python_has_matplotlib();

}  // namespace fovea::test
