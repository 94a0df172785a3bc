#include "fovea/sweep_folder.hpp"

#include <iostream>

#include "core/build_info.hpp"
#include "fovea/exit_status.hpp"
#include "fovea/sweep_json.hpp"
#include "record/json_file.hpp"
#include "record/results_folder.hpp"
#include "record/run_folder.hpp"
#include "core/file_read.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

/// Whether `out` may take this sweep: kExitOk with `resuming` and the commit that began it
/// when it holds this sweep's sweep.json, kExitOk when it is missing or empty, else
/// kExitBadInput, said on stderr.
int check_out_folder(const SweepPlan& plan, const SweepOptions& options, const fs::path& out, bool& resuming,
                     std::string& commit_before) {
  std::error_code error;
  if (!fs::exists(out, error)) return kExitOk;
  if (!fs::is_directory(out, error)) {
    std::cerr << "fovea sweep: " << out.string() << ": names a file, not a folder\n";
    return kExitBadInput;
  }
  const JsonFile before = read_json_file(out / "sweep.json", "sweep.json");
  if (before.state == JsonFile::State::unreadable) {
    std::cerr << "fovea sweep: " << before.problem << "\n";
    return kExitBadInput;
  }
  if (before.state == JsonFile::State::read && before.json.is_object()) {
    const Json& b = before.json;
    const Json before_shard = member(b, "shard");
    if (member(b, "fingerprint") != Json(plan.fingerprint) || b.contains("merged_from") ||
        member(before_shard, "index") != Json(plan.shard.index) ||
        member(before_shard, "count") != Json(plan.shard.count)) {
      std::cerr << "fovea sweep: " << out.string()
                << " holds another sweep (another study, another version of this one, or another shard); "
                   "give a new "
                << options.out_name << ", or remove it to start again\n";
      return kExitBadInput;
    }
    resuming = true;
    if (const Json commit = member(b, "git_commit"); commit.is_string())
      commit_before = commit.get<std::string>();
  } else if (!fs::is_empty(out, error)) {
    // A sweep.json that reads but is not JSON (or is nested past the reader's depth) is named.
    std::cerr << "fovea sweep: " << out.string() << ": not empty and not a sweep's folder"
              << (before.state == JsonFile::State::malformed ? " (" + before.problem + ")" : std::string())
              << "; choose a new " << options.out_name << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

int take_sweep_folder(const SweepPlan& plan, const SweepOptions& options, SweepFolder& folder) {
  folder.out = plan.out;
  folder.runs = plan.out / "runs";
  folder.table = plan.out / "table.csv";
  folder.sweep_json = plan.out / "sweep.json";
  std::string commit_before;
  if (const int status = check_out_folder(plan, options, plan.out, folder.resuming, commit_before); status != kExitOk)
    return status;
  try {
    create_folders(folder.out);
    create_folders(folder.runs);
  } catch (const std::runtime_error& e) {
    std::cerr << "fovea sweep: " << e.what() << "\n";
    return kExitFailure;
  }
  // One sweep at a time in a folder: a second one (the command typed twice, a job resubmitted
  // while the first still runs) would take the first one's runs under way for killed ones.
  folder.lock = std::make_unique<FolderLock>(folder.out / ".lock");
  if (!folder.lock->held() && !folder.lock->problem().empty()) {
    std::cerr << "fovea sweep: " << folder.lock->problem() << "\n";
    return kExitFailure;
  }
  if (!folder.lock->held()) {
    std::cerr << "fovea sweep: " << folder.out.string() << " is in use by another fovea sweep; wait for it to end\n";
    return kExitBadInput;
  }
  // The table is written when the runs have ended: a place it cannot go is said before them.
  if (const std::string problem = file_write_problem(folder.table); !problem.empty()) {
    std::cerr << "fovea sweep: " << folder.table.string() << ": cannot write: " << problem << "\n";
    return kExitFailure;
  }
  if (folder.resuming && !commit_before.empty() && commit_before != build_info().git_commit && !options.quiet)
    std::cerr << "fovea sweep: warning: " << folder.out.string() << " was run by fovea " << commit_before
              << " and is resumed by " << build_info().git_commit
              << "; its runs' manifests say which made each (git_commit)\n";
  return kExitOk;
}

RunFolder examine_run_folder(const fs::path& folder, const SweepPlan& plan, const RunJob& job) {
  const auto verdict_of = [](const RunFolderCheck& check) {
    switch (check.verdict) {
      case RunFolderCheck::Verdict::whole: return RunFolder::Verdict::whole;
      case RunFolderCheck::Verdict::incomplete: return RunFolder::Verdict::run_again;
      case RunFolderCheck::Verdict::unreadable: break;
    }
    // Not known to be damaged: kept, as a run of another config is.
    return RunFolder::Verdict::keep;
  };
  const RunFolderCheck manifest = check_run_manifest(folder);
  if (manifest.verdict != RunFolderCheck::Verdict::whole) return {verdict_of(manifest), manifest.problem, {}};
  std::string config;
  try {
    config = read_file_text((folder / "config.yaml").string());
  } catch (const std::runtime_error&) {
    return {RunFolder::Verdict::keep, "a complete run, but its config.yaml cannot be read", {}};
  }
  std::string expected;
  try {
    expected = expected_run_config(plan, job);
  } catch (const std::exception&) {
    // Checked when the sweep was planned; a file it reads has changed since. Not this run's.
  }
  if (config != expected)
    return {RunFolder::Verdict::keep, "a complete run, but its config.yaml is not this run's", {}};
  // A frames.csv short of the frames its manifest counts is run again, as a killed run is:
  // its config gives the same frames.
  RunFolderCheck frames = check_run_frames(folder, manifest.manifest);
  return {verdict_of(frames), std::move(frames.problem), std::move(frames.frames)};
}

SweepQueue queue_runs(const SweepPlan& plan, const SweepFolder& folder, const SweepOptions& options,
                      SweepTally& tally) {
  SweepQueue queue;
  std::error_code error;
  std::vector<bool> to_run(plan.shard_runs.size(), false);
  for (std::size_t place = 0; place < plan.shard_runs.size(); ++place) {
    const RunJob& job = plan.shard_runs[place];
    const fs::path run_folder =
        folder.runs / run_folder_name(job.run.index, static_cast<std::int64_t>(plan.runs.size()));
    if (fs::exists(run_folder, error)) {
      const RunFolder found = examine_run_folder(run_folder, plan, job);
      if (found.verdict == RunFolder::Verdict::whole) {
        if (!tally.summarise(plan.study, job, run_folder, found.frames)) break;
        continue;
      }
      if (found.verdict == RunFolder::Verdict::keep) {
        // A complete run of another config (the checkout moved and file paths with it, a
        // model file changed), or one whose manifest.json or frames.csv the OS cannot read:
        // never deleted, the user decides.
        tally.fatal = run_folder.string() + ": " + found.problem +
                      "; move the folder away to run it again, or give a new " + options.out_name;
        break;
      }
      if (!options.quiet)
        std::cerr << "fovea sweep: " << describe_run(plan.study, job.run) << ": " << found.problem
                  << "; running it again\n";
      fs::remove_all(run_folder, error);
    }
    to_run[place] = true;
  }
  for (std::size_t place = 0; place < plan.shard_runs.size(); ++place)
    if (to_run[place] && !plan.shard_runs[place].timed) queue.pending.push_back(&plan.shard_runs[place]);
  for (const std::size_t place : plan.timed_order)
    if (to_run[place]) queue.pending_timed.push_back(&plan.shard_runs[place]);
  return queue;
}

}  // namespace fovea
