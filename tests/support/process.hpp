#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fovea::test {

/// How a ChildProcess starts, besides its command.
struct ChildSetup {
  /// Signals that start ignored, as for a background job of a non-interactive shell.
  std::vector<int> ignored;
  /// RLIMIT_FSIZE from the start, inherited by its own children: with SIGXFSZ in `ignored`,
  /// a write past the limit fails with EFBIG as one on a full disk fails with ENOSPC, without
  /// mounting a small file system (which needs privileges CI may not have), and as root too.
  std::optional<std::uint64_t> file_size_limit_bytes;
  /// stdout and stderr reach their files through pipes that a thread of the test copies, so a
  /// file size limit (from the start or ChildProcess::limit_file_size) does not cut them
  /// short. Implied by file_size_limit_bytes.
  bool output_through_pipes = false;
};

/// A child process with stdout and stderr going to files, for end-to-end tests that need to
/// signal it while it runs.
class ChildProcess {
 public:
  /// Starts argv[0] (a path) with `argv` in folder `cwd`; stdin is /dev/null. The signals
  /// in `ignored` start ignored, as for a background job of a non-interactive shell.
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
               const std::filesystem::path& stdout_file, const std::filesystem::path& stderr_file,
               const std::vector<int>& ignored = {});
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
               const std::filesystem::path& stdout_file, const std::filesystem::path& stderr_file,
               const ChildSetup& setup);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void send_signal(int signal);
  /// Sets RLIMIT_FSIZE of the running process: the files it writes from now on, and those of
  /// the children it starts from now on, cannot grow past `bytes` (see ChildSetup; its output
  /// must go through pipes).
  void limit_file_size(std::uint64_t bytes);
  /// Waits for the end (and, through pipes, for the last of its output): the exit status, or
  /// 128 + the signal that killed it.
  int wait();
  /// After wait(): the signal that ended the process, 0 when it exited by itself.
  int terminating_signal() const { return signal_; }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  int signal_ = 0;
  std::thread output_copier_;  ///< with output_through_pipes: the pipes to the files, until both end
};

struct ProcessResult {
  int status = 0;        ///< exit status, or 128 + signal
  std::string out;       ///< everything written to stdout
  std::string err;       ///< everything written to stderr
};

/// Runs a command to its end in `cwd` and collects its output.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd);

/// The processes whose parent is `parent`, from /proc.
std::vector<pid_t> child_processes(pid_t parent);

/// Whether `pid` is a process that runs (or could run): not gone, not a zombie waiting to be
/// reaped.
bool process_is_alive(pid_t pid);

/// A whole file as a string ("" when missing).
std::string read_file(const std::filesystem::path& path);

/// Waits until the file at `path` holds at least `lines` lines (a process writing it has got
/// that far), checking every 10 ms; false when `timeout` passes first.
bool wait_for_lines(const std::filesystem::path& path, std::size_t lines, std::chrono::milliseconds timeout);

/// Writes `text` to `path` byte for byte, replacing what was there.
void write_file(const std::filesystem::path& path, const std::string& text);

/// Whether the file starts with PNG's eight-byte signature and holds more than a header.
bool is_png(const std::filesystem::path& path);

/// Whether fovea's plots can be drawn here, asked the way fovea asks (FOVEA_PYTHON when set,
/// else python3 on PATH, then Debian's /usr/bin/python3): a python3 that imports matplotlib.
/// Plot tests pass either way and check what each case must give.
bool python_has_matplotlib();

}  // namespace fovea::test
