// World (docs/python.md, "Worlds"): a config's world and demo stepped from Python by run/'s
// Stepper, the loop `fovea run` steps with, and recorded by its RunRecorder when asked, so a
// world stepped here writes the frames.csv `fovea run` writes. Per-entity and per-collision
// data cross as NumPy arrays, never as one Python object each.

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "fovea/run_command.hpp"
#include "gaze/external_gaze.hpp"
#include "record/results_folder.hpp"
#include "run/frame_columns.hpp"
#include "run/run.hpp"
#include "run/stepper.hpp"

namespace py = pybind11;

namespace fovea::python {
namespace {

using Array = py::array_t<double>;

/// A frames.csv cell as Python has it: int, float (NaN for an empty cell) or str.
py::object cell_value(const FrameCell& cell) {
  if (const auto* count = std::get_if<std::int64_t>(&cell)) return py::int_(*count);
  if (const auto* measure = std::get_if<double>(&cell)) return py::float_(*measure);
  return py::str(std::string(std::get<std::string_view>(cell)));
}

class World {
 public:
  World(config::LoadedConfig loaded, const std::optional<std::filesystem::path>& record, std::vector<std::string> command_line)
      : config_(std::move(loaded)) {
    // As fovea run --headless builds it: no window, so no mouse; the trackers are reachable.
    std::unique_ptr<Animation> world = make_world(config_);
    std::unique_ptr<Demo> demo = make_demo(config_, *world);
    stepper_ = std::make_unique<Stepper>(std::move(world), std::move(demo));
    // events.csv: the live changes (set_schedule, ...), as a window's panel records its own.
    plan_ = RunPlan{config_.settings.frames, config_.settings.record, false, false, true};
    columns_ = frame_columns(frame_log_columns(plan_, *stepper_));
    if (record) {
      // What the run writes back must load again, as fovea run checks (issue 42): refused
      // before the folder is made.
      if (const std::string problem = config::written_back_problem(config_); !problem.empty())
        throw config::ConfigError(problem);
      const WallTime start = std::chrono::system_clock::now();
      folder_ = create_named_run_folder(*record, "record=");
      write_file_atomically(folder_ / "config.yaml", config::resolved_yaml(config_.settings));
      const RunManifest manifest = start_manifest(config_, command_line, start);
      write_json_atomically(folder_ / "manifest.json", to_json(manifest));
      recorder_ = std::make_unique<RunRecorder>(folder_, plan_, *stepper_, manifest);
    }
  }

  ~World() {
    try {
      // Never closed: the script ended without saying the run was done (an exception, or
      // the object dropped), so its records say interrupted, not completed.
      close(true);
    } catch (...) {
      // A destructor cannot report; close() called by the script (or `with`) does.
    }
  }

  /// Steps `n` frames; the last one's frames.csv row as a dict.
  py::dict step(std::int64_t n) {
    check_idle("step");
    if (n < 1) throw py::value_error("step(n): n must be at least 1, got " + std::to_string(n));
    if (closed_) throw py::value_error("step(): this World's records are closed (close() or the end of `with`)");
    if (failed_) throw std::runtime_error("step(): this World's records could not be written: " + failure_);
    busy_ = true;
    try {
      // A tracker SDK's thread may call set_gaze while the frames run.
      py::gil_scoped_release release;
      for (std::int64_t i = 0; i < n; ++i) {
        stepper_->step();
        clock_s_.store(stepper_->world().sim_time_s());
        if (recorder_) {
          try {
            recorder_->write_frame(*stepper_);
          } catch (const std::exception& e) {
            // The frame was made but not recorded: the records end here, marked failed.
            failed_ = true;
            failure_ = e.what();
            throw;
          }
        } else {
          print_gaze_messages(stepper_->world(), gaze_messages_);
        }
        // Ctrl-C between frames, as fovea run stops: the frames so far recorded, then
        // KeyboardInterrupt (the `with` block marks the run interrupted).
        if (i + 1 < n) {
          py::gil_scoped_acquire acquire;
          if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        }
      }
    } catch (...) {
      busy_ = false;
      throw;
    }
    busy_ = false;
    return last_stats();
  }

