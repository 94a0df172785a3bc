#include "run/run.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <optional>
#include <string>

#include "core/stopwatch.hpp"
#include "gaze/gaze_latency.hpp"
#include "record/csv_writer.hpp"
#include "record/progress.hpp"
#include "record/results_folder.hpp"
#include "run/collision_log.hpp"
#include "run/evaluation_log.hpp"
#include "run/frame_log.hpp"
#include "run/gaze_log.hpp"

namespace fovea {

FrameLogColumns frame_log_columns(const RunPlan& plan, const Stepper& stepper) {
  const Demo* demo = stepper.demo();
  const AnimationSettings& settings = stepper.world().settings();
  return FrameLogColumns{settings.ground_truth, plan.rendered, stepper.world().model_library().grows_trees_on_demand(),
                         demo ? demo->columns() : std::vector<std::string>{},
                         settings.metrics.visibility == VisibilityKind::occlusion};
}

void print_gaze_messages(Animation& world, std::vector<std::string>& scratch) {
  world.gaze().take_messages(scratch);
  for (const std::string& message : scratch) std::cerr << "fovea: gaze: " << message << "\n";
  scratch.clear();
}

namespace {

/// How often manifest.json's frames_completed is brought up to date during a run.
constexpr double kManifestRefreshMs = 2000;

/// The whole run's sums, for summary.json.
struct RunTotals {
  std::int64_t contacts = 0;
  std::int64_t sphere_tests = 0;
  std::int64_t interrupted_collisions = 0;
  std::int64_t frames_budget_exhausted = 0;

  void add(const FrameStats& stats) {
    contacts += stats.response.contacts;
    sphere_tests += stats.sphere_tests;
    interrupted_collisions += stats.metrics.interrupted;
    frames_budget_exhausted += stats.budget_exhausted ? 1 : 0;
  }
};

}  // namespace

/// The files a run writes frame by frame, each row flushed as written.
struct RunRecorder::Records {
  Records(const std::filesystem::path& folder, const RunPlan& plan, const Stepper& stepper)
      : frames_((folder / "frames.csv").string(), frame_log_columns(plan, stepper),
                stepper.world().settings().metrics.warmup_frames) {
    const bool ground_truth = stepper.world().settings().ground_truth;
    if (stepper.world().evaluation().enabled()) evaluation_.emplace((folder / "evaluation.csv").string());
    if (plan.record.collisions) collisions_.emplace((folder / "collisions.csv").string(), ground_truth);
    if (plan.record.gaze) gaze_.emplace((folder / "gaze.csv").string());
    // Live changes made in the window (panel, reset), for whoever reads frames.csv later.
    // `frames` is how many frames the world had run when it happened (0 before the first).
    if (plan.rendered || plan.events) events_.emplace((folder / "events.csv").string(), std::vector<std::string>{"wall_time_s", "frames", "event"});
  }

  void write_frame(const RunFrame& frame, const Animation& world) {
    latency.add(frame.stats.gaze);
    frames_.write(frame.stats, frame.measures, frame.demo_values);
    if (evaluation_) evaluation_->write(frame.stats, world.evaluations());
    if (collisions_) collisions_->write(frame.stats.frame, world);
    if (gaze_) gaze_->write(frame.stats);
  }

  /// The hooks' events since the last call, stamped with the run's clock and the frames the
  /// world has run.
  void write_events(RunHooks& hooks, double wall_time_s, std::int64_t frames) {
    hooks.take_events(new_events_);
    for (const std::string& e : new_events_) write_event(e, wall_time_s, frames);
    new_events_.clear();
  }

  void write_event(std::string_view event, double wall_time_s, std::int64_t frames) {
    if (!events_) return;
    events_->cell(wall_time_s).cell(frames).cell(event);
    events_->end_row();
  }

  const FrameLog& frames() const { return frames_; }

  RunTotals totals;
  GazeLatency latency;  ///< how the gaze arrived, frame by frame (summary.json's gaze_latency)

