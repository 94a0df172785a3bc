// World (docs/python.md, "Worlds"): a config's world and demo stepped from Python by run/'s
// Stepper, the loop `fovea run` steps with, and recorded by its RunRecorder when asked, so a
// world stepped here writes the frames.csv `fovea run` writes. Per-entity and per-collision
// data cross as NumPy arrays, never as one Python object each. The calls a pybullet user
// reaches for (docs/python.md, "Driving a world like pybullet") are here too: poses and
// velocities set and read by entity id, entities added and removed, the world reset, and an
// offscreen picture of the frame drawn by render/'s Viewer, as `fovea run --capture` draws it.

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <SDL2/SDL.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "core/format.hpp"
#include "fovea/run_command.hpp"
#include "gaze/external_gaze.hpp"
#include "record/results_folder.hpp"
#include "render/capture.hpp"
#include "render/viewer.hpp"
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

/// A number for each world a World builds (at its start and at each reset()), never reused,
/// so the offscreen pictures know when they draw another world and must mesh its models.
/// Read and written with the GIL held.
std::uint64_t next_world_serial() {
  static std::uint64_t serial = 0;
  return ++serial;
}

class World {
 public:
  World(config::LoadedConfig loaded, const std::optional<std::filesystem::path>& record, std::vector<std::string> command_line)
      : config_(std::move(loaded)), serial_(next_world_serial()) {
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

  /// Builds the world and its demo again from the config in force (live changes kept), with
  /// `seed` (None: the config's) checked as the config's seed key: the world a new World of
  /// the same config starts with. The new world is built before the old one goes, so a
  /// failure leaves the old one running. A recorded run goes on in the same files, as the
  /// window's reset does: frames.csv's frame column starts again at 0, and events.csv says
  /// "reset" after the frames the old world made.
  void reset(const py::object& seed) {
    check_idle("reset");
    if (closed_) throw py::value_error("reset(): this World's records are closed (close() or the end of `with`)");
    if (failed_) throw std::runtime_error("reset(): this World's records could not be written: " + failure_);
    config::LoadedConfig loaded = config_;
    if (!seed.is_none()) {
      py::dict keys;
      keys["seed"] = seed;
      loaded = load_config_argument(py::cast(config_), keys, "reset");
    }
    std::unique_ptr<Animation> world = make_world(loaded);
    std::unique_ptr<Demo> demo = make_demo(loaded, *world);
    const std::int64_t frames_before = stepper_->world().frames_done();
    stepper_->replace(std::move(world), std::move(demo));
    config_ = std::move(loaded);
    clock_s_.store(0.0);
    gaze_messages_.clear();
    serial_ = next_world_serial();
    write_event(seed.is_none() ? "reset" : "reset: {seed: " + std::to_string(config_.settings.seed) + "}", frames_before);
  }

  /// A change made from Python between steps (a pose set, an entity added), into events.csv
  /// after `frames` frames when the world is recorded; nothing otherwise.
  void write_event(const std::string& event, std::int64_t frames) {
    if (recorder_) recorder_->write_event(event, frames);
  }
  /// Whether changes are written to events.csv (so worth describing).
  bool recording() const { return recorder_ != nullptr; }

  /// The world's clock, readable from any thread while a step runs (set_gaze's callers).
  double time_s() const { return clock_s_.load(); }
  const config::LoadedConfig& config() const { return config_; }
  const Animation& world() const { return stepper_->world(); }
  /// The world, to change between steps (callers check_idle first).
  Animation& animation() { return stepper_->world(); }
  /// Whether a demo (demo.kind) drives some of the world's entities.
  bool has_demo() const { return stepper_->demo() != nullptr; }
  /// The world's number among those built in this process (next_world_serial).
  std::uint64_t serial() const { return serial_; }
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
  std::uint64_t serial_ = 0;          ///< next_world_serial() of the world built last
};


// Entities by id (docs/python.md, "Driving a world like pybullet"). Every call checks all it
// is given before it changes anything, so a refused call leaves the world as it was.

/// The largest speed and spin a call may give an entity, m/s and rad/s: the config's bound
/// on a group's speed_mps and spin_radps, far past any animation's and small enough that
/// positions and energies stay finite.
constexpr double kMaxSpeed = 1e6;
/// How far from 1 a quaternion's norm may be before it is refused rather than normalised:
/// rounding (a float32 quaternion) passes, a vector that is no rotation does not.
constexpr double kUnitTolerance = 1e-3;
/// The largest voxel grid add_model takes per side: the config's model.resolution_voxels bound.
constexpr py::ssize_t kMaxVoxelsPerSide = 256;

/// `given` as a NumPy array (numpy.asarray: an array is not copied), for its dtype and shape.
py::array as_array(const py::handle& given) {
  return py::module_::import("numpy").attr("asarray")(given).cast<py::array>();
}

std::string shape_text(const py::array& a) { return py::str(a.attr("shape")).cast<std::string>(); }
std::string dtype_text(const py::array& a) { return py::str(a.dtype()).cast<std::string>(); }

std::string vector_text(const double* values, int n) {
  std::string text = "[";
  for (int i = 0; i < n; ++i) text += (i ? ", " : "") + format_number(values[i]);
  return text + "]";
}

/// The entities a call names: one id (`scalar`), or a 1-D array or sequence of ids.
struct EntityIds {
  std::vector<EntityId> ids;
  bool scalar = false;
};

/// `given` as live entities' ids: an int (Python's or NumPy's) or a 1-D array or sequence of
/// them, each a live entity's, none twice. TypeError for what is not ints, ValueError for
/// an id that is not a live entity's.
EntityIds entity_ids(const py::handle& given, const Animation& world, const std::string& call) {
  EntityIds out;
  const std::size_t slots = world.entities().size();
  py::list items;
  if (PyLong_Check(given.ptr()) && !py::isinstance<py::bool_>(given)) {
    // A Python int, read as it is: past int64 (2**70) NumPy would make it an object.
    out.scalar = true;
    items.append(given);
  } else {
    const py::array a = as_array(given);
    out.scalar = a.ndim() == 0;
    if (a.ndim() > 1)
      throw py::value_error(call + ": entity ids are an int or a 1-D array of ints; got an array of shape " + shape_text(a));
    if (a.size() == 0) return out;  // [] names no entity, whatever its dtype
    const char kind = a.dtype().kind();
    if (kind != 'i' && kind != 'u') throw py::type_error(call + ": entity ids are ints; got " + dtype_text(a));
    if (static_cast<std::size_t>(a.size()) > slots)
      throw py::value_error(call + ": " + std::to_string(a.size()) + " ids given; the world has " + std::to_string(slots) +
                            " entity slots");
    items = a.attr("ravel")().attr("tolist")().cast<py::list>();
  }
  std::vector<bool> named(slots, false);
  for (const py::handle item : items) {
    int overflow = 0;
    const long long id = PyLong_AsLongLongAndOverflow(item.ptr(), &overflow);
    if (overflow != 0 || id < 0 || static_cast<std::size_t>(id) >= slots)
      throw py::value_error(call + ": entity " + (overflow != 0 ? std::string("past 2**63") : std::to_string(id)) +
                            " is not one of this world's (ids 0 to " + std::to_string(slots - 1) + ")");
    const auto entity = static_cast<EntityId>(id);
    if (!world.is_live(entity))
      throw py::value_error(call + ": entity " + std::to_string(id) + " was removed (remove_entity)");
    if (named[entity]) throw py::value_error(call + ": entity " + std::to_string(id) + " is named twice");
    named[entity] = true;
    out.ids.push_back(entity);
  }
  return out;
}

/// `given` as `rows` rows of `width` finite numbers, row after row: shape (width,) for one
/// entity (`scalar`), (rows, width) for an array of ids. TypeError for what is not numbers
/// (bools included), ValueError for another shape or a NaN or infinity.
std::vector<double> number_rows(const py::handle& given, std::size_t rows, bool scalar, py::ssize_t width,
                                const std::string& call, const std::string& name) {
  const py::array a = as_array(given);
  const char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u' && kind != 'f')
    throw py::type_error(call + ": " + name + " holds numbers; got " + dtype_text(a));
  const std::string w = std::to_string(width);
  const bool fits = scalar ? a.ndim() == 1 && a.shape(0) == width
                           : a.ndim() == 2 && a.shape(0) == static_cast<py::ssize_t>(rows) && a.shape(1) == width;
  if (!fits)
    throw py::value_error(call + ": " + name + " must have shape " +
                          (scalar ? "(" + w + ",) for one entity" : "(" + std::to_string(rows) + ", " + w + ") for " +
                                                                        std::to_string(rows) + " entities") +
                          "; got " + shape_text(a));
  const auto values = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!values) throw py::type_error(call + ": " + name + " cannot be read as float64 (" + dtype_text(a) + ")");
  std::vector<double> out(values.data(), values.data() + values.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!std::isfinite(out[i]))
      throw py::value_error(call + ": " + name + " holds " + format_number(out[i]) + " (row " +
                            std::to_string(i / static_cast<std::size_t>(width)) + "); every value must be finite");
  return out;
}

