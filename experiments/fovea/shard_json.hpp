#pragma once

// A shard's sweep.json as `fovea sweep merge` reads it back (docs/studies.md): every field the
// merge uses checked for presence, type and range. Inline, so that the fuzz target
// fuzz/targets/sweep_json.cpp feeds its bytes to this very code without linking the commands'
// library (and the renderer with it).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/folder_name.hpp"
#include "core/format.hpp"
#include "record/json_file.hpp"
#include "study/study_plan.hpp"

namespace fovea {

/// A shard's sweep.json as `fovea sweep merge` reads it, its fields checked.
struct ShardJson {
  nlohmann::ordered_json json;  ///< the file as read
  Shard shard;  ///< which share of the runs it holds
  std::int64_t runs_total = 0;  ///< the study's runs, every shard's
  std::vector<std::string> columns;  ///< table.csv's header
  std::string study;  ///< the study's name: the default folder of the merged table
};

/// `json`, a sweep.json as read back, with every field merge uses checked for presence and
/// type, so an edited or damaged file is one line naming it and the field, never undefined
/// behaviour (a missing key of a const object), a division by zero (a shard count of 0) or a
/// loop without end (a runs_total of 10^18). Throws std::runtime_error "<path>: <field>: why".
inline ShardJson check_shard_json(const nlohmann::ordered_json& json, const std::filesystem::path& path) {
  using Json = nlohmann::ordered_json;
  const auto refuse = [&](const std::string& field, const std::string& why) {
    return std::runtime_error(path.string() + ": " + field + ": " + why);
  };
  const auto found = [](const Json& value) {
    if (value.is_object()) return std::string("an object");
    if (value.is_array()) return std::string("a list");
    return excerpt(value.dump());
  };
  const auto field = [&](const Json& object, const std::string& name, const char* key) -> const Json& {
    if (!object.contains(key)) throw refuse(name, "missing");
    return object.at(key);
  };
  // A whole number in [low, high]: non-negative integers are parsed as unsigned.
  const auto whole_number = [&](const Json& object, const std::string& name, const char* key, std::uint64_t low,
                                std::uint64_t high) {
    const Json& value = field(object, name, key);
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() < low || value.get<std::uint64_t>() > high)
      throw refuse(name, "expected a whole number from " + std::to_string(low) + " to " + std::to_string(high) + ", found " +
                             found(value));
    return value.get<std::uint64_t>();
  };
  ShardJson s;
  s.json = json;
  const Json& study = field(json, "study", "study");
  // The merged table's folder is named by it: the one rule for a folder's name (core/folder_name.hpp).
  if (!study.is_string()) throw refuse("study", "expected a name (letters, digits, - _ .), found " + found(study));
  if (const std::string problem = folder_name_problem(study.get<std::string>()); !problem.empty())
    throw refuse("study", problem);
  s.study = study.get<std::string>();
  if (!field(json, "fingerprint", "fingerprint").is_string())
    throw refuse("fingerprint", "expected a text, found " + found(json.at("fingerprint")));
  if (json.contains("table_fingerprint") && !json.at("table_fingerprint").is_string())
    throw refuse("table_fingerprint", "expected a text, found " + found(json.at("table_fingerprint")));
  s.runs_total = static_cast<std::int64_t>(whole_number(json, "runs_total", "runs_total", 1, kMaxStudyRuns));
  const Json& shard = field(json, "shard", "shard");
  if (!shard.is_object()) throw refuse("shard", "expected an object with index and count, found " + found(shard));
  // At most as many shards as parse_shard accepts.
  s.shard.count = static_cast<int>(whole_number(shard, "shard.count", "count", 1, static_cast<std::uint64_t>(kMaxShards)));
  s.shard.index = static_cast<int>(whole_number(shard, "shard.index", "index", 0, static_cast<std::uint64_t>(s.shard.count - 1)));
  const Json& columns = field(json, "columns", "columns");
  if (!columns.is_array() || columns.empty() ||
      !std::all_of(columns.begin(), columns.end(), [](const Json& c) { return c.is_string(); }))
    throw refuse("columns", "expected a list of column names, found " + found(columns));
  s.columns = columns.get<std::vector<std::string>>();
  if (json.contains("figures") && !json.at("figures").is_array())
    throw refuse("figures", "expected a list, found " + found(json.at("figures")));
  return s;
}

/// What `fovea sweep merge` makes of `folder`'s sweep.json as read_json_file read it (at
/// `path`): the shard, or the one line that refuses it (the reader's problem for a file the OS
/// does not give; "<folder>: no readable sweep.json; ..." for one missing, damaged, nested too
/// deep or not a sweep's; a merged table's; "<path>: <field>: why").
inline std::variant<ShardJson, std::string> judge_shard_json(JsonFile file, const std::string& folder,
                                                              const std::filesystem::path& path) {
  if (file.state == JsonFile::State::unreadable) return file.problem;
  const nlohmann::ordered_json& j = file.json;
  if (file.state != JsonFile::State::read || !j.is_object() || !j.contains("fingerprint") || !j.contains("columns"))
    return folder + ": no readable sweep.json; expected a fovea sweep's output folder" +
           (file.state == JsonFile::State::malformed ? " (" + file.problem + ")" : std::string());
  if (j.contains("merged_from")) return folder + ": already a merged table; merge the shards' folders";
  try {
    return check_shard_json(j, path);
  } catch (const std::runtime_error& e) {
    return std::string(e.what());
  }
}

}  // namespace fovea
