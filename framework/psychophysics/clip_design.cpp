#include "psychophysics/clip_design.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/rng.hpp"

namespace fovea {

std::vector<ClipCondition> cross_clip_conditions(const ClipComparisonSettings& design) {
  std::vector<ClipCondition> cells;
  const auto add = [&](int scene, SchedulerKind scheduler, std::int64_t budget, bool reference) {
    cells.push_back(ClipCondition{static_cast<int>(cells.size()), scene, scheduler, budget, reference});
  };
  const int scenes = static_cast<int>(design.scenes.size());
  for (int s = 0; s < scenes; ++s)
    for (const SchedulerKind k : design.schedulers)
      for (const double b : design.budgets_tests) {
        // A budget is a count of sphere tests (validate() says so at the spec's key).
        if (!(b >= 1 && b <= 1e15) || b != std::floor(b))
          throw std::invalid_argument("cross_clip_conditions: a budget of " + std::to_string(b) +
                                      " sphere tests is not a whole number in [1, 1e15]");
        add(s, k, static_cast<std::int64_t>(b), false);
      }
  if (design.task == ClipTask::yes_no) {
    for (int s = 0; s < scenes; ++s) {
      if (design.reference == ClipReference::full) {
        add(s, design.reference_scheduler, 0, true);
      } else {
        for (const double b : design.budgets_tests) add(s, design.reference_scheduler, static_cast<std::int64_t>(b), true);
      }
    }
  }
  return cells;
}

std::uint64_t clip_world_seed(std::uint64_t seed, int repetition) {
  // The trial-order streams' upper half: the block shuffles use indices below 2^31.
  Rng rng(seed, rng_stream(RngStream::trial_order, (std::uint64_t{1} << 31) + static_cast<std::uint64_t>(repetition)));
  return rng.below(std::uint64_t{1} << 53);  // a seed any config could hold
}

std::vector<ClipTrial> plan_clip_trials(const ClipComparisonSettings& design, std::uint64_t seed) {
  validate(design);
  const std::vector<ClipCondition> cells = cross_clip_conditions(design);
  std::vector<ClipTrial> trials;
  for (int block = 0; block < design.blocks; ++block) {
    std::vector<ClipTrial> in_block;
    for (const ClipCondition& c : cells)
      for (int r = block; r < design.repetitions; r += design.blocks) {
        ClipTrial t;
        t.block = block;
        t.repetition = r;
        t.condition = c;
        t.world_seed = clip_world_seed(seed, r);
        in_block.push_back(t);
      }
    // Fisher-Yates on the block's own stream: a block's order does not depend on the others.
    Rng order(seed, rng_stream(RngStream::trial_order, static_cast<std::uint64_t>(block)));
    fisher_yates(in_block, order);
    for (std::size_t i = 0; i < in_block.size(); ++i) {
      ClipTrial& t = in_block[i];
      t.trial = static_cast<int>(trials.size());
      t.trial_in_block = static_cast<int>(i);
      Rng side(seed, rng_stream(RngStream::trial_direction, static_cast<std::uint64_t>(t.trial)));
      t.test_first = design.task == ClipTask::yes_no || side.uniform() < 0.5;
      trials.push_back(t);
    }
  }
  return trials;
}

void validate(const ClipComparisonSettings& design) {
  const auto fail = [](const std::string& key, const std::string& message) {
    throw std::invalid_argument("clip_comparison." + key + ": " + message);
  };
  if (design.scenes.empty()) fail("scenes", "an empty list: a clip comparison needs at least one scene");
  if (design.schedulers.empty()) fail("schedulers", "an empty list: a clip comparison needs at least one scheduler");
  if (design.budgets_tests.empty()) fail("budgets_tests", "an empty list: a clip comparison needs at least one budget");
  for (const double b : design.budgets_tests)
    if (b != static_cast<double>(static_cast<std::int64_t>(b)) || b < 1)
      fail("budgets_tests", "each budget is a whole number of sphere tests, at least 1");
  for (std::size_t i = 0; i < design.scenes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (design.scenes[i].name == design.scenes[j].name)
        fail("scenes", "two scenes are named " + design.scenes[i].name + "; the records tell scenes apart by name");
  if (design.reference == ClipReference::scheduler &&
      std::find(design.schedulers.begin(), design.schedulers.end(), design.reference_scheduler) != design.schedulers.end())
    fail("reference_scheduler",
         "also a tested scheduler: its test clip and its reference would be the same clip; remove it from schedulers");
  if (design.blocks > design.repetitions)
    fail("blocks", "more blocks (" + std::to_string(design.blocks) + ") than repetitions (" +
                       std::to_string(design.repetitions) + "): a block would be empty");
  if (design.task == ClipTask::two_interval && design.first_key == design.second_key)
    fail("second_key", "the same key as first_key; the two clips need two keys");
}

}  // namespace fovea
