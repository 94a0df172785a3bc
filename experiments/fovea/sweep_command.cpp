#include "fovea/sweep_command.hpp"

#include <sys/file.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <string_view>
#include <thread>

#include <nlohmann/json.hpp>

#include "config/schema.hpp"
#include "core/build_info.hpp"
#include "core/file_read.hpp"
#include "core/format.hpp"
#include "fovea/child_process.hpp"
#include "fovea/plotting.hpp"
#include "fovea/run_command.hpp"
#include "fovea/stop_signals.hpp"
#include "record/csv_reader.hpp"
#include "record/json_file.hpp"
#include "record/manifest.hpp"
#include "record/progress.hpp"
#include "record/results_folder.hpp"
#include "record/run_folder.hpp"
#include "study/study_plan.hpp"
#include "study/study_table.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

/// One sweep at a time in a folder: an flock on its .lock file, held until the sweep returns
/// or its process ends, however it ends. Let go on return too, so a caller that goes on (the
/// Python module's fovea.sweep, after a stop) can resume the same folder, as can any process.
class FolderLock {
 public:
  explicit FolderLock(const fs::path& lock_file) : fd_(open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) {
      problem_ = lock_file.string() + ": cannot open the sweep's lock file: " + std::strerror(errno);
    } else if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      problem_ = errno == EWOULDBLOCK ? "" : lock_file.string() + ": cannot lock it: " + std::strerror(errno);
    } else {
      held_ = true;
    }
  }
  ~FolderLock() {
    if (fd_ >= 0) close(fd_);
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  bool held() const { return held_; }
  /// Why the lock is not held when it is not another sweep's: "" when it is.
  const std::string& problem() const { return problem_; }

 private:
  int fd_;
  bool held_ = false;
  std::string problem_;
};

/// SIGCHLD at its default while the sweep runs, then as it was: a SIGCHLD inherited as
/// ignored would reap the runs by itself, and the sweep would never see them end. Put back
/// on return, for a caller that goes on (the Python module).
class DefaultChildSignal {
 public:
  DefaultChildSignal() {
    struct sigaction by_default {};
    by_default.sa_handler = SIG_DFL;
    sigemptyset(&by_default.sa_mask);
    sigaction(SIGCHLD, &by_default, &previous_);
  }
  ~DefaultChildSignal() { sigaction(SIGCHLD, &previous_, nullptr); }
  DefaultChildSignal(const DefaultChildSignal&) = delete;
  DefaultChildSignal& operator=(const DefaultChildSignal&) = delete;

 private:
  struct sigaction previous_ {};
};

/// What a sweep knows of one run of its shard before running it.
struct RunJob {
  const PlannedRun* run = nullptr;
  std::string expected_config;  ///< config.yaml as the run writes it: a complete folder must hold this
  bool wall_budget = false;     ///< measures time: runs with no other run beside it
  std::int64_t warmup_frames = 0;  ///< the run's metrics.warmup_frames: left out of its row's statistics
};

/// "entities=100, placement=packed, ...": a run as messages name it.
std::string describe(const StudySettings& study, const PlannedRun& run) {
  const std::vector<std::string> columns = study.factor_columns();
  std::string text = "run " + std::to_string(run.index) + " (";
  for (std::size_t c = 0; c < columns.size(); ++c) text += (c == 0 ? "" : ", ") + columns[c] + "=" + run.cells[c];
  return text + ")";
}

/// `j[key]` when `j` is an object that has it, else null: a file read back may hold anything.
Json member(const Json& j, const char* key) { return j.is_object() && j.contains(key) ? j.at(key) : Json(); }

/// What a run's folder holds, and so what the sweep does with it.
struct RunFolder {
  enum class Verdict {
    whole,      ///< exactly this run, complete: summarised from `frames`, not run again
    run_again,  ///< incomplete or damaged (killed, failed, frames.csv cut short): removed and run again
    keep,       ///< a complete run of another config, or one that cannot be read: never deleted; the sweep stops
  };
  Verdict verdict = Verdict::run_again;
  std::string problem;  ///< why, unless whole
  CsvTable frames;      ///< when whole: its frames.csv
};
/// The run-folder check of record/run_folder.hpp, with the sweep's own step between its two
/// parts: a complete run must be of this run's config.
RunFolder examine_run_folder(const fs::path& folder, const RunJob& job) {
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
  if (config != job.expected_config) return {RunFolder::Verdict::keep, "a complete run, but its config.yaml is not this run's", {}};
  // A frames.csv short of the frames its manifest counts is run again, as a killed run is:
  // its config gives the same frames.
  RunFolderCheck frames = check_run_frames(folder, manifest.manifest);
  return {verdict_of(frames), std::move(frames.problem), std::move(frames.frames)};
}

