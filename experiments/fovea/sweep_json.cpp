#include "fovea/sweep_json.hpp"

#include <iostream>
#include <utility>

#include "core/build_info.hpp"
#include "record/json_file.hpp"
#include "record/manifest.hpp"

namespace fovea {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

SweepJson::SweepJson(fs::path path, Json fields) : path_(std::move(path)), fields_(std::move(fields)) {}

bool SweepJson::write() {
  try {
    write_json_atomically(path_, fields_);
    status_on_disk_ = fields_["status"].get<std::string>();
    return true;
  } catch (const std::exception& e) {
    std::cerr << "fovea sweep: " << e.what()
              << (status_on_disk_.empty() ? "" : " (it still says \"" + status_on_disk_ + "\")") << "\n";
    return false;
  }
}

Json starting_sweep_fields(const SweepPlan& plan, const SweepOptions& options, WallTime start) {
  const StudySettings& study = plan.study;
  Json description;
  description["study"] = study.name;
  description["study_file"] = fs::absolute(options.study_path).lexically_normal().string();
  description["base_config"] = study.base_config;
  description["fingerprint"] = plan.fingerprint;
  description["table_fingerprint"] = table_fingerprint(study);
  description["runs_total"] = plan.runs.size();
  description["quick"] = options.quick;
  description["shard"] = Json{{"index", plan.shard.index}, {"count", plan.shard.count}};
  description["runs_in_shard"] = plan.shard_runs.size();
  Json timed = Json::array();
  for (const std::size_t place : plan.timed_order) timed.push_back(plan.shard_runs[place].run.index);
  description["timed_runs"] = std::move(timed);
  description["columns"] = study.table_columns();
  description["factor_columns"] = study.factor_columns();
  description["figures"] = study.figures;
  description.update(build_description());
  description["command_line"] = options.command_line;
  description["working_directory"] = fs::current_path().string();
  description["machine"] = to_json(describe_machine());
  description["jobs"] = plan.jobs;
  description["start_time_utc"] = utc_iso8601(start);
  description["status"] = "running";
  return description;
}

Json build_description() {
  Json j;
  j["fovea_version"] = build_info().version;
  j["git_commit"] = build_info().git_commit;
  j["git_dirty"] = build_info().git_dirty;
  return j;
}

Json member(const Json& j, const char* key) { return j.is_object() && j.contains(key) ? j.at(key) : Json(); }

}  // namespace fovea
