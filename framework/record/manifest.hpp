#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fovea {

/// The machine a run ran on, as far as a result needs it.
struct MachineInfo {
  std::string hostname;    ///< gethostname(); "" where it fails
  std::string os;          ///< "Linux 6.1.0-18-amd64 x86_64"
  std::string cpu_model;   ///< from /proc/cpuinfo, "" where unknown
  int logical_cores = 0;   ///< std::thread::hardware_concurrency(); 0 where unknown
};
/// The machine this process runs on, asked of the OS now (uname, /proc/cpuinfo).
MachineInfo describe_machine();
/// The machine as manifest.json and sweep.json give it: hostname, os, cpu_model, logical_cores.
nlohmann::ordered_json to_json(const MachineInfo& machine);

/// manifest.json: what ran, where, when, and how it ended. Written when the run starts
/// (status "running") and rewritten when it ends, so a killed run is recognisable.
struct RunManifest {
  std::string fovea_version;          ///< the build's version (core/build_info.hpp)
  std::string git_commit;             ///< the build's commit hash, or "unknown" outside git
  bool git_dirty = false;             ///< tracked files differed from that commit at build time
  std::int64_t seed = 0;              ///< the config's `seed`
  std::vector<std::string> command_line;  ///< the arguments as given, program name first
  std::string working_directory;      ///< the process's current directory at the start
  std::string config;                 ///< the config file, or the built-in default
  MachineInfo machine;                ///< describe_machine() at the start
  std::string start_time_utc;         ///< ISO 8601 with milliseconds (utc_iso8601)
  std::string end_time_utc;           ///< "" while running
  std::string status = "running";     ///< running, completed, interrupted, failed
  std::optional<int> exit_status;     ///< the process exit status once ended
  std::int64_t frames_requested = 0;  ///< the config's `frames` (after --frames)
  std::int64_t frames_completed = 0;  ///< frames written so far: refreshed about every 2 s, final at the end
};

/// manifest.json's object, fields in the order above; "" end time and no exit status as null.
nlohmann::ordered_json to_json(const RunManifest& manifest);

}  // namespace fovea
