// The checks behind fovea.read_run and fovea.read_study (python/fovea/results.py): the
// run-folder check `fovea sweep` makes (record/run_folder.hpp) and a study's fingerprints as
// the sweep computes them, so Python refuses the folders the command refuses, in its words.

#include <filesystem>
#include <string>

#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "core/file_read.hpp"
#include "record/run_folder.hpp"
#include "study/study_plan.hpp"
#include "study/study_settings.hpp"

namespace py = pybind11;

namespace fovea::python {

void bind_results(py::module_& m) {
  m.def(
      "check_run_folder",
      [](const std::filesystem::path& folder) {
        RunFolderCheck check;
        {
          // frames.csv is read and parsed whole: long runs hold megabytes.
          py::gil_scoped_release release;
          check = check_run_folder(folder);
        }
        const char* verdict = "whole";
        if (check.verdict == RunFolderCheck::Verdict::incomplete) verdict = "incomplete";
        if (check.verdict == RunFolderCheck::Verdict::unreadable) verdict = "unreadable";
        // The manifest as JSON text, parsed by Python's json module: the order of its keys kept.
        return py::make_tuple(verdict, check.problem,
                              check.manifest.is_null() ? py::object(py::none()) : py::object(py::str(check.manifest.dump())));
      },
      py::arg("folder"),
      R"(The check `fovea sweep` makes of a run's folder before it counts the run (record/run_folder.hpp):
(verdict, problem, manifest_json) with verdict "whole", "incomplete" (killed, failed, a file cut
short) or "unreadable" (a file the OS does not give); problem the sweep's words for why ("its
manifest says interrupted"), "" when whole; manifest_json manifest.json's text once it read as
a JSON object, else None. fovea.read_run raises ResultsError from it.)");

  m.def(
      "study_fingerprints",
      [](const std::filesystem::path& study_path, const py::object& overrides) {
        const StudySettings study = load_study_file(study_path.string(), overrides_from(overrides, "override"));
        // As sweep_command computes them: the base config's text, read as the runs read it.
        const std::string base_text = read_regular_file(study.base_config, kMaxConfigFileBytes, "config");
        py::dict fingerprints;
        fingerprints["fingerprint"] = plan_fingerprint(base_text, plan_runs(study));
        fingerprints["table_fingerprint"] = table_fingerprint(study);
        fingerprints["study"] = study.name;
        return fingerprints;
      },
      py::arg("study"), py::arg("overrides") = py::none(),
      R"(A study file's fingerprints as `fovea sweep` writes them into sweep.json: {"fingerprint": what
the runs are (the base config's text, every run's cells and keys), "table_fingerprint": how they
are summarised, "study": its name}. overrides as fovea.sweep takes them (they change the runs).
A bad study raises ConfigError.)");
}

}  // namespace fovea::python
