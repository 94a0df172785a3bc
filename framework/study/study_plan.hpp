#pragma once

// The runs of a study (docs/studies.md): the factors crossed in order, the last varying
// fastest, less the excluded combinations. Run i is the i-th combination left, so a run's
// index, folder name and table row are the same on every machine and in every shard.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "study/study_settings.hpp"

namespace fovea {

/// One run of a study as plan_runs() lays it out.
struct PlannedRun {
  std::int64_t index = 0;          ///< from 0, among the runs left after exclusions: its folder and table row
  std::vector<std::string> cells;   ///< the factors' table cells, in column order
  /// Everything the run sets on top of the base config: the study's `set`, then each
  /// factor's level in factor order (a later key wins, as with repeated --set).
  std::vector<config::Override> overrides;
};

/// The most runs a study's crossing may have (before exclusions): over twice the largest study
/// in configs/studies/ (schedulers.yaml, 4,560 runs). A cap, not lazy planning (issue 42): a
/// sweep checks every run's config before any runs, and decides which run alone (timed runs)
/// from them, under a millisecond a run: 10,000 runs are checked in about 8 s, saying how far
/// it has got, where 1,000,000 printed nothing for two minutes while memory grew past 700 MB. A
/// larger study is split into studies (or its factors into fewer levels).
inline constexpr std::uint64_t kMaxStudyRuns = 10'000;
/// The most shards a study may be split into (`--shard i/n`, Slurm's array): one run each.
inline constexpr int kMaxShards = static_cast<int>(kMaxStudyRuns);

/// Every run of the study, in order. Throws config::ConfigError when nothing is left, or
/// when the crossing has more than kMaxStudyRuns runs.
std::vector<PlannedRun> plan_runs(const StudySettings& study);

/// A share of the runs: those whose index is `index` modulo `count` (docs/studies.md).
struct Shard {
  int index = 0;  ///< from 0
  int count = 1;  ///< shards in all, >= 1
  /// Whether run index `run` (PlannedRun::index) falls in this shard.
  bool contains(std::int64_t run) const { return run % count == index; }
  /// Whether this shard is every run (1 of 1).
  bool whole() const { return count == 1; }
};

/// "i/n" with 0 <= i < n; nullopt for anything else.
std::optional<Shard> parse_shard(const std::string& text);

/// The shard a Slurm job array gives (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, and
/// SLURM_ARRAY_TASK_MIN when the array does not start at 0), from the values of those
/// variables (null when unset). nullopt when the first two are not both set; throws
/// std::invalid_argument with a message for values that make no shard.
std::optional<Shard> slurm_shard(const char* task_id, const char* task_count, const char* task_min);

/// A fingerprint of what the runs are: the base config's text, and every run's index, cells
/// and keys. Two sweeps with the same fingerprint made the same runs, so a folder of one
/// resumes as the other, and their shards can be merged.
std::string plan_fingerprint(const std::string& base_config_text, const std::vector<PlannedRun>& runs);

/// A fingerprint of how the runs are summarised: the table's columns, skip_frames, and what
/// each metric reads. Shards merge only when this agrees too; a resumed sweep may change it
/// (its rows are summarised again from the run folders).
std::string table_fingerprint(const StudySettings& study);

/// The folder name of run `index` among `total`: zero-padded to the width of the largest
/// index, so folders sort in run order ("0042" of 4000).
std::string run_folder_name(std::int64_t index, std::int64_t total);

}  // namespace fovea