 private:
  FrameLog frames_;
  std::optional<EvaluationLog> evaluation_;
  std::optional<CollisionLog> collisions_;
  std::optional<GazeLog> gaze_;
  std::optional<CsvWriter> events_;
  std::vector<std::string> new_events_;
};

namespace {

/// summary.json's gaze_latency: frames by what gave their point, and the quantiles of the used
/// samples' age and way to fovea, ms (null when none).
nlohmann::ordered_json latency_json(const GazeLatency& latency) {
  const auto quantiles = [](const LatencyQuantiles& q) {
    const auto number = [](double v) { return std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v); };
    return nlohmann::ordered_json{{"count", q.count}, {"median_ms", number(q.median_ms)}, {"p95_ms", number(q.p95_ms)},
                                  {"max_ms", number(q.max_ms)}};
  };
  return {{"frames", latency.frames()},
          {"current_frames", latency.current_frames()},
          {"ahead_frames", latency.ahead_frames()},
          {"held_frames", latency.held_frames()},
          {"fallback_frames", latency.fallback_frames()},
          {"age", quantiles(latency.age())},
          {"transit", quantiles(latency.transit())}};
}

nlohmann::ordered_json summary_json(const Stepper& stepper, const RunPlan& plan, const RunOutcome& outcome,
                                    const RunTotals& totals, const GazeLatency* latency, const FrameLog& frames) {
  const Animation& world = stepper.world();
  nlohmann::ordered_json summary;
  summary["frames"] = outcome.frames_done;
  summary["frames_requested"] = plan.frames;
  summary["interrupted"] = outcome.interrupted;
  summary["entities"] = world.live_entity_count();
  summary["sim_time_s"] = world.sim_time_s();
  summary["wall_time_s"] = outcome.wall_s;
  summary["frames_per_second"] = outcome.wall_s > 0 ? static_cast<double>(outcome.frames_done) / outcome.wall_s : 0.0;
  summary["totals"] = {{"contacts", totals.contacts},
                       {"sphere_tests", totals.sphere_tests},
                       {"interrupted_collisions", totals.interrupted_collisions},
                       {"frames_budget_exhausted", totals.frames_budget_exhausted}};
  // Models alive at the end; a whole tree counts its spheres, an on-demand one those built now.
  std::size_t models = 0, spheres = 0;
  // Models per builder used (or file), in a fixed order; builders no model used are left out.
  std::array<std::size_t, 3> per_source{};
  for (ModelId m = 0; m < world.models().size(); ++m) {
    if (!world.model_library().has_model(m)) continue;
    ++models;
    spheres += world.narrowphase().model(m).spheres.size();
    ++per_source[static_cast<std::size_t>(world.model_library().tree_sources()[m])];
  }
  nlohmann::ordered_json builders = nlohmann::ordered_json::object();
  for (const TreeSource source : {TreeSource::octree, TreeSource::medial, TreeSource::file})
    if (per_source[static_cast<std::size_t>(source)] > 0)
      builders[std::string(tree_source_name(source))] = per_source[static_cast<std::size_t>(source)];
  summary["sphere_trees"] = {{"models", models},
                             {"spheres", spheres},
                             {"build_ms", world.model_library().build_ms()},
                             {"builders", builders}};
  // Tree files grown to cover their models (sphere_tree.inflate): present only then.
  if (!world.model_library().inflations().empty()) {
    std::size_t grown = 0;
    double max_m = 0, max_fraction = 0;
    for (const TreeInflation& inflation : world.model_library().inflations()) {
      grown += inflation.report.grown;
      max_m = std::max(max_m, inflation.report.max_growth_m);
      max_fraction = std::max(max_fraction, inflation.report.max_growth_fraction);
    }
    summary["sphere_trees"]["inflated_spheres"] = grown;
    summary["sphere_trees"]["inflated_max_m"] = max_m;
    summary["sphere_trees"]["inflated_max_fraction"] = max_fraction;
  }
  // An eye tracker's latency as this run saw it (docs/gaze.md, "Latency"): whole run.
  if (latency != nullptr) summary["gaze_latency"] = latency_json(*latency);
  // The column statistics leave the warm-up out; the totals above are the whole run's.
  summary["warmup_frames"] = world.settings().metrics.warmup_frames;
  summary["columns"] = frames.column_summaries();
  // Median and p95 are exact up to 2^20 frames, then from every quantile_stride-th frame.
  summary["quantile_stride"] = frames.quantile_stride();
  return summary;
}

}  // namespace

RunRecorder::RunRecorder(const std::filesystem::path& folder, const RunPlan& plan, const Stepper& stepper,
                         RunManifest manifest)
    : folder_(folder), plan_(plan), manifest_(std::move(manifest)),
      records_(std::make_unique<Records>(folder, plan, stepper)) {}

RunRecorder::~RunRecorder() = default;

void RunRecorder::write_frame(Stepper& stepper) {
  const RunFrame& frame = stepper.last();
  records_->write_frame(frame, stepper.world());
  print_gaze_messages(stepper.world(), gaze_messages_);
  records_->totals.add(frame.stats);
  ++frames_written_;
  if (wall_.elapsed_ms() - manifest_written_ms_ > kManifestRefreshMs) {
    manifest_.frames_completed = frames_written_;
    write_json_atomically(folder_ / "manifest.json", to_json(manifest_));
    manifest_written_ms_ = wall_.elapsed_ms();
  }
}

