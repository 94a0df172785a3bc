#include "fovea/sweep_merge.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>
#include <variant>

#include "fovea/plotting.hpp"
#include "fovea/shard_json.hpp"
#include "fovea/sweep_progress.hpp"
#include "record/json_file.hpp"
#include "record/results_folder.hpp"
#include "study/study_table.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

/// sweep.json's closing fields and status; false when it cannot be written (said).
bool close_sweep_json(SweepJson& sweep_json, const SweepTally& tally, const SweepEnd& end, bool table_written,
                      double wall_s) {
  Json& description = sweep_json.fields();
  description["end_time_utc"] = utc_iso8601(std::chrono::system_clock::now());
  description["wall_time_s"] = wall_s;
  description["runs_completed"] = tally.rows.size();
  description["runs_completed_before"] = end.done_before;
  description["runs_failed"] = tally.failed;
  std::string status_text = "completed";
  if (end.stop_signal != 0) status_text = "interrupted";
  if (!tally.fatal.empty() || !tally.failed.empty() || !table_written) status_text = "failed";
  description["status"] = status_text;
  return sweep_json.write();
}

/// Every folder's sweep.json, checked; false, said on stderr, when one is missing, damaged,
/// or a merged table's.
bool read_shards(const SweepMergeOptions& options, std::vector<ShardJson>& shards) {
  for (const std::string& folder : options.folders) {
    const fs::path path = fs::path(folder) / "sweep.json";
    std::variant<ShardJson, std::string> shard = judge_shard_json(read_json_file(path, "sweep.json"), folder, path);
    if (const std::string* problem = std::get_if<std::string>(&shard)) {
      std::cerr << "fovea sweep merge: " << *problem << "\n";
      return false;
    }
    shards.push_back(std::move(std::get<ShardJson>(shard)));
  }
  return true;
}

/// Whether every folder is a shard of one sweep: the same fingerprint and shard count, each
/// shard once. False, said on stderr, when not.
bool shards_agree(const SweepMergeOptions& options, const std::vector<ShardJson>& shards) {
  const ShardJson& first = shards.front();
  std::set<int> shard_indices;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const ShardJson& j = shards[s];
    if (j.json.at("fingerprint") != first.json.at("fingerprint") || j.columns != first.columns ||
        member(j.json, "table_fingerprint") != member(first.json, "table_fingerprint") || j.runs_total != first.runs_total) {
      std::cerr << "fovea sweep merge: " << options.folders[s] << ": another study (or another version of it) than "
                << options.folders[0] << "\n";
      return false;
    }
    if (j.shard.count != first.shard.count) {
      std::cerr << "fovea sweep merge: " << options.folders[s] << ": split into " << j.shard.count << " shards, "
                << options.folders[0] << " into " << first.shard.count << "\n";
      return false;
    }
    if (!shard_indices.insert(j.shard.index).second) {
      std::cerr << "fovea sweep merge: " << options.folders[s] << ": shard " << j.shard.index << " is given twice\n";
      return false;
    }
  }
  return true;
}

/// The rows of every shard's table.csv, each checked to be one of its shard's runs; false,
/// said on stderr, when a table cannot be read or holds a run not its own.
bool read_shard_rows(const SweepMergeOptions& options, const std::vector<ShardJson>& shards, StudyRows& rows) {
  const std::vector<std::string>& columns = shards.front().columns;
  const std::int64_t total = shards.front().runs_total;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    try {
      const std::string table = (fs::path(options.folders[s]) / "table.csv").string();
      // Refuses a table cut short (its last row without a line end), never merging it unsaid.
      StudyRows shard_rows = read_study_table(table, columns);
      const Shard shard = shards[s].shard;
      for (auto& [run, row] : shard_rows) {
        if (run < 0 || run >= total) {
          std::cerr << "fovea sweep merge: " << table << ": run " << run << " is not one of the study's " << total
                    << " runs\n";
          return false;
        }
        if (!shard.contains(run)) {
          std::cerr << "fovea sweep merge: " << table << ": run " << run << " is not shard " << shard.index << "/"
                    << shard.count << "'s\n";
          return false;
        }
        rows.emplace(run, std::move(row));
      }
    } catch (const std::exception& e) {
      std::cerr << "fovea sweep merge: " << e.what() << "\n";
      return false;
    }
  }
  return true;
}

/// Whether `out` may take the merged table: new, or a merged table's folder, never a sweep's
/// own. False, said on stderr, when not.
bool merge_folder_free(const fs::path& out) {
  const JsonFile there = read_json_file(out / "sweep.json", "sweep.json");
  if (there.state == JsonFile::State::unreadable) {
    std::cerr << "fovea sweep merge: " << there.problem << "\n";
    return false;
  }
  if (there.state == JsonFile::State::read && !(there.json.is_object() && there.json.contains("merged_from"))) {
    std::cerr << "fovea sweep merge: " << out.string() << " holds a sweep's own runs; give another --out\n";
    return false;
  }
  return true;
}

/// The merged sweep.json: the study's fields from the first shard, each shard's folder and
/// state, the runs present and missing, the build, the command line and the time.
Json merged_sweep_json(const SweepMergeOptions& options, const std::vector<ShardJson>& shards, const StudyRows& rows,
                       const std::vector<std::int64_t>& missing) {
  const ShardJson& first = shards.front();
  Json merged;
  for (const char* key : {"study", "study_file", "base_config", "fingerprint", "table_fingerprint", "runs_total", "columns",
                          "factor_columns", "figures"})
    merged[key] = member(first.json, key);
  merged["merged_from"] = Json::array();
  for (std::size_t s = 0; s < shards.size(); ++s)
    merged["merged_from"].push_back(Json{{"folder", fs::absolute(options.folders[s]).lexically_normal().string()},
                                         {"shard", shards[s].json.at("shard")},
                                         {"status", shards[s].json.value("status", Json("unknown"))},
                                         {"timed_runs", member(shards[s].json, "timed_runs")},
                                         {"wall_time_s", member(shards[s].json, "wall_time_s")},
                                         {"machine", member(shards[s].json, "machine")}});
  merged["runs_present"] = rows.size();
  merged["runs_missing"] = missing;
  merged.update(build_description());
  merged["command_line"] = options.command_line;
  merged["time_utc"] = utc_iso8601(std::chrono::system_clock::now());
  return merged;
}

}  // namespace

