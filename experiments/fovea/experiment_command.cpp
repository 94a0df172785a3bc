#include "fovea/experiment_command.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <SDL.h>

#include "config/schema.hpp"
#include "core/file_read.hpp"
#include "core/folder_name.hpp"
#include "core/format.hpp"
#include "core/stopwatch.hpp"
#include "fovea/clip_session.hpp"
#include "fovea/exit_status.hpp"
#include "fovea/session_files.hpp"
#include "fovea/session_screen.hpp"
#include "fovea/stop_signals.hpp"
#include "fovea/synthetic_keys.hpp"
#include "gaze/gaze.hpp"
#include "gaze/gaze_latency.hpp"
#include "trackers/trackers.hpp"
#include "perception/view.hpp"
#include "psychophysics/frame_timing.hpp"
#include "psychophysics/session.hpp"
#include "psychophysics/stimulus.hpp"
#include "record/csv_reader.hpp"
#include "record/csv_writer.hpp"
#include "record/progress.hpp"
#include "record/results_folder.hpp"
#include "render/stimulus_display.hpp"

namespace fovea {
namespace {

/// A person's answer to one trial.
struct PersonAnswer {
  bool quit = false;  ///< Escape, or the window closed: the session stops, the trial unrecorded
  TrialResponse response = TrialResponse::no;
  double reaction_time_ms = std::numeric_limits<double>::quiet_NaN();  ///< none for an aborted trial
  std::string started_utc;  ///< when the stimulus's first frame was shown
  bool fixation_kept = true;
  std::int64_t gaze_samples = 0;
  double gaze_max_deviation_deg = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t gaze_dropped = 0;  ///< inputs the tracker rejected during the trial (malformed, lost)
  bool gaze_lost = false;          ///< aborted for want of valid gaze samples, not for straying
  StimulusTiming timing;           ///< the stimulus as the display showed it
};

/// What a person sees and does in a disc session: the instructions, breaks, and each trial's
/// blank interval, stimulus (gaze-contingent with a tracker) and answer, in real time at the
/// display's refresh.
class PersonScreens : public SessionScreen {
 public:
  /// `refresh_hz`: the display's, against which dropped frames are counted. `keys`: the
  /// synthetic keys of a test or pilot, or null for a keyboard.
  PersonScreens(const ExperimentSettings& spec, StimulusDisplay* display, Gaze* gaze, SDL_Keycode yes, SDL_Keycode no,
                double refresh_hz, SyntheticKeys* keys)
      : SessionScreen(display, {yes, no}, keys), spec_(spec), gaze_(gaze), refresh_hz_(refresh_hz),
        start_(Clock::now()) {}

  /// The instructions until Space; false when the person quits.
  bool instructions(const std::string& text) {
    return wait_for_space(Screen::instructions, text + "\n\nPress Space to start.");
  }
  /// A break after `done` of about `planned` trials; false when the person quits.
  bool pause(int done, int planned) {
    return wait_for_space(Screen::pause, "Break. " + std::to_string(done) + " of about " + std::to_string(planned) +
                                             " trials done.\n\nPress Space when you are ready to go on.");
  }

  /// How the tracker's gaze arrived over the stimuli's frames so far (docs/gaze.md, "Latency").
  const GazeLatency& latency() const { return latency_; }

