#include "fovea/clip_session.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include <SDL.h>

#include "core/file_read.hpp"
#include "core/format.hpp"
#include "fovea/clip_window.hpp"
#include "fovea/run_command.hpp"
#include "fovea/session_files.hpp"
#include "fovea/stop_signals.hpp"
#include "fovea/synthetic_keys.hpp"
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
  return spec.gaze.source == GazeSourceKind::pupil || spec.gaze.source == GazeSourceKind::gazepoint;
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

std::string reference_name(const ClipComparisonSettings& design) {
  return design.reference == ClipReference::full ? "full" : scheduler_name(design.reference_scheduler);
}

/// Clips already played this session, by what makes them: a simulated session plays the
/// same reference clip for every cell of a repetition, and it is deterministic.
using ClipKey = std::tuple<std::string, std::uint64_t, int, std::int64_t>;

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
  const std::string first_key_path = two_interval ? "clip_comparison.first_key" : "task.yes_key";
  const std::string second_key_path = two_interval ? "clip_comparison.second_key" : "task.no_key";
  const SDL_Keycode first_key = SDL_GetKeyFromName((two_interval ? design.first_key : spec.task.yes_key).c_str());
  const SDL_Keycode second_key = SDL_GetKeyFromName((two_interval ? design.second_key : spec.task.no_key).c_str());
  if (person && (first_key == SDLK_UNKNOWN || second_key == SDLK_UNKNOWN)) {
    std::cerr << loaded.error_at(first_key == SDLK_UNKNOWN ? first_key_path : second_key_path,
                                 "not a key name SDL knows (1, 2, y, n, Left, Right, ...)")
              << "\n";
    return kExitBadInput;
  }
  // The model whose P the records give each clip: the simulated observer's, or for a person
  // the default perception model (configs/perception/default.yaml's values).
  PerceptionModelSettings observer_model;
  if (!person) {
    try {
      observer_model = config::load_perception_model_file(*options.observer);
    } catch (const config::ConfigError& e) {
      std::cerr << "--observer " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  const PerceptionModel observer_f(observer_model);

  // The scenes, each as its clips will run it.
  std::vector<LoadedScene> scenes;
  for (std::size_t i = 0; i < design.scenes.size(); ++i) {
    LoadedScene scene;
    try {
      scene.config = config::load_config_file(design.scenes[i].file, std::vector<config::Override>{});
    } catch (const std::exception& e) {
      std::cerr << loaded.error_at("clip_comparison.scenes[" + std::to_string(i) + "].file", e.what()) << "\n";
      return kExitBadInput;
    }
    scene.config.settings.gaze = clip_gaze(spec, person);
    scene.clip_frames =
        std::max(1, static_cast<int>(std::lround(design.clip_s / scene.config.settings.world.time_step_s)));
    scenes.push_back(std::move(scene));
  }
  const std::vector<ClipTrial> plan = plan_clip_trials(design, static_cast<std::uint64_t>(spec.seed));

  // The participant's folder: what earlier sessions left decides whether this one may start.
  const std::filesystem::path folder =
      options.out ? std::filesystem::path(*options.out)
                  : std::filesystem::path("results") / "experiments" / spec.name / options.participant;
  const std::filesystem::path trials_path = folder / "trials.csv";
  const std::string resolved = config::resolved_experiment_yaml(spec);
  std::vector<ClipTrialRecord> done;
  try {
    if (std::filesystem::exists(trials_path)) done = read_clip_records(trials_path.string());
  } catch (const std::exception& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (!done.empty() && !options.resume) {
    std::cerr << "fovea experiment: " << folder.string() << " holds " << done.size() << " trials of participant "
              << options.participant << " already; --resume continues that session, or give another --participant\n";
    return kExitBadInput;
  }
  if (!done.empty()) {
    std::string before;
    try {
      before = read_regular_file((folder / "experiment.yaml").string(), kMaxConfigFileBytes, "experiment");
    } catch (const std::exception& e) {
      std::cerr << "fovea experiment: --resume: " << folder.string()
                << " holds trials, and its experiment.yaml cannot be read: " << e.what() << "\n";
      return kExitBadInput;
    }
    if (before != resolved) {
      std::cerr << "fovea experiment: --resume: the spec differs from the one the session began with ("
                << (folder / "experiment.yaml").string() << "); a resumed session must keep its design\n";
      return kExitBadInput;
    }
  }
  // Each row must be the trial the design had there: a file of another spec or seed is refused.
  std::int64_t session = 1;
  for (std::size_t i = 0; i < done.size(); ++i) {
    const ClipTrialRecord& r = done[i];
    const bool matches = i < plan.size() && r.participant == options.participant && r.trial == plan[i].trial &&
                         r.condition == plan[i].condition.index && r.repetition == plan[i].repetition;
    if (!matches) {
      std::cerr << "fovea experiment: " << trials_path.string() << ": row " << i + 1
                << " is not the trial this spec and participant plan there (another spec, seed or participant?)\n";
      return kExitBadInput;
    }
    session = std::max(session, r.session + 1);
  }

  std::unique_ptr<StimulusDisplay> display;
  if (person) {
    // Synthetic keys draw offscreen: the same frames and events, no display needed.
    int refused = kExitOk;
    display = open_person_display(loaded, synthetic_keys.has_value(), "clips", refused);
    if (!display) return refused;
  }
  // The participant's folder once the window is open: a display refused leaves nothing behind.
  try {
    create_folders(folder);
  } catch (const std::runtime_error& e) {
    std::cerr << "fovea experiment: " << e.what() << "\n";
    return kExitFailure;
  }
  const GazeEnvironment gaze_environment = person && tracked(spec) ? with_trackers({}) : GazeEnvironment{};

  StopSignals stop_signals;
  int status = kExitOk;
  bool quit = false;
  int answered_now = 0;
  try {
    if (done.empty()) write_file_atomically(folder / "experiment.yaml", resolved);
    // The data dictionary beside the trials, for a lab's pipeline (BIDS's sidecar).
    write_file_atomically(folder / "trials.json", clip_records_sidecar_json());
    SessionLog log(folder / "session.log");
    CsvWriter trials(trials_path.string(), clip_record_header(), CsvWriter::Open::append);
    log.line("session " + std::to_string(session) + " of participant " + options.participant +
             " started, clip comparison" + (done.empty() ? "" : ", resuming after " + std::to_string(done.size()) + " trials") +
             (person ? ", a person at the window" : ", simulated observer " + *options.observer));
    if (person && spec.display.development_run)
      log.line("a development run (display.development_run): a pilot or test, not data");
    if (synthetic_keys) log.line("keys from --synthetic-keys, drawn offscreen");
    if (person)
      log.line("display: " + display->window().description() + ", " + std::to_string(display->window().width_px()) +
               " x " + std::to_string(display->window().height_px()) + " pixels, refresh " +
               std::to_string(display->window().refresh_hz()) + " Hz, vsync " + (display->window().vsync() ? "on" : "off"));
    // A person's clips, frame by frame: clip_frames.csv beside trials.csv.
    std::unique_ptr<CsvWriter> frames;
    if (person)
      frames = std::make_unique<CsvWriter>((folder / "clip_frames.csv").string(),
                                           std::vector<std::string>{"participant", "session", "trial", "attempt", "clip",
                                                                    "frame", "t_ms", "dropped"},
                                           CsvWriter::Open::append);
    ClipWindow window(spec, display.get(), {first_key, second_key}, synthetic_keys ? &*synthetic_keys : nullptr);
    quit = person && !window.wait_for_space(Screen::instructions, spec.task.instructions + "\n\nPress Space to start.");
    int answered_this_session = 0;
    // One clip on the screen, its timings to clip_frames.csv and the record: 1 shown, 0
    // stopped for a fixation that strayed (with a tracker), -1 the person quit.
    const bool contingent = person && tracked(spec);
    int attempt = 0;
    double deviation_deg = 0;
    const auto show = [&](const ClipRunSettings& clip, const char* which, std::int64_t trial, ClipSeen& seen,
                          double& duration_s, std::int64_t& dropped) {
      ClipPlayer player(clip, observer_f, gaze_environment);
      ClipTiming timing;
      if (!window.show(player, contingent, timing)) return -1;
      for (std::size_t f = 0; f < timing.frame_ms.size(); ++f) {
        for (const std::string& cell : {options.participant, std::to_string(session), std::to_string(trial),
                                        std::to_string(attempt), std::string(which), std::to_string(f),
                                        format_number(timing.frame_ms[f]), std::string(timing.dropped[f] ? "1" : "0")})
          frames->cell(std::string_view(cell));
        frames->end_row(CsvWriter::Flush::later);
      }
      deviation_deg = timing.deviation_deg;
      if (timing.fixation_broken) return 0;
      seen = player.finish();
      duration_s = timing.duration_s;
      dropped = timing.dropped_frames;
      return 1;
    };
    const ClipObserver observer(static_cast<std::uint64_t>(spec.seed), options.participant);
    std::map<ClipKey, ClipSeen> played;
    const auto play = [&](const ClipRunSettings& clip, int scene) {
      const ClipKey key{design.scenes[static_cast<std::size_t>(scene)].name, clip.world_seed,
                        static_cast<int>(clip.scheduler), clip.budget_tests};
      const auto found = played.find(key);
      if (found != played.end()) return found->second;
      const ClipSeen seen = play_clip(clip, observer_f);
      played.emplace(key, seen);
      return seen;
    };
    Progress progress(static_cast<std::int64_t>(plan.size()), !options.quiet && Progress::stderr_is_terminal(),
                      Progress::Output::redrawn, stderr, "trial");
    for (std::size_t i = done.size(); i < plan.size() && !quit; ++i) {
      if (stop_signal_received() != 0) break;
      const ClipTrial& t = plan[i];
      if (person && spec.task.break_every > 0 && answered_this_session > 0 && i % static_cast<std::size_t>(spec.task.break_every) == 0 &&
          !window.wait_for_space(Screen::pause, "Break. " + std::to_string(i) + " of " + std::to_string(plan.size()) +
                                 " trials done.\n\nPress Space when you are ready to go on.")) {
        quit = true;
        break;
      }
      const TrialClips clips = clips_of(spec, scenes[static_cast<std::size_t>(t.condition.scene)], t);
      ClipTrialRecord r;
      r.participant = options.participant;
      r.session = session;
      r.block = t.block;
      r.trial = t.trial;
      r.trial_in_block = t.trial_in_block;
      r.condition = t.condition.index;
      r.scene = design.scenes[static_cast<std::size_t>(t.condition.scene)].name;
      r.scheduler = scheduler_name(clips.test.scheduler);
      r.budget_tests = clips.test.budget_tests;
      r.reference = reference_name(design);
      r.repetition = t.repetition;
      r.task = clip_task_name(design.task);
      r.observer = person ? "human" : "simulated";
      r.started_utc = now_utc();
      if (person) {
        // The cross, then the clips in the trial's order with the cross between, then the
        // question; Escape leaves the trial unrecorded (--resume shows it again).
        ClipSeen seen_test, seen_reference;
        const bool test_first = t.test_first || !two_interval;
        const auto show_test = [&] {
          return show(clips.test, clips.shows_reference ? "reference" : "test", t.trial, seen_test, r.duration_test_s,
                      r.dropped_test);
        };
        const auto show_reference = [&] {
          return show(*clips.reference, "reference", t.trial, seen_reference, r.duration_reference_s, r.dropped_reference);
        };
        // A clip stopped for a fixation that strayed is logged, and the trial shown again
        // from its first clip (the same clips: they are deterministic).
        int shown = 0;
        for (attempt = 0; shown == 0; ++attempt) {
          shown = window.fixation(spec.task.inter_trial_interval_s) ? (test_first ? show_test() : show_reference()) : -1;
          if (shown == 1 && two_interval)
            shown = window.fixation(spec.task.inter_trial_interval_s) ? (test_first ? show_reference() : show_test()) : -1;
          if (shown == 0) {
            log.line("trial " + std::to_string(t.trial) + ": the fixation left " + format_significant(spec.fixation_radius_deg) +
                     " deg during a clip (" + format_significant(deviation_deg) + " deg away); it is shown again");
            if (!window.message("Please keep your eyes on the cross.", 1.0)) shown = -1;
          }
        }
        double reaction_time_ms = 0;
        const int key = shown == 1 ? window.answer(two_interval ? "Which clip looked wrong?\n\nPress " + design.first_key +
                                                                 " for the first, " + design.second_key + " for the second."
                                                           : "Did you see an error?\n\nPress " + spec.task.yes_key +
                                                                 " for yes, " + spec.task.no_key + " for no.",
                                              reaction_time_ms)
                              : -1;
        if (key < 0) {
          quit = true;
          break;
        }
        r.reaction_time_ms = reaction_time_ms;
        if (clips.shows_reference) {
          std::swap(r.duration_test_s, r.duration_reference_s);
          std::swap(r.dropped_test, r.dropped_reference);
        }
        if (two_interval) {
          r.order = t.test_first ? "test_first" : "reference_first";
          r.p_test = seen_test.p_seen;
          r.p_reference = seen_reference.p_seen;
          r.episodes_test = seen_test.episodes;
          r.episodes_reference = seen_reference.episodes;
          r.response = key == 0 ? "first" : "second";
          r.noticed = (key == 0) == t.test_first ? 1 : 0;
        } else {
          r.order = clips.shows_reference ? "reference" : "test";
          (clips.shows_reference ? r.p_reference : r.p_test) = seen_test.p_seen;
          (clips.shows_reference ? r.episodes_reference : r.episodes_test) = seen_test.episodes;
          r.response = key == 0 ? "yes" : "no";
          r.noticed = key == 0 ? 1 : 0;
        }
        frames->flush(true);  // the clips' frames on the disk with the trial
      } else if (design.task == ClipTask::two_interval) {
        const ClipSeen test = play(clips.test, t.condition.scene);
        const ClipSeen reference = play(*clips.reference, t.condition.scene);
        r.order = t.test_first ? "test_first" : "reference_first";
        r.p_test = test.p_seen;
        r.p_reference = reference.p_seen;
        r.episodes_test = test.episodes;
        r.episodes_reference = reference.episodes;
        const ClipChoice choice = t.test_first ? observer.two_interval(test.p_seen, reference.p_seen, t.trial, 0)
                                               : observer.two_interval(reference.p_seen, test.p_seen, t.trial, 0);
        r.response = choice == ClipChoice::first ? "first" : "second";
        r.noticed = (choice == ClipChoice::first) == t.test_first ? 1 : 0;
      } else {
        const ClipSeen test = play(clips.test, t.condition.scene);
        r.order = clips.shows_reference ? "reference" : "test";
        (clips.shows_reference ? r.p_reference : r.p_test) = test.p_seen;
        (clips.shows_reference ? r.episodes_reference : r.episodes_test) = test.episodes;
        const bool yes = observer.yes_no(test.p_seen, t.trial, 0);
        r.response = yes ? "yes" : "no";
        r.noticed = yes ? 1 : 0;
      }
      if (options.observer_pace_ms > 0)
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.observer_pace_ms));
      r.ended_utc = now_utc();
      for (const std::string& cell : clip_record_cells(r)) trials.cell(std::string_view(cell));
      trials.end_row(CsvWriter::Flush::durable);  // on the disk before the next trial starts
      ++answered_now;
      ++answered_this_session;
      progress.update(static_cast<std::int64_t>(i + 1));
    }
    progress.finish();
    const std::size_t answered = done.size() + static_cast<std::size_t>(answered_now);
    if (quit) {
      log.line("session " + std::to_string(session) + " ended by the participant (Escape or the window closed) after " +
               std::to_string(answered) + " trials; --resume continues it");
    } else if (stop_signal_received() != 0) {
      log.line("session " + std::to_string(session) + " stopped by signal " + std::to_string(stop_signal_received()) +
               " after " + std::to_string(answered) + " trials; --resume continues it");
      status = 128 + stop_signal_received();
    } else {
      log.line("session " + std::to_string(session) + " complete: " + std::to_string(answered) + " trials");
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
              << answered_now << " trials this session, " << done.size() + static_cast<std::size_t>(answered_now)
              << " in all -> " << trials_path.string() << "\n";
  return status;
}

}  // namespace fovea
