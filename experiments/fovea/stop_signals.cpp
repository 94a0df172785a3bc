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

using Handler = void (*)(int);
Handler catch_unless_ignored(int signal) {
  const Handler previous = std::signal(signal, on_stop_signal);
  if (previous == SIG_IGN) std::signal(signal, SIG_IGN);
  return previous;
}

}  // namespace

int stop_signal_received() { return g_stop_signal; }

StopSignals::StopSignals() {
  g_stop_signal = 0;
  previous_int_ = catch_unless_ignored(SIGINT);
  previous_term_ = catch_unless_ignored(SIGTERM);
}

StopSignals::~StopSignals() {
  std::signal(SIGINT, previous_int_);
  std::signal(SIGTERM, previous_term_);
}

}  // namespace fovea
