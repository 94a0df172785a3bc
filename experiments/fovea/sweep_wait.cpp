#include "fovea/sweep_wait.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "fovea/child_process.hpp"
#include "fovea/stop_signals.hpp"
#include "fovea/sweep_progress.hpp"

namespace fovea {

SweepRunner::SweepRunner(const SweepPlan& plan, const SweepFolder& folder, std::string fovea_binary, SweepTally& tally,
                         Progress& progress, std::int64_t done_before)
    : plan_(plan), folder_(folder), fovea_binary_(std::move(fovea_binary)), tally_(tally), progress_(progress),
      done_before_(done_before) {}

int SweepRunner::run(SweepQueue queue) {
  const StopSignals stop_signals;
  while ((!queue.pending.empty() || !queue.pending_timed.empty() || !running_.empty())) {
    if (stop_signal_ == 0 && stop_signal_received() != 0) {
      stop_signal_ = stop_signal_received();
      stop_runs(stop_signal_);
    }
    if (!tally_.fatal.empty()) stop_runs(SIGTERM);
    if (stopping() && running_.empty()) break;
    start_what_may_start(queue);
    for (LaunchedRun& r : running_) r.messages->read_available();
    std::optional<std::pair<LaunchedRun, int>> ended = reap();
    if (!ended) {
      // Poll, so a signal is seen within milliseconds.
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    judge(ended->first, ended->second);
    const auto done = static_cast<std::int64_t>(tally_.rows.size());
    progress_.update(done, progress_line(done, static_cast<std::int64_t>(plan_.shard_runs.size()), done_before_,
                                         static_cast<std::int64_t>(tally_.failed.size()), running_.size(),
                                         progress_.elapsed_s()));
  }
  progress_.finish();
  return stop_signal_;
}

bool SweepRunner::stopping() const {
  return stop_signal_ != 0 || stop_signal_received() != 0 || !tally_.fatal.empty();
}

void SweepRunner::start_what_may_start(SweepQueue& queue) {
  while (!stopping() && !timed_running()) {
    if (!queue.pending.empty() && static_cast<int>(running_.size()) < plan_.jobs) {
      launch(*queue.pending.front());
      queue.pending.pop_front();
    } else if (queue.pending.empty() && !queue.pending_timed.empty() && running_.empty()) {
      launch(*queue.pending_timed.front());
      queue.pending_timed.pop_front();
    } else {
      break;
    }
  }
}

void SweepRunner::launch(const RunJob& job) {
  std::optional<LaunchedRun> launched = launch_run(fovea_binary_, plan_, folder_.runs, job);
  if (!launched) {
    tally_.fatal = "could not start " + fovea_binary_;
    tally_.fatal_status = kExitFailure;
    return;
  }
  running_.push_back(std::move(*launched));
}

bool SweepRunner::timed_running() const {
  return std::any_of(running_.begin(), running_.end(), [](const LaunchedRun& r) { return r.job->timed; });
}

void SweepRunner::stop_runs(int signal) {
  if (runs_stopped_) return;
  runs_stopped_ = true;
  runs_stop_signal_ = signal;
  for (const LaunchedRun& r : running_) kill(r.pid, signal);
}

std::optional<std::pair<LaunchedRun, int>> SweepRunner::reap() {
  // Asked for each run by its pid: the process may have children that are not the sweep's
  // (fovea.sweep runs inside Python), and they are not ours to reap.
  int wait_status = 0;
  const auto it = std::find_if(running_.begin(), running_.end(), [&](const LaunchedRun& r) {
    const pid_t ended = waitpid(r.pid, &wait_status, WNOHANG);
    // ECHILD: reaped by someone else in this process; its exit status is lost, and its
    // folder says how it ended.
    if (ended < 0 && errno == ECHILD) wait_status = 0;
    return ended == r.pid || (ended < 0 && errno == ECHILD);
  });
  if (it == running_.end()) return std::nullopt;
  LaunchedRun r = std::move(*it);
  running_.erase(it);
  r.messages->finish();
  return std::pair{std::move(r), exit_status_of(wait_status)};
}

void SweepRunner::judge(const LaunchedRun& r, int status) {
  // A run that ended well is held to what a resume holds it to: a folder that is whole. So
  // is one the sweep stopped: the stop may come after its last frame and manifest were
  // written, and it then dies by the signal with a whole folder, which sweep.json and the
  // table count as the resume would (else runs_completed says one fewer than the folder holds).
  const bool look = status == 0 || runs_stopped_;
  const RunFolder found = look ? examine_run_folder(r.folder, plan_, *r.job) : RunFolder{};
  if (look && found.verdict == RunFolder::Verdict::whole) {
    tally_.summarise(plan_.study, *r.job, r.folder, found.frames);
  } else if (status == 0) {
    tally_.failed.push_back(r.job->run.index);
    progress_.finish();
    std::cerr << "fovea sweep: " << describe_run(plan_.study, r.job->run) << " ended, but " << r.folder.string()
              << " is not a whole run: " << found.problem << "\n";
  } else if (!runs_stopped_ || status != 128 + runs_stop_signal_) {
    // Failed by itself: before any stop, or after it with another status than the stop's
    // signal (its records could not be finished, say). A run the stop ended is not a failure.
    tally_.failed.push_back(r.job->run.index);
    progress_.finish();
    const std::string& said = r.messages->first_line();
    const std::string where = r.messages->where();
    std::cerr << "fovea sweep: " << describe_run(plan_.study, r.job->run) << " failed with exit status " << status
              << (said.empty() ? ", saying nothing" : ": " + said) << (where.empty() ? "" : " " + where) << "\n";
  }
}

}  // namespace fovea