int merge_sweep_runs(const SweepPlan& plan, const SweepFolder& folder, const SweepOptions& options,
                     const SweepTally& tally, SweepJson& sweep_json, const SweepEnd& end) {
  // The table of every run finished so far, then the figures.
  int exit_status = kExitOk;
  bool table_written = true;
  try {
    write_study_table(folder.table.string(), plan.study.table_columns(), tally.rows);
  } catch (const std::exception& e) {
    std::cerr << "fovea sweep: " << e.what() << "\n";
    table_written = false;
    exit_status = kExitFailure;
  }
  const double wall_s = end.progress->elapsed_s();
  if (!close_sweep_json(sweep_json, tally, end, table_written, wall_s)) exit_status = kExitFailure;
  if (!tally.fatal.empty()) {
    std::cerr << "fovea sweep: " << tally.fatal << "\n";
    return tally.fatal_status;
  }
  if (!options.quiet)
    std::cerr << "fovea sweep: " << tally.rows.size() << " of " << plan.shard_runs.size() << " runs complete ("
              << tally.rows.size() - static_cast<std::size_t>(end.done_before) << " run now, in " << clock_text(wall_s)
              << ")" << (tally.failed.empty() ? "" : ", " + std::to_string(tally.failed.size()) + " failed")
              << (table_written ? "; table: " + folder.table.string() : "; the table could not be written") << "\n";
  if (end.stop_signal != 0) {
    if (options.end_by_signal) {
      std::signal(end.stop_signal, SIG_DFL);
      std::raise(end.stop_signal);
    }
    return 128 + end.stop_signal;
  }
  if (options.figures && !plan.study.figures.empty() && !tally.rows.empty() &&
      draw_plots({"study", folder.out.string()}, "fovea sweep") == PlotOutcome::failed)
    exit_status = kExitFailure;
  if (!tally.failed.empty()) exit_status = kExitFailure;
  return exit_status;
}

int sweep_merge_command(const SweepMergeOptions& options) {
  // Each folder is one shard of the study, and a study has at most kMaxShards.
  if (options.folders.size() > static_cast<std::size_t>(kMaxShards)) {
    std::cerr << "fovea sweep merge: " << options.folders.size() << " folders, more than the " << kMaxShards
              << " shards a study may have\n";
    return kExitBadInput;
  }
  std::vector<ShardJson> shards;
  if (!read_shards(options, shards) || !shards_agree(options, shards)) return kExitBadInput;
  StudyRows rows;
  if (!read_shard_rows(options, shards, rows)) return kExitBadInput;
  const ShardJson& first = shards.front();
  std::vector<std::int64_t> missing;
  for (std::int64_t run = 0; run < first.runs_total; ++run)
    if (!rows.contains(run)) missing.push_back(run);

  const fs::path out = options.out ? fs::path(*options.out) : fs::path("results") / "studies" / first.study;
  if (!merge_folder_free(out)) return kExitBadInput;
  const Json merged = merged_sweep_json(options, shards, rows, missing);
  try {
    create_folders(out);
    write_study_table((out / "table.csv").string(), first.columns, rows);
    write_json_atomically(out / "sweep.json", merged);
  } catch (const std::exception& e) {
    std::cerr << "fovea sweep merge: " << e.what() << "\n";
    return kExitFailure;
  }
  if (!options.quiet) {
    std::cerr << "fovea sweep merge: " << rows.size() << " of " << first.runs_total << " runs from " << shards.size()
              << " shards; table: " << (out / "table.csv").string() << "\n";
    if (!missing.empty())
      std::cerr << "fovea sweep merge: " << missing.size() << " runs missing, the first " << missing.front()
                << " (a shard not given, unfinished or failed; resume it, then merge again)\n";
  }
  if (options.figures && !member(first.json, "figures").empty() && !rows.empty() &&
      draw_plots({"study", out.string()}, "fovea sweep merge") == PlotOutcome::failed)
    return kExitFailure;
  return missing.empty() ? kExitOk : kExitFailure;
}

void register_sweep_merge_command(CLI::App& sweep, CommandContext& context) {
  const auto o = std::make_shared<SweepMergeOptions>();
  const auto out = std::make_shared<std::string>();
  const auto no_figures = std::make_shared<bool>(false);
  o->command_line = context.command_line;
  CLI::App* merge = sweep.add_subcommand(
      "merge", "Join the tables of a study's shards (their --out folders) into one, as an unsharded sweep writes it");
  merge->add_option("folders", o->folders, "the shards' folders")->required();
  merge->add_option("--out", *out, "where to write table.csv, sweep.json and figures/ (default results/studies/<name>/)");
  merge->add_flag("--no-figures", *no_figures, "write the table only");
  merge->add_flag("--quiet,-q", o->quiet, "no closing summary on stderr");
  merge->callback([=, &context] {
    if (!out->empty()) o->out = *out;
    o->figures = !*no_figures;
    context.exit_status = sweep_merge_command(*o);
  });
}

}  // namespace fovea
