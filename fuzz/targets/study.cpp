// Fuzz target: study files (study/study_settings.hpp) and the plan of runs they cross to
// (study/study_plan.hpp), as `fovea sweep` reads them. Beyond "no crash": every planned run
// has one cell per factor column and indices 0, 1, 2, ... in order, and the table's columns
// are distinct.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

#include "fuzz_check.hpp"
#include "study/study_plan.hpp"
#include "study/study_settings.hpp"

namespace {

/// A folder holding base.yaml, the base config the corpus's studies name, so the fuzzer
/// gets past the check that the base exists to everything after it. Made once per process
/// and removed at its exit.
class StudyFolder {
 public:
  StudyFolder() {
    namespace fs = std::filesystem;
    path_ = fs::temp_directory_path() / ("fovea_fuzz_study_" + std::to_string(::getpid()));
    fs::create_directories(path_);
    std::ofstream(path_ / "base.yaml") << "frames: 5\nworld:\n  entities:\n    - {count: 4, model: {shape: ball}}\n";
  }
  ~StudyFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  StudyFolder(const StudyFolder&) = delete;
  StudyFolder& operator=(const StudyFolder&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

const std::string& study_folder() {
  static const StudyFolder folder;
  static const std::string path = folder.path();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fovea::StudySettings study;
  std::vector<fovea::PlannedRun> runs;
  try {
    study = fovea::load_study_text(text, "fuzz_study.yaml", study_folder());
    runs = fovea::plan_runs(study);
  } catch (const fovea::config::ConfigError&) {
    return 0;  // refused with file, line and key: what the reader is for
  }
  const std::vector<std::string> columns = study.table_columns();
  fovea::fuzz::check(std::set<std::string>(columns.begin(), columns.end()).size() == columns.size(),
                     "the table has two columns of one name");
  const std::size_t factor_columns = study.factor_columns().size();
  for (std::size_t r = 0; r < runs.size(); ++r) {
    fovea::fuzz::check(runs[r].index == static_cast<std::int64_t>(r), "run indices are not 0, 1, 2, ...");
    fovea::fuzz::check(runs[r].cells.size() == factor_columns, "a run has other cells than the factors' columns");
  }
  return 0;
}