std::string box_text(const Aabb& box) {
  std::string text;
  for (int k = 0; k < 3; ++k)
    text += (k ? " x [" : "[") + format_number(box.min_m[k]) + ", " + format_number(box.max_m[k]) + "]";
  return text;
}

/// Centres of mass (metres, world frame), each inside the world box: outside it, an entity
/// is inside a wall (the walls are half-spaces, and the response would throw it back).
std::vector<Vec3> positions_in_box(const py::handle& given, std::size_t rows, bool scalar, const Animation& world,
                                   const std::string& call) {
  const std::vector<double> v = number_rows(given, rows, scalar, 3, call, "position_m");
  const Aabb& box = world.box();
  std::vector<Vec3> out;
  for (std::size_t i = 0; i < rows; ++i) {
    const Vec3 p(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    for (int k = 0; k < 3; ++k)
      if (p[k] < box.min_m[k] || p[k] > box.max_m[k])
        throw py::value_error(call + ": position_m " + vector_text(&v[3 * i], 3) + " is outside the world box " +
                              box_text(box) + " m (world.box_size_m); an entity's centre must be inside the walls");
    out.push_back(p);
  }
  return out;
}

/// Rotations given as quaternions (x, y, z, w), scalar last as pybullet and scipy give them,
/// normalised; a norm more than kUnitTolerance from 1 is refused.
std::vector<Quat> unit_quaternions(const py::handle& given, std::size_t rows, bool scalar, const std::string& call) {
  const std::vector<double> v = number_rows(given, rows, scalar, 4, call, "orientation_xyzw");
  std::vector<Quat> out;
  for (std::size_t i = 0; i < rows; ++i) {
    const double* q = &v[4 * i];
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(std::abs(norm - 1.0) <= kUnitTolerance))
      throw py::value_error(call + ": orientation_xyzw " + vector_text(q, 4) + " has norm " + format_significant(norm, 6) +
                            "; a rotation is a unit quaternion (x, y, z, w), scalar last");
    out.emplace_back(q[3] / norm, q[0] / norm, q[1] / norm, q[2] / norm);  // glm: (w, x, y, z)
  }
  return out;
}

