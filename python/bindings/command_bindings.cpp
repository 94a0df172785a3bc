// fovea.run and fovea.sweep (docs/python.md, "Runs and studies"): the fovea command's own
// run_command and sweep_command, called in this process with the options its command line
// would give them. Their messages go to stderr as the command's do; a failure raises.

#include <csignal>
#include <iostream>
#include <streambuf>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "fovea/run_command.hpp"
#include "fovea/sweep_command.hpp"

namespace py = pybind11;

namespace fovea::python {
namespace {

py::object run_error_type;

/// std::cerr into Python's sys.stderr, line by line, while a command runs without the GIL,
/// so Jupyter and pytest see what a terminal would; the last complete line is kept for the
/// exception a failure raises.
class StderrToPython final : public std::streambuf {
 public:
  StderrToPython() : previous_(std::cerr.rdbuf(this)) {}
  ~StderrToPython() override {
    try {
      flush_line();
    } catch (...) {
      // sys.stderr gone (interpreter shutting down): nothing to tell it.
    }
    std::cerr.rdbuf(previous_);
  }
  StderrToPython(const StderrToPython&) = delete;
  StderrToPython& operator=(const StderrToPython&) = delete;

  const std::string& last_line() const { return last_line_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    line_ += traits_type::to_char_type(c);
    // A progress line redraws itself with '\r': passed on as it comes.
    if (c == '\n' || c == '\r') flush_line();
    return c;
  }
  std::streamsize xsputn(const char* text, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(traits_type::to_int_type(text[i]));
    return n;
  }
  // std::cerr is unit-buffered: it syncs after every <<, mid-line. Lines are passed on
  // whole (at '\n' or '\r') so the last one can be kept; the destructor passes the rest.
  int sync() override { return 0; }

 private:
  void flush_line() {
    if (line_.empty()) return;
    if (line_.back() == '\n' && line_.size() > 1) last_line_ = line_.substr(0, line_.size() - 1);
    py::gil_scoped_acquire gil;
    py::object stderr_file = py::module_::import("sys").attr("stderr");
    stderr_file.attr("write")(line_);
    stderr_file.attr("flush")();
    line_.clear();
  }

  std::streambuf* previous_;
  std::string line_;
  std::string last_line_;
};

/// After a command: Ctrl-C (or SIGTERM) stopped it with its results complete, so Python
/// hears of it as KeyboardInterrupt (or the signal's default); bad input (exit status 2)
/// raises ConfigError with the command's message, file:line:col and all; another failure
/// RunError.
void raise_for_status(int status, const std::string& what, const std::filesystem::path& folder,
                      const std::string& message) {
  if (status == 0) return;
  if (status == 128 + SIGINT) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  if (status > 128) {
    std::signal(status - 128, SIG_DFL);
    std::raise(status - 128);
  }
  if (status == kExitBadInput && !message.empty()) throw config::ConfigError(message);
  py::object error = run_error_type(what + " ended with exit status " + std::to_string(status) +
                                    (message.empty() ? "" : ": " + message));
  error.attr("status") = status;
  error.attr("folder") = folder.empty() ? py::none() : py::cast(folder);
  PyErr_SetObject(run_error_type.ptr(), error.ptr());
  throw py::error_already_set();
}

}  // namespace

std::vector<std::string> python_command_line(const std::string& call) {
  std::vector<std::string> line = {"python"};
  for (const auto& a : py::module_::import("sys").attr("argv")) line.push_back(py::str(a).cast<std::string>());
  line.push_back(call);
  return line;
}

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
        options.out_name = "out=";
        options.quiet = quiet;
        options.display = DisplayChoice::headless;
        options.command_line = python_command_line("fovea.run");
        options.end_by_signal = false;
        RunReport report;
        int status = 0;
        std::string message;
        {
          StderrToPython to_python;
          {
            py::gil_scoped_release release;
            status = run_command(options, &report);
          }
          message = to_python.last_line();
        }
        raise_for_status(status, "fovea.run", report.folder, message);
        return report.folder;
      },
      py::arg("config") = py::none(), py::arg("overrides") = py::none(), py::arg("out") = py::none(),
      py::arg("frames") = py::none(), py::arg("quiet") = true,
      R"(Runs a config headless as `fovea run --headless` does, in this process; returns its results
folder (results/<name>-<UTC time>/, or out). config and overrides as load_config takes them;
frames overrides the config's. Its messages go to sys.stderr. Ctrl-C stops the run with its
frames kept and raises KeyboardInterrupt; a config fovea run refuses (gaze.source: external,
entities that do not fit) raises ConfigError with its message; another failure RunError.)");

  m.def(
      "sweep",
      [](const std::filesystem::path& study, const py::object& overrides, const std::optional<std::filesystem::path>& out,
         int jobs, bool figures, bool quiet) {
        SweepOptions options;
        options.study_path = study.string();
        options.overrides = overrides_from(overrides, "override");
        if (out) options.out = out->string();
        options.out_name = "out=";
        options.jobs = jobs;
        options.figures = figures;
        options.quiet = quiet;
        options.command_line = python_command_line("fovea.sweep");
        options.fovea_binary = FOVEA_BINARY;
        options.end_by_signal = false;
        SweepReport report;
        int status = 0;
        std::string message;
        {
          StderrToPython to_python;
          {
            py::gil_scoped_release release;
            status = sweep_command(options, &report);
          }
          message = to_python.last_line();
        }
        raise_for_status(status, "fovea.sweep", report.folder, message);
        return report.folder;
      },
      py::arg("study"), py::arg("overrides") = py::none(), py::arg("out") = py::none(), py::arg("jobs") = 0,
      py::arg("figures") = true, py::arg("quiet") = true,
      R"(Runs a study as `fovea sweep` does: its runs as `fovea run` processes of the fovea program
built beside this module, up to jobs at a time (0: the machine's cores), then table.csv,
sweep.json and the figures; returns the study's folder (results/studies/<name>, or out; a
shard's own folder inside it when the study is sharded, as under a Slurm array). A
study already partly run goes on from its finished runs. overrides apply to every run, as
--set does. A failed run raises RunError once the table is written.)");
}

}  // namespace fovea::python
