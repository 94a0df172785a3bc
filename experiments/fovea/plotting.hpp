#pragma once

#include <string>
#include <vector>

namespace fovea {

/// What draw_plots did.
enum class PlotOutcome {
  drawn,    ///< the script ran and succeeded
  skipped,  ///< no script, or no python3 that can import matplotlib: said so on stderr
  failed,   ///< the script ran and failed (it said why on stderr)
};

/// Runs fovea's one plotting script, experiments/plots/fovea_plots.py, with `arguments`
/// (its subcommand first: `fit ...` or `study ...`), under a python3 that can import
/// matplotlib: FOVEA_PYTHON when set, else python3 on PATH, else Debian's /usr/bin/python3
/// (where apt's python3-matplotlib goes when PATH leads to another python3, such as
/// pyenv's or a virtual environment's). matplotlib is optional: without it, or without the
/// script, `who` ("fovea fit") says on stderr that the plots were skipped and why.
PlotOutcome draw_plots(const std::vector<std::string>& arguments, const std::string& who);

}  // namespace fovea