/// Velocities (m/s or rad/s, world frame), each of magnitude at most kMaxSpeed.
std::vector<Vec3> bounded_vectors(const py::handle& given, std::size_t rows, bool scalar, const std::string& call,
                                  const std::string& name) {
  const std::vector<double> v = number_rows(given, rows, scalar, 3, call, name);
  std::vector<Vec3> out;
  for (std::size_t i = 0; i < rows; ++i) {
    const Vec3 u(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    if (!(glm::length(u) <= kMaxSpeed))
      throw py::value_error(call + ": " + name + " " + vector_text(&v[3 * i], 3) + " is faster than " +
                            format_number(kMaxSpeed) + " (the config's bound on speed_mps and spin_radps)");
    out.push_back(u);
  }
  return out;
}

/// A static entity never moves: refuses to give it a velocity.
void check_moves(const Animation& world, EntityId id, const std::string& call) {
  const Entity& e = world.entities()[id];
  if (e.is_static)
    throw py::value_error(call + ": entity " + std::to_string(id) + " is static (group '" +
                          world.settings().world.entities[e.group].name + "', is_static): it never moves");
}

std::string vec3_text(const Vec3& v) {
  const double xyz[3] = {v.x, v.y, v.z};
  return vector_text(xyz, 3);
}

std::string quaternion_text(const Quat& q) {
  const double xyzw[4] = {q.x, q.y, q.z, q.w};
  return vector_text(xyzw, 4);
}

py::array_t<double> rows_array(const std::vector<double>& values, std::size_t rows, bool scalar, py::ssize_t width) {
  py::array_t<double> out = scalar ? py::array_t<double>(width) : py::array_t<double>({static_cast<py::ssize_t>(rows), width});
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

/// World.pose: (position_m, orientation_xyzw) of the entities named.
py::tuple pose_of(World& w, const py::object& ids) {
  w.check_idle("pose");
  const Animation& world = w.world();
  const EntityIds e = entity_ids(ids, world, "pose");
  std::vector<double> p, q;
  for (const EntityId id : e.ids) {
    const EntityState& s = world.states()[id];
    p.insert(p.end(), {s.position_m.x, s.position_m.y, s.position_m.z});
    q.insert(q.end(), {s.orientation.x, s.orientation.y, s.orientation.z, s.orientation.w});
  }
  return py::make_tuple(rows_array(p, e.ids.size(), e.scalar, 3), rows_array(q, e.ids.size(), e.scalar, 4));
}

/// World.velocity: (velocity_mps, angular_velocity_radps) of the entities named.
py::tuple velocity_of(World& w, const py::object& ids) {
  w.check_idle("velocity");
  const Animation& world = w.world();
  const EntityIds e = entity_ids(ids, world, "velocity");
  std::vector<double> v, a;
  for (const EntityId id : e.ids) {
    const EntityState& s = world.states()[id];
    v.insert(v.end(), {s.linear_velocity_mps.x, s.linear_velocity_mps.y, s.linear_velocity_mps.z});
    a.insert(a.end(), {s.angular_velocity_radps.x, s.angular_velocity_radps.y, s.angular_velocity_radps.z});
  }
  return py::make_tuple(rows_array(v, e.ids.size(), e.scalar, 3), rows_array(a, e.ids.size(), e.scalar, 3));
}

/// World.set_pose: new centres of mass and/or orientations, velocities kept.
void set_pose(World& w, const py::object& ids, const py::object& position, const py::object& orientation) {
  w.check_idle("set_pose");
  if (position.is_none() && orientation.is_none())
    throw py::value_error("set_pose: give position_m, orientation_xyzw or both");
  Animation& world = w.animation();
  const EntityIds e = entity_ids(ids, world, "set_pose");
  const std::size_t n = e.ids.size();
  const std::vector<Vec3> p = position.is_none() ? std::vector<Vec3>{} : positions_in_box(position, n, e.scalar, world, "set_pose");
  const std::vector<Quat> q = orientation.is_none() ? std::vector<Quat>{} : unit_quaternions(orientation, n, e.scalar, "set_pose");
  for (std::size_t i = 0; i < n; ++i) {
    EntityState s = world.states()[e.ids[i]];
    if (!p.empty()) s.position_m = p[i];
    if (!q.empty()) s.orientation = q[i];
    world.set_state(e.ids[i], s);
    if (w.recording())
      w.write_event("set_pose: {entity: " + std::to_string(e.ids[i]) + ", position_m: " + vec3_text(s.position_m) +
                        ", orientation_xyzw: " + quaternion_text(s.orientation) + "}",
                    world.frames_done());
  }
}

/// World.set_velocity: new linear and/or angular velocities, poses kept.
void set_velocity(World& w, const py::object& ids, const py::object& linear, const py::object& angular) {
  w.check_idle("set_velocity");
  if (linear.is_none() && angular.is_none())
    throw py::value_error("set_velocity: give velocity_mps, angular_velocity_radps or both");
  Animation& world = w.animation();
  const EntityIds e = entity_ids(ids, world, "set_velocity");
  const std::size_t n = e.ids.size();
  for (const EntityId id : e.ids) check_moves(world, id, "set_velocity");
  const std::vector<Vec3> v = linear.is_none() ? std::vector<Vec3>{} : bounded_vectors(linear, n, e.scalar, "set_velocity", "velocity_mps");
  const std::vector<Vec3> a =
      angular.is_none() ? std::vector<Vec3>{} : bounded_vectors(angular, n, e.scalar, "set_velocity", "angular_velocity_radps");
  for (std::size_t i = 0; i < n; ++i) {
    EntityState s = world.states()[e.ids[i]];
    if (!v.empty()) s.linear_velocity_mps = v[i];
    if (!a.empty()) s.angular_velocity_radps = a[i];
    world.set_state(e.ids[i], s);
    if (w.recording())
      w.write_event("set_velocity: {entity: " + std::to_string(e.ids[i]) + ", velocity_mps: " +
                        vec3_text(s.linear_velocity_mps) + ", angular_velocity_radps: " +
                        vec3_text(s.angular_velocity_radps) + "}",
                    world.frames_done());
  }
}

/// An index given as a Python int or anything with __index__ (NumPy's ints), bools refused:
/// its value, or nullopt past a long long; `text` its first 40 characters, for messages.
/// TypeError naming `what` for anything else.
std::optional<long long> index_value(const py::handle& given, const std::string& what, std::string& text) {
  if (py::isinstance<py::bool_>(given) || !PyIndex_Check(given.ptr())) throw py::type_error(what);
  PyObject* index = PyNumber_Index(given.ptr());
  if (index == nullptr) throw py::error_already_set();
  const auto owned = py::reinterpret_steal<py::object>(index);
  text = py::str(py::handle(index)).cast<std::string>().substr(0, 40);
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(index, &overflow);
  if (overflow != 0) return std::nullopt;
  return value;
}

/// An entity group named by its index or its name (world.entities[i].name, unique).
std::uint32_t group_index(const py::handle& group, const Animation& world, const std::string& call) {
  const std::vector<EntityGroupSettings>& groups = world.settings().world.entities;
  if (py::isinstance<py::str>(group)) {
    const std::string name = group.cast<std::string>();
    std::vector<std::uint32_t> found;
    std::string names;
    for (std::uint32_t g = 0; g < groups.size(); ++g) {
      if (groups[g].name == name) found.push_back(g);
      names += (g ? ", '" : "'") + groups[g].name + "'";
    }
    if (found.size() == 1) return found.front();
    throw py::value_error(call + ": " +
                          (found.empty() ? "no entity group is named '" + excerpt(name) + "'; the groups are " + names
                                         : std::to_string(found.size()) + " groups are named '" + name +
                                               "'; name the group by its index in world.entities"));
  }
  std::string text;
  const std::optional<long long> g =
      index_value(group, call + ": group is an index into world.entities (an int) or a group's name (a str)", text);
  if (!g || *g < 0 || static_cast<std::size_t>(*g) >= groups.size())
    throw py::value_error(call + ": group " + text + " is not an index into world.entities (0 to " +
                          std::to_string(groups.size() - 1) + ")");
  return static_cast<std::uint32_t>(*g);
}

/// A voxel model from a 3-D bool or uint8 array indexed [x, y, z] (non-zero: occupied),
/// at most kMaxVoxelsPerSide a side, each voxel a cube of `voxel_size_m`.
VoxelModel voxel_model(const py::handle& voxels, double voxel_size_m, const std::string& call) {
  const py::array a = as_array(voxels);
  const char kind = a.dtype().kind();
  if (kind != 'b' && !(kind == 'u' && a.itemsize() == 1))
    throw py::type_error(call + ": voxels is an array of bool or uint8 (non-zero: occupied); got " + dtype_text(a));
  if (a.ndim() != 3) throw py::value_error(call + ": voxels is a 3-D array indexed [x, y, z]; got shape " + shape_text(a));
  for (int k = 0; k < 3; ++k)
    if (a.shape(k) < 1 || a.shape(k) > kMaxVoxelsPerSide)
      throw py::value_error(call + ": voxels has shape " + shape_text(a) + "; each side must hold 1 to " +
                            std::to_string(kMaxVoxelsPerSide) + " voxels (model.resolution_voxels' bound)");
  const double longest_m = static_cast<double>(std::max({a.shape(0), a.shape(1), a.shape(2)})) * voxel_size_m;
  if (!std::isfinite(voxel_size_m) || !(voxel_size_m > 0) || !(longest_m >= 1e-6 && longest_m <= 1e6))
    throw py::value_error(call + ": voxel_size_m " + format_number(voxel_size_m) +
                          " makes the model's longest side " + format_number(longest_m) +
                          " m; it must be 1e-6 to 1e6 m, as model.size_m");
  const auto cells = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!cells) throw py::type_error(call + ": voxels cannot be read as uint8 (" + dtype_text(a) + ")");
  const IVec3 dims(static_cast<int>(a.shape(0)), static_cast<int>(a.shape(1)), static_cast<int>(a.shape(2)));
  VoxelModel model(dims, voxel_size_m);
  const std::uint8_t* cell = cells.data();
  bool any = false;
  for (int x = 0; x < dims.x; ++x)
    for (int y = 0; y < dims.y; ++y)
      for (int z = 0; z < dims.z; ++z, ++cell)
        if (*cell != 0) {
          model.set(x, y, z, true);
          any = true;
        }
  if (!any) throw py::value_error(call + ": no voxel is occupied; an empty model has no mass");
  return model;
}

/// World.add_model: a new model of `group`, kept for add_entity to use.
ModelId add_model(World& w, const py::object& voxels, const py::object& group, double voxel_size_m) {
  w.check_idle("add_model");
  Animation& world = w.animation();
  const std::uint32_t g = group_index(group, world, "add_model");
  VoxelModel model = voxel_model(voxels, voxel_size_m, "add_model");
  const IVec3 dims = model.dims();
  const std::int64_t occupied = model.occupied_count();
  ModelId id = 0;
  try {
    id = world.add_model(std::move(model), g, ModelLifetime::kept);
  } catch (const ModelError& e) {
    throw py::value_error(std::string("add_model: ") + e.what());
  }
  if (w.recording())
    w.write_event("add_model: {model: " + std::to_string(id) + ", group: " + std::to_string(g) + ", voxels: [" +
                      std::to_string(dims.x) + ", " + std::to_string(dims.y) + ", " + std::to_string(dims.z) +
                      "], occupied: " + std::to_string(occupied) + ", voxel_size_m: " + format_number(voxel_size_m) + "}",
                  world.frames_done());
  return id;
}

/// World.add_entity: a new entity of an existing model at a pose, with velocities.
EntityId add_entity(World& w, const py::object& model, const py::object& position, const py::object& orientation,
                    const py::object& linear, const py::object& angular) {
  w.check_idle("add_entity");
  Animation& world = w.animation();
  std::string text;
  const std::optional<long long> m =
      index_value(model, "add_entity: model is a model id (an int: entities()['model'], or what add_model returned)", text);
  if (!m || *m < 0 || *m > static_cast<long long>(UINT32_MAX) || !world.model_library().has_model(static_cast<ModelId>(*m)))
    throw py::value_error("add_entity: model " + text +
                          " is not a model of this world (entities()['model'] names them; add_model adds one)");
  const auto id_model = static_cast<ModelId>(*m);
  EntityState s;
  s.position_m = positions_in_box(position, 1, true, world, "add_entity").front();
  if (!orientation.is_none()) s.orientation = unit_quaternions(orientation, 1, true, "add_entity").front();
  const bool moves = !linear.is_none() || !angular.is_none();
  if (moves && world.model_library().prototypes()[id_model].is_static)
    throw py::value_error("add_entity: model " + std::to_string(*m) + " is of a static group: its entities never move");
  if (!linear.is_none()) s.linear_velocity_mps = bounded_vectors(linear, 1, true, "add_entity", "velocity_mps").front();
  if (!angular.is_none())
    s.angular_velocity_radps = bounded_vectors(angular, 1, true, "add_entity", "angular_velocity_radps").front();
  const EntityId id = world.spawn(id_model, s);
  if (w.recording())
    w.write_event("add_entity: {entity: " + std::to_string(id) + ", model: " + std::to_string(*m) + ", position_m: " +
                      vec3_text(s.position_m) + ", orientation_xyzw: " + quaternion_text(s.orientation) +
                      ", velocity_mps: " + vec3_text(s.linear_velocity_mps) +
                      ", angular_velocity_radps: " + vec3_text(s.angular_velocity_radps) + "}",
                  world.frames_done());
  return id;
}

/// World.remove_entity: the entities named leave the world (Animation::retire).
void remove_entity(World& w, const py::object& ids) {
  w.check_idle("remove_entity");
  Animation& world = w.animation();
  const EntityIds e = entity_ids(ids, world, "remove_entity");
  // A demo keeps the ids of the entities it drives (the rockfall's rocks, the crowd's
  // walkers) and would go on driving, or retire again, an entity removed behind its back.
  if (w.has_demo() && !e.ids.empty())
    throw py::value_error("remove_entity: demo.kind " + std::string(kind_name(kDemoKinds, w.config().settings.demo.kind)) +
                          " drives entities by their ids and would drive a removed one; remove entities in a world "
                          "without a demo (demo.kind: none)");
  for (const EntityId id : e.ids) {
    world.retire(id);
    w.write_event("remove_entity: {entity: " + std::to_string(id) + "}", world.frames_done());
  }
}

// Offscreen pictures (World.render), drawn by render/'s Viewer as `fovea run --offscreen
// --capture` draws them.

/// The largest picture render() draws per side, pixels (4096 x 4096 x 3 bytes is 48 MiB).
constexpr std::int64_t kMaxPicturePx = 4096;

bool same_screen(const ScreenSettings& a, const ScreenSettings& b) {
  return a.width_px == b.width_px && a.height_px == b.height_px && a.width_cm == b.width_cm &&
         a.height_cm == b.height_cm && a.viewing_distance_cm == b.viewing_distance_cm;
}

/// The process's offscreen pictures: one Viewer (SDL's video and Dear ImGui's context are
/// the process's), opened at the first picture and again for another size or screen, which
/// meshes a world's models again when it draws another world than last time (another World,
/// or one reset since). Used with the GIL held, so by one thread at a time.
class Pictures {
 public:
  /// The world's last frame, `width_px` x `height_px`, as (height, width, 3) uint8 RGB, top
  /// row first: the screen's picture fitted inside, black bars where the aspects differ.
  py::array_t<std::uint8_t> draw(World& w, int width_px, int height_px, const std::optional<bool>& overlays) {
    const config::LoadedConfig& loaded = w.config();
    const ScreenSettings& screen = loaded.settings.perception.view.screen;
    RenderSettings render = loaded.settings.render;
    // As fovea run draws offscreen (open_viewer, experiments/fovea/run_command.cpp): what
    // shows the wall clock (the panel, the frame-time graph) only where the config asks.
    if (!loaded.locations.count("render.panel")) render.panel = false;
    if (!loaded.locations.count("render.overlays.frame_graph")) render.overlays.frame_graph = false;
    render.width_px = width_px;
    render.height_px = height_px;
    if (!viewer_ || width_px != width_px_ || height_px != height_px_ || !same_screen(screen, screen_)) open(render, screen);
    ViewerControls& controls = viewer_->controls();
    controls.render = render;
    controls.show_panel = render.panel && !render.stimulus;
    controls.show_overlays = overlays.value_or(!render.stimulus);
    Image image;
    try {
      const Current current(*viewer_);
      if (attached_ != w.serial()) {
        viewer_->attach(w.world());
        attached_ = w.serial();
      }
      viewer_->draw(w.animation(), static_cast<std::uint64_t>(loaded.settings.seed), "fovea.World");
      image = read_framebuffer(0, 0, width_px, height_px);
    } catch (const RenderError& e) {
      close();
      throw std::runtime_error(std::string("render: ") + e.what());
    }
    py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(height_px), static_cast<py::ssize_t>(width_px), py::ssize_t{3}});
    std::copy(image.rgb.begin(), image.rgb.end(), out.mutable_data());
    return out;
  }

  /// Closes the viewer (at the interpreter's exit, before SDL's and EGL's own teardown).
  void close() {
    if (viewer_) {
      // Its meshes and Dear ImGui's objects are freed with the context current.
      SDL_GL_MakeCurrent(viewer_->window().sdl_window(), viewer_->window().gl_context());
      viewer_.reset();
    }
    width_px_ = height_px_ = 0;
    attached_ = 0;
  }

 private:
  /// The viewer's OpenGL context current on the calling thread for its lifetime, then let
  /// go: a context is current on one thread at a time, and render() may be called from
  /// any Python thread. Throws RenderError when the context cannot be taken.
  class Current {
   public:
    explicit Current(const Viewer& viewer) : window_(viewer.window().sdl_window()) {
      if (SDL_GL_MakeCurrent(window_, viewer.window().gl_context()) != 0)
        throw RenderError(std::string("cannot make the offscreen context current: ") + SDL_GetError());
    }
    ~Current() { SDL_GL_MakeCurrent(window_, nullptr); }
    Current(const Current&) = delete;
    Current& operator=(const Current&) = delete;

   private:
    SDL_Window* window_;
  };

  void open(const RenderSettings& render, const ScreenSettings& screen) {
    close();
    try {
      viewer_ = std::make_unique<Viewer>(render, DisplayMode::offscreen, screen, "fovea.World");
    } catch (const RenderError& e) {
      throw std::runtime_error(std::string("render: cannot draw offscreen: ") + e.what());
    }
    if (viewer_->window().width_px() != render.width_px || viewer_->window().height_px() != render.height_px) {
      const std::string got = std::to_string(viewer_->window().width_px()) + " x " + std::to_string(viewer_->window().height_px());
      close();
      throw std::runtime_error("render: asked for " + std::to_string(render.width_px) + " x " +
                               std::to_string(render.height_px) + " pixels, the offscreen driver gave " + got);
    }
    width_px_ = render.width_px;
    height_px_ = render.height_px;
    screen_ = screen;
  }

  std::unique_ptr<Viewer> viewer_;
  int width_px_ = 0, height_px_ = 0;
  ScreenSettings screen_;
  std::uint64_t attached_ = 0;  ///< the serial of the world whose models the viewer meshed
};

