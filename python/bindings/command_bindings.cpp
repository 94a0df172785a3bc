// fovea.run, fovea.sweep, fovea.experiment and fovea.fit (docs/python.md, "Runs and
// studies", "Experiments and fits"): the fovea command's own run_command, sweep_command,
// experiment_command and fit_command, called in this process with the options its command
// line would give them. Their messages go to sys.stderr (and fit's table to sys.stdout) as
// the command's go to the terminal; a failure raises.

#include <csignal>
#include <iostream>
#include <streambuf>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "core/format.hpp"
#include "fovea/experiment_command.hpp"
#include "fovea/fit_command.hpp"
#include "fovea/run_command.hpp"
#include "fovea/session_files.hpp"
#include "fovea/sweep_command.hpp"

namespace py = pybind11;

namespace fovea::python {
namespace {

py::object run_error_type;

/// std::cerr into Python's sys.stderr (or std::cout into sys.stdout), line by line, while a
/// command runs without the GIL, so Jupyter and pytest see what a terminal would; the last
/// complete line is kept for the exception a failure raises.
class StderrToPython final : public std::streambuf {
 public:
  explicit StderrToPython(std::ostream& stream = std::cerr, const char* python_file = "stderr")
      : stream_(stream), python_file_(python_file), previous_(stream.rdbuf(this)) {}
  ~StderrToPython() override {
    try {
      flush_line();
    } catch (...) {
      // sys.stderr gone (interpreter shutting down): nothing to tell it.
    }
    stream_.rdbuf(previous_);
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
    py::object stderr_file = py::module_::import("sys").attr(python_file_);
    stderr_file.attr("write")(line_);
    stderr_file.attr("flush")();
    line_.clear();
  }