  /// One trial: the blank interval, the stimulus (a two-interval trial's two animations with
  /// the interstimulus blank between them), and the answer (or the fixation lost). The
  /// timing sums the animations' frames, dropped frames and durations.
  PersonAnswer trial(const std::vector<StimulusPlan>& plans) {
    PersonAnswer answer;
    // The blank interval, the cross alone.
    if (!for_seconds(Screen::blank, spec_.task.inter_trial_interval_s, [&] { display().draw_fixation(); })) return quit();
    answer.started_utc = now_utc();
    for (std::size_t k = 0; k < plans.size(); ++k) {
      if (k > 0 &&
          !for_seconds(Screen::blank, spec_.task.interstimulus_interval_s, [&] { display().draw_fixation(); }))
        return quit();
      const Clock::time_point shown = Clock::now();
      swap_times_s_.clear();
      const std::optional<bool> aborted = show_stimulus(plans[k], shown, answer);
      if (!aborted) return quit();
      if (*aborted) {
        answer.response = TrialResponse::aborted;
        answer.fixation_kept = false;
        display().draw_message("Please keep your eyes on the cross.");
        display().present();
        swap_times_s_.push_back(seconds_since(shown));
        add_timing(answer.timing, stimulus_timing(swap_times_s_, refresh_hz_));
        if (!for_seconds(Screen::none, 1.0, [&] { display().draw_message("Please keep your eyes on the cross."); }))
          return quit();
        return answer;
      }
      // The animation's end: the cross alone, its swap the last of the animation's timing.
      display().draw_fixation();
      display().present();
      swap_times_s_.push_back(seconds_since(shown));
      add_timing(answer.timing, stimulus_timing(swap_times_s_, refresh_hz_));
    }
    // The answer: the cross until a key. The reaction time runs from the first frame without
    // the (last) animation (its present() returned) to the key's event time (SDL's
    // milliseconds); keys pressed during the stimulus are not answers.
    const Uint64 ended_ms = SDL_GetTicks64();
    const int key = wait_for_answer(ended_ms, answer.reaction_time_ms, [&] { display().draw_fixation(); });
    if (key < 0) return quit();
    if (spec_.task.kind == TaskKind::two_interval)
      answer.response = key == 0 ? TrialResponse::first : TrialResponse::second;
    else
      answer.response = key == 0 ? TrialResponse::yes : TrialResponse::no;
    return answer;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static PersonAnswer quit() {
    PersonAnswer a;
    a.quit = true;
    return a;
  }
  /// `total` with one more animation's timing: frames, dropped frames and durations summed.
  static void add_timing(StimulusTiming& total, const StimulusTiming& animation) {
    total.frames += animation.frames;
    total.dropped_frames += animation.dropped_frames;
    total.duration_s += animation.duration_s;
  }

  /// The stimulus from `shown` on, with the fixation watched when a tracker gives it: the
  /// gaze's counts into `answer`. Whether it was aborted (the fixation strayed, or too few
  /// valid samples to know); nullopt when the person quit.
  std::optional<bool> show_stimulus(const StimulusPlan& plan, Clock::time_point shown, PersonAnswer& answer) {
    const bool contingent = is_eye_tracker(spec_.gaze.source);
    const double centre_x = 0.5 * spec_.screen.width_px, centre_y = 0.5 * spec_.screen.height_px;
    double deviation = 0;
    bool aborted = false;
    bool first_frame = true;
    std::uint64_t dropped_before = 0;
    int frames = 0;
    const std::int64_t samples_before = answer.gaze_samples;  // an earlier animation's of the same trial
    const double deviation_before = answer.gaze_max_deviation_deg;
    while (true) {
      const double t = seconds_since(shown);
      if (t > plan.duration_s) break;
      ++frames;
      if (contingent) {
        const FrameGaze g = gaze_->at(seconds_since(start_));
        latency_.add(g);
        if (first_frame) dropped_before = g.dropped;
        first_frame = false;
        answer.gaze_dropped = g.dropped - dropped_before;
        if (g.valid) {
          ++answer.gaze_samples;
          deviation = std::max(deviation, screen_visual_angle_deg(spec_.screen, centre_x, centre_y, g.x_px, g.y_px));
        }
        if (deviation > spec_.fixation_radius_deg) {
          aborted = true;
          break;
        }
      }
      display().draw(plan, t);
      display().present();
      swap_times_s_.push_back(seconds_since(shown));
      if (pump(Screen::stimulus) == Key::quit) return std::nullopt;
    }
    if (contingent) {
      // Without valid samples for most of the stimulus nobody knows where the eyes were (a
      // lost tracker, a blink through the collision): the trial cannot count as fixated.
      if (!aborted && 2 * (answer.gaze_samples - samples_before) < frames) {
        aborted = true;
        answer.gaze_lost = true;
      }
      if (answer.gaze_samples > samples_before)
        answer.gaze_max_deviation_deg = std::isnan(deviation_before) ? deviation : std::max(deviation, deviation_before);
    }
    return aborted;
  }

  const ExperimentSettings& spec_;
  Gaze* gaze_;
  double refresh_hz_;
  Clock::time_point start_;
  std::vector<double> swap_times_s_;  ///< the stimulus's swaps, seconds from its start (reused)
  GazeLatency latency_;
};

/// Every stimulus must be drawable before the first trial, not fail at trial 150: plan each
/// constant-stimuli trial, and each staircase's or psi's extremes in a few directions. False,
/// said on stderr, when one cannot be planned.
bool stimuli_drawable(const config::LoadedExperiment& loaded) {
  const ExperimentSettings& spec = loaded.spec;
  try {
    if (spec.method == DesignMethod::constant_stimuli) {
      for (const PlannedTrial& t : plan_constant_stimuli(spec.constant_stimuli, static_cast<std::uint64_t>(spec.seed)))
        (void)plan_stimulus(spec, t, static_cast<std::uint64_t>(spec.seed));
      return true;
    }
    // Staircases and psi procedures: the smallest and largest gap each may show.
    const bool psi = spec.method == DesignMethod::psi;
    const std::vector<double>& eccentricities = psi ? spec.psi.eccentricities_deg : spec.staircase.eccentricities_deg;
    const double smallest = psi ? spec.psi.grid.min_gap_deg : spec.staircase.rules.min_value;
    const double largest = psi ? spec.psi.grid.max_gap_deg : spec.staircase.rules.max_value;
    PlannedTrial t;
    for (const double e : eccentricities)
      for (const double g : {smallest, largest})
        for (const double direction : {0.0, 90.0, 180.0, 270.0}) {
          t.condition.eccentricity_deg = e;
          t.condition.gap_deg = g;
          t.direction_deg = direction;
          (void)plan_stimulus(spec, t, static_cast<std::uint64_t>(spec.seed));
          ++t.trial;
        }
  } catch (const std::exception& e) {
    std::cerr << loaded.error_at("stimulus.entities", e.what()) << "\n";
    return false;
  }
  return true;
}

/// What the participant's folder holds of earlier sessions, which decides whether this one
/// may start.
struct EarlierSessions {
  SessionFolder where;
  std::vector<TrialRecord> done;
};

/// Reads trials.csv and checks it: only with --resume when it holds trials, all of this
/// participant, run with the spec given (experiment.yaml). False, said on stderr, when not.
bool read_earlier_sessions(const ExperimentOptions& options, const ExperimentSettings& spec, EarlierSessions& earlier) {
  earlier.where = session_folder(options, spec);
  const std::filesystem::path& folder = earlier.where.folder;
  const std::vector<TrialRecord>& done = earlier.done;
  const auto read = [](const std::string& path) { return read_trial_records(path); };
  if (!read_trials_before(options, earlier.where, read, earlier.done)) return false;
  for (const TrialRecord& r : done)
    if (r.participant != options.participant) {
      std::cerr << "fovea experiment: " << earlier.where.trials_path.string() << " holds trials of participant " << r.participant
                << ", not " << options.participant << "\n";
      return false;
    }
  if (done.empty()) return true;
  if (!std::filesystem::exists(folder / "experiment.yaml")) {
    std::cerr << "fovea experiment: " << folder.string()
              << " holds trials but no experiment.yaml: without the spec they were run with, a resumed session "
                 "cannot be checked to keep its design\n";
    return false;
  }
  std::string before;
  try {
    before = read_regular_file((folder / "experiment.yaml").string(), kMaxConfigFileBytes, "experiment");
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: --resume: " << e.what() << "\n";
    return false;
  }
  return spec_kept(folder, before, earlier.where.resolved_spec);
}

/// Where the trials are shown: a person's window (and, gaze-contingent, the tracker's gaze),
/// or with --capture an offscreen display for pictures; neither for a simulated observer
/// without --capture.
struct SessionDisplay {
  std::unique_ptr<StimulusDisplay> display;
  std::unique_ptr<Gaze> gaze;
};

/// Opens the session's display; kExitOk, or the exit status with the reason on stderr.
int open_session_display(const ExperimentOptions& options, const config::LoadedExperiment& loaded, bool synthetic_keys,
                         SessionDisplay& shown) {
  const ExperimentSettings& spec = loaded.spec;
  if (!options.observer) {
    // Synthetic keys draw offscreen: the same frames and events, no display needed.
    int refused = kExitOk;
    shown.display = open_person_display(loaded, synthetic_keys, "trials", refused);
    if (!shown.display) return refused;
    try {
      // Only a tracker's gaze is read (the trials are gaze-contingent); the fixation is the
      // cross's otherwise, wherever the other sources would put it.
      if (is_eye_tracker(spec.gaze.source))
        shown.gaze = std::make_unique<Gaze>(spec.gaze, spec.screen, static_cast<std::uint64_t>(spec.seed), with_trackers({}));
    } catch (const std::exception& e) {
      std::cerr << "fovea experiment: " << e.what() << "\n";
      return kExitFailure;
    }
  } else if (options.capture_dir) {
    try {
      create_folders(*options.capture_dir);
    } catch (const std::runtime_error& e) {
      std::cerr << "fovea experiment: --capture " << e.what() << "\n";
      return kExitFailure;
    }
    try {
      // Pictures, drawn offscreen on no monitor: the spec's display.index is a lab's, not theirs.
      ExperimentSettings pictures = spec;
      pictures.display.index = 0;
      shown.display = std::make_unique<StimulusDisplay>(pictures, DisplayMode::offscreen);
    } catch (const std::exception& e) {
      std::cerr << "fovea experiment: --capture " << *options.capture_dir << ": " << e.what() << "\n";
      return kExitFailure;
    }
  }
  return kExitOk;
}

/// A disc session once everything is checked and open: trial after trial, each appended to
/// trials.csv on the disk before the next, until the design is done, the person quits or a
/// signal stops it.
class DiscSession {
 public:
  DiscSession(const ExperimentOptions& options, const ExperimentSettings& spec, const EarlierSessions& earlier,
              SessionDisplay& shown, const PerceptionModelSettings& observer_model)
      : options_(options), spec_(spec), earlier_(earlier), shown_(shown), observer_model_(observer_model),
        person_(!options.observer), sequence_(spec, earlier.done, earlier.where.trials_path.string()) {
    // Sessions are numbered 1, 2, ... in the session column.
    for (const TrialRecord& r : earlier.done) {
      const std::optional<double> number = parse_finite_number(r.session);
      if (number) session_ = std::max(session_, static_cast<std::int64_t>(*number) + 1);
    }
    // How often each planned trial was shown already (aborted ones come again).
    for (const TrialRecord& r : earlier.done) ++attempts_[r.trial];
  }