  /// Refuses a call while step() runs in another thread: the frame owns the world until it
  /// returns. set_gaze and time_s are the calls meant for such a thread.
  void check_idle(const char* call) const {
    if (busy_) throw std::runtime_error(std::string(call) + ": World.step is running in another thread; only set_gaze and time_s may be called meanwhile");
  }

  py::dict last_stats() const {
    check_idle("stats");
    py::dict row;
    const RunFrame& frame = stepper_->last();
    const FrameRow values{frame.stats, frame.measures, frame.demo_values};
    for (const FrameColumn& column : columns_) row[py::str(column.name)] = cell_value(column.value(values, column.index));
    return row;
  }

  /// Writes summary.json and the final manifest.json; the run is "completed" with the
  /// frames stepped, or "interrupted" when an exception ended the `with` block.
  void close(bool interrupted) {
    check_idle("close");
    if (closed_) return;
    closed_ = true;
    if (!recorder_) return;
    RunOutcome outcome;
    outcome.frames_done = recorder_->frames_written();
    outcome.interrupted = interrupted || failed_;
    outcome.failed = failed_;
    if (failed_) outcome.errors.push_back(failure_);
    outcome.wall_s = recorder_->elapsed_s();
    recorder_->set_frames_requested(outcome.frames_done);
    try {
      recorder_->write_summary(*stepper_, outcome);
      outcome.summarised = true;
    } catch (const std::exception& e) {
      outcome.failed = true;
      outcome.errors.push_back(e.what());
    }
    recorder_->finish(outcome);
    recorder_.reset();
    if (!outcome.errors.empty()) throw std::runtime_error("fovea: " + outcome.errors.front());
  }

  void set_gaze(double x_px, double y_px, const std::optional<double>& t_s, bool valid, double confidence) {
    auto* external = dynamic_cast<ExternalGazeSource*>(&stepper_->world().gaze().source());
    if (external == nullptr)
      throw config::ConfigError(config_.error_at("gaze.source", std::string("set_gaze needs gaze.source: external; this world's is ") +
                                                                    gaze_source_name(config_.settings.gaze.source)));
    GazeSample sample;
    sample.x_px = x_px;
    sample.y_px = y_px;
    sample.valid = valid;
    sample.time_s = t_s ? *t_s : time_s();
    sample.confidence = confidence;
    if (!external->push(sample)) {
      // The source names the field as GazeSample has it; here it is the argument t_s.
      std::string why = external->last_rejection();
      if (why.rfind("time_s", 0) == 0) why.replace(0, 6, "t_s");
      throw py::value_error("set_gaze: " + why);
    }
  }

  /// A live change through the config's own checks: `section`'s keys from `keys`, loaded
  /// over the world's config as `--set` would be, then handed to the world by `apply`.
  template <typename Apply>
  void change(const std::string& section, const std::string& call, const py::dict& keys, Apply apply) {
    check_idle(call.c_str());
    if (keys.empty()) throw py::value_error(call + ": name the keys to change, as " + call + "(kind=...)");
    py::dict prefixed;
    for (const auto& [k, v] : keys)
      prefixed[py::str((section.empty() ? "" : section + ".") + std::string(py::str(k)))] = v;
    config::LoadedConfig changed = load_config_argument(py::cast(config_), prefixed, call);
    try {
      apply(stepper_->world(), changed.settings);
    } catch (const std::invalid_argument& e) {
      throw config::ConfigError(call + ": " + e.what());
    }
    config_ = std::move(changed);
    // In events.csv, as the control panel's changes are: config.yaml stays the run's start.
    if (recorder_)
      for (const auto& [key, value] : prefixed)
        recorder_->write_event(std::string(py::str(key)) + ": " + yaml_text(value, true), stepper_->world().frames_done());
  }

