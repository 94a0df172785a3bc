#include "fovea/sweep_launch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "fovea/child_process.hpp"

namespace fovea {

namespace fs = std::filesystem;

RunMessages::~RunMessages() {
  if (pipe_ >= 0) close(pipe_);
  if (log_ >= 0) close(log_);
}

void RunMessages::read_available() {
  char buffer[65536];
  while (pipe_ >= 0) {
    const ssize_t n = read(pipe_, buffer, sizeof buffer);
    if (n > 0) {
      keep_first_line(std::string_view(buffer, static_cast<std::size_t>(n)));
      write_log(buffer, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      // The end (n == 0), or nothing more for now (EAGAIN).
      if (n == 0 || errno != EAGAIN) {
        close(pipe_);
        pipe_ = -1;
      }
      return;
    }
  }
}

void RunMessages::finish() {
  read_available();
  if (log_ >= 0) {
    if (close(log_) != 0 && log_problem_.empty()) log_problem_ = std::strerror(errno);
    log_ = -1;
    std::error_code error;
    if (log_bytes_ == 0) fs::remove(log_path_, error);
  }
}

std::string RunMessages::where() const {
  if (!log_problem_.empty()) {
    if (log_bytes_ == 0) return "(its messages could not be written to " + log_path_.string() + ": " + log_problem_ + ")";
    return "(" + log_path_.string() + " holds only part of its messages, the rest could not be written: " + log_problem_ +
           ")";
  }
  if (log_bytes_ == 0) return "";
  return "(all its messages: " + log_path_.string() + ")";
}

void RunMessages::keep_first_line(std::string_view text) {
  if (first_line_done_) return;
  const std::size_t end = text.find('\n');
  first_line_.append(text.substr(0, std::min(end, kMaxLineBytes - first_line_.size())));
  first_line_done_ = end != std::string_view::npos || first_line_.size() >= kMaxLineBytes;
}

void RunMessages::write_log(const char* bytes, std::size_t size) {
  if (!log_problem_.empty()) return;  // the messages after a failed write are lost to the log, never half-appended
  if (log_ < 0) {
    log_ = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_ < 0) {
      log_problem_ = std::strerror(errno);
      return;
    }
  }
  while (size > 0) {
    const ssize_t n = write(log_, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      log_problem_ = std::strerror(errno);
      return;
    }
    log_bytes_ += static_cast<std::uintmax_t>(n);
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
}

std::optional<LaunchedRun> launch_run(const std::string& fovea_binary, const SweepPlan& plan,
                                      const fs::path& runs_folder, const RunJob& job) {
  const std::string name = run_folder_name(job.run.index, static_cast<std::int64_t>(plan.runs.size()));
  const fs::path log = runs_folder / (name + ".log");
  // The log of an earlier attempt (a resumed sweep) goes: this run writes its own, if any.
  std::error_code error;
  fs::remove(log, error);
  LaunchedRun r{-1, &job, runs_folder / name, nullptr};
  std::vector<std::string> argv = {fovea_binary, "run", plan.study.base_config, "--out", r.folder.string(), "--headless",
                                   "--quiet"};
  for (const config::Override& o : job.run.overrides) {
    argv.push_back("--set");
    argv.push_back(o.assignment);
  }
  ChildOptions child;
  child.output = ChildOptions::Output::stderr_to_pipe;
  child.own_process_group = true;
  child.dies_with_fovea = true;
  const std::optional<StartedProgram> program = start_program(argv, child);
  if (!program) return std::nullopt;
  r.pid = program->pid;
  r.messages = std::make_unique<RunMessages>(program->stderr_pipe, log);
  return r;
}

DefaultChildSignal::DefaultChildSignal() {
  struct sigaction by_default {};
  by_default.sa_handler = SIG_DFL;
  sigemptyset(&by_default.sa_mask);
  sigaction(SIGCHLD, &by_default, &previous_);
}

DefaultChildSignal::~DefaultChildSignal() { sigaction(SIGCHLD, &previous_, nullptr); }

}  // namespace fovea