  std::int64_t session() const { return session_; }
  int answered_now() const { return answered_now_; }
  int answered() const { return sequence_.answered(); }

  /// The whole session, its records written as it goes: a person answers with `keys` (yes,
  /// no), or `synthetic_keys` stand in for them. Returns the exit status; throws when a
  /// record cannot be written.
  int run(const std::vector<SDL_Keycode>& keys, std::optional<SyntheticKeys>& synthetic_keys);

 private:
  /// A break every break_every answers (once at each count: an aborted trial does not bring
  /// the same break back), none before this session's first trial. Breaks fall on the
  /// design's count (a resumed session keeps the blocks' rhythm). False when the person quits.
  bool take_break(PersonScreens& screens);
  /// The record of `trial` before it is shown: what the design and the screen make it.
  TrialRecord planned_record(const PlannedTrial& trial) const;
  /// A person's trial into `r`; false when they quit (the trial shown is not recorded:
  /// --resume shows it again).
  bool person_trial(PersonScreens& screens, const PlannedTrial& trial, TrialRecord& r);
  /// A simulated observer's answer into `r`, the stimulus drawn first with --capture.
  void simulated_trial(const PlannedTrial& trial, TrialRecord& r);
  /// Tells the design `r`'s answer and appends `r` to trials.csv, durably, with the design's
  /// state after the answer (TrialSequence::record(TrialRecord&)).
  void record(const TrialRecord& r);

