#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frame/animation_settings.hpp"
#include "frame/frame_data.hpp"
#include "schedule/scheduler_kinds.hpp"

namespace fovea {

/// The stages of one frame (docs/architecture.md, "One frame"), as Box2D v3 names its
/// solver's stages: each a function over the frame's shared data (FrameContext) that says
/// what it reads and what it writes. Which stages a frame runs, and in which order, is
/// decided once, from the settings, when the world is built or a live setter changes them
/// (plan_frame): no stage asks what kind of frame it is in.
enum class Stage : int {
  gaze,                    ///< the fixation point for this frame
  integrate,               ///< last frame's correction, then velocities and poses
  boxes,                   ///< each moving entity's broad-phase box
  sweep_and_prune,         ///< the overlapping pairs
  sync,                    ///< one collision per pair; unused models released, idle branches evicted
  occluders,               ///< the leaves that can hide a gap from the eye (metrics.visibility)
  evaluate,                ///< the listed schedulers run on the side (evaluate:)
  restart_descents,        ///< every collision back at its roots (or last frame's pair)
  true_priorities,         ///< the exact voxel test's verdicts, for the oracle
  start_budget,            ///< the budget's clock starts: what follows is paid from it
  prioritise,              ///< f(e, g) of each collision at the frame's start: its priority
  schedule,                ///< sphere tests in the scheduler's order until resolved or spent
  interrupt,               ///< what is left becomes colliding or not (the interrupt policy)
  remember,                ///< what the descents ended with, for the next frame
  response,                ///< contacts, the walls, one impulse solve: new velocities
  prioritise_for_records,  ///< the same priorities, after the fact, for the records
  place_at_end,            ///< colliding ones placed again from their deepest spheres
  measure,                 ///< outcomes, nabla and P, the exact test's truth
  keep_memory,             ///< this frame's memory becomes the last frame's
  tree_growth,             ///< what on-demand trees grew and evicted
  count                    ///< the number of stages, not a stage
};
/// Number of stages: the size of the stage table.
inline constexpr int kStageCount = static_cast<int>(Stage::count);

/// The data stages share, for the stage list's "reads" and "writes" (a bit each).
enum class FrameDatum : std::uint32_t {
  gaze = 1u << 0,             ///< the fixation point (and what the gaze source watches)
  states = 1u << 1,           ///< the entities' poses and velocities
  corrections = 1u << 2,      ///< the response's positional correction, owed to the next step
  entities = 1u << 3,         ///< the entities' cold data (mass, model, live, static)
  models = 1u << 4,           ///< the models and their sphere trees, on-demand nodes included
  boxes = 1u << 5,            ///< the broad phase's boxes
  pairs = 1u << 6,            ///< the broad phase's overlapping pairs
  collisions = 1u << 7,       ///< the narrow phase's collisions and their descents
  priorities = 1u << 8,       ///< each collision's placement on screen and f(e, g)
  true_priorities = 1u << 9,  ///< each collision's exact-test priority (the oracle's key)
  budget = 1u << 10,          ///< the frame's budget of sphere tests or milliseconds
  memory = 1u << 11,          ///< the descents' memory of the last frame and of this one
  occluders = 1u << 12,       ///< this frame's occluders
  evaluation = 1u << 13,      ///< the evaluated schedulers' rows
  contacts = 1u << 14,        ///< the response's contact manifolds
  metrics = 1u << 15,         ///< nabla, P, the truth, episodes
  stats = 1u << 16,           ///< the frame's record (FrameStats)
};
/// Number of FrameDatum bits: bits 0 to kFrameDatumCount - 1 are used.
inline constexpr int kFrameDatumCount = 17;

/// A set of FrameDatum bits.
using FrameData = std::uint32_t;
/// The set of two data.
constexpr FrameData operator|(FrameDatum a, FrameDatum b) {
  return static_cast<FrameData>(a) | static_cast<FrameData>(b);
}
/// The set `a` with `b` added.
constexpr FrameData operator|(FrameData a, FrameDatum b) { return a | static_cast<FrameData>(b); }

/// Which time a stage's wall-clock time is added to: a phase's `<phase>_ms` column, the
/// evaluation's (outside the frame's time), or the frame's alone.
enum class StageClock {
  frame,        ///< frame_ms alone: no phase column
  integrate,    ///< integrate_ms (and frame_ms)
  broadphase,   ///< broadphase_ms (and frame_ms)
  narrowphase,  ///< narrowphase_ms (and frame_ms)
  response,     ///< response_ms (and frame_ms)
  metrics,      ///< metrics_ms (and frame_ms)
  evaluation    ///< evaluation_ms, left out of frame_ms
};

/// One row of the stage table.
struct StageInfo {
  Stage stage;                  ///< the stage this row describes
  std::string_view name;        ///< as --explain-frame prints it ("sweep_and_prune")
  StageClock clock;             ///< where its time goes
  bool splits_over_pool;        ///< whether it splits its work over the thread pool
  FrameData reads;              ///< the data it reads (FrameDatum bits)
  FrameData writes;             ///< the data it writes (FrameDatum bits)
  std::string_view what;        ///< one line: what it does, and where (file and function)
  void (*run)(FrameContext& frame);  ///< runs the stage on one frame's shared data (frame_stages.cpp)
};

/// The stage table: every stage, in Stage order.
std::span<const StageInfo> stage_table();
/// The stage table's row of `stage`.
const StageInfo& stage_info(Stage stage);
/// The names of a set of data, comma-separated, in FrameDatum order ("states, corrections").
std::string frame_data_names(FrameData data);

/// What decides which stages a frame runs.
struct FramePlanInputs {
  bool evaluation = false;         ///< schedulers are evaluated on the side (evaluate.schedulers)
  bool uses_priority = false;      ///< the scheduler orders by f(e, g) (Scheduler::uses_priority)
  bool uses_true_priority = false; ///< the scheduler orders by the exact test (the oracle)
  bool remembers = false;          ///< coherence or refined priorities read last frame's descents
  bool occlusion = false;          ///< metrics.visibility: occlusion
  bool fast_priorities = false;    ///< the order reads fast priorities: the records' placements come after the run
  /// The scheduler places from another fixation than the eye's (schedule.gaze, a simulated
  /// tracker): the records' placements come after the run, from the eye.
  bool scheduler_gaze_differs = false;
};
/// The inputs for a world of `settings`: what its scheduler needs from its row of
/// kSchedulerKinds (schedule/scheduler_kinds.hpp).
FramePlanInputs frame_plan_inputs(const AnimationSettings& settings);

/// The stages a frame runs, in order. Every frame runs gaze, integrate, boxes,
/// sweep_and_prune, sync, restart_descents, start_budget, schedule, interrupt, response,
/// place_at_end, measure and tree_growth; the rest only where the inputs ask for them. The
/// order keeps what each stage reads after what writes it (tests/frame/frame_stages_test.cpp
/// checks it from the table's columns), and what the budget pays for
/// after start_budget: with an evaluation, sync comes before it and the budget after; with
/// the oracle, the true priorities are outside the budget.
std::vector<Stage> plan_frame(const FramePlanInputs& inputs);

/// The stage list as `fovea run --explain-frame` prints it: a line per stage (its name, the
/// time column it adds to, whether it splits over the threads, what it reads and writes)
/// and under it what it does.
std::string explain_frame(std::span<const Stage> plan);

}  // namespace fovea
