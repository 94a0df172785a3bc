#pragma once

#include <signal.h>

#include <csignal>

namespace fovea {

/// The signal that asked the program to stop (SIGINT from Ctrl-C, SIGTERM from a batch
/// scheduler's time limit) while a StopSignals was alive, or 0. Loops check it between
/// frames or trials and end cleanly, their records complete.
int stop_signal_received();

/// Catches SIGINT and SIGTERM for its lifetime, then puts back what was there, flags and
/// mask included (Python's own handler, inside the Python module, works as before). The first
/// signal is remembered (stop_signal_received); after it, a second one of either kind kills
/// the process the ordinary way. A signal the process was started with ignored (a
/// background job of a non-interactive shell, nohup) stays ignored, as the caller intended.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace fovea