  py::dict entity_arrays() const {
    check_idle("entities");
    const Animation& world = stepper_->world();
    const auto states = world.states();
    const auto entities = world.entities();
    const auto n = static_cast<py::ssize_t>(states.size());
    Array position({n, py::ssize_t{3}}), orientation({n, py::ssize_t{4}}), velocity({n, py::ssize_t{3}}),
        angular({n, py::ssize_t{3}});
    py::array_t<bool> live(n), is_static(n);
    py::array_t<std::int64_t> group(n), model(n);
    auto p = position.mutable_unchecked<2>();
    auto q = orientation.mutable_unchecked<2>();
    auto v = velocity.mutable_unchecked<2>();
    auto w = angular.mutable_unchecked<2>();
    auto l = live.mutable_unchecked<1>();
    auto s = is_static.mutable_unchecked<1>();
    auto g = group.mutable_unchecked<1>();
    auto m = model.mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < n; ++i) {
      const EntityState& state = states[static_cast<std::size_t>(i)];
      const Entity& entity = entities[static_cast<std::size_t>(i)];
      for (py::ssize_t k = 0; k < 3; ++k) {
        p(i, k) = state.position_m[static_cast<int>(k)];
        v(i, k) = state.linear_velocity_mps[static_cast<int>(k)];
        w(i, k) = state.angular_velocity_radps[static_cast<int>(k)];
      }
      // Scalar last, as scipy.spatial.transform.Rotation.from_quat reads it.
      q(i, 0) = state.orientation.x;
      q(i, 1) = state.orientation.y;
      q(i, 2) = state.orientation.z;
      q(i, 3) = state.orientation.w;
      l(i) = entity.live;
      s(i) = entity.is_static;
      g(i) = entity.group;
      m(i) = entity.model;
    }
    py::dict out;
    out["position_m"] = position;
    out["orientation_xyzw"] = orientation;
    out["velocity_mps"] = velocity;
    out["angular_velocity_radps"] = angular;
    out["live"] = live;
    out["static"] = is_static;
    out["group"] = group;
    out["model"] = model;
    return out;
  }

  /// The last step's collisions, as collisions.csv has them (docs/results.md), one array
  /// per column, in list order.
  py::dict collision_arrays() const {
    check_idle("collisions");
    const Animation& world = stepper_->world();
    const NarrowPhase& np = world.narrowphase();
    const auto order = np.order();
    const auto n = static_cast<py::ssize_t>(order.size());
    const bool truth = world.settings().ground_truth;
    py::array_t<std::int64_t> a(n), b(n), first_frame(n), levels(n), sphere_tests(n), queue(n);
    py::array_t<bool> colliding(n), interrupted(n), visible(n);
    Array priority(n), centre_x(n), centre_y(n), eccentricity(n), gap_bound(n), gap(n), probability(n);
    py::array_t<bool> touching(truth ? n : 0);
    Array separation(truth ? n : 0), gap_true(truth ? n : 0), p_true(truth ? n : 0);
    const double nan = std::nan("");
    for (py::ssize_t i = 0; i < n; ++i) {
      const std::uint32_t slot = order[static_cast<std::size_t>(i)];
      const Collision& c = np.collision(slot);
      a.mutable_at(i) = c.a;
      b.mutable_at(i) = c.b;
      first_frame.mutable_at(i) = c.first_frame;
      colliding.mutable_at(i) = c.status == CollisionStatus::colliding;
      interrupted.mutable_at(i) = c.interrupted;
      levels.mutable_at(i) = c.levels_done;
      sphere_tests.mutable_at(i) = c.sphere_tests;
      queue.mutable_at(i) = c.queue;
      priority.mutable_at(i) = c.priority;
      visible.mutable_at(i) = c.visible;
      // A centre behind the camera has no place on the screen: NaN, as collisions.csv leaves it empty.
      centre_x.mutable_at(i) = c.visible ? c.centre_x_px : nan;
      centre_y.mutable_at(i) = c.visible ? c.centre_y_px : nan;
      eccentricity.mutable_at(i) = c.visible ? c.eccentricity_deg : nan;
      gap_bound.mutable_at(i) = c.gap_bound_m;
      gap.mutable_at(i) = c.gap_deg;
      probability.mutable_at(i) = c.probability;
      if (truth) {
        const CollisionTruth& t = world.meter().truth(slot);
        touching.mutable_at(i) = t.touching;
        separation.mutable_at(i) = t.separation_m;
        const bool measured = c.interrupted && c.status == CollisionStatus::colliding && !t.touching;
        gap_true.mutable_at(i) = measured ? t.gap_deg : nan;
        p_true.mutable_at(i) = measured ? t.probability : nan;
      }
    }
    py::dict out;
    out["entity_a"] = a;
    out["entity_b"] = b;
    out["first_frame"] = first_frame;
    out["colliding"] = colliding;
    out["interrupted"] = interrupted;
    out["levels"] = levels;
    out["sphere_tests"] = sphere_tests;
    out["queue"] = queue;
    out["priority"] = priority;
    out["visible"] = visible;
    out["centre_x_px"] = centre_x;
    out["centre_y_px"] = centre_y;
    out["eccentricity_deg"] = eccentricity;
    out["gap_bound_m"] = gap_bound;
    out["gap_deg"] = gap;
    out["probability"] = probability;
    if (truth) {
      out["touching"] = touching;
      out["separation_m"] = separation;
      out["gap_true_deg"] = gap_true;
      out["p_true"] = p_true;
    }
    return out;
  }

