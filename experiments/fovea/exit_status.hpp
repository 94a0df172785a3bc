#pragma once

namespace fovea {

/// Exit statuses of the fovea command (docs/cli.md).
enum ExitStatus : int {
  kExitOk = 0,
  kExitFailure = 1,       ///< the run could not write its results
  kExitBadInput = 2,      ///< bad command line or config: nothing was written
  // Stopped by SIGINT or SIGTERM: results complete up to then, and the process ends by that
  // signal, which shells report as 128 + its number (130, 143).
};

}  // namespace fovea