void RunRecorder::write_events(RunHooks& hooks, std::int64_t frames) {
  records_->write_events(hooks, elapsed_s(), frames);
}

void RunRecorder::write_event(std::string_view event, std::int64_t frames) {
  records_->write_event(event, elapsed_s(), frames);
}

void RunRecorder::write_summary(Stepper& stepper, const RunOutcome& outcome) {
  print_gaze_messages(stepper.world(), gaze_messages_);
  // A run on an eye tracker says how its gaze arrived, there and in summary.json.
  const bool tracker = is_eye_tracker(stepper.world().gaze().settings().source);
  if (tracker) std::cerr << "fovea: gaze: " << records_->latency.text() << "\n";
  write_json_atomically(folder_ / "summary.json", summary_json(stepper, plan_, outcome, records_->totals,
                                                               tracker ? &records_->latency : nullptr, records_->frames()));
}

void RunRecorder::finish(RunOutcome& outcome) {
  manifest_.end_time_utc = utc_iso8601(std::chrono::system_clock::now());
  manifest_.status = outcome.exit_status() == 1                              ? "failed"
                     : outcome.interrupted || outcome.exit_status() != 0 ? "interrupted"
                                                                           : "completed";
  manifest_.exit_status = outcome.exit_status();
  manifest_.frames_completed = outcome.frames_done;
  manifest_.frames_requested = plan_.frames;
  try {
    write_json_atomically(folder_ / "manifest.json", to_json(manifest_));
  } catch (const std::exception& e) {
    outcome.failed = true;
    outcome.stop_signal = 0;
    outcome.errors.push_back(e.what());
  }
}

RunOutcome run_frames(Stepper& stepper, const RunPlan& plan, const std::filesystem::path& folder, RunManifest manifest,
                      RunHooks* hooks, const std::function<int()>& stop_signal) {
  RunOutcome outcome;
  Stopwatch wall;
  std::unique_ptr<RunRecorder> recorder;
  try {
    recorder = std::make_unique<RunRecorder>(folder, plan, stepper, manifest);
    Progress progress(plan.frames, plan.progress);
    bool window_closed = false;
    while (outcome.frames_done < plan.frames) {
      if (stop_signal() != 0) break;
      if (hooks) {
        const RunHooks::Next next = hooks->before_frame(stepper, outcome.frames_done);
        recorder->write_events(*hooks, stepper.world().frames_done());
        if (next == RunHooks::Next::stop) {
          window_closed = true;
          break;
        }
        if (next == RunHooks::Next::skip) continue;
      }
      RunFrame& frame = stepper.step(hooks && hooks->player_follows_camera());
      if (hooks) {
        hooks->after_step(stepper, outcome.frames_done, frame.measures);
        recorder->write_events(*hooks, stepper.world().frames_done());
      }
      recorder->write_frame(stepper);
      ++outcome.frames_done;
      progress.update(outcome.frames_done);
      if (hooks) {
        // A picture that cannot be written stops the run, its frames and summary kept.
        if (std::string problem = hooks->after_record(outcome.frames_done - 1); !problem.empty()) {
          outcome.failed = true;
          outcome.errors.push_back(std::move(problem));
          break;
        }
      }
    }
    progress.finish();
    // Closing the window ends the run as the user asked: results complete, exit status 0. A
    // signal during the last frame still counts: the user asked to stop, and a shell loop of
    // runs must see it.
    outcome.stop_signal = stop_signal();
    outcome.interrupted = window_closed || outcome.failed || outcome.stop_signal != 0;
    outcome.wall_s = wall.elapsed_ms() / 1000.0;
    recorder->write_summary(stepper, outcome);  // with what a tracker said during or just after the last frame
    outcome.summarised = true;
  } catch (const std::exception& e) {
    // Records that could not be written: the run failed, whatever signal came too.
    outcome.failed = true;
    outcome.stop_signal = 0;
    outcome.interrupted = outcome.frames_done < plan.frames;
    outcome.errors.push_back(e.what());
    outcome.wall_s = wall.elapsed_ms() / 1000.0;
  }

  if (recorder) {
    recorder->finish(outcome);
  } else {
    // The records could not even be opened: the manifest still says so.
    manifest.end_time_utc = utc_iso8601(std::chrono::system_clock::now());
    manifest.status = "failed";
    manifest.exit_status = outcome.exit_status();
    manifest.frames_completed = 0;
    try {
      write_json_atomically(folder / "manifest.json", to_json(manifest));
    } catch (const std::exception& e) {
      outcome.errors.push_back(e.what());
    }
  }
  return outcome;
}

}  // namespace fovea
