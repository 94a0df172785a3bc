#include "fovea/clip_session.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <SDL.h>

#include "core/file_read.hpp"
#include "core/format.hpp"
#include "fovea/clip_window.hpp"
#include "fovea/exit_status.hpp"
#include "fovea/session_files.hpp"
#include "fovea/stop_signals.hpp"
#include "fovea/synthetic_keys.hpp"
#include "gaze/borrowed_gaze.hpp"
#include "gaze/gaze_latency.hpp"
#include "perception/perception_model.hpp"
#include "psychophysics/clip_design.hpp"
#include "psychophysics/clip_records.hpp"
#include "psychophysics/clip_run.hpp"
#include "record/csv_writer.hpp"
#include "record/progress.hpp"
#include "record/results_folder.hpp"
#include "render/gl_window.hpp"
#include "render/stimulus_display.hpp"
#include "schedule/scheduler.hpp"
#include "trackers/trackers.hpp"

namespace fovea {
namespace {

/// A scene as the clips run it: its config, seen on the spec's screen from the spec's
/// fixation.
struct LoadedScene {
  config::LoadedConfig config;
  int clip_frames = 1;
};

/// The two clips of a trial (yes/no: the one shown) as they run.
struct TrialClips {
  ClipRunSettings test;
  std::optional<ClipRunSettings> reference;  ///< 2IFC only
  bool shows_reference = false;              ///< yes/no: the clip shown is the reference's
};

TrialClips clips_of(const ExperimentSettings& spec, const LoadedScene& scene, const ClipTrial& trial) {
  const ClipComparisonSettings& design = spec.clip_comparison;
  ClipRunSettings base;
  base.world = scene.config.settings;
  base.demo = scene.config.settings.demo;
  base.world.perception.view.screen = spec.screen;
  base.world_seed = trial.world_seed;
  base.warmup_frames = design.warmup_frames;
  base.clip_frames = scene.clip_frames;
  // The reference: full resolution with the scene's own scheduler, or the reference
  // scheduler at the trial's budget.
  ClipRunSettings reference = base;
  reference.scheduler = design.reference == ClipReference::full ? base.world.schedule.kind : design.reference_scheduler;
  reference.budget_tests = design.reference == ClipReference::full ? 0 : trial.condition.budget_tests;
  TrialClips clips;
  if (trial.condition.reference_clip) {
    clips.test = reference;
    clips.shows_reference = true;
    return clips;
  }
  clips.test = base;
  clips.test.scheduler = trial.condition.scheduler;
  clips.test.budget_tests = trial.condition.budget_tests;
  if (design.task == ClipTask::two_interval) clips.reference = reference;
  return clips;
}

bool tracked(const ExperimentSettings& spec) {
  return is_eye_tracker(spec.gaze.source);
}

/// Where the clips' scheduler takes the fixation from: a person's tracker, live, each frame
/// (gaze-contingent clips); otherwise the cross at the screen's centre, where the viewer is
/// told to look (a fixed gaze.x_px, y_px elsewhere would be a point nobody looks at).
GazeSettings clip_gaze(const ExperimentSettings& spec, bool person) {
  if (person && tracked(spec)) return spec.gaze;
  GazeSettings gaze;
  gaze.source = GazeSourceKind::fixed;
  gaze.x_px = 0.5 * spec.screen.width_px;
  gaze.y_px = 0.5 * spec.screen.height_px;
  return gaze;
}

/// Clips already played this session, by what makes them: a simulated session plays the
/// same reference clip for every cell of a repetition, and it is deterministic.
using ClipKey = std::tuple<std::string, std::uint64_t, int, std::int64_t>;

/// The scenes, each as its clips will run it: seen on the spec's screen, from the cross, for
/// clip_s. False, said on stderr against the scene's file, when one cannot be loaded.
bool load_scenes(const config::LoadedExperiment& loaded, bool person, std::vector<LoadedScene>& scenes) {
  const ExperimentSettings& spec = loaded.spec;
  const ClipComparisonSettings& design = spec.clip_comparison;
  for (std::size_t i = 0; i < design.scenes.size(); ++i) {
    LoadedScene scene;
    try {
      scene.config = config::load_config_file(design.scenes[i].file, std::vector<config::Override>{});
    } catch (const std::exception& e) {
      std::cerr << loaded.error_at("clip_comparison.scenes[" + std::to_string(i) + "].file", e.what()) << "\n";
      return false;
    }
    scene.config.settings.gaze = clip_gaze(spec, person);
    scene.clip_frames =
        std::max(1, static_cast<int>(std::lround(design.clip_s / scene.config.settings.world.time_step_s)));
    scenes.push_back(std::move(scene));
  }
  return true;
}

/// What the participant's folder holds of earlier sessions, which decides whether this one
/// may start.
struct EarlierClips {
  SessionFolder where;
  std::vector<ClipTrialRecord> done;
  std::int64_t session = 1;           ///< this session's number: one past the last recorded
};

/// Reads trials.csv and checks it: only with --resume when it holds trials, run with the
/// spec given (experiment.yaml), each row the trial this spec and participant plan there
/// (check_resumed_clip_records, with each of `scenes`' own scheduler). False, said on stderr,
/// when not.
bool read_earlier_clips(const ExperimentOptions& options, const ExperimentSettings& spec,
                        const std::vector<LoadedScene>& scenes, const std::vector<ClipTrial>& plan,
                        EarlierClips& earlier) {
  earlier.where = session_folder(options, spec);
  const std::filesystem::path& folder = earlier.where.folder;
  const std::vector<ClipTrialRecord>& done = earlier.done;
  const auto read = [](const std::string& path) { return read_clip_records(path); };
  if (!read_trials_before(options, earlier.where, read, earlier.done)) return false;
  if (!done.empty()) {
    std::string before;
    try {
      before = read_regular_file((folder / "experiment.yaml").string(), kMaxConfigFileBytes, "experiment");
    } catch (const std::exception& e) {
      std::cerr << "fovea experiment: --resume: " << folder.string()
                << " holds trials, and its experiment.yaml cannot be read: " << e.what() << "\n";
      return false;
    }
    if (!spec_kept(folder, before, earlier.where.resolved_spec)) return false;
  }
  // Each row must be the trial the design had there, every cell in its column's domain: a
  // file of another spec or seed, or an edited row, is refused, naming the field.
  std::vector<SchedulerKind> scene_schedulers;
  for (const LoadedScene& scene : scenes) scene_schedulers.push_back(scene.config.settings.schedule.kind);
  try {
    earlier.session = check_resumed_clip_records(done, spec.clip_comparison, plan, scene_schedulers,
                                                 options.participant, earlier.where.trials_path.string());
  } catch (const std::runtime_error& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return false;
  }
  return true;
}

/// A clip comparison's session once everything is checked and open: trial after trial, each
/// appended to trials.csv on the disk before the next (a person's clips' frames to
/// clip_frames.csv), until the plan is done, the person quits or a signal stops it.
class ClipSession {
 public:
  ClipSession(const ExperimentOptions& options, const ExperimentSettings& spec, const std::vector<LoadedScene>& scenes,
              const std::vector<ClipTrial>& plan, const EarlierClips& earlier, const PerceptionModel& observer_f)
      : options_(options), spec_(spec), design_(spec.clip_comparison), scenes_(scenes), plan_(plan), earlier_(earlier),
        observer_f_(observer_f), person_(!options.observer), two_interval_(design_.task == ClipTask::two_interval),
        observer_(static_cast<std::uint64_t>(spec.seed), options.participant) {}