  const ExperimentOptions& options_;
  const ExperimentSettings& spec_;
  const EarlierSessions& earlier_;
  SessionDisplay& shown_;
  const PerceptionModelSettings& observer_model_;
  bool person_;
  TrialSequence sequence_;
  std::optional<SimulatedObserver> observer_;
  std::int64_t session_ = 1;
  std::map<std::int64_t, int> attempts_;
  std::optional<SessionLog> log_;
  std::optional<CsvWriter> trials_;
  std::vector<std::string> columns_;  ///< trials.csv's columns, as its header has them
  int answered_now_ = 0;
  int answered_this_session_ = 0;
  int last_break_at_ = 0;
};

int DiscSession::run(const std::vector<SDL_Keycode>& keys, std::optional<SyntheticKeys>& synthetic_keys) {
  const std::filesystem::path& folder = earlier_.where.folder;
  const std::vector<TrialRecord>& done = earlier_.done;
  // The spec of the trials: written again while the folder holds none (a session that
  // ended before its first trial leaves no design behind to keep).
  if (done.empty()) write_file_atomically(folder / "experiment.yaml", earlier_.where.resolved_spec);
  // The data dictionary beside the trials, for a lab's pipeline (BIDS's sidecar).
  write_file_atomically(folder / "trials.json", trial_records_sidecar_json());
  SessionLog& log = log_.emplace(folder / "session.log");
  // A file an older fovea began goes on in its own columns (trial_record_layout).
  columns_ = trial_record_layout(earlier_.where.trials_path.string());
  trials_.emplace(earlier_.where.trials_path.string(), columns_, CsvWriter::Open::append);
  log.line("session " + std::to_string(session_) + " of participant " + options_.participant + " started" +
           (done.empty() ? "" : ", resuming after " + std::to_string(done.size()) + " trials") +
           (person_ ? ", a person at the window" : ", simulated observer " + *options_.observer));
  if (person_) log.line(display_log_line(*shown_.display));
  if (person_)
    if (const std::string kept = keep_display_table(folder, session_, *shown_.display); !kept.empty()) log.line(kept);
  if (person_ && spec_.display.development_run)
    log.line("development run (display.development_run): the trials' timing is not held to the spec; not data");
  if (synthetic_keys) log.line("keys from --synthetic-keys, drawn offscreen");
  observer_.emplace(observer_model_, static_cast<std::uint64_t>(spec_.seed), options_.participant);
  StimulusDisplay* const display = shown_.display.get();
  const double refresh_hz =
      person_ && display->window().refresh_hz() > 0 ? display->window().refresh_hz() : spec_.display.refresh_hz;
  PersonScreens screens(spec_, display, shown_.gaze.get(), keys[0], keys[1], refresh_hz,
                        synthetic_keys ? &*synthetic_keys : nullptr);
  bool quit = person_ && !screens.instructions(task_instructions(spec_.task));
  Progress progress(sequence_.planned(), !options_.quiet && Progress::stderr_is_terminal(), Progress::Output::redrawn,
                    stderr, "trial");
  while (!quit) {
    const std::optional<PlannedTrial> trial = sequence_.next();
    if (!trial || stop_signal_received() != 0) break;
    if (!take_break(screens)) {
      quit = true;
      break;
    }
    TrialRecord r = planned_record(*trial);
    if (person_) {
      if (!person_trial(screens, *trial, r)) {
        quit = true;
        break;
      }
    } else {
      simulated_trial(*trial, r);
    }
    record(r);
    progress.update(sequence_.answered());
  }
  progress.finish();
  // What the lab's set-up delivered: the age of the sample each stimulus frame used.
  if (person_ && is_eye_tracker(spec_.gaze.source))
    log.line("gaze over the stimuli this session: " + screens.latency().text());
  return log_session_end(log, session_, sequence_.answered(), quit);
}

bool DiscSession::take_break(PersonScreens& screens) {
  const int answered = sequence_.answered();
  if (person_ && spec_.task.break_every > 0 && answered_this_session_ > 0 && answered % spec_.task.break_every == 0 &&
      answered != last_break_at_) {
    last_break_at_ = answered;
    return screens.pause(sequence_.answered(), sequence_.planned());
  }
  return true;
}

TrialRecord DiscSession::planned_record(const PlannedTrial& trial) const {
  TrialRecord r;
  r.participant = options_.participant;
  r.session = std::to_string(session_);
  r.block = trial.block;
  r.trial = trial.trial;
  r.trial_in_block = trial.trial_in_block;
  r.condition = trial.condition.index;
  r.staircase = trial.condition.staircase;
  r.catch_trial = trial.condition.catch_trial;
  r.gap_deg = shown_gap_deg(trial.condition);
  r.eccentricity_deg = trial.condition.eccentricity_deg;
  r.direction_deg = trial.direction_deg;
  r.gap_interval = trial.gap_interval;
  r.other_direction_deg =
      trial.gap_interval != 0 ? trial.other_direction_deg : std::numeric_limits<double>::quiet_NaN();
  const ScreenPlacement at = place_on_screen(spec_.screen, r.eccentricity_deg, r.gap_deg);
  r.gap_px = at.gap_px;
  r.eccentricity_px = at.eccentricity_px;
  r.observer = "simulated";
  r.started_utc = now_utc();
  return r;
}

bool DiscSession::person_trial(PersonScreens& screens, const PlannedTrial& trial, TrialRecord& r) {
  std::vector<StimulusPlan> animations;
  for (const int interval : presented_intervals(spec_))
    animations.push_back(plan_interval(spec_, trial, interval, static_cast<std::uint64_t>(spec_.seed)));
  const PersonAnswer answer = screens.trial(animations);
  if (answer.quit) return false;
  r.response = answer.response;
  r.reaction_time_ms = answer.reaction_time_ms;
  r.fixation_kept = answer.fixation_kept;
  r.gaze_samples = answer.gaze_samples;
  r.gaze_max_deviation_deg = answer.gaze_max_deviation_deg;
  r.observer = "human";
  r.started_utc = answer.started_utc;
  r.stimulus_duration_s = answer.timing.duration_s;
  r.stimulus_frames = answer.timing.frames;
  r.dropped_frames = answer.timing.dropped_frames;
  if (answer.gaze_lost)
    log_->line("trial " + std::to_string(r.trial) + ": " + std::to_string(r.gaze_samples) +
               " valid gaze samples, under half the stimulus's frames: aborted, it comes again");
  if (answer.gaze_dropped > 0)
    log_->line("trial " + std::to_string(r.trial) + ": the tracker's input dropped " +
               std::to_string(answer.gaze_dropped) + " times during the stimulus (malformed or lost)");
  std::vector<std::string> messages;
  if (shown_.gaze) shown_.gaze->take_messages(messages);
  for (const std::string& m : messages) log_->line("gaze: " + m);
  return true;
}

void DiscSession::simulated_trial(const PlannedTrial& trial, TrialRecord& r) {
  if (shown_.display) {
    // Each animation at its collision: trial_000012.png, or a two-interval trial's
    // trial_000012_interval1.png and _interval2.png.
    for (const int interval : presented_intervals(spec_)) {
      const StimulusPlan stimulus = plan_interval(spec_, trial, interval, static_cast<std::uint64_t>(spec_.seed));
      shown_.display->draw(stimulus, stimulus.collision_time_s);
      char name[48];
      if (interval == 0)
        std::snprintf(name, sizeof name, "trial_%06d.png", trial.trial);
      else
        std::snprintf(name, sizeof name, "trial_%06d_interval%d.png", trial.trial, interval);
      write_png(std::filesystem::path(*options_.capture_dir) / name, shown_.display->capture());
    }
  }
  if (options_.observer_pace_ms > 0)
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options_.observer_pace_ms));
  r.response = observer_->answer(trial, attempts_[trial.trial]++);
  r.reaction_time_ms = std::numeric_limits<double>::quiet_NaN();
  r.fixation_kept = true;
  r.gaze_max_deviation_deg = std::numeric_limits<double>::quiet_NaN();
  r.gaze_samples = 0;
  r.stimulus_duration_s = std::numeric_limits<double>::quiet_NaN();
  r.stimulus_frames = 0;
  r.dropped_frames = 0;
}

void DiscSession::record(const TrialRecord& r) {
  TrialRecord ended = r;
  ended.ended_utc = now_utc();
  ended.correct = ended.gap_interval > 0 && ended.response != TrialResponse::aborted
                      ? (positive_answer(ended.response, ended.gap_interval) ? 1 : 0)
                      : -1;
  // The answer into the design first: the row holds the design's state after it (the
  // staircase's reversal, the psi's estimates).
  sequence_.record(ended);
  for (const std::string& cell : trial_record_cells(ended, columns_)) trials_->cell(std::string_view(cell));
  trials_->end_row(CsvWriter::Flush::durable);  // on the disk before the next trial starts
  if (ended.response != TrialResponse::aborted) ++answered_this_session_;
  if (ended.response == TrialResponse::aborted && ended.gaze_samples * 2 >= 1 && !std::isnan(ended.gaze_max_deviation_deg) &&
      ended.gaze_max_deviation_deg > spec_.fixation_radius_deg)
    log_->line("trial " + std::to_string(ended.trial) + " aborted: the fixation left " +
               format_significant(spec_.fixation_radius_deg) + " deg (" + format_significant(ended.gaze_max_deviation_deg) +
               " deg away); it comes again at the end of its block");
  ++answered_now_;
}

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
  // The name is a folder: results/experiments/<name>/ ("..": results/ itself).
  if (const std::string problem = folder_name_problem(spec.name); !problem.empty()) {
    std::cerr << loaded.error_at("name", problem + ": it names the experiment's folder, results/experiments/<name>/")
              << "\n";
    return kExitBadInput;
  }
  if (spec.method == DesignMethod::clip_comparison) return clip_session(options, loaded);
  std::optional<SyntheticKeys> synthetic_keys;
  if (!check_session_options(options, synthetic_keys)) return kExitBadInput;
  const bool person = !options.observer;
  if (person && options.capture_dir) {
    std::cerr << "fovea experiment: --capture draws a simulated session's stimuli; a session with a person is shown in "
                 "its window\n";
    return kExitBadInput;
  }
  PerceptionModelSettings observer_model;
  if (!load_observer_model(options, observer_model)) return kExitBadInput;
  // A person answers with keys: SDL's names, checked before anything is written.
  const bool two_interval = spec.task.kind == TaskKind::two_interval;
  const std::vector<std::pair<std::string, std::string>> key_names =
      two_interval ? std::vector<std::pair<std::string, std::string>>{{"task.first_key", spec.task.first_key},
                                                                     {"task.second_key", spec.task.second_key}}
                   : std::vector<std::pair<std::string, std::string>>{{"task.yes_key", spec.task.yes_key},
                                                                     {"task.no_key", spec.task.no_key}};
  const std::vector<SDL_Keycode> keys = answer_keys(key_names);
  if (person && !keys_known(loaded, key_names, keys, "y, n, Left, Right, Space, Return, ...")) return kExitBadInput;
  if (!stimuli_drawable(loaded)) return kExitBadInput;