  /// The world's clock, readable from any thread while a step runs (set_gaze's callers).
  double time_s() const { return clock_s_.load(); }
  const config::LoadedConfig& config() const { return config_; }
  const Animation& world() const { return stepper_->world(); }
  const std::filesystem::path& folder() const { return folder_; }

 private:
  config::LoadedConfig config_;
  std::unique_ptr<Stepper> stepper_;
  RunPlan plan_;
  std::vector<FrameColumn> columns_;
  std::filesystem::path folder_;
  std::unique_ptr<RunRecorder> recorder_;
  bool closed_ = false;
  bool busy_ = false;     ///< step() is running (GIL released); read and written with the GIL held
  bool failed_ = false;   ///< a record could not be written: no more steps, and close() says failed
  std::string failure_;
  std::vector<std::string> gaze_messages_;
  std::atomic<double> clock_s_{0.0};  ///< sim_time_s() after the last step, for other threads
};

}  // namespace

void bind_world(py::module_& m) {
  py::class_<World>(m, "World", R"(A config's world and its demo, stepped from Python.

World(config=None, overrides=None, record=None): config and overrides as load_config takes
them. With record (a new or empty folder), each frame is written as `fovea run` writes it
(frames.csv, collisions.csv and gaze.csv as the config's record keys ask, summary.json and
manifest.json on close()); use it in a `with` block or call close(). The same config and
seed step to the same frames, byte for byte, as `fovea run --headless`.)")
      .def(py::init([](const py::object& config, const py::object& overrides,
                       const std::optional<std::filesystem::path>& record) {
             return std::make_unique<World>(load_config_argument(config, overrides), record,
                                            python_command_line("fovea.World"));
           }),
           py::arg("config") = py::none(), py::arg("overrides") = py::none(), py::arg("record") = py::none())
      .def("step", &World::step, py::arg("n") = 1,
           "Steps n frames (the GIL released meanwhile); returns the last frame's frames.csv row as a dict "
           "{column: value} (docs/results.md): ints, floats (NaN where the CSV cell is empty) and strs.")
      .def_property_readonly("stats", &World::last_stats, "the last frame's row, as step() returned it")
      .def("close", [](World& w) { w.close(false); },
           "Ends the records: summary.json and the final manifest.json (status completed). Idempotent.")
      .def("__enter__", [](World& w) -> World& { return w; }, py::return_value_policy::reference)
      .def("__exit__", [](World& w, const py::object& type, const py::object&, const py::object&) {
        w.close(!type.is_none());
        return false;
      })
      .def("set_gaze", &World::set_gaze, py::arg("x_px"), py::arg("y_px"), py::arg("t_s") = py::none(),
           py::arg("valid") = true, py::arg("confidence") = 1.0,
           R"(A gaze sample for gaze.source: external (docs/gaze.md): screen pixels from the top-left,
y down; t_s on the world's clock (World.time_s; None: now); valid False for a blink or lost
track. Ages, holds and fallback as for every source. Raises ValueError for a sample the
source refuses (not finite, time going back, time more than 2 s past the last frame's,
confidence outside [0, 1]) and ConfigError when the world's gaze source is not external.
Thread-safe: a tracker SDK's callback may call it.)")
      .def("set_schedule",
           [](World& w, const py::kwargs& keys) {
             w.change("schedule", "set_schedule", keys,
                      [](Animation& a, const Settings& s) { a.set_schedule(s.schedule); });
           },
           "Another scheduler from the next step, as the control panel does: set_schedule(kind='round_robin'); "
           "keys as under schedule: in a config (docs/config.md)")
      .def("set_budget",
           [](World& w, const py::kwargs& keys) {
             w.change("budget", "set_budget", keys, [](Animation& a, const Settings& s) { a.set_budget(s.budget); });
           },
           "Another budget from the next step: set_budget(mode='work', tests=2000); keys as under budget:")
      .def("set_perception_model",
           [](World& w, const py::kwargs& keys) {
             w.change("perception.model", "set_perception_model", keys,
                      [](Animation& a, const Settings& s) { a.set_perception_model(s.perception.model); });
           },
           "Another f(e, g) from the next step: set_perception_model(file='model.yaml') or its keys, as under "
           "perception.model:")
      .def("set_interrupt_policy",
           [](World& w, const std::string& policy) {
             py::dict keys;
             keys["interrupt_policy"] = policy;
             w.change("", "set_interrupt_policy", keys,
                      [](Animation& a, const Settings& s) { a.set_interrupt_policy(s.interrupt_policy); });
           },
           py::arg("policy"), "repulse or interpenetrate, from the next step")
      .def("entities", &World::entity_arrays,
           "Every entity slot (retired ones too, live False) as NumPy arrays: position_m (n, 3), "
           "orientation_xyzw (n, 4, scalar last, as scipy's Rotation.from_quat), velocity_mps, "
           "angular_velocity_radps (world frame), live, static, group, model")
      .def("collisions", &World::collision_arrays,
           "The last step's collisions as NumPy arrays, one per collisions.csv column (docs/results.md)")
      .def_property_readonly("config", &World::config, "the Config the world runs, live changes included")
      .def_property_readonly("frames_done", [](const World& w) { return w.world().frames_done(); })
      .def_property_readonly("time_s", &World::time_s,
                             "the world's clock: simulated seconds stepped (set_gaze's t_s is on it)")
      .def_property_readonly("live_entity_count", [](const World& w) { return w.world().live_entity_count(); })
      .def_property_readonly("folder", [](const World& w) -> py::object {
        if (w.folder().empty()) return py::none();
        return py::cast(w.folder());
      }, "the results folder when recording, else None")
      .def_property_readonly("gaze", [](const World& w) {
        const FrameGaze& g = w.world().last_gaze();
        py::dict d;
        d["x_px"] = g.x_px;
        d["y_px"] = g.y_px;
        d["source"] = g.source;
        d["valid"] = g.valid;
        d["age_ms"] = g.age_ms;
        d["dropped"] = g.dropped;
        return d;
      }, "the fixation the last step was scheduled for, and where it came from");
}

}  // namespace fovea::python