  int answered_now() const { return answered_now_; }

  /// The whole session on `display` (a person's; null for a simulated observer), a person
  /// answering with `keys` or `synthetic_keys` standing in for them. Returns the exit status;
  /// throws when a record cannot be written.
  int run(StimulusDisplay* display, const std::vector<SDL_Keycode>& keys, std::optional<SyntheticKeys>& synthetic_keys);

 private:
  /// The session's files: experiment.yaml (first session), trials.json, session.log with its
  /// opening lines, trials.csv and a person's clip_frames.csv.
  void open_records(StimulusDisplay* display, const std::optional<SyntheticKeys>& synthetic_keys);
  /// The record of trial `t` of `clips` before it is run: what the plan makes it.
  ClipTrialRecord planned_record(const ClipTrial& t, const TrialClips& clips) const;
  /// A person's trial into `r`: the cross, the clips in the trial's order with the cross
  /// between, then the question; shown again from its first clip while the fixation strays.
  /// False when the person quits (the trial is left unrecorded: --resume shows it again).
  bool person_trial(ClipWindow& window, const ClipTrial& t, const TrialClips& clips, ClipTrialRecord& r);
  /// A person's tracker, one connection for the whole session: each clip's world borrows it
  /// (gaze/borrowed_gaze.hpp), so samples flow across clips and blanks and the tracker's
  /// status reaches session.log once. Nothing without a tracker.
  void open_tracker();
  /// The tracker's status messages since the last call, to session.log.
  void log_tracker_messages();
  /// One clip on the screen after the blank of `blank_s` before it, its timings to
  /// clip_frames.csv and the record: 1 shown, 0 not counted (with a tracker: the fixation
  /// strayed, or valid samples on under half its frames), -1 the person quit.
  int show(ClipWindow& window, const ClipRunSettings& clip, double blank_s, const char* which, std::int64_t trial,
           ClipSeen& seen, double& duration_s, std::int64_t& dropped);
  /// A simulated observer's trial into `r`: the clips played (each once a session) and answered.
  void simulated_trial(const ClipTrial& t, const TrialClips& clips, ClipTrialRecord& r);
  /// `clip` of `scene` played, or as it was played before this session.
  ClipSeen play(const ClipRunSettings& clip, int scene);