Pictures& pictures() {
  static Pictures shared;
  return shared;
}

/// World.render: the picture's size from the arguments, the config's render.width_px and
/// height_px when neither is given, the screen's aspect for the one not given.
py::array_t<std::uint8_t> render_picture(World& w, const std::optional<std::int64_t>& width,
                                         const std::optional<std::int64_t>& height, const std::optional<bool>& overlays) {
  w.check_idle("render");
  const Settings& settings = w.config().settings;
  const ScreenSettings& screen = settings.perception.view.screen;
  const double aspect = static_cast<double>(screen.width_px) / screen.height_px;
  std::int64_t width_px = settings.render.width_px, height_px = settings.render.height_px;
  for (const auto& [value, name] : {std::pair{width, "width_px"}, std::pair{height, "height_px"}})
    if (value && (*value < 1 || *value > kMaxPicturePx))
      throw py::value_error(std::string("render: ") + name + " " + std::to_string(*value) + " is outside 1 to " +
                            std::to_string(kMaxPicturePx) + " pixels");
  if (width) width_px = *width;
  if (height) height_px = *height;
  if (width && !height) height_px = std::clamp<std::int64_t>(std::llround(static_cast<double>(width_px) / aspect), 1, kMaxPicturePx);
  if (height && !width) width_px = std::clamp<std::int64_t>(std::llround(static_cast<double>(height_px) * aspect), 1, kMaxPicturePx);
  return pictures().draw(w, static_cast<int>(width_px), static_cast<int>(height_px), overlays);
}

}  // namespace

