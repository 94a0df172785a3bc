#include "fovea/stop_signals.hpp"

namespace fovea {
namespace {

// A signal handler can only touch a volatile sig_atomic_t, hence the one global of the
// program.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal) {
  if (g_stop_signal == 0) g_stop_signal = signal;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

/// Saves the whole disposition into `previous` (std::signal would give back only the handler,
/// and putting it back with std::signal changes its flags: a handler installed without
/// SA_RESTART, as Python's is, would then let blocking calls wait on after a Ctrl-C).
void catch_unless_ignored(int signal, struct sigaction& previous) {
  sigaction(signal, nullptr, &previous);
  if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN) return;
  struct sigaction catching {};
  catching.sa_handler = on_stop_signal;
  sigemptyset(&catching.sa_mask);
  catching.sa_flags = SA_RESTART;  // as std::signal installs it: the loops' reads and waits go on
  sigaction(signal, &catching, nullptr);
}

}  // namespace

int stop_signal_received() { return g_stop_signal; }

StopSignals::StopSignals() {
  g_stop_signal = 0;
  catch_unless_ignored(SIGINT, previous_int_);
  catch_unless_ignored(SIGTERM, previous_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

}  // namespace fovea