  const ExperimentOptions& options_;
  const ExperimentSettings& spec_;
  const ClipComparisonSettings& design_;
  const std::vector<LoadedScene>& scenes_;
  const std::vector<ClipTrial>& plan_;
  const EarlierClips& earlier_;
  const PerceptionModel& observer_f_;
  bool person_;
  bool two_interval_;
  std::unique_ptr<GazeSource> tracker_;  ///< a person's tracker, the session's one connection
  GazeEnvironment gaze_environment_;     ///< what each clip's world takes its gaze from
  ClipObserver observer_;
  std::optional<SessionLog> log_;
  std::optional<CsvWriter> trials_;
  std::unique_ptr<CsvWriter> frames_;  ///< a person's clips, frame by frame: clip_frames.csv
  std::map<ClipKey, ClipSeen> played_;
  int attempt_ = 0;             ///< of the trial on the screen, from 0
  double deviation_deg_ = 0;    ///< the last clip's largest gaze deviation from the cross
  GazeLatency latency_;         ///< how the tracker's gaze arrived over the clips' frames
  ClipTiming last_timing_;      ///< the last clip's, for the log when it does not count
  bool slow_warmup_said_ = false;
  std::vector<std::string> messages_;  ///< scratch: the tracker's status messages
  int answered_now_ = 0;
};

void ClipSession::open_records(StimulusDisplay* display, const std::optional<SyntheticKeys>& synthetic_keys) {
  const std::filesystem::path& folder = earlier_.where.folder;
  const std::size_t done = earlier_.done.size();
  if (done == 0) write_file_atomically(folder / "experiment.yaml", earlier_.where.resolved_spec);
  // The data dictionary beside the trials, for a lab's pipeline (BIDS's sidecar).
  write_file_atomically(folder / "trials.json", clip_records_sidecar_json());
  SessionLog& log = log_.emplace(folder / "session.log");
  trials_.emplace(earlier_.where.trials_path.string(), clip_record_header(), CsvWriter::Open::append);
  log.line("session " + std::to_string(earlier_.session) + " of participant " + options_.participant +
           " started, clip comparison" + (done == 0 ? "" : ", resuming after " + std::to_string(done) + " trials") +
           (person_ ? ", a person at the window" : ", simulated observer " + *options_.observer));
  if (person_ && spec_.display.development_run)
    log.line("a development run (display.development_run): a pilot or test, not data");
  if (synthetic_keys) log.line("keys from --synthetic-keys, drawn offscreen");
  if (person_) log.line(display_log_line(*display));
  if (person_)
    if (const std::string kept = keep_display_table(folder, earlier_.session, *display); !kept.empty()) log.line(kept);
  if (person_)
    frames_ = std::make_unique<CsvWriter>((folder / "clip_frames.csv").string(),
                                          std::vector<std::string>{"participant", "session", "trial", "attempt", "clip",
                                                                   "frame", "t_ms", "dropped"},
                                          CsvWriter::Open::append);
}

void ClipSession::open_tracker() {
  if (!person_ || !tracked(spec_)) return;
  // The spec's gaze settings are the clips' (clip_gaze), checked when the spec was loaded.
  tracker_ = make_tracker_source(spec_.gaze, spec_.screen);
  gaze_environment_.make_tracker = [source = tracker_.get()](const GazeSettings&, const ScreenSettings&) {
    return std::unique_ptr<GazeSource>(std::make_unique<BorrowedGazeSource>(*source));
  };
  log_->line(std::string("one ") + gaze_source_name(spec_.gaze.source) +
             " tracker connection for the session, borrowed by each clip's world");
}

void ClipSession::log_tracker_messages() {
  if (!tracker_) return;
  tracker_->take_messages(messages_);
  for (const std::string& m : messages_) log_->line("gaze: " + m);
  messages_.clear();
}

int ClipSession::run(StimulusDisplay* display, const std::vector<SDL_Keycode>& keys,
                     std::optional<SyntheticKeys>& synthetic_keys) {
  open_records(display, synthetic_keys);
  open_tracker();
  ClipWindow window(spec_, display, keys, synthetic_keys ? &*synthetic_keys : nullptr);
  bool quit =
      person_ && !window.wait_for_space(Screen::instructions, spec_.task.instructions + "\n\nPress Space to start.");
  int answered_this_session = 0;
  Progress progress(static_cast<std::int64_t>(plan_.size()), !options_.quiet && Progress::stderr_is_terminal(),
                    Progress::Output::redrawn, stderr, "trial");
  for (std::size_t i = earlier_.done.size(); i < plan_.size() && !quit; ++i) {
    if (stop_signal_received() != 0) break;
    const ClipTrial& t = plan_[i];
    if (person_ && spec_.task.break_every > 0 && answered_this_session > 0 &&
        i % static_cast<std::size_t>(spec_.task.break_every) == 0 &&
        !window.wait_for_space(Screen::pause, "Break. " + std::to_string(i) + " of " + std::to_string(plan_.size()) +
                                                  " trials done.\n\nPress Space when you are ready to go on.")) {
      quit = true;
      break;
    }
    const TrialClips clips = clips_of(spec_, scenes_[static_cast<std::size_t>(t.condition.scene)], t);
    ClipTrialRecord r = planned_record(t, clips);
    if (person_) {
      const bool answered = person_trial(window, t, clips, r);
      log_tracker_messages();
      if (!answered) {
        quit = true;
        break;
      }
    } else {
      simulated_trial(t, clips, r);
    }
    if (options_.observer_pace_ms > 0)
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options_.observer_pace_ms));
    r.ended_utc = now_utc();
    for (const std::string& cell : clip_record_cells(r)) trials_->cell(std::string_view(cell));
    trials_->end_row(CsvWriter::Flush::durable);  // on the disk before the next trial starts
    ++answered_now_;
    ++answered_this_session;
    progress.update(static_cast<std::int64_t>(i + 1));
  }
  progress.finish();
  // What the lab's set-up delivered over the clips' frames (docs/gaze.md, "Latency").
  if (tracker_) log_->line("gaze over the clips this session: " + latency_.text());
  const auto answered = static_cast<std::int64_t>(earlier_.done.size()) + answered_now_;
  return log_session_end(*log_, earlier_.session, answered, quit);
}

