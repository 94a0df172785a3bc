// fovea.run and fovea.sweep (docs/python.md, "Runs and studies"): the fovea command's own
// run_command and sweep_command, called in this process with the options its command line
// would give them. Their messages go to stderr as the command's do; a failure raises.

#include <csignal>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "fovea/run_command.hpp"
#include "fovea/sweep_command.hpp"
#include "study/study_settings.hpp"

namespace py = pybind11;

namespace fovea::python {
namespace {

py::object run_error_type;

std::vector<std::string> python_command_line(const std::string& call) {
  std::vector<std::string> line = {"python"};
  for (const auto& a : py::module_::import("sys").attr("argv")) line.push_back(py::str(a).cast<std::string>());
  line.push_back(call);
  return line;
}

/// After a command: Ctrl-C (or SIGTERM) stopped it with its results complete, so Python
/// hears of it as KeyboardInterrupt (or the signal's default); a failure raises RunError.
void raise_for_status(int status, const std::string& what, const std::filesystem::path& folder) {
  if (status == 0) return;
  if (status == 128 + SIGINT) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  if (status > 128) {
    std::signal(status - 128, SIG_DFL);
    std::raise(status - 128);
  }
  py::object error = run_error_type(what + " ended with exit status " + std::to_string(status) +
                                    (status == kExitBadInput ? " (bad input: nothing was run; the message is above)"
                                                             : " (the message is above)"));
  error.attr("status") = status;
  error.attr("folder") = folder.empty() ? py::none() : py::cast(folder);
  PyErr_SetObject(run_error_type.ptr(), error.ptr());
  throw py::error_already_set();
}

}  // namespace

void bind_commands(py::module_& m) {
  run_error_type = py::reinterpret_borrow<py::object>(PyErr_NewExceptionWithDoc(
      "fovea.RunError", "fovea.run or fovea.sweep failed; status is the command's exit status (docs/cli.md), folder "
                        "where its results went (None when nothing was written).",
      PyExc_RuntimeError, nullptr));
  m.attr("RunError") = run_error_type;

  m.def(
      "run",
      [](const py::object& config, const py::object& overrides, const std::optional<std::filesystem::path>& out,
         const std::optional<std::int64_t>& frames, bool quiet) {
        py::object sets = overrides;
        if (frames) {
          py::list all;
          for (const config::Override& o : overrides_from(overrides, "override")) all.append(o.assignment);
          all.append("frames=" + std::to_string(*frames));
          sets = all;
        }
        RunOptions options;
        options.loaded = load_config_argument(config, sets);
        if (out) options.out = out->string();
        options.quiet = quiet;
        options.display = DisplayChoice::headless;
        options.command_line = python_command_line("fovea.run");
        options.end_by_signal = false;
        RunReport report;
        int status = 0;
        {
          py::gil_scoped_release release;
          status = run_command(options, &report);
        }
        raise_for_status(status, "fovea.run", report.folder);
        return report.folder;
      },
      py::arg("config") = py::none(), py::arg("overrides") = py::none(), py::arg("out") = py::none(),
      py::arg("frames") = py::none(), py::arg("quiet") = true,
      R"(Runs a config headless as `fovea run --headless` does, in this process; returns its results
folder (results/<name>-<UTC time>/, or out). config and overrides as load_config takes them;
frames overrides the config's. Ctrl-C stops the run with its frames kept and raises
KeyboardInterrupt; a failure raises RunError.)");

  m.def(
      "sweep",
      [](const std::filesystem::path& study, const py::object& overrides, const std::optional<std::filesystem::path>& out,
         int jobs, bool figures, bool quiet) {
        SweepOptions options;
        options.study_path = study.string();
        options.overrides = overrides_from(overrides, "--set");
        if (out) options.out = out->string();
        options.jobs = jobs;
        options.figures = figures;
        options.quiet = quiet;
        options.command_line = python_command_line("fovea.sweep");
        options.fovea_binary = FOVEA_BINARY;
        options.end_by_signal = false;
        std::filesystem::path folder;
        if (out) {
          folder = *out;
        } else {
          // Where the command puts it: results/studies/<name>, the study read for its name.
          try {
            folder = std::filesystem::path("results") / "studies" / load_study_file(options.study_path, options.overrides).name;
          } catch (const std::exception&) {
            // sweep_command reports the bad study itself, below.
          }
        }
        int status = 0;
        {
          py::gil_scoped_release release;
          status = sweep_command(options);
        }
        raise_for_status(status, "fovea.sweep", folder);
        return folder;
      },
      py::arg("study"), py::arg("overrides") = py::none(), py::arg("out") = py::none(), py::arg("jobs") = 0,
      py::arg("figures") = true, py::arg("quiet") = true,
      R"(Runs a study as `fovea sweep` does: its runs as `fovea run` processes of the fovea program
built beside this module, up to jobs at a time (0: the machine's cores), then table.csv,
sweep.json and the figures; returns the study's folder (results/studies/<name>, or out). A
study already partly run goes on from its finished runs. overrides apply to every run, as
--set does. A failed run raises RunError once the table is written.)");
}

}  // namespace fovea::python