  // The participant's folder: what earlier sessions left decides whether this one may start.
  EarlierSessions earlier;
  if (!read_earlier_sessions(options, spec, earlier)) return kExitBadInput;
  SessionDisplay shown;
  std::optional<DiscSession> session;
  try {
    session.emplace(options, spec, earlier, shown, observer_model);
  } catch (const ResumeMismatch& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";  // names the file and the row's line
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: " << earlier.where.trials_path.string() << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  // The window a person watches; or, for --capture, pictures of the stimuli offscreen.
  if (const int refused = open_session_display(options, loaded, synthetic_keys.has_value(), shown); refused != kExitOk)
    return refused;
  // The participant's folder once the window is open (a display refused leaves nothing
  // behind) and before the instructions: one that cannot be made is said now.
  try {
    create_folders(earlier.where.folder);
  } catch (const std::runtime_error& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return kExitFailure;
  }

  StopSignals stop_signals;
  int status = kExitOk;
  try {
    status = session->run(keys, synthetic_keys);
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return kExitFailure;
  }
  return close_session(options, synthetic_keys, status, session->session(), session->answered_now(),
                       session->answered(), earlier.where.trials_path);
}

void register_experiment_command(CLI::App& app, CommandContext& context) {
  const auto o = std::make_shared<ExperimentOptions>();
  const auto out = std::make_shared<std::string>();
  const auto observer = std::make_shared<std::string>();
  const auto capture = std::make_shared<std::string>();
  const auto synthetic_keys = std::make_shared<std::string>();
  const auto sets = std::make_shared<std::vector<std::string>>();
  CLI::App* experiment = app.add_subcommand(
      "experiment", "Run or resume a participant's session of a psychophysics experiment (docs/psychophysics.md)");
  experiment->add_option("spec", o->spec_path, "the experiment spec, configs/experiments/*.yaml")->required();
  experiment->add_option("--participant", o->participant,
                         "the participant's id (letters, digits, - _ .): their folder and every trials.csv row")
      ->required();
  experiment->add_flag("--resume", o->resume,
                       "continue the participant's session at the next trial, with the same randomisation");
  experiment->add_option("--out", *out, "the participant's folder (default results/experiments/<name>/<participant>/)");
  experiment->add_option("--observer", *observer,
                         "a perception-model YAML (configs/perception/default.yaml): a simulated observer answers "
                         "each trial with its f(e, g), so the session runs without a person or a display; without "
                         "it a person watches the window and answers with the task's keys");
  experiment->add_option("--observer-pace-ms", o->observer_pace_ms,
                         "with --observer: each trial takes this long, as a person's would (default 0)")
      ->check(CLI::Range(0.0, 600000.0));
  experiment->add_option("--capture", *capture,
                         "with --observer: draw each trial offscreen at its collision into this folder, trial_NNNNNN.png");
  experiment->add_option("--synthetic-keys", *synthetic_keys,
                         "a person's session drawn offscreen, its keys pushed into SDL's event queue from this script "
                         "when the session waits on each screen: comma-separated SCREEN:KEY, SCREEN one of "
                         "instructions, break, blank, stimulus, answer (e.g. instructions:Space,answer:y,answer:Escape); "
                         "for tests and pilots, with display.development_run: true");
  add_set_option(*experiment, *sets, "override a spec key, e.g. --set constant_stimuli.repetitions=5 (repeatable)");
  experiment->add_flag("--quiet,-q", o->quiet, "no progress line and no closing summary on stderr");
  experiment->callback([=, &context] {
    o->overrides = set_overrides(*sets);
    if (!out->empty()) o->out = *out;
    if (!observer->empty()) o->observer = *observer;
    if (!capture->empty()) o->capture_dir = *capture;
    if (!synthetic_keys->empty()) o->synthetic_keys = *synthetic_keys;
    context.exit_status = experiment_command(*o);
  });
}

}  // namespace fovea