ClipTrialRecord ClipSession::planned_record(const ClipTrial& t, const TrialClips& clips) const {
  // The plan's cells, by the rule a resumed session checks them with.
  const LoadedScene& scene = scenes_[static_cast<std::size_t>(t.condition.scene)];
  ClipTrialRecord r = planned_clip_record(design_, t, scene.config.settings.schedule.kind);
  if (r.scheduler != scheduler_name(clips.test.scheduler) || r.budget_tests != clips.test.budget_tests)
    throw std::logic_error("trial " + std::to_string(t.trial) + ": the record's clip is not the clip run");
  r.participant = options_.participant;
  r.session = earlier_.session;
  r.observer = person_ ? "human" : "simulated";
  r.started_utc = now_utc();
  return r;
}

int ClipSession::show(ClipWindow& window, const ClipRunSettings& clip, double blank_s, const char* which,
                      std::int64_t trial, ClipSeen& seen, double& duration_s, std::int64_t& dropped) {
  // The clip's world is built and warmed up with the cross on the screen, inside the blank
  // before it: the blank lasts blank_s unless the warm-up alone takes longer (said once).
  window.show_cross();
  const auto building = std::chrono::steady_clock::now();
  ClipPlayer player(clip, observer_f_, gaze_environment_);
  const double built_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - building).count();
  if (built_s > blank_s && !slow_warmup_said_) {
    log_->line("a clip's world took " + format_significant(built_s, 3) + " s to build and warm up, longer than the " +
               format_significant(blank_s, 3) + " s blank before it: that blank was longer (said once)");
    slow_warmup_said_ = true;
  }
  if (!window.fixation(std::max(0.0, blank_s - built_s))) return -1;
  ClipTiming& timing = last_timing_;
  if (!window.show(player, person_ && tracked(spec_), timing, &latency_)) return -1;
  for (std::size_t f = 0; f < timing.frame_ms.size(); ++f) {
    for (const std::string& cell : {options_.participant, std::to_string(earlier_.session), std::to_string(trial),
                                    std::to_string(attempt_), std::string(which), std::to_string(f),
                                    format_number(timing.frame_ms[f]), std::string(timing.dropped[f] ? "1" : "0")})
      frames_->cell(std::string_view(cell));
    frames_->end_row(CsvWriter::Flush::later);
  }
  deviation_deg_ = timing.deviation_deg;
  if (timing.fixation_broken || timing.gaze_lost) return 0;
  seen = player.finish();
  duration_s = timing.duration_s;
  dropped = timing.dropped_frames;
  return 1;
}

