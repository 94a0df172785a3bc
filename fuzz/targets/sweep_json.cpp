// Fuzz target: a shard's sweep.json as `fovea sweep merge` reads it (docs/studies.md): the
// bounded JSON reader (parse_json_text, record/json_file.hpp), then judge_shard_json
// (experiments/fovea/shard_json.hpp, the merge's own code: every field it uses checked for
// presence, type and range). Refusal is one line, never an exception.
//
// Beyond "no crash": the JSON checks of fuzz/json_check.hpp; a refusal is one bounded line; an
// accepted shard has a shard count from 1 to kMaxShards and an index below it, runs_total from
// 1 to kMaxStudyRuns, a non-empty list of column names and a study name that is a name and
// not a folder above (".", ".."); and asking which runs are its own, as the merge does for
// every row, divides by no zero.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "fovea/shard_json.hpp"
#include "fuzz_check.hpp"
#include "json_check.hpp"

namespace {

using fovea::fuzz::check;

void check_shard(const fovea::ShardJson& s) {
  check(s.shard.count >= 1 && s.shard.count <= fovea::kMaxShards, "a shard count out of range");
  check(s.shard.index >= 0 && s.shard.index < s.shard.count, "a shard index out of range");
  check(s.runs_total >= 1 && static_cast<std::uint64_t>(s.runs_total) <= fovea::kMaxStudyRuns, "runs_total out of range");
  check(!s.columns.empty(), "no columns");
  check(fovea::config::is_valid_name(s.study) && s.study != "." && s.study != "..", "a study name that is no name: " + s.study);
  check(s.json.is_object() && s.json.contains("fingerprint") && s.json.contains("columns"), "a shard without its fields");
  // The merge asks of every row of its table whether the run is this shard's.
  std::int64_t own = 0;
  for (std::int64_t run = 0; run < std::min<std::int64_t>(s.runs_total, 64); ++run) own += s.shard.contains(run) ? 1 : 0;
  check(own >= 0, "a negative count");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string folder = "shard";
  const std::string path = folder + "/sweep.json";
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fovea::JsonFile file = fovea::fuzz::read_json_checked(text, path);
  std::variant<fovea::ShardJson, std::string> shard = fovea::judge_shard_json(std::move(file), folder, path);
  if (const std::string* problem = std::get_if<std::string>(&shard)) {
    check(!problem->empty(), "a refusal that says nothing");
    check(problem->size() <= path.size() + 500, "a refusal of " + std::to_string(problem->size()) + " bytes");
    check(problem->find('\n') == std::string::npos, "a refusal of more than one line");
    return 0;
  }
  check_shard(std::get<fovea::ShardJson>(shard));
  return 0;
}