/// What a run says on stderr, read from its pipe as it comes. It goes to runs/NNNN.log,
/// created at the first byte (a run that says nothing leaves no log), and its first line is
/// kept here too, so the sweep can say why a run failed even when the log cannot be written
/// (a full disk). The first line, not the last: a run prints its errors in the order they
/// happen, and on a full disk the first is the cause (frames.csv), the next its consequence
/// (manifest.json).
class RunMessages {
 public:
  RunMessages(int pipe, fs::path log) : pipe_(pipe), log_path_(std::move(log)) {}
  ~RunMessages() {
    if (pipe_ >= 0) close(pipe_);
    if (log_ >= 0) close(log_);
  }
  RunMessages(const RunMessages&) = delete;
  RunMessages& operator=(const RunMessages&) = delete;

  /// Reads what the run has written since the last call; never waits.
  void read_available() {
    char buffer[65536];
    while (pipe_ >= 0) {
      const ssize_t n = read(pipe_, buffer, sizeof buffer);
      if (n > 0) {
        keep_first_line(std::string_view(buffer, static_cast<std::size_t>(n)));
        write_log(buffer, static_cast<std::size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        // The end (n == 0), or nothing more for now (EAGAIN).
        if (n == 0 || errno != EAGAIN) {
          close(pipe_);
          pipe_ = -1;
        }
        return;
      }
    }
  }

  /// Once the run has ended: reads the rest and closes the log. A log that could not take a
  /// single byte is removed, so no message names it as holding anything.
  void finish() {
    read_available();
    if (log_ >= 0) {
      if (close(log_) != 0 && log_problem_.empty()) log_problem_ = std::strerror(errno);
      log_ = -1;
      std::error_code error;
      if (log_bytes_ == 0) fs::remove(log_path_, error);
    }
  }

  /// Its first line ("" when it said nothing), at most kMaxLineBytes long.
  const std::string& first_line() const { return first_line_; }

  /// The sweep's note on where the messages are, for the line that says the run failed:
  /// "(all its messages: runs/0003.log)", or why the log does not hold them all.
  std::string where() const {
    if (!log_problem_.empty()) {
      if (log_bytes_ == 0) return "(its messages could not be written to " + log_path_.string() + ": " + log_problem_ + ")";
      return "(" + log_path_.string() + " holds only part of its messages, the rest could not be written: " + log_problem_ +
             ")";
    }
    if (log_bytes_ == 0) return "";
    return "(all its messages: " + log_path_.string() + ")";
  }

 private:
  static constexpr std::size_t kMaxLineBytes = 4096;

  void keep_first_line(std::string_view text) {
    if (first_line_done_) return;
    const std::size_t end = text.find('\n');
    first_line_.append(text.substr(0, std::min(end, kMaxLineBytes - first_line_.size())));
    first_line_done_ = end != std::string_view::npos || first_line_.size() >= kMaxLineBytes;
  }

  void write_log(const char* bytes, std::size_t size) {
    if (!log_problem_.empty()) return;  // the messages after a failed write are lost to the log, never half-appended
    if (log_ < 0) {
      log_ = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (log_ < 0) {
        log_problem_ = std::strerror(errno);
        return;
      }
    }
    while (size > 0) {
      const ssize_t n = write(log_, bytes, size);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        log_problem_ = std::strerror(errno);
        return;
      }
      log_bytes_ += static_cast<std::uintmax_t>(n);
      bytes += n;
      size -= static_cast<std::size_t>(n);
    }
  }

  int pipe_ = -1;
  int log_ = -1;
  fs::path log_path_;
  std::uintmax_t log_bytes_ = 0;  ///< what the log holds
  std::string log_problem_;       ///< "" while the log holds every message, else the OS's reason
  std::string first_line_;
  bool first_line_done_ = false;
};

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(std::max(seconds, 0.0) + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  }
  return text;
}

