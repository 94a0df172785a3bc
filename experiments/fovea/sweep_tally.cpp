#include "fovea/sweep_tally.hpp"

#include <exception>

#include "fovea/sweep_plan.hpp"

namespace fovea {

bool SweepTally::summarise(const StudySettings& study, const RunJob& job, const std::filesystem::path& folder,
                           const CsvTable& frames) {
  try {
    rows[job.run.index] = summarise_run(study, job.run, frames, (folder / "frames.csv").string(), job.warmup_frames);
    return true;
  } catch (const std::exception& e) {
    // The first problem is the one to tell: runs stopped because of it may reach here too.
    if (fatal.empty()) fatal = e.what();
    return false;
  }
}

}  // namespace fovea
