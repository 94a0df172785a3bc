#pragma once

// The Python module's parts (docs/python.md), one function per file, each adding its classes
// and functions to the module `_fovea` that python/fovea/__init__.py re-exports.

#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "config/config.hpp"

namespace fovea::python {

/// load_config, Config and the ConfigError exception (config_bindings.cpp).
void bind_config(pybind11::module_& m);
/// World: a world and its demo stepped from Python, optionally recorded; its entities set,
/// added and removed by id, its frame drawn offscreen (world_bindings.cpp).
void bind_world(pybind11::module_& m);
/// run, sweep, experiment and fit: the fovea command's own code, in this process
/// (command_bindings.cpp).
void bind_commands(pybind11::module_& m);
/// StreamSender, the sender's half of the gaze stream, for fovea.gaze (gaze_bindings.cpp).
void bind_gaze(pybind11::module_& m);
/// check_run_folder and study_fingerprints, behind read_run and read_study (results_bindings.cpp).
void bind_results(pybind11::module_& m);

/// The config a Python argument names: a Config, a path (str or os.PathLike), a dict of keys
/// (as a YAML document would hold them) or None for the built-in default scene; `overrides`
/// (None, a dict {key: value} or a list of "key=value" strings) applied after it, with the
/// checks of `--set`, named in messages as `who` and the assignment. Throws
/// config::ConfigError.
config::LoadedConfig load_config_argument(const pybind11::object& config, const pybind11::object& overrides,
                                          const std::string& who = "override");

/// A Python value as YAML text: dicts as maps, lists and tuples as sequences, bool, int,
/// float (shortest round trip), str, None as null. Throws config::ConfigError for anything else.
std::string yaml_text(const pybind11::handle& value, bool flow);

/// Overrides from Python: a dict {key: value}, or a list of "key=value" strings, shown in
/// messages as `who` followed by the assignment.
std::vector<config::Override> overrides_from(const pybind11::object& overrides, const std::string& who);

/// The manifest's command line for a run started from Python: "python", the script's argv,
/// and `call` ("fovea.run", "fovea.World").
std::vector<std::string> python_command_line(const std::string& call);

}  // namespace fovea::python