  std::ostream& stream_;
  const char* python_file_;
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

/// A path or text argument as the command gets it; ValueError for one holding a NUL byte,
/// which a command line cannot carry and which would cut a path short.
std::string command_argument(const py::handle& value, const std::string& call, const char* name) {
  const py::object text = py::module_::import("os").attr("fspath")(value);
  if (!py::isinstance<py::str>(text))
    throw py::type_error(call + ": " + name + " is a path or text (str or os.PathLike of str)");
  std::string out = text.cast<std::string>();
  if (out.find('\0') != std::string::npos) throw py::value_error(call + ": " + name + " holds a NUL byte");
  return out;
}

/// A command run as its command line runs it: `args` (after `fovea`) parsed by the command's
/// own options (`register_command`, as main.cpp registers it), so every check and message is
/// the command's. Returns the exit status; a refused command line is kExitBadInput with
/// CLI11's message in `refused`. Runs without the GIL: `command_line` is made before.
int parse_and_run(void (*register_command)(CLI::App&, CommandContext&), const std::vector<std::string>& args,
                  std::vector<std::string> command_line, std::string& refused) {
  CLI::App app{"fovea"};
  CommandContext context;
  context.command_line = std::move(command_line);
  register_command(app, context);
  app.require_subcommand(1);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    refused = e.what();
    return kExitBadInput;
  }
  return context.exit_status;
}

/// Runs `command` without the GIL, its std::cerr into sys.stderr and std::cout into
/// sys.stdout; returns its exit status and the last line it wrote on stderr.
template <typename Command>
int run_released(Command command, std::string& message) {
  int status = 0;
  StderrToPython to_stdout(std::cout, "stdout");
  StderrToPython to_stderr;
  {
    py::gil_scoped_release release;
    status = command();
  }
  message = to_stderr.last_line();
  return status;
}

/// fovea.experiment: experiment_command with the options its command line gives; the
/// participant's folder.
std::filesystem::path experiment(const py::object& spec, const std::string& participant, const py::object& observer,
                                 const py::object& overrides, const py::object& out, bool resume,
                                 double observer_pace_ms, const py::object& capture, const py::object& synthetic_keys,
                                 bool quiet) {
  const std::string call = "fovea.experiment";
  ExperimentOptions options;
  options.spec_path = command_argument(spec, call, "spec");
  if (participant.find('\0') != std::string::npos) throw py::value_error(call + ": participant holds a NUL byte");
  options.participant = participant;
  options.overrides = overrides_from(overrides, "override");
  options.resume = resume;
  if (!out.is_none()) options.out = command_argument(out, call, "out");
  if (!observer.is_none()) options.observer = command_argument(observer, call, "observer");
  // The command line's own bound on --observer-pace-ms (register_experiment_command).
  if (!(observer_pace_ms >= 0 && observer_pace_ms <= 600000))
    throw py::value_error(call + ": observer_pace_ms " + format_number(observer_pace_ms) + " is outside 0 to 600000");
  options.observer_pace_ms = observer_pace_ms;
  if (!capture.is_none()) options.capture_dir = command_argument(capture, call, "capture");
  if (!synthetic_keys.is_none()) options.synthetic_keys = command_argument(synthetic_keys, call, "synthetic_keys");
  options.quiet = quiet;
  std::string message;
  const int status = run_released([&] { return experiment_command(options); }, message);
  std::filesystem::path folder;
  if (status == 0) folder = session_folder(options, config::load_experiment_file(options.spec_path, options.overrides).spec).folder;
  raise_for_status(status, call, folder, message);
  return folder;
}

/// The most trials files fovea.fit takes: far more sessions than a study has, and a bound
/// on a generator that never ends.
constexpr std::size_t kMaxTrialsFiles = 100000;

/// fovea.fit: `fovea fit`'s command line made from the arguments and parsed by its options;
/// the model file written.
std::filesystem::path fit(const py::object& trials, const py::object& output, const py::object& function,
                          const std::optional<std::int64_t>& bootstrap, const std::optional<std::int64_t>& seed,
                          const std::optional<double>& max_lapse, bool lapse, const py::object& guess,
                          const py::object& interval, const py::object& bias_correction, bool plots,
                          const py::object& plots_dir) {
  const std::string call = "fovea.fit";
  std::vector<std::string> args = {"fit", "--output=" + command_argument(output, call, "output")};
  const auto text_option = [&](const py::object& value, const char* option, const char* name) {
    if (!value.is_none()) args.push_back(std::string(option) + "=" + command_argument(value, call, name));
  };
  text_option(function, "--function", "function");
  if (bootstrap) args.push_back("--bootstrap=" + std::to_string(*bootstrap));
  if (seed) args.push_back("--seed=" + std::to_string(*seed));
  if (max_lapse) args.push_back("--max-lapse=" + format_number(*max_lapse));
  if (!lapse) args.emplace_back("--no-lapse");
  text_option(guess, "--guess", "guess");
  text_option(interval, "--interval", "interval");
  text_option(bias_correction, "--bias-correction", "bias_correction");
  if (!plots) args.emplace_back("--no-plots");
  text_option(plots_dir, "--plots", "plots_dir");
  args.emplace_back("--");  // the trials files after it, whatever their names start with
  const bool one = py::isinstance<py::str>(trials) || py::hasattr(trials, "__fspath__");
  std::size_t files = 0;
  for (const py::handle file : one ? py::iterable(py::make_tuple(trials)) : py::iterable(trials)) {
    if (++files > kMaxTrialsFiles)
      throw py::value_error(call + ": more than " + std::to_string(kMaxTrialsFiles) + " trials files");
    args.push_back(command_argument(file, call, "trials"));
  }
  std::vector<std::string> command_line = python_command_line(call);
  std::string refused, message;
  const int status = run_released([&] { return parse_and_run(register_fit_command, args, command_line, refused); }, message);
  if (!refused.empty()) throw config::ConfigError(call + ": " + refused);
  raise_for_status(status, call, {}, message);
  return args[1].substr(std::string("--output=").size());
}

/// fovea.experiment and fovea.fit.
void bind_experiment_and_fit(py::module_& m) {
  m.def("experiment", &experiment, py::arg("spec"), py::arg("participant"), py::arg("observer") = py::none(),
        py::arg("overrides") = py::none(), py::arg("out") = py::none(), py::arg("resume") = false,
        py::arg("observer_pace_ms") = 0.0, py::arg("capture") = py::none(), py::arg("synthetic_keys") = py::none(),
        py::arg("quiet") = true,
        R"(Runs or resumes a participant's session of an experiment spec as `fovea experiment` does
(docs/psychophysics.md), in this process; returns the participant's folder
(results/experiments/<name>/<participant>/, or out). observer: a perception-model YAML whose
f(e, g) answers each trial (a simulated session: no person, no display); without it a person
watches the spec's screen. overrides as load_config takes them (the spec's keys); resume,
observer_pace_ms, capture and synthetic_keys as --resume, --observer-pace-ms, --capture and
--synthetic-keys. Its messages go to sys.stderr. What the command refuses as bad input (exit
status 2) raises ConfigError with its message; another failure RunError; Ctrl-C stops the
session with its trials kept and raises KeyboardInterrupt.)");
  m.def("fit", &fit, py::arg("trials"), py::arg("output"), py::arg("function") = py::none(),
        py::arg("bootstrap") = py::none(), py::arg("seed") = py::none(), py::arg("max_lapse") = py::none(),
        py::arg("lapse") = true, py::arg("guess") = py::none(), py::arg("interval") = py::none(),
        py::arg("bias_correction") = py::none(), py::arg("plots") = true, py::arg("plots_dir") = py::none(),
        R"(Fits f(e, g) to trials.csv files as `fovea fit` does (docs/cli.md#fovea-fit), in this process;
returns the model file written (output; <stem>_fit.json and <stem>_conditions.csv beside it).
trials: a path or a list of paths. The other arguments are the command's options, None for
its default: function (--function), bootstrap, seed, max_lapse, lapse=False (--no-lapse),
guess, interval, bias_correction, plots=False (--no-plots), plots_dir (--plots). They are
given to the command's own option parser, so a value it refuses raises ConfigError with its
message; a failed fit RunError. The table of fits goes to sys.stdout.)");
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
      "fovea.RunError", "fovea.run, sweep, experiment or fit failed; status is the command's exit status (docs/cli.md), folder "
                        "where its results went (None when nothing was written).",
      PyExc_RuntimeError, nullptr));
  bind_experiment_and_fit(m);
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