/// The sweep's progress line: "fovea sweep: 12 of 40 runs done, 1 failed, 4 running, 2:05,
/// about 6:40 left". The time left is estimated from the runs done by this process, not those
/// a resumed sweep found done.
std::string progress_line(std::int64_t done, std::int64_t total, std::int64_t done_before, std::int64_t failed,
                          std::size_t running, double elapsed_s) {
  const std::int64_t done_now = done - done_before;
  std::string line = "fovea sweep: " + std::to_string(done) + " of " + std::to_string(total) + " runs done";
  if (failed > 0) line += ", " + std::to_string(failed) + " failed";
  line += ", " + std::to_string(running) + " running, " + clock_text(elapsed_s);
  if (done_now > 0 && done < total)
    line += ", about " + clock_text(elapsed_s / static_cast<double>(done_now) * static_cast<double>(total - done)) + " left";
  return line;
}

int default_jobs() {
  if (const char* cpus = std::getenv("SLURM_CPUS_PER_TASK")) {
    const auto n = parse_finite_number(cpus);
    if (n && *n >= 1 && *n <= 4096) return static_cast<int>(*n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

/// A shard's sweep.json as `fovea sweep merge` reads it, its fields checked.
struct ShardJson {
  Json json;
  Shard shard;
  std::int64_t runs_total = 0;
  std::vector<std::string> columns;
  std::string study;  ///< the study's name: the default folder of the merged table
};

/// `json`, a sweep.json as read back, with every field merge uses checked for presence and
/// type, so an edited or damaged file is one line naming it and the field, never undefined
/// behaviour (a missing key of a const object), a division by zero (a shard count of 0) or a
/// loop without end (a runs_total of 10^18). Throws std::runtime_error "<path>: <field>: why".
ShardJson check_shard_json(const Json& json, const fs::path& path) {
  const auto refuse = [&](const std::string& field, const std::string& why) {
    return std::runtime_error(path.string() + ": " + field + ": " + why);
  };
  const auto found = [](const Json& value) {
    if (value.is_object()) return std::string("an object");
    if (value.is_array()) return std::string("a list");
    std::string text = value.dump();
    if (text.size() > 40) text = text.substr(0, 40) + "...";
    return text;
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
  if (!study.is_string() || !config::is_valid_name(study.get<std::string>()) || study == "." || study == "..")
    throw refuse("study", "expected a name (letters, digits, - _ .), found " + found(study));
  s.study = study.get<std::string>();
  if (!field(json, "fingerprint", "fingerprint").is_string())
    throw refuse("fingerprint", "expected a text, found " + found(json.at("fingerprint")));
  if (json.contains("table_fingerprint") && !json.at("table_fingerprint").is_string())
    throw refuse("table_fingerprint", "expected a text, found " + found(json.at("table_fingerprint")));
  s.runs_total = static_cast<std::int64_t>(whole_number(json, "runs_total", "runs_total", 1, kMaxStudyRuns));
  const Json& shard = field(json, "shard", "shard");
  if (!shard.is_object()) throw refuse("shard", "expected an object with index and count, found " + found(shard));
  // At most as many shards as parse_shard accepts.
  s.shard.count = static_cast<int>(whole_number(shard, "shard.count", "count", 1, 1'000'000));
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

Json build_description() {
  Json j;
  j["fovea_version"] = build_info().version;
  j["git_commit"] = build_info().git_commit;
  j["git_dirty"] = build_info().git_dirty;
  return j;
}

}  // namespace

int sweep_command(const SweepOptions& options, SweepReport* report) {
  // The study, its runs, and this process's share of them: all checked before anything runs.
  StudySettings study;
  std::vector<PlannedRun> runs;
  std::string base_text;
  try {
    study = load_study_file(options.study_path, options.overrides);
    runs = plan_runs(study);
    // Under a config's limit, and named as one: the runs read the same file as their config.
    base_text = read_regular_file(study.base_config, kMaxConfigFileBytes, "config");
  } catch (const std::exception& e) {
    std::cerr << "fovea sweep: " << e.what() << "\n";
    return kExitBadInput;
  }
  Shard shard;
  if (options.shard) {
    const std::optional<Shard> given = parse_shard(*options.shard);
    if (!given) {
      std::cerr << "fovea sweep: --shard " << *options.shard << ": expected i/n with 0 <= i < n, such as 0/4\n";
      return kExitBadInput;
    }
    shard = *given;
  } else {
    try {
      if (const auto slurm = slurm_shard(std::getenv("SLURM_ARRAY_TASK_ID"), std::getenv("SLURM_ARRAY_TASK_COUNT"),
                                         std::getenv("SLURM_ARRAY_TASK_MIN")))
        shard = *slurm;
    } catch (const std::invalid_argument& e) {
      std::cerr << "fovea sweep: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  const int jobs = options.jobs > 0 ? options.jobs : default_jobs();
  const std::string fingerprint = plan_fingerprint(base_text, runs);
  // A shard writes a folder of its own inside the study's, with --out too: the tasks of a
  // Slurm array share one command line, and so one --out.
  fs::path out = options.out ? fs::path(*options.out) : fs::path("results") / "studies" / study.name;
  if (!shard.whole()) out /= "shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count);
  if (report) report->folder = out;

  // Every run's config, checked as `fovea run` would check it, and what its folder must hold.
  std::vector<RunJob> shard_jobs;
  for (const PlannedRun& run : runs) {
    if (!shard.contains(run.index)) continue;
    try {
      const config::LoadedConfig loaded = config::load_config_file(study.base_config, run.overrides);
      if (const std::string refusal = run_refusal(loaded); !refusal.empty()) {
        std::cerr << "fovea sweep: " << describe(study, run) << ": " << refusal << "\n";
        return kExitBadInput;
      }
      shard_jobs.push_back({&run, config::resolved_yaml(loaded.settings), loaded.settings.budget.mode == BudgetMode::wall,
                            loaded.settings.metrics.warmup_frames});
    } catch (const config::ConfigError& e) {
      std::cerr << "fovea sweep: " << describe(study, run) << ": " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  if (shard_jobs.empty()) {
    std::cerr << "fovea sweep: shard " << shard.index << "/" << shard.count << " holds no run: the study has "
              << runs.size() << " runs\n";
    return kExitBadInput;
  }

  // The output folder: new, empty, or this very sweep's (resumed).
  const fs::path sweep_json = out / "sweep.json";
  std::error_code error;
  bool resuming = false;
  std::string commit_before;
  if (fs::exists(out, error)) {
    if (!fs::is_directory(out, error)) {
      std::cerr << "fovea sweep: " << out.string() << ": names a file, not a folder\n";
      return kExitBadInput;
    }
    const JsonFile before = read_json_file(sweep_json, "sweep.json");
    if (before.state == JsonFile::State::unreadable) {
      std::cerr << "fovea sweep: " << before.problem << "\n";
      return kExitBadInput;
    }
    if (before.state == JsonFile::State::read && before.json.is_object()) {
      const Json& b = before.json;
      const Json before_shard = member(b, "shard");
      if (member(b, "fingerprint") != Json(fingerprint) || b.contains("merged_from") ||
          member(before_shard, "index") != Json(shard.index) || member(before_shard, "count") != Json(shard.count)) {
        std::cerr << "fovea sweep: " << out.string()
                  << " holds another sweep (another study, another version of this one, or another shard); "
                     "give a new "
                  << options.out_name << ", or remove it to start again\n";
        return kExitBadInput;
      }
      resuming = true;
      if (const Json commit = member(b, "git_commit"); commit.is_string()) commit_before = commit.get<std::string>();
    } else if (!fs::is_empty(out, error)) {
      std::cerr << "fovea sweep: " << out.string() << ": not empty and not a sweep's folder; choose a new "
                << options.out_name << "\n";
      return kExitBadInput;
    }
  }
  const fs::path runs_folder = out / "runs";
  const fs::path table_path = out / "table.csv";
  try {
    create_folders(out);
    create_folders(runs_folder);
  } catch (const std::runtime_error& e) {
    std::cerr << "fovea sweep: " << e.what() << "\n";
    return kExitFailure;
  }
  // One sweep at a time in a folder: a second one (the command typed twice, a job resubmitted
  // while the first still runs) would take the first one's runs under way for killed ones.
  const FolderLock lock(out / ".lock");
  if (!lock.held() && !lock.problem().empty()) {
    std::cerr << "fovea sweep: " << lock.problem() << "\n";
    return kExitFailure;
  }
  if (!lock.held()) {
    std::cerr << "fovea sweep: " << out.string() << " is in use by another fovea sweep; wait for it to end\n";
    return kExitBadInput;
  }
  // The table is written when the runs have ended: a place it cannot go is said before them.
  if (const std::string problem = file_write_problem(table_path); !problem.empty()) {
    std::cerr << "fovea sweep: " << table_path.string() << ": cannot write: " << problem << "\n";
    return kExitFailure;
  }
  if (resuming && !commit_before.empty() && commit_before != build_info().git_commit && !options.quiet)
    std::cerr << "fovea sweep: warning: " << out.string() << " was run by fovea " << commit_before
              << " and is resumed by " << build_info().git_commit
              << "; its runs' manifests say which made each (git_commit)\n";
  const DefaultChildSignal child_signal;

  const WallTime start = std::chrono::system_clock::now();
  Json description;
  description["study"] = study.name;
  description["study_file"] = fs::absolute(options.study_path).lexically_normal().string();
  description["base_config"] = study.base_config;
  description["fingerprint"] = fingerprint;
  description["table_fingerprint"] = table_fingerprint(study);
  description["runs_total"] = runs.size();
  description["shard"] = Json{{"index", shard.index}, {"count", shard.count}};
  description["runs_in_shard"] = shard_jobs.size();
  description["columns"] = study.table_columns();
  description["factor_columns"] = study.factor_columns();
  description["figures"] = study.figures;
  description.update(build_description());
  description["command_line"] = options.command_line;
  description["working_directory"] = fs::current_path().string();
  description["machine"] = to_json(describe_machine());
  description["jobs"] = jobs;
  description["start_time_utc"] = utc_iso8601(start);
  description["status"] = "running";
  std::string status_on_disk;  // sweep.json's status as this sweep last wrote it
  const auto write_description = [&]() {
    try {
      write_json_atomically(sweep_json, description);
      status_on_disk = description["status"].get<std::string>();
      return true;
    } catch (const std::exception& e) {
      std::cerr << "fovea sweep: " << e.what()
                << (status_on_disk.empty() ? "" : " (it still says \"" + status_on_disk + "\")") << "\n";
      return false;
    }
  };
  if (!write_description()) return kExitFailure;

  // Runs finished before (a resumed sweep) are summarised, not run again; a folder left
  // incomplete (killed, failed) or damaged (frames.csv short of its manifest's count) is
  // removed and its run done again.
  StudyRows rows;
  std::string fatal;  // a problem that stops the sweep: a metric's column missing from frames.csv
  int fatal_status = kExitBadInput;
  const auto summarise = [&](const RunJob& job, const fs::path& folder, const CsvTable& frames) {
    try {
      rows[job.run->index] = summarise_run(study, *job.run, frames, (folder / "frames.csv").string(), job.warmup_frames);
      return true;
    } catch (const std::exception& e) {
      // The first problem is the one to tell: runs stopped because of it may reach here too.
      if (fatal.empty()) fatal = e.what();
      return false;
    }
  };
  std::deque<const RunJob*> pending;
  std::deque<const RunJob*> pending_wall;  // run after the others, one at a time
  for (const RunJob& job : shard_jobs) {
    const fs::path folder = runs_folder / run_folder_name(job.run->index, static_cast<std::int64_t>(runs.size()));
    if (fs::exists(folder, error)) {
      const RunFolder found = examine_run_folder(folder, job);
      if (found.verdict == RunFolder::Verdict::whole) {
        if (!summarise(job, folder, found.frames)) break;
        continue;
      }
      if (found.verdict == RunFolder::Verdict::keep) {
        // A complete run of another config (the checkout moved and file paths with it, a
        // model file changed), or one whose manifest.json or frames.csv the OS cannot read:
        // never deleted, the user decides.
        fatal = folder.string() + ": " + found.problem +
                "; move the folder away to run it again, or give a new " + options.out_name;
        break;
      }
      if (!options.quiet) std::cerr << "fovea sweep: " << describe(study, *job.run) << ": " << found.problem << "; running it again\n";
      fs::remove_all(folder, error);
    }
    (job.wall_budget ? pending_wall : pending).push_back(&job);
  }
  if (!fatal.empty()) {
    std::cerr << "fovea sweep: " << fatal << "\n";
    description["status"] = "failed";
    write_description();
    return kExitBadInput;
  }
  const auto done_before = static_cast<std::int64_t>(rows.size());
  if (resuming && !options.quiet)
    std::cerr << "fovea sweep: resuming " << out.string() << ": " << done_before << " of " << shard_jobs.size()
              << " runs already complete\n";
  if (!options.quiet && !pending_wall.empty() && jobs > 1)
    std::cerr << "fovea sweep: " << pending_wall.size()
              << " runs under a wall-clock budget run one at a time, after the others, so their times are their own\n";

  // Run them: up to `jobs` at a time, each a `fovea run` process in its own process group.
  const std::string fovea_binary =
      options.fovea_binary.empty() ? fs::read_symlink("/proc/self/exe", error).string() : options.fovea_binary;
  struct Running {
    pid_t pid;
    const RunJob* job;
    fs::path folder;
    std::unique_ptr<RunMessages> messages;
  };
  std::vector<Running> running;
  std::vector<std::int64_t> failed;
  std::optional<StopSignals> stop_signals(std::in_place);
  int stop_signal = 0;
  // A line redrawn in place on a terminal; in a batch job's log, a line at every twentieth.
  const auto total_runs = static_cast<std::int64_t>(shard_jobs.size());
  Progress progress(total_runs, !options.quiet,
                    Progress::stderr_is_terminal() ? Progress::Output::redrawn : Progress::Output::logged);
  const auto launch = [&](const RunJob& job) {
    const std::string name = run_folder_name(job.run->index, static_cast<std::int64_t>(runs.size()));
    const fs::path log = runs_folder / (name + ".log");
    // The log of an earlier attempt (a resumed sweep) goes: this run writes its own, if any.
    fs::remove(log, error);
    Running r{-1, &job, runs_folder / name, nullptr};
    std::vector<std::string> argv = {fovea_binary, "run", study.base_config, "--out", r.folder.string(), "--headless", "--quiet"};
    for (const config::Override& o : job.run->overrides) {
      argv.push_back("--set");
      argv.push_back(o.assignment);
    }
    ChildOptions child;
    child.output = ChildOptions::Output::stderr_to_pipe;
    child.own_process_group = true;
    child.dies_with_fovea = true;
    const std::optional<StartedProgram> program = start_program(argv, child);
    if (!program) {
      fatal = "could not start " + fovea_binary;
      fatal_status = kExitFailure;
      return;
    }
    r.pid = program->pid;
    r.messages = std::make_unique<RunMessages>(program->stderr_pipe, log);
    running.push_back(std::move(r));
  };
  const auto wall_running = [&]() {
    for (const Running& r : running)
      if (r.job->wall_budget) return true;
    return false;
  };
  // The runs under way are stopped once, by the signal the sweep got or SIGTERM: a second
  // signal would end them without their records (fovea run's StopSignals).
  bool children_stopped = false;
  int children_stop_signal = 0;
  const auto stop_children = [&](int signal) {
    if (children_stopped) return;
    children_stopped = true;
    children_stop_signal = signal;
    for (const Running& r : running) kill(r.pid, signal);
  };
  while ((!pending.empty() || !pending_wall.empty() || !running.empty())) {
    if (stop_signal == 0 && stop_signal_received() != 0) {
      stop_signal = stop_signal_received();
      stop_children(stop_signal);
    }
    if (!fatal.empty()) stop_children(SIGTERM);
    const auto stopping = [&]() { return stop_signal != 0 || stop_signal_received() != 0 || !fatal.empty(); };
    if (stopping() && running.empty()) break;
    // Start what may start: a wall-budget run only alone, and nothing beside it.
    while (!stopping() && !wall_running()) {
      if (!pending.empty() && static_cast<int>(running.size()) < jobs) {
        launch(*pending.front());
        pending.pop_front();
      } else if (pending.empty() && !pending_wall.empty() && running.empty()) {
        launch(*pending_wall.front());
        pending_wall.pop_front();
      } else {
        break;
      }
    }
    for (Running& r : running) r.messages->read_available();
    // Collect a run that ended, asking for each by its pid: the process may have children
    // that are not the sweep's (fovea.sweep runs inside Python), and they are not ours to
    // reap. Poll, so a signal is seen within milliseconds.
    int wait_status = 0;
    const auto it = std::find_if(running.begin(), running.end(), [&](const Running& r) {
      const pid_t ended = waitpid(r.pid, &wait_status, WNOHANG);
      // ECHILD: reaped by someone else in this process; its exit status is lost, and its
      // folder says how it ended.
      if (ended < 0 && errno == ECHILD) wait_status = 0;
      return ended == r.pid || (ended < 0 && errno == ECHILD);
    });
    if (it == running.end()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    const Running r = std::move(*it);
    running.erase(it);
    const int status = exit_status_of(wait_status);
    r.messages->finish();
    // A run that ended well is held to what a resume holds it to: a folder that is whole. So
    // is one the sweep stopped: the stop may come after its last frame and manifest were
    // written, and it then dies by the signal with a whole folder, which sweep.json and the
    // table count as the resume would (else runs_completed says one fewer than the folder holds).
    const bool look = status == 0 || children_stopped;
    const RunFolder found = look ? examine_run_folder(r.folder, *r.job) : RunFolder{};
    if (look && found.verdict == RunFolder::Verdict::whole) {
      summarise(*r.job, r.folder, found.frames);
    } else if (status == 0) {
      failed.push_back(r.job->run->index);
      progress.finish();
      std::cerr << "fovea sweep: " << describe(study, *r.job->run) << " ended, but " << r.folder.string()
                << " is not a whole run: " << found.problem << "\n";
    } else if (!children_stopped || status != 128 + children_stop_signal) {
      // Failed by itself: before any stop, or after it with another status than the stop's
      // signal (its records could not be finished, say). A run the stop ended is not a failure.
      failed.push_back(r.job->run->index);
      progress.finish();
      const std::string& said = r.messages->first_line();
      const std::string where = r.messages->where();
      std::cerr << "fovea sweep: " << describe(study, *r.job->run) << " failed with exit status " << status
                << (said.empty() ? ", saying nothing" : ": " + said) << (where.empty() ? "" : " " + where) << "\n";
    }
    const auto done = static_cast<std::int64_t>(rows.size());
    progress.update(done, progress_line(done, total_runs, done_before, static_cast<std::int64_t>(failed.size()),
                                        running.size(), progress.elapsed_s()));
  }
  progress.finish();
  stop_signals.reset();

  // The table of every run finished so far, then the figures.
  int exit_status = kExitOk;
  bool table_written = true;
  try {
    write_study_table(table_path.string(), study.table_columns(), rows);
  } catch (const std::exception& e) {
    std::cerr << "fovea sweep: " << e.what() << "\n";
    table_written = false;
    exit_status = kExitFailure;
  }
  const double wall_s = progress.elapsed_s();
  description["end_time_utc"] = utc_iso8601(std::chrono::system_clock::now());
  description["wall_time_s"] = wall_s;
  description["runs_completed"] = rows.size();
  description["runs_completed_before"] = done_before;
  description["runs_failed"] = failed;
  std::string status_text = "completed";
  if (stop_signal != 0) status_text = "interrupted";
  if (!fatal.empty() || !failed.empty() || !table_written) status_text = "failed";
  description["status"] = status_text;
  if (!write_description()) exit_status = kExitFailure;
  if (!fatal.empty()) {
    std::cerr << "fovea sweep: " << fatal << "\n";
    return fatal_status;
  }
  if (!options.quiet)
    std::cerr << "fovea sweep: " << rows.size() << " of " << shard_jobs.size() << " runs complete ("
              << rows.size() - static_cast<std::size_t>(done_before) << " run now, in " << clock_text(wall_s) << ")"
              << (failed.empty() ? "" : ", " + std::to_string(failed.size()) + " failed")
              << (table_written ? "; table: " + table_path.string() : "; the table could not be written") << "\n";
  if (stop_signal != 0) {
    if (options.end_by_signal) {
      std::signal(stop_signal, SIG_DFL);
      std::raise(stop_signal);
    }
    return 128 + stop_signal;
  }
  if (options.figures && !study.figures.empty() && !rows.empty() &&
      draw_plots({"study", out.string()}, "fovea sweep") == PlotOutcome::failed)
    exit_status = kExitFailure;
  if (!failed.empty()) exit_status = kExitFailure;
  return exit_status;
}

int sweep_merge_command(const SweepMergeOptions& options) {
  // Every folder must be a shard of one sweep: the same fingerprint and shard count, each
  // shard once.
  std::vector<ShardJson> shards;
  for (const std::string& folder : options.folders) {
    const fs::path path = fs::path(folder) / "sweep.json";
    const JsonFile j = read_json_file(path, "sweep.json");
    if (j.state == JsonFile::State::unreadable) {
      std::cerr << "fovea sweep merge: " << j.problem << "\n";
      return kExitBadInput;
    }
    if (j.state != JsonFile::State::read || !j.json.is_object() || !j.json.contains("fingerprint") ||
        !j.json.contains("columns")) {
      std::cerr << "fovea sweep merge: " << folder << ": no readable sweep.json; expected a fovea sweep's output folder\n";
      return kExitBadInput;
    }
    if (j.json.contains("merged_from")) {
      std::cerr << "fovea sweep merge: " << folder << ": already a merged table; merge the shards' folders\n";
      return kExitBadInput;
    }
    try {
      shards.push_back(check_shard_json(j.json, path));
    } catch (const std::runtime_error& e) {
      std::cerr << "fovea sweep merge: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  const ShardJson& first = shards.front();
  std::set<int> shard_indices;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const ShardJson& j = shards[s];
    if (j.json.at("fingerprint") != first.json.at("fingerprint") || j.columns != first.columns ||
        member(j.json, "table_fingerprint") != member(first.json, "table_fingerprint") || j.runs_total != first.runs_total) {
      std::cerr << "fovea sweep merge: " << options.folders[s] << ": another study (or another version of it) than "
                << options.folders[0] << "\n";
      return kExitBadInput;
    }
    if (j.shard.count != first.shard.count) {
      std::cerr << "fovea sweep merge: " << options.folders[s] << ": split into " << j.shard.count << " shards, "
                << options.folders[0] << " into " << first.shard.count << "\n";
      return kExitBadInput;
    }
    if (!shard_indices.insert(j.shard.index).second) {
      std::cerr << "fovea sweep merge: " << options.folders[s] << ": shard " << j.shard.index << " is given twice\n";
      return kExitBadInput;
    }
  }
  const std::vector<std::string>& columns = first.columns;
  const std::int64_t total = first.runs_total;
  StudyRows rows;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    try {
      const std::string table = (fs::path(options.folders[s]) / "table.csv").string();
      StudyRows shard_rows = read_study_table(table, columns);
      const Shard shard = shards[s].shard;
      for (auto& [run, row] : shard_rows) {
        if (run < 0 || run >= total) {
          std::cerr << "fovea sweep merge: " << table << ": run " << run << " is not one of the study's " << total << " runs\n";
          return kExitBadInput;
        }
        if (!shard.contains(run)) {
          std::cerr << "fovea sweep merge: " << table << ": run " << run << " is not shard " << shard.index << "/"
                    << shard.count << "'s\n";
          return kExitBadInput;
        }
        rows.emplace(run, std::move(row));
      }
    } catch (const std::exception& e) {
      std::cerr << "fovea sweep merge: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  std::vector<std::int64_t> missing;
  for (std::int64_t run = 0; run < total; ++run)
    if (!rows.contains(run)) missing.push_back(run);

  const fs::path out = options.out ? fs::path(*options.out) : fs::path("results") / "studies" / first.study;
  std::error_code error;
  const JsonFile there = read_json_file(out / "sweep.json", "sweep.json");
  if (there.state == JsonFile::State::unreadable) {
    std::cerr << "fovea sweep merge: " << there.problem << "\n";
    return kExitBadInput;
  }
  if (there.state == JsonFile::State::read && !(there.json.is_object() && there.json.contains("merged_from"))) {
    std::cerr << "fovea sweep merge: " << out.string() << " holds a sweep's own runs; give another --out\n";
    return kExitBadInput;
  }
  Json merged;
  for (const char* key : {"study", "study_file", "base_config", "fingerprint", "table_fingerprint", "runs_total", "columns", "factor_columns", "figures"})
    merged[key] = member(first.json, key);
  merged["merged_from"] = Json::array();
  for (std::size_t s = 0; s < shards.size(); ++s)
    merged["merged_from"].push_back(Json{{"folder", fs::absolute(options.folders[s]).lexically_normal().string()},
                                         {"shard", shards[s].json.at("shard")},
                                         {"status", shards[s].json.value("status", Json("unknown"))},
                                         {"wall_time_s", member(shards[s].json, "wall_time_s")},
                                         {"machine", member(shards[s].json, "machine")}});
  merged["runs_present"] = rows.size();
  merged["runs_missing"] = missing;
  merged.update(build_description());
  merged["command_line"] = options.command_line;
  merged["time_utc"] = utc_iso8601(std::chrono::system_clock::now());
  try {
    create_folders(out);
    write_study_table((out / "table.csv").string(), columns, rows);
    write_json_atomically(out / "sweep.json", merged);
  } catch (const std::exception& e) {
    std::cerr << "fovea sweep merge: " << e.what() << "\n";
    return kExitFailure;
  }
  if (!options.quiet) {
    std::cerr << "fovea sweep merge: " << rows.size() << " of " << total << " runs from " << shards.size()
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

}  // namespace fovea