namespace {

/// World's pybullet-like calls (docs/python.md, "Driving a world like pybullet").
void bind_world_entities(py::class_<World>& world) {
  world
      .def("pose", &pose_of, py::arg("entity"),
           R"(pose(entity) -> (position_m, orientation_xyzw), as pybullet's getBasePositionAndOrientation:
the centre of mass in metres, world frame (what pybullet's base position is too), and the
rotation from model to world axes as a unit quaternion (x, y, z, w), scalar last as pybullet
and scipy's Rotation.from_quat take it. entity: an int (arrays of shape (3,) and (4,)) or a
1-D array of ints ((n, 3) and (n, 4)). ValueError for an id that is not a live entity's.)")
      .def("set_pose", &set_pose, py::arg("entity"), py::arg("position_m") = py::none(),
           py::arg("orientation_xyzw") = py::none(),
           R"(set_pose(entity, position_m=None, orientation_xyzw=None), as pybullet's
resetBasePositionAndOrientation, before the next step: what is None is kept, and so are the
velocities; the response's positional correction still owed is dropped. entity: an int
(position_m shape (3,), orientation_xyzw (4,)) or a 1-D array of ints ((n, 3), (n, 4)).
Positions in metres inside the world box; the quaternion (x, y, z, w) of norm 1 within 0.001,
normalised. Everything is checked before anything changes: ValueError for an unknown or
removed id, an id named twice, a wrong shape, a NaN or infinity, a position outside the box, a
quaternion that is not a rotation; TypeError for what is not numbers.)")
      .def("velocity", &velocity_of, py::arg("entity"),
           R"(velocity(entity) -> (velocity_mps, angular_velocity_radps), as pybullet's getBaseVelocity: of
the centre of mass in m/s and the angular velocity in rad/s, both in the world frame. entity as
for pose.)")
      .def("set_velocity", &set_velocity, py::arg("entity"), py::arg("velocity_mps") = py::none(),
           py::arg("angular_velocity_radps") = py::none(),
           R"(set_velocity(entity, velocity_mps=None, angular_velocity_radps=None), as pybullet's
resetBaseVelocity: m/s and rad/s, world frame, what is None kept. Each of magnitude at most
1e6 (the config's bound on speed_mps and spin_radps). ValueError as set_pose, and for a static
entity, which never moves.)")
      .def("add_model", &add_model, py::arg("voxels"), py::arg("group"), py::arg("voxel_size_m"),
           R"(add_model(voxels, group, voxel_size_m) -> model id, as pybullet's createCollisionShape: a
voxel model from a 3-D NumPy array of bool or uint8 indexed [x, y, z] (non-zero: occupied; 1 to
256 voxels a side), each voxel a cube of voxel_size_m metres (the longest side 1e-6 to 1e6 m),
for the entity group `group` (its index in world.entities, or its name), whose material, sphere
tree settings and bounds it takes. The model is kept for add_entity. TypeError for another
dtype, ValueError for another shape, an empty model, an unknown group.)")
      .def("add_entity", &add_entity, py::arg("model"), py::arg("position_m"), py::arg("orientation_xyzw") = py::none(),
           py::arg("velocity_mps") = py::none(), py::arg("angular_velocity_radps") = py::none(),
           R"(add_entity(model, position_m, orientation_xyzw=None, velocity_mps=None, angular_velocity_radps=None)
-> entity id, as pybullet's createMultiBody: a new entity of a model of this world (an existing
entity's, entities()["model"], or add_model's), at rest and unrotated unless told, in the broad
phase from the next step; static when the model's group is. Units and checks as set_pose and
set_velocity. The id may be a removed entity's, given again after a step.)")
      .def("remove_entity", &remove_entity, py::arg("entity"),
           R"(remove_entity(entity), as pybullet's removeBody: the entities (an int or a 1-D array of ints)
leave the world; it stops moving at once and leaves the broad phase and the collisions at the
next step. Refused (ValueError) in a world with a demo, which drives entities by their ids.)")
      .def("reset", &World::reset, py::arg("seed") = py::none(),
           R"(reset(seed=None), as pybullet's resetSimulation and a reload: the world and its demo built
again from world.config (live changes kept) with its seed, or `seed`: the world a new
World(world.config) starts with, entities added and removed undone. A recorded world goes on
in the same files, as the window's reset does (events.csv says "reset").)")
      .def("set_camera",
           [](World& w, const py::kwargs& keys) {
             w.change("perception.view.camera", "set_camera", keys,
                      [](Animation& a, const Settings& s) { a.set_camera(s.perception.view.camera); });
           },
           R"(Moves the camera from the next step, as the window's camera moves it: the picture and the
perception model's projection together. Keys as under perception.view.camera:
set_camera(frame_box=False, position_m=[5, 5, 20], target_m=[5, 5, 5]).)")
      .def("render", &render_picture, py::arg("width_px") = py::none(), py::arg("height_px") = py::none(),
           py::arg("overlays") = py::none(),
           R"(render(width_px=None, height_px=None, overlays=None) -> (height_px, width_px, 3) uint8 RGB, top row
first, as pybullet's getCameraImage: the last frame drawn offscreen by fovea's renderer (no
display needed), as `fovea run --offscreen --capture` draws it. Size: the config's
render.width_px x height_px, or as given (1 to 4096 a side; one given, the other from the
screen's aspect); the screen's picture fitted inside, black bars where the aspects differ.
overlays: the gaps, fixation and world box drawn (None: unless render.stimulus). RuntimeError
when no offscreen context can be made.)");
}

}  // namespace

void bind_world(py::module_& m) {
  // Python owns SIGINT and SIGTERM: SDL, started by World.render or a session's display,
  // would otherwise take SIGTERM (which Python leaves at its default) and turn it into an
  // SDL_QUIT event nobody reads, so `kill` would no longer stop the interpreter.
  SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
  // The offscreen viewer goes before the interpreter (and EGL's own teardown) does.
  py::module_::import("atexit").attr("register")(py::cpp_function([] { pictures().close(); }));
  py::class_<World> world(m, "World", R"(A config's world and its demo, stepped from Python.

World(config=None, overrides=None, record=None): config and overrides as load_config takes
them. With record (a new or empty folder), each frame is written as `fovea run` writes it
(frames.csv, collisions.csv and gaze.csv as the config's record keys ask, summary.json and
manifest.json on close()); use it in a `with` block or call close(). The same config and
seed step to the same frames, byte for byte, as `fovea run --headless`. Its entities are
set and read by id as pybullet's bodies are (pose, set_pose, velocity, set_velocity,
add_model, add_entity, remove_entity, reset, render: docs/python.md, "Driving a world like
pybullet").)");
  world.def(py::init([](const py::object& config, const py::object& overrides,
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
  bind_world_entities(world);
}

}  // namespace fovea::python
