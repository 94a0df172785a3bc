#pragma once

#include <csignal>

namespace fovea {

/// The signal that asked the program to stop (SIGINT from Ctrl-C, SIGTERM from a batch
/// scheduler's time limit) while a StopSignals was alive, or 0. Loops check it between
/// frames or trials and end cleanly, their records complete.
int stop_signal_received();

/// Catches SIGINT and SIGTERM for its lifetime, then puts back what was there. The first
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
  using Handler = void (*)(int);
  Handler previous_int_;
  Handler previous_term_;
};

}  // namespace fovea
