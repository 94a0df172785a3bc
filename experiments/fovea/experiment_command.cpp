#include "fovea/experiment_command.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <deque>
#include <map>
#include <memory>
#include <thread>

#include <unistd.h>

#include <SDL.h>

#include "config/schema.hpp"
#include "core/file_read.hpp"
#include "core/format.hpp"
#include "fovea/clip_session.hpp"
#include "fovea/run_command.hpp"
#include "fovea/session_files.hpp"
#include "fovea/stop_signals.hpp"
#include "fovea/synthetic_keys.hpp"
#include "gaze/gaze.hpp"
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

/// What a person sees and does in a session: the instructions, breaks, and each trial's
/// blank interval, stimulus (gaze-contingent with a tracker) and answer, in real time at the
/// display's refresh.
class PersonScreens {
 public:
  /// `refresh_hz`: the display's, against which dropped frames are counted. `keys`: the
  /// synthetic keys of a test or pilot, or null for a keyboard.
  PersonScreens(const ExperimentSettings& spec, StimulusDisplay* display, Gaze* gaze, SDL_Keycode yes, SDL_Keycode no,
                double refresh_hz, SyntheticKeys* keys)
      : spec_(spec), display_(display), gaze_(gaze), yes_(yes), no_(no), refresh_hz_(refresh_hz), keys_(keys),
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

  PersonAnswer trial(const StimulusPlan& plan) {
    PersonAnswer answer;
    // The blank interval, the cross alone.
    if (!for_seconds(Screen::blank, spec_.task.inter_trial_interval_s, [&] { display_->draw_fixation(); })) return quit();
    // The stimulus, with the fixation watched when a tracker gives it.
    const bool contingent = spec_.gaze.source == GazeSourceKind::pupil || spec_.gaze.source == GazeSourceKind::gazepoint;
    const double centre_x = 0.5 * spec_.screen.width_px, centre_y = 0.5 * spec_.screen.height_px;
    double deviation = 0;
    const Clock::time_point shown = Clock::now();
    answer.started_utc = now_utc();
    bool aborted = false;
    bool first_frame = true;
    std::uint64_t dropped_before = 0;
    int frames = 0;
    swap_times_s_.clear();
    while (true) {
      const double t = seconds_since(shown);
      if (t > plan.duration_s) break;
      ++frames;
      if (contingent) {
        const FrameGaze g = gaze_->at(seconds_since(start_));
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
      display_->draw(plan, t);
      display_->present();
      swap_times_s_.push_back(seconds_since(shown));
      if (pump(Screen::stimulus) == Key::quit) return quit();
    }
    if (contingent) {
      // Without valid samples for most of the stimulus nobody knows where the eyes were (a
      // lost tracker, a blink through the collision): the trial cannot count as fixated.
      if (!aborted && 2 * answer.gaze_samples < frames) {
        aborted = true;
        answer.gaze_lost = true;
      }
      answer.gaze_max_deviation_deg =
          answer.gaze_samples > 0 ? deviation : std::numeric_limits<double>::quiet_NaN();
    }
    if (aborted) {
      answer.response = TrialResponse::aborted;
      answer.fixation_kept = false;
      display_->draw_message("Please keep your eyes on the cross.");
      display_->present();
      swap_times_s_.push_back(seconds_since(shown));
      answer.timing = stimulus_timing(swap_times_s_, refresh_hz_);
      if (!for_seconds(Screen::none, 1.0, [&] { display_->draw_message("Please keep your eyes on the cross."); }))
        return quit();
      return answer;
    }
    // The answer: the cross until a key. The reaction time runs from the first frame without
    // the stimulus (its present() returned) to the key's event time (SDL's milliseconds);
    // keys pressed during the stimulus are not answers.
    display_->draw_fixation();
    display_->present();
    swap_times_s_.push_back(seconds_since(shown));
    answer.timing = stimulus_timing(swap_times_s_, refresh_hz_);
    const Uint64 ended_ms = SDL_GetTicks64();
    // What was pressed before now does not answer; Escape or closing the window still quits.
    if (pump(Screen::none) == Key::quit) return quit();
    while (true) {
      display_->draw_fixation();
      display_->present();
      const Key key = pump(Screen::answer);
      if (key == Key::quit) return quit();
      if (key == Key::yes || key == Key::no) {
        answer.response = key == Key::yes ? TrialResponse::yes : TrialResponse::no;
        answer.reaction_time_ms = static_cast<double>(last_key_ms_ >= ended_ms ? last_key_ms_ - ended_ms : 0);
        return answer;
      }
    }
  }

 private:
  using Clock = std::chrono::steady_clock;
  enum class Key { none, yes, no, space, quit };
  static double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  static PersonAnswer quit() {
    PersonAnswer a;
    a.quit = true;
    return a;
  }
  /// The events since the last call, on `screen`: the last key that matters, or quit.
  Key pump(Screen screen) {
    if (keys_ != nullptr) keys_->offer(screen);
    Key key = Key::none;
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
      if (e.type == SDL_QUIT) return Key::quit;
      if (e.type != SDL_KEYDOWN || e.key.repeat) continue;
      const SDL_Keycode k = e.key.keysym.sym;
      if (k == SDLK_ESCAPE) return Key::quit;
      if (k == yes_) key = Key::yes;
      else if (k == no_) key = Key::no;
      else if (k == SDLK_SPACE) key = Key::space;
      else continue;
      last_key_ms_ = e.key.timestamp;
    }
    return key;
  }
  template <class Draw>
  bool for_seconds(Screen screen, double seconds, Draw&& draw) {
    const Clock::time_point from = Clock::now();
    while (seconds_since(from) < seconds) {
      draw();
      display_->present();
      if (pump(screen) == Key::quit) return false;
    }
    return true;
  }
  bool wait_for_space(Screen screen, const std::string& text) {
    while (true) {
      display_->draw_message(text);
      display_->present();
      const Key key = pump(screen);
      if (key == Key::quit) return false;
      if (key == Key::space) return true;
    }
  }