bool ClipSession::person_trial(ClipWindow& window, const ClipTrial& t, const TrialClips& clips, ClipTrialRecord& r) {
  ClipSeen seen_test, seen_reference;
  const bool test_first = t.test_first || !two_interval_;
  const double blank_s = spec_.task.inter_trial_interval_s;
  const auto show_test = [&] {
    return show(window, clips.test, blank_s, clips.shows_reference ? "reference" : "test", t.trial, seen_test,
                r.duration_test_s, r.dropped_test);
  };
  const auto show_reference = [&] {
    return show(window, *clips.reference, blank_s, "reference", t.trial, seen_reference, r.duration_reference_s,
                r.dropped_reference);
  };
  // A clip stopped for a fixation that strayed is logged, and the trial shown again from its
  // first clip (the same clips: they are deterministic).
  int shown = 0;
  for (attempt_ = 0; shown == 0; ++attempt_) {
    shown = test_first ? show_test() : show_reference();
    if (shown == 1 && two_interval_) shown = test_first ? show_reference() : show_test();
    if (shown == 0 && last_timing_.fixation_broken) {
      log_->line("trial " + std::to_string(t.trial) + ": the fixation left " + format_significant(spec_.fixation_radius_deg) +
                 " deg during a clip (" + format_significant(deviation_deg_) + " deg away); it is shown again");
      if (!window.message("Please keep your eyes on the cross.", 1.0)) shown = -1;
    } else if (shown == 0) {
      // As a disc trial's: without valid samples for most of the clip nobody knows where the
      // eyes were (a lost tracker, a long blink), so the clip cannot count as fixated.
      log_->line("trial " + std::to_string(t.trial) + ": " + std::to_string(last_timing_.valid_gaze_frames) + " of " +
                 std::to_string(last_timing_.gaze_frames) +
                 " frames of a clip had a valid gaze sample, under half: it is shown again");
      log_tracker_messages();
    }
  }
  double reaction_time_ms = 0;
  const std::string question =
      two_interval_ ? "Which clip looked wrong?\n\nPress " + design_.first_key + " for the first, " + design_.second_key +
                          " for the second."
                    : "Did you see an error?\n\nPress " + spec_.task.yes_key + " for yes, " + spec_.task.no_key + " for no.";
  const int key = shown == 1 ? window.answer(question, reaction_time_ms) : -1;
  if (key < 0) return false;
  r.reaction_time_ms = reaction_time_ms;
  if (clips.shows_reference) {
    std::swap(r.duration_test_s, r.duration_reference_s);
    std::swap(r.dropped_test, r.dropped_reference);
  }
  if (two_interval_) {
    r.p_test = seen_test.p_seen;
    r.p_reference = seen_reference.p_seen;
    r.episodes_test = seen_test.episodes;
    r.episodes_reference = seen_reference.episodes;
    r.response = key == 0 ? "first" : "second";
    r.noticed = (key == 0) == t.test_first ? 1 : 0;
  } else {
    (clips.shows_reference ? r.p_reference : r.p_test) = seen_test.p_seen;
    (clips.shows_reference ? r.episodes_reference : r.episodes_test) = seen_test.episodes;
    r.response = key == 0 ? "yes" : "no";
    r.noticed = key == 0 ? 1 : 0;
  }
  frames_->flush(true);  // the clips' frames on the disk with the trial
  return true;
}

ClipSeen ClipSession::play(const ClipRunSettings& clip, int scene) {
  const ClipKey key{design_.scenes[static_cast<std::size_t>(scene)].name, clip.world_seed, static_cast<int>(clip.scheduler),
                    clip.budget_tests};
  const auto found = played_.find(key);
  if (found != played_.end()) return found->second;
  const ClipSeen seen = play_clip(clip, observer_f_);
  played_.emplace(key, seen);
  return seen;
}

