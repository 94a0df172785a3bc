#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fovea {

/// The machine a run ran on, as far as a result needs it.
struct MachineInfo {
  std::string hostname;
  std::string os;          ///< "Linux 6.1.0-18-amd64 x86_64"
  std::string cpu_model;   ///< from /proc/cpuinfo, "" where unknown
  int logical_cores = 0;
};
MachineInfo describe_machine();
/// The machine as manifest.json and sweep.json give it: hostname, os, cpu_model, logical_cores.
nlohmann::ordered_json to_json(const MachineInfo& machine);

/// manifest.json: what ran, where, when, and how it ended. Written when the run starts
/// (status "running") and rewritten when it ends, so a killed run is recognisable.
struct RunManifest {
  std::string fovea_version;
  std::string git_commit;
  bool git_dirty = false;
  std::int64_t seed = 0;
  std::vector<std::string> command_line;
  std::string working_directory;
  std::string config;                 ///< the config file, or the built-in default
  MachineInfo machine;
  std::string start_time_utc;
  std::string end_time_utc;           ///< "" while running
  std::string status = "running";     ///< running, completed, interrupted, failed
  std::optional<int> exit_status;     ///< the process exit status once ended
  std::int64_t frames_requested = 0;
  std::int64_t frames_completed = 0;
};

nlohmann::ordered_json to_json(const RunManifest& manifest);

}  // namespace fovea
