#include "fovea/experiment_command.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include <unistd.h>

#include "fovea/run_command.hpp"
#include "fovea/stop_signals.hpp"
#include "core/format.hpp"
#include "psychophysics/session.hpp"
#include "psychophysics/stimulus.hpp"
#include "render/stimulus_display.hpp"
#include "record/csv_writer.hpp"
#include "record/progress.hpp"
#include "record/results_folder.hpp"

namespace fovea {
namespace {

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (const char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return name != "." && name != "..";
}

std::string now_utc() { return utc_iso8601(std::chrono::system_clock::now()); }

/// session.log: one line per event, each on the disk (fsync) before the next, like the rows.
class SessionLog {
 public:
  explicit SessionLog(const std::filesystem::path& path) : file_(std::fopen(path.c_str(), "ab")) {
    if (file_ == nullptr) throw std::runtime_error(path.string() + ": cannot open for appending");
  }
  ~SessionLog() { std::fclose(file_); }
  SessionLog(const SessionLog&) = delete;
  SessionLog& operator=(const SessionLog&) = delete;
  void line(const std::string& text) {
    const std::string l = now_utc() + " " + text + "\n";
    if (std::fwrite(l.data(), 1, l.size(), file_) != l.size() || std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)
      throw std::runtime_error("session.log: write failed");
  }

