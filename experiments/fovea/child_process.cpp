#include "fovea/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

namespace fovea {
namespace {

/// Reports errno to the parent through `exec_report` and ends the child.
[[noreturn]] void fail_to_start(int exec_report) {
  const int error = errno;
  [[maybe_unused]] const ssize_t written = write(exec_report, &error, sizeof error);
  _exit(127);
}

/// The child's side of start_program, between fork and exec: async-signal-safe calls only
/// (fovea may have other threads, whose locks the fork copied held). A failure is reported
/// through `exec_report` as its errno; a successful exec closes it unwritten.
[[noreturn]] void become_program(char* const* args, const ChildOptions& options, pid_t fovea, int exec_report,
                                 int stderr_pipe, const sigset_t& fovea_signal_mask) {
  const auto fail = [exec_report]() { fail_to_start(exec_report); };
  if (options.dies_with_fovea) {
    // The signal comes when the thread that forked ends: fovea sweep starts its runs from its
    // one thread, so that is when fovea ends.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail();
    // fovea ended before the line above: this child has another parent already, and no
    // signal will come.
    if (getppid() != fovea) _exit(127);
  }
  if (options.own_process_group && setpgid(0, 0) != 0) fail();
  // Each /dev/null is closed once copied to where it goes, unless it is itself 0, 1 or 2 (a
  // fovea started with those closed): the program gets only the descriptors it is given.
  const int in = open("/dev/null", O_RDONLY);
  if (in < 0 || dup2(in, 0) < 0) fail();
  if (in > 2) close(in);
  switch (options.output) {
    case ChildOptions::Output::inherited:
      if (dup2(2, 1) < 0) fail();
      break;
    case ChildOptions::Output::discarded: {
      const int null = open("/dev/null", O_WRONLY);
      if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) fail();
      if (null > 2) close(null);
      break;
    }
    case ChildOptions::Output::stderr_to_pipe: {
      const int null = open("/dev/null", O_WRONLY);
      if (null < 0 || dup2(null, 1) < 0 || dup2(stderr_pipe, 2) < 0) fail();
      if (null > 2) close(null);
      break;
    }
  }
  // fovea's handlers (StopSignals) give way to the defaults before the signals are unblocked,
  // as posix_spawn does: a signal that came since the fork acts on the program as on one just
  // started, instead of being taken by a copy of fovea's handler and lost. Ignored signals
  // stay ignored.
  for (int s = 1; s < NSIG; ++s) {
    struct sigaction action {};
    if (sigaction(s, nullptr, &action) != 0 || action.sa_handler == SIG_IGN || action.sa_handler == SIG_DFL) continue;
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigaction(s, &default_action, nullptr);
  }
  sigprocmask(SIG_SETMASK, &fovea_signal_mask, nullptr);
  execvp(args[0], args);
  fail_to_start(exec_report);
}

}  // namespace

std::optional<StartedProgram> start_program(const std::vector<std::string>& argv, const ChildOptions& options) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // fork and exec rather than posix_spawn: only a child of its own can ask to die with fovea
  // (prctl) before it runs the program.
  int exec_report[2];
  if (pipe2(exec_report, O_CLOEXEC) != 0) return std::nullopt;
  // Close-on-exec, so the runs started later do not hold this one's pipe open: its reader
  // sees the end when this child ends.
  int stderr_pipe[2] = {-1, -1};
  const bool piped = options.output == ChildOptions::Output::stderr_to_pipe;
  if (piped && pipe2(stderr_pipe, O_CLOEXEC) != 0) {
    close(exec_report[0]);
    close(exec_report[1]);
    return std::nullopt;
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t fovea = getpid();
  sigset_t all_signals, fovea_signal_mask;
  sigfillset(&all_signals);
  pthread_sigmask(SIG_SETMASK, &all_signals, &fovea_signal_mask);
  const pid_t pid = fork();
  if (pid == 0) become_program(args.data(), options, fovea, exec_report[1], stderr_pipe[1], fovea_signal_mask);
  pthread_sigmask(SIG_SETMASK, &fovea_signal_mask, nullptr);
  close(exec_report[1]);
  if (piped) close(stderr_pipe[1]);
  if (pid < 0) {
    close(exec_report[0]);
    if (piped) close(stderr_pipe[0]);
    return std::nullopt;
  }
  int exec_error = 0;
  ssize_t reported = 0;
  while ((reported = read(exec_report[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  close(exec_report[0]);
  if (reported > 0) {
    // It never became the program: reaped here, unseen by the caller.
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (piped) close(stderr_pipe[0]);
    return std::nullopt;
  }
  if (piped) fcntl(stderr_pipe[0], F_SETFL, fcntl(stderr_pipe[0], F_GETFL) | O_NONBLOCK);
  return StartedProgram{pid, stderr_pipe[0]};
}

int exit_status_of(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

int run_program(const std::vector<std::string>& argv, bool quiet) {
  ChildOptions options;
  options.output = quiet ? ChildOptions::Output::discarded : ChildOptions::Output::inherited;
  const std::optional<StartedProgram> program = start_program(argv, options);
  if (!program) return -1;
  int status = 0;
  while (waitpid(program->pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return exit_status_of(status);
}

}  // namespace fovea