  const ExperimentSettings& spec_;
  StimulusDisplay* display_;
  Gaze* gaze_;
  SDL_Keycode yes_, no_;
  double refresh_hz_;
  SyntheticKeys* keys_;
  Clock::time_point start_;
  std::vector<double> swap_times_s_;  ///< the stimulus's swaps, seconds from its start (reused)
  Uint64 last_key_ms_ = 0;  ///< SDL's event time of the last key pump() returned
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
  if (!person) {
    try {
      observer_model = config::load_perception_model_file(*options.observer);
    } catch (const config::ConfigError& e) {
      std::cerr << "--observer " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  // A person answers with keys: SDL's names, checked before anything is written.
  const SDL_Keycode yes_key = SDL_GetKeyFromName(spec.task.yes_key.c_str());
  const SDL_Keycode no_key = SDL_GetKeyFromName(spec.task.no_key.c_str());
  if (person && (yes_key == SDLK_UNKNOWN || no_key == SDLK_UNKNOWN)) {
    std::cerr << loaded.error_at(yes_key == SDLK_UNKNOWN ? "task.yes_key" : "task.no_key",
                                 "not a key name SDL knows (y, n, Left, Right, Space, Return, ...)")
              << "\n";
    return kExitBadInput;
  }

  // Every stimulus must be drawable before the first trial, not fail at trial 150: plan each
  // constant-stimuli trial, and each staircase's or psi's extremes in a few directions.
  try {
    if (spec.method == DesignMethod::constant_stimuli) {
      for (const PlannedTrial& t : plan_constant_stimuli(spec.constant_stimuli, static_cast<std::uint64_t>(spec.seed)))
        (void)plan_stimulus(spec, t, static_cast<std::uint64_t>(spec.seed));
    } else {
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
    }
  } catch (const std::exception& e) {
    std::cerr << loaded.error_at("stimulus.entities", e.what()) << "\n";
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
  if (!done.empty() && !std::filesystem::exists(folder / "experiment.yaml")) {
    std::cerr << "fovea experiment: " << folder.string()
              << " holds trials but no experiment.yaml: without the spec they were run with, a resumed session "
                 "cannot be checked to keep its design\n";
    return kExitBadInput;
  }
  if (options.resume && !done.empty()) {
    std::string before;
    try {
      before = read_regular_file((folder / "experiment.yaml").string(), kMaxConfigFileBytes, "experiment");
    } catch (const std::exception& e) {
      std::cerr << "fovea experiment: --resume: " << e.what() << "\n";
      return kExitBadInput;
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

  // The window a person watches; or, for --capture, pictures of the stimuli offscreen.
  std::unique_ptr<StimulusDisplay> display;
  std::unique_ptr<Gaze> gaze;
  if (person) {
    // Synthetic keys draw offscreen: the same frames and events, no display needed.
    int refused = kExitOk;
    display = open_person_display(loaded, synthetic_keys.has_value(), "trials", refused);
    if (!display) return refused;
    try {
      // Only a tracker's gaze is read (the trials are gaze-contingent); the fixation is the
      // cross's otherwise, wherever the other sources would put it.
      if (spec.gaze.source == GazeSourceKind::pupil || spec.gaze.source == GazeSourceKind::gazepoint)
        gaze = std::make_unique<Gaze>(spec.gaze, spec.screen, static_cast<std::uint64_t>(spec.seed), with_trackers({}));
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
      display = std::make_unique<StimulusDisplay>(spec, DisplayMode::offscreen);
    } catch (const std::exception& e) {
      std::cerr << "fovea experiment: --capture " << *options.capture_dir << ": " << e.what() << "\n";
      return kExitFailure;
    }
  }

  // The participant's folder once the window is open (a display refused leaves nothing
  // behind) and before the instructions: one that cannot be made is said now.
  try {
    create_folders(folder);
  } catch (const std::runtime_error& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return kExitFailure;
  }

  StopSignals stop_signals;
  int status = kExitOk;
  int answered_now = 0;
  try {
    // The spec of the trials: written again while the folder holds none (a session that
    // ended before its first trial leaves no design behind to keep).
    if (done.empty()) write_file_atomically(folder / "experiment.yaml", resolved);
    // The data dictionary beside the trials, for a lab's pipeline (BIDS's sidecar).
    write_file_atomically(folder / "trials.json", trial_records_sidecar_json());
    SessionLog log(folder / "session.log");
    CsvWriter trials(trials_path.string(), trial_record_header(), CsvWriter::Open::append);
    log.line("session " + std::to_string(session) + " of participant " + options.participant + " started" +
             (done.empty() ? "" : ", resuming after " + std::to_string(done.size()) + " trials") +
             (person ? ", a person at the window" : ", simulated observer " + *options.observer));
    if (person)
      log.line("display: " + display->window().description() + ", " + std::to_string(display->window().width_px()) +
               " x " + std::to_string(display->window().height_px()) + " pixels, refresh " +
               std::to_string(display->window().refresh_hz()) + " Hz, vsync " + (display->window().vsync() ? "on" : "off"));
    if (person && spec.display.development_run)
      log.line("development run (display.development_run): the trials' timing is not held to the spec; not data");
    if (synthetic_keys) log.line("keys from --synthetic-keys, drawn offscreen");
    const SimulatedObserver observer(observer_model, static_cast<std::uint64_t>(spec.seed), options.participant);
    const double refresh_hz =
        person && display->window().refresh_hz() > 0 ? display->window().refresh_hz() : spec.display.refresh_hz;
    PersonScreens screens(spec, display.get(), gaze.get(), yes_key, no_key, refresh_hz,
                          synthetic_keys ? &*synthetic_keys : nullptr);
    bool quit = person && !screens.instructions(spec.task.instructions);
    int answered_this_session = 0;
    int last_break_at = 0;
    Progress progress(sequence->planned(), !options.quiet && Progress::stderr_is_terminal(), Progress::Output::redrawn,
                      stderr, "trial");
    while (!quit) {
      const std::optional<PlannedTrial> trial = sequence->next();
      if (!trial || stop_signal_received() != 0) break;
      // A break every break_every answers (once at each count: an aborted trial does not
      // bring the same break back), none before this session's first trial.
      // Breaks fall on the design's count (a resumed session keeps the blocks' rhythm).
      const int answered = sequence->answered();
      if (person && spec.task.break_every > 0 && answered_this_session > 0 && answered % spec.task.break_every == 0 &&
          answered != last_break_at) {
        last_break_at = answered;
        if (!screens.pause(sequence->answered(), sequence->planned())) {
          quit = true;
          break;
        }
      }
      TrialRecord r;
      r.participant = options.participant;
      r.session = std::to_string(session);
      r.block = trial->block;
      r.trial = trial->trial;
      r.trial_in_block = trial->trial_in_block;
      r.condition = trial->condition.index;
      r.staircase = trial->condition.staircase;
      r.catch_trial = trial->condition.catch_trial;
      r.gap_deg = shown_gap_deg(trial->condition);
      r.eccentricity_deg = trial->condition.eccentricity_deg;
      r.direction_deg = trial->direction_deg;
      const ScreenPlacement at = place_on_screen(spec.screen, r.eccentricity_deg, r.gap_deg);
      r.gap_px = at.gap_px;
      r.eccentricity_px = at.eccentricity_px;
      r.observer = "simulated";
      r.started_utc = now_utc();
      if (person) {
        const StimulusPlan stimulus = plan_stimulus(spec, *trial, static_cast<std::uint64_t>(spec.seed));
        const PersonAnswer answer = screens.trial(stimulus);
        if (answer.quit) {
          quit = true;  // the trial shown is not recorded: --resume shows it again
          break;
        }
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
          log.line("trial " + std::to_string(r.trial) + ": " + std::to_string(r.gaze_samples) +
                   " valid gaze samples, under half the stimulus's frames: aborted, it comes again");
        if (answer.gaze_dropped > 0)
          log.line("trial " + std::to_string(r.trial) + ": the tracker's input dropped " +
                   std::to_string(answer.gaze_dropped) + " times during the stimulus (malformed or lost)");
        std::vector<std::string> messages;
        if (gaze) gaze->take_messages(messages);
        for (const std::string& m : messages) log.line("gaze: " + m);
      } else if (display) {
        const StimulusPlan stimulus = plan_stimulus(spec, *trial, static_cast<std::uint64_t>(spec.seed));
        display->draw(stimulus, stimulus.collision_time_s);
        char name[32];
        std::snprintf(name, sizeof name, "trial_%06d.png", trial->trial);
        write_png(std::filesystem::path(*options.capture_dir) / name, display->capture());
      }
      if (!person) {
        if (options.observer_pace_ms > 0)
          std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.observer_pace_ms));
        r.response = observer.answer(*trial, attempts[trial->trial]++);
        r.reaction_time_ms = std::numeric_limits<double>::quiet_NaN();
        r.fixation_kept = true;
        r.gaze_max_deviation_deg = std::numeric_limits<double>::quiet_NaN();
        r.gaze_samples = 0;
        r.stimulus_duration_s = std::numeric_limits<double>::quiet_NaN();
        r.stimulus_frames = 0;
        r.dropped_frames = 0;
      }
      r.ended_utc = now_utc();
      for (const std::string& cell : trial_record_cells(r)) trials.cell(std::string_view(cell));
      trials.end_row(CsvWriter::Flush::durable);  // on the disk before the next trial starts
      sequence->record(r.response);
      if (r.response != TrialResponse::aborted) ++answered_this_session;
      if (r.response == TrialResponse::aborted && r.gaze_samples * 2 >= 1 && !std::isnan(r.gaze_max_deviation_deg) &&
          r.gaze_max_deviation_deg > spec.fixation_radius_deg)
        log.line("trial " + std::to_string(r.trial) + " aborted: the fixation left " +
                 format_significant(spec.fixation_radius_deg) + " deg (" + format_significant(r.gaze_max_deviation_deg) +
                 " deg away); it comes again at the end of its block");
      ++answered_now;
      progress.update(sequence->answered());
    }
    progress.finish();
    if (quit) {
      log.line("session " + std::to_string(session) + " ended by the participant (Escape or the window closed) after " +
               std::to_string(sequence->answered()) + " trials; --resume continues it");
    } else if (stop_signal_received() != 0) {
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
  if (synthetic_keys && synthetic_keys->left() > 0) {
    std::cerr << "fovea experiment: --synthetic-keys: the session ended with " << synthetic_keys->left()
              << " keys not pushed (next: " << synthetic_keys->next() << ")\n";
    if (status == kExitOk) status = kExitFailure;
  }
  if (!options.quiet)
    std::cerr << "fovea experiment: participant " << options.participant << ", session " << session << ": "
              << answered_now << " trials this session, " << sequence->answered() << " in all -> "
              << trials_path.string() << "\n";
  return status;
}

}  // namespace fovea