 private:
  std::FILE* file_;
};

}  // namespace

int experiment_command(const ExperimentOptions& options) {
  config::LoadedExperiment loaded;
  try {
    loaded = config::load_experiment_file(options.spec_path, options.overrides);
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  const ExperimentSettings& spec = loaded.spec;
  if (!valid_name(options.participant)) {
    std::cerr << "--participant " << options.participant
              << ": expected a name of letters, digits, - _ . (it names the participant's folder)\n";
    return kExitBadInput;
  }
  if (!options.observer) {
    std::cerr << "fovea experiment: --observer is required: a session with a person (a window, the stimulus and "
                 "the keys) needs the stimulus renderer, which this build does not have yet; give a perception model "
                 "for a simulated observer (docs/psychophysics.md)\n";
    return kExitBadInput;
  }
  PerceptionModelSettings observer_model;
  try {
    observer_model = config::load_perception_model_file(*options.observer);
  } catch (const config::ConfigError& e) {
    std::cerr << "--observer " << e.what() << "\n";
    return kExitBadInput;
  }

  // The participant's folder: what earlier sessions left decides whether this one may start.
  const std::filesystem::path folder =
      options.out ? std::filesystem::path(*options.out)
                  : std::filesystem::path("results") / "experiments" / spec.name / options.participant;
  const std::filesystem::path trials_path = folder / "trials.csv";
  const std::string resolved = config::resolved_experiment_yaml(spec);
  std::vector<TrialRecord> done;
  try {
    if (std::filesystem::exists(trials_path)) done = read_trial_records(trials_path.string());
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (!done.empty() && !options.resume) {
    std::cerr << "fovea experiment: " << folder.string() << " holds " << done.size() << " trials of participant "
              << options.participant << " already; --resume continues that session, or give another --participant\n";
    return kExitBadInput;
  }
  for (const TrialRecord& r : done)
    if (r.participant != options.participant) {
      std::cerr << "fovea experiment: " << trials_path.string() << " holds trials of participant " << r.participant
                << ", not " << options.participant << "\n";
      return kExitBadInput;
    }
  if (options.resume && std::filesystem::exists(folder / "experiment.yaml")) {
    std::string before;
    if (std::FILE* f = std::fopen((folder / "experiment.yaml").c_str(), "rb")) {
      char buffer[4096];
      for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) before.append(buffer, n);
      std::fclose(f);
    }
    if (before != resolved) {
      std::cerr << "fovea experiment: --resume: the spec differs from the one the session began with ("
                << (folder / "experiment.yaml").string() << "); a resumed session must keep its design\n";
      return kExitBadInput;
    }
  }
  std::optional<TrialSequence> sequence;
  try {
    sequence.emplace(spec, done);
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: " << trials_path.string() << ": " << e.what() << "\n";
    return kExitBadInput;
  }

  // Sessions are numbered 1, 2, ... in the session column.
  std::int64_t session = 1;
  for (const TrialRecord& r : done) {
    const std::optional<double> number = parse_finite_number(r.session);
    if (number) session = std::max(session, static_cast<std::int64_t>(*number) + 1);
  }
  // How often each planned trial was shown already (aborted ones come again).
  std::map<std::int64_t, int> attempts;
  for (const TrialRecord& r : done) ++attempts[r.trial];

  // Pictures of the stimuli: offscreen, the collision's frame of each trial.
  std::unique_ptr<StimulusDisplay> display;
  if (options.capture_dir) {
    try {
      std::filesystem::create_directories(*options.capture_dir);
      display = std::make_unique<StimulusDisplay>(spec, DisplayMode::offscreen);
    } catch (const std::exception& e) {
      std::cerr << "fovea experiment: --capture " << *options.capture_dir << ": " << e.what() << "\n";
      return kExitFailure;
    }
  }

  StopSignals stop_signals;
  int status = kExitOk;
  int answered_now = 0;
  try {
    std::filesystem::create_directories(folder);
    if (!std::filesystem::exists(folder / "experiment.yaml")) write_file_atomically(folder / "experiment.yaml", resolved);
    SessionLog log(folder / "session.log");
    CsvWriter trials(trials_path.string(), trial_record_header(), CsvWriter::Open::append);
    log.line("session " + std::to_string(session) + " of participant " + options.participant + " started" +
             (done.empty() ? "" : ", resuming after " + std::to_string(done.size()) + " trials") +
             ", simulated observer " + *options.observer);
    const SimulatedObserver observer(observer_model, static_cast<std::uint64_t>(spec.seed), options.participant);
    Progress progress(sequence->planned(), !options.quiet && Progress::stderr_is_terminal());
    while (const std::optional<PlannedTrial> trial = sequence->next()) {
      if (stop_signal_received() != 0) break;
      TrialRecord r;
      r.participant = options.participant;
      r.session = std::to_string(session);
      r.block = trial->block;
      r.trial = trial->trial;
      r.trial_in_block = trial->trial_in_block;
      r.condition = trial->condition.index;
      r.staircase = trial->condition.staircase;
      r.catch_trial = trial->condition.catch_trial;
      r.gap_deg = trial->condition.catch_trial ? 0.0 : trial->condition.gap_deg;
      r.eccentricity_deg = trial->condition.eccentricity_deg;
      r.direction_deg = trial->direction_deg;
      const ScreenPlacement at = place_on_screen(spec.screen, r.eccentricity_deg, r.gap_deg);
      r.gap_px = at.gap_px;
      r.eccentricity_px = at.eccentricity_px;
      r.observer = "simulated";
      r.started_utc = now_utc();
      if (display) {
        const StimulusPlan stimulus = plan_stimulus(spec, *trial, static_cast<std::uint64_t>(spec.seed));
        display->draw(stimulus, stimulus.collision_time_s);
        char name[32];
        std::snprintf(name, sizeof name, "trial_%06d.png", trial->trial);
        write_png(std::filesystem::path(*options.capture_dir) / name, display->capture());
      }
      if (options.observer_pace_ms > 0)
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.observer_pace_ms));
      r.response = observer.answer(*trial, attempts[trial->trial]++);
      r.reaction_time_ms = std::numeric_limits<double>::quiet_NaN();
      r.fixation_kept = true;
      r.gaze_max_deviation_deg = std::numeric_limits<double>::quiet_NaN();
      r.gaze_samples = 0;
      r.ended_utc = now_utc();
      for (const std::string& cell : trial_record_cells(r)) trials.cell(std::string_view(cell));
      trials.end_row(CsvWriter::Flush::durable);  // on the disk before the next trial starts
      sequence->record(r.response);
      ++answered_now;
      progress.update(sequence->answered());
    }
    progress.finish();
    if (stop_signal_received() != 0) {
      log.line("session " + std::to_string(session) + " stopped by signal " + std::to_string(stop_signal_received()) +
               " after " + std::to_string(sequence->answered()) + " trials; --resume continues it");
      status = 128 + stop_signal_received();
    } else {
      log.line("session " + std::to_string(session) + " complete: " + std::to_string(sequence->answered()) + " trials");
    }
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return kExitFailure;
  }
  if (!options.quiet)
    std::cerr << "fovea experiment: participant " << options.participant << ", session " << session << ": "
              << answered_now << " trials this session, " << sequence->answered() << " in all -> "
              << trials_path.string() << "\n";
  return status;
}

}  // namespace fovea
