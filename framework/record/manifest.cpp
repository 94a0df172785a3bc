#include "record/manifest.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <thread>

namespace fovea {

MachineInfo describe_machine() {
  MachineInfo m;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  utsname u{};
  if (uname(&u) == 0) m.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) m.cpu_model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  }
  m.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  return m;
}

nlohmann::ordered_json to_json(const MachineInfo& m) {
  return {{"hostname", m.hostname}, {"os", m.os}, {"cpu_model", m.cpu_model}, {"logical_cores", m.logical_cores}};
}

nlohmann::ordered_json to_json(const RunManifest& r) {
  nlohmann::ordered_json j;
  j["fovea_version"] = r.fovea_version;
  j["git_commit"] = r.git_commit;
  j["git_dirty"] = r.git_dirty;
  j["seed"] = r.seed;
  j["command_line"] = r.command_line;
  j["working_directory"] = r.working_directory;
  j["config"] = r.config;
  j["machine"] = to_json(r.machine);
  j["start_time_utc"] = r.start_time_utc;
  j["end_time_utc"] = r.end_time_utc.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.end_time_utc);
  j["status"] = r.status;
  j["exit_status"] = r.exit_status ? nlohmann::ordered_json(*r.exit_status) : nlohmann::ordered_json(nullptr);
  j["frames_requested"] = r.frames_requested;
  j["frames_completed"] = r.frames_completed;
  return j;
}

}  // namespace fovea
