#pragma once

// The design of a clip comparison (`method: clip_comparison`, docs/psychophysics.md, "Clip
// comparison"): a human test of scheduling. Short clips of a scene, rendered live from the
// same world state under a scheduler at a sphere-test budget and under a reference (full
// resolution, or another scheduler at the same budget), shown to an observer who says which
// clip looked wrong (2IFC) or whether an error was seen (yes/no). Plain data and functions of
// the settings and the seed: a resumed session plans the same trials again.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/kind_table.hpp"
#include "schedule/schedule_settings.hpp"

namespace fovea {

/// What the observer is asked.
enum class ClipTask { two_interval /**< "2ifc": which of two clips is wrong */, yes_no /**< one clip: error seen */ };

/// ClipTask's names in a spec (`clip_comparison.task`), with one line of help each.
inline constexpr auto kClipTasks = kind_table<KindName<ClipTask>>({
    {ClipTask::two_interval, "2ifc", "the test clip and the reference in a seeded order, \"which one looked wrong?\""},
    {ClipTask::yes_no, "yes_no", "one clip, \"did you see an error?\"; the reference clips are shown as trials too"},
});

/// What the test clip is compared against.
enum class ClipReference { full /**< full resolution */, scheduler /**< reference_scheduler, same budget */ };

/// ClipReference's names in a spec (`clip_comparison.reference`), with one line of help each.
inline constexpr auto kClipReferences = kind_table<KindName<ClipReference>>({
    {ClipReference::full, "full", "full resolution: every collision resolved, no budget (no errors by construction)"},
    {ClipReference::scheduler, "scheduler", "`reference_scheduler` at the test clip's budget"},
});

/// A scene: a world config (configs/*.yaml), its path relative to the spec.
struct ClipScene {
  std::string name;  ///< the records' name for it
  std::string file;  ///< the world config, relative to the spec until the spec is loaded
};

/// The `clip_comparison` section of an experiment spec: the cells (scene x scheduler x budget), the
/// reference, and how the trials are dealt and answered.
struct ClipComparisonSettings {
  std::vector<ClipScene> scenes;          ///< crossed with schedulers and budgets; ClipCondition::scene indexes it
  std::vector<SchedulerKind> schedulers;  ///< the tested schedulers
  std::vector<double> budgets_tests;      ///< sphere tests per frame (work budgets: clips are deterministic)
  ClipReference reference = ClipReference::full;  ///< what each test clip is compared against
  SchedulerKind reference_scheduler = SchedulerKind::round_robin;  ///< with reference: scheduler
  double clip_s = 2.0;        ///< each clip's length, seconds of the scene's time
  int warmup_frames = 100;    ///< frames stepped at full resolution before a clip starts (not shown)
  int repetitions = 4;        ///< trials of each cell, each from its own world seed
  int blocks = 1;             ///< blocks, each shuffled on its own; repetitions dealt to them in turn
  ClipTask task = ClipTask::two_interval;  ///< yes/no answers with the spec's task.yes_key and no_key
  std::string first_key = "1";   ///< 2IFC: "the first clip looked wrong" (SDL's key names)
  std::string second_key = "2";  ///< 2IFC: "the second"
};

/// One cell of the design: a scene, and the scheduler and budget its test clip runs with;
/// for yes/no, also the reference's own cells (`reference_clip`: the clip shown is the
/// reference's at that budget, or full resolution).
struct ClipCondition {
  int index = 0;  ///< in cross_clip_conditions()' order
  int scene = 0;  ///< index into ClipComparisonSettings::scenes
  SchedulerKind scheduler = SchedulerKind::round_robin;  ///< the test clip's; reference_scheduler in a reference cell
  std::int64_t budget_tests = 0;  ///< 0 for full resolution (no budget)
  bool reference_clip = false;    ///< yes/no only: this cell shows the reference
};

/// One planned trial.
struct ClipTrial {
  int trial = 0;           ///< index in the participant's sequence, from 0
  int block = 0;           ///< from 0; repetition r goes to block r % blocks
  int trial_in_block = 0;  ///< index in the block's shuffled order, from 0
  int repetition = 0;      ///< which of the cell's repetitions: it picks the world seed
  ClipCondition condition;  ///< the cell this trial repeats
  bool test_first = true;        ///< 2IFC: the test clip is shown first
  std::uint64_t world_seed = 0;  ///< both clips of the trial start from this seed and warm-up
};

/// The cells: scene-major, then scheduler, then budget; for yes/no the reference's cells
/// follow, one per scene (full resolution) or per scene and budget (a reference scheduler).
std::vector<ClipCondition> cross_clip_conditions(const ClipComparisonSettings& design);

/// Every trial in the order shown: each cell `repetitions` times, repetition r in block
/// r % blocks, each block shuffled on its own seeded stream; a 2IFC trial's order drawn from
/// the seed, its world seed from the seed and the repetition (so a repetition's clips start
/// from the same world in every cell: the cells are matched). Throws std::invalid_argument
/// naming the key for a design that cannot run (validate()).
std::vector<ClipTrial> plan_clip_trials(const ClipComparisonSettings& design, std::uint64_t seed);

/// The world seed of repetition `repetition` of a design seeded `seed`.
std::uint64_t clip_world_seed(std::uint64_t seed, int repetition);

/// Checks across keys; throws std::invalid_argument whose message starts with the key at
/// fault and a colon ("clip_comparison.scenes: ...").
void validate(const ClipComparisonSettings& design);

/// A task's config name: "2ifc", "yes_no".
constexpr const char* clip_task_name(ClipTask task) { return kind_name(kClipTasks, task); }

}  // namespace fovea
