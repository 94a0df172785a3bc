// The compiled part of the Python package `fovea` (docs/python.md). python/fovea/__init__.py
// imports it as fovea._fovea and adds what is Python's own (pandas readers of results).

#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "core/build_info.hpp"

PYBIND11_MODULE(_fovea, m) {
  m.doc() = "fovea's framework from Python: configs, worlds stepped frame by frame, runs and studies";
  const fovea::BuildInfo build = fovea::build_info();
  m.attr("__version__") = build.version;
  m.attr("git_commit") = build.git_commit;
  m.attr("fovea_binary") = FOVEA_BINARY;
  fovea::python::bind_config(m);
  fovea::python::bind_world(m);
  fovea::python::bind_commands(m);
  fovea::python::bind_results(m);
  fovea::python::bind_gaze(m);
}