void ClipSession::simulated_trial(const ClipTrial& t, const TrialClips& clips, ClipTrialRecord& r) {
  const ClipSeen test = play(clips.test, t.condition.scene);
  if (two_interval_) {
    const ClipSeen reference = play(*clips.reference, t.condition.scene);
    r.p_test = test.p_seen;
    r.p_reference = reference.p_seen;
    r.episodes_test = test.episodes;
    r.episodes_reference = reference.episodes;
    const ClipChoice choice = t.test_first ? observer_.two_interval(test.p_seen, reference.p_seen, t.trial, 0)
                                           : observer_.two_interval(reference.p_seen, test.p_seen, t.trial, 0);
    r.response = choice == ClipChoice::first ? "first" : "second";
    r.noticed = (choice == ClipChoice::first) == t.test_first ? 1 : 0;
    return;
  }
  (clips.shows_reference ? r.p_reference : r.p_test) = test.p_seen;
  (clips.shows_reference ? r.episodes_reference : r.episodes_test) = test.episodes;
  const bool yes = observer_.yes_no(test.p_seen, t.trial, 0);
  r.response = yes ? "yes" : "no";
  r.noticed = yes ? 1 : 0;
}

}  // namespace

int clip_session(const ExperimentOptions& options, const config::LoadedExperiment& loaded) {
  const ExperimentSettings& spec = loaded.spec;
  const ClipComparisonSettings& design = spec.clip_comparison;
  std::optional<SyntheticKeys> synthetic_keys;
  if (!check_session_options(options, synthetic_keys)) return kExitBadInput;
  if (options.capture_dir) {
    std::cerr << "fovea experiment: --capture draws disc stimuli; a clip comparison's clips are scenes (fovea run "
                 "--capture draws them)\n";
    return kExitBadInput;
  }
  const bool person = !options.observer;
  // A person answers with keys: SDL's names, checked before anything is written.
  const bool two_interval = design.task == ClipTask::two_interval;
  const std::vector<std::pair<std::string, std::string>> key_names =
      two_interval ? std::vector<std::pair<std::string, std::string>>{{"clip_comparison.first_key", design.first_key},
                                                                      {"clip_comparison.second_key", design.second_key}}
                   : std::vector<std::pair<std::string, std::string>>{{"task.yes_key", spec.task.yes_key},
                                                                      {"task.no_key", spec.task.no_key}};
  const std::vector<SDL_Keycode> keys = answer_keys(key_names);
  if (person && !keys_known(loaded, key_names, keys, "1, 2, y, n, Left, Right, ...")) return kExitBadInput;
  // The model whose P the records give each clip: the simulated observer's, or for a person
  // the default perception model (configs/perception/default.yaml's values).
  PerceptionModelSettings observer_model;
  if (!load_observer_model(options, observer_model)) return kExitBadInput;
  const PerceptionModel observer_f(observer_model);

  std::vector<LoadedScene> scenes;
  if (!load_scenes(loaded, person, scenes)) return kExitBadInput;
  const std::vector<ClipTrial> plan = plan_clip_trials(design, static_cast<std::uint64_t>(spec.seed));
  // The participant's folder: what earlier sessions left decides whether this one may start.
  EarlierClips earlier;
  if (!read_earlier_clips(options, spec, scenes, plan, earlier)) return kExitBadInput;

  std::unique_ptr<StimulusDisplay> display;
  if (person) {
    // Synthetic keys draw offscreen: the same frames and events, no display needed.
    int refused = kExitOk;
    display = open_person_display(loaded, synthetic_keys.has_value(), "clips", refused);
    if (!display) return refused;
  }
  // The participant's folder once the window is open: a display refused leaves nothing behind.
  try {
    create_folders(earlier.where.folder);
  } catch (const std::runtime_error& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return kExitFailure;
  }
  ClipSession session(options, spec, scenes, plan, earlier, observer_f);

  StopSignals stop_signals;
  int status = kExitOk;
  try {
    status = session.run(display.get(), keys, synthetic_keys);
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return kExitFailure;
  }
  return close_session(options, synthetic_keys, status, earlier.session, session.answered_now(),
                       static_cast<std::int64_t>(earlier.done.size()) + session.answered_now(), earlier.where.trials_path);
}

}  // namespace fovea
