#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "perception/perception_model.hpp"
#include "psychophysics/trial_design.hpp"
#include "support/planned_trials.hpp"

using namespace fovea;

namespace {

std::vector<int> condition_order(const std::vector<PlannedTrial>& trials) {
  std::vector<int> order;
  for (const PlannedTrial& t : trials) order.push_back(t.condition.index);
  return order;
}

std::string message_of(const auto& make) {
  try {
    make();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no exception";
}

ConstantStimuliSettings small_grid() {
  ConstantStimuliSettings s;
  s.gaps_deg = {0.1, 0.2};
  s.eccentricities_deg = {0, 10};
  s.repetitions = 3;
  s.blocks = 2;
  s.catch_trials_per_block = 1;
  return s;
}

}  // namespace

TEST_CASE("shown_gap_deg: a catch trial shows no gap, whatever gap_deg holds", "[psychophysics][trial_design]") {
  Condition condition{.index = 3, .gap_deg = 0.25, .eccentricity_deg = 5};
  CHECK(shown_gap_deg(condition) == 0.25);
  condition.catch_trial = true;
  CHECK(shown_gap_deg(condition) == 0.0);
}

TEST_CASE("constant stimuli: a small plan holds exactly the conditions worked out by hand",
          "[psychophysics][trial_design]") {
  // Conditions: index = gap index * 2 + eccentricity index: 0 (0.1, 0), 1 (0.1, 10),
  // 2 (0.2, 0), 3 (0.2, 10); catch trials 4 (ecc 0) and 5 (ecc 10).
  // 3 repetitions over 2 blocks: one of each per block, then the 4 remaining ones dealt in
  // turn: condition 0 -> block 0, 1 -> block 1, 2 -> block 0, 3 -> block 1. Catch trial 0 of
  // block b at eccentricity (b * 1 + 0) % 2: block 0 at 0 (index 4), block 1 at 10 (index 5).
  const std::vector<PlannedTrial> plan = plan_constant_stimuli(small_grid(), 7);
  REQUIRE(plan.size() == 14);
  std::array<std::vector<int>, 2> blocks;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedTrial& t = plan[i];
    CHECK(t.trial == static_cast<int>(i));
    CHECK(t.trial_in_block == static_cast<int>(i) - 7 * t.block);
    blocks[t.block].push_back(t.condition.index);
    const Condition& c = t.condition;
    CHECK(c.staircase == -1);
    if (c.index < 4) {
      CHECK_FALSE(c.catch_trial);
      CHECK(c.gap_deg == small_grid().gaps_deg[c.index / 2]);
      CHECK(c.eccentricity_deg == small_grid().eccentricities_deg[c.index % 2]);
    } else {
      CHECK(c.catch_trial);
      CHECK(c.gap_deg == 0);
      CHECK(c.eccentricity_deg == small_grid().eccentricities_deg[c.index - 4]);
    }
  }
  for (auto& b : blocks) std::sort(b.begin(), b.end());
  CHECK(blocks[0] == std::vector<int>{0, 0, 1, 2, 2, 3, 4});
  CHECK(blocks[1] == std::vector<int>{0, 1, 1, 2, 3, 3, 5});
}

TEST_CASE("constant stimuli: every condition comes repetitions times, blocks balanced, each block shuffled",
          "[psychophysics][trial_design]") {
  ConstantStimuliSettings s;
  s.gaps_deg = {0.02, 0.05, 0.1, 0.2, 0.4};
  s.eccentricities_deg = {0, 5, 10};
  s.repetitions = 7;
  s.blocks = 3;
  s.catch_trials_per_block = 4;
  const int grid = 15;
  const std::vector<PlannedTrial> plan = plan_constant_stimuli(s, 11);
  REQUIRE(plan.size() == static_cast<std::size_t>(grid * 7 + 3 * 4));

  std::map<int, int> total;
  std::map<std::pair<int, int>, int> per_block;  // (block, condition) -> count
  std::vector<int> block_size(3, 0);
  std::map<std::pair<int, int>, int> catch_per_block;  // (block, eccentricity index) -> count
  int previous_block = 0;
  for (const PlannedTrial& t : plan) {
    CHECK(t.block >= previous_block);  // blocks run one after the other
    previous_block = t.block;
    CHECK(t.trial_in_block == block_size[t.block]);
    ++block_size[t.block];
    ++total[t.condition.index];
    ++per_block[{t.block, t.condition.index}];
    if (t.condition.catch_trial) ++catch_per_block[{t.block, t.condition.index - grid}];
  }
  for (int c = 0; c < grid; ++c) {
    CHECK(total[c] == 7);
    // 7 over 3 blocks: 2 or 3 in each.
    for (int b = 0; b < 3; ++b) CHECK((per_block[{b, c}] == 2 || per_block[{b, c}] == 3));
  }
  // Block sizes differ by at most one (105 grid trials: 35 each, plus 4 catch trials).
  CHECK(*std::max_element(block_size.begin(), block_size.end()) -
            *std::min_element(block_size.begin(), block_size.end()) <=
        1);
  // Catch trials: 4 per block at the eccentricities in turn, continuing across blocks:
  // block 0 takes 0 1 2 0, block 1 takes 1 2 0 1, block 2 takes 2 0 1 2.
  CHECK(catch_per_block[{0, 0}] == 2);
  CHECK(catch_per_block[{0, 1}] == 1);
  CHECK(catch_per_block[{1, 1}] == 2);
  CHECK(catch_per_block[{2, 2}] == 2);
  CHECK(total[grid] + total[grid + 1] + total[grid + 2] == 12);

  // Shuffled: a block is not in its building order (grid conditions first, in index order).
  std::vector<int> first_block;
  for (const PlannedTrial& t : plan)
    if (t.block == 0) first_block.push_back(t.condition.index);
  CHECK_FALSE(std::is_sorted(first_block.begin(), first_block.end()));
}

TEST_CASE("constant stimuli: the same seed gives the same plan, another seed another order",
          "[psychophysics][trial_design]") {
  ConstantStimuliSettings s = small_grid();
  s.repetitions = 10;
  const std::vector<PlannedTrial> a = plan_constant_stimuli(s, 1), b = plan_constant_stimuli(s, 1),
                                  c = plan_constant_stimuli(s, 2);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(test::same_trial(a[i], b[i]));
  CHECK(condition_order(a) != condition_order(c));
  // Pinned: if the Rng, the shuffle or the streams change, a stored seed means another plan,
  // and a killed session would resume on a different one. Change these only on purpose.
  const std::vector<int> order = condition_order(a);
  CHECK(std::vector<int>(order.begin(), order.begin() + 8) == std::vector<int>{2, 2, 3, 2, 2, 0, 4, 0});
  CHECK(a[0].direction_deg == 328.96787157933773);
  CHECK(a[1].direction_deg == 235.34717393438046);
}

TEST_CASE("constant stimuli: directions are uniform over the circle", "[psychophysics][trial_design]") {
  ConstantStimuliSettings s;
  s.gaps_deg = {0.05, 0.1, 0.2, 0.4};
  s.eccentricities_deg = {0, 5, 10, 20, 30};
  s.repetitions = 60;
  s.blocks = 6;
  const std::vector<PlannedTrial> plan = plan_constant_stimuli(s, 3);
  // 1200 directions in 12 bins of 30 degrees, 100 expected in each. Chi-square with 11
  // degrees of freedom exceeds 31.3 with probability 0.001 for uniform directions; a
  // direction stuck in half the circle would give about 1200.
  std::array<int, 12> bins{};
  for (const PlannedTrial& t : plan) {
    REQUIRE(t.direction_deg >= 0.0);
    REQUIRE(t.direction_deg < 360.0);
    ++bins[static_cast<std::size_t>(t.direction_deg / 30.0)];
  }
  const double expected = static_cast<double>(plan.size()) / 12;
  double chi2 = 0;
  for (const int n : bins) chi2 += (n - expected) * (n - expected) / expected;
  INFO("chi-square " << chi2);
  CHECK(chi2 < 31.3);
}

TEST_CASE("constant stimuli: bad settings throw naming the key", "[psychophysics][trial_design]") {
  using Catch::Matchers::StartsWith;
  const auto plan_message = [](const ConstantStimuliSettings& s) {
    return message_of([&] { plan_constant_stimuli(s, 1); });
  };
  ConstantStimuliSettings s = small_grid();
  s.gaps_deg.clear();
  CHECK_THAT(plan_message(s), StartsWith("gaps_deg must not be empty"));
  s = small_grid();
  s.eccentricities_deg.clear();
  CHECK_THAT(plan_message(s), StartsWith("eccentricities_deg must not be empty"));
  s = small_grid();
  s.gaps_deg = {0.1, -0.2};
  CHECK_THAT(plan_message(s), StartsWith("gaps_deg must each be > 0"));
  s.gaps_deg = {0.1, 0};
  CHECK_THAT(plan_message(s), StartsWith("gaps_deg must each be > 0"));
  s.gaps_deg = {0.1, 0.1};
  CHECK_THAT(plan_message(s), StartsWith("gaps_deg holds 0.1 twice"));
  s = small_grid();
  s.eccentricities_deg = {-1};
  CHECK_THAT(plan_message(s), StartsWith("eccentricities_deg must each be >= 0"));
  s.eccentricities_deg = {std::nan("")};
  CHECK_THAT(plan_message(s), StartsWith("eccentricities_deg must each be >= 0"));
  s = small_grid();
  s.repetitions = 0;
  CHECK_THAT(plan_message(s), StartsWith("repetitions must be >= 1"));
  s = small_grid();
  s.blocks = 0;
  CHECK_THAT(plan_message(s), StartsWith("blocks must be >= 1"));
  s = small_grid();
  s.catch_trials_per_block = -1;
  CHECK_THAT(plan_message(s), StartsWith("catch_trials_per_block must be >= 0"));
  s = small_grid();
  s.catch_trials_per_block = 0;
  s.blocks = 13;  // 12 trials cannot fill 13 blocks
  CHECK_THAT(plan_message(s), StartsWith("blocks must be at most the 12 trials"));
  s = small_grid();
  s.repetitions = 1'000'000;
  CHECK_THAT(plan_message(s), StartsWith("repetitions make a session of"));
}

namespace {

InterleavedStaircaseSettings three_eccentricities() {
  InterleavedStaircaseSettings s;
  s.eccentricities_deg = {0, 5, 10};
  s.start_values_deg = {0.5, 2.0, 3.0};
  s.rules.n_down = 2;
  s.rules.step_sizes = {4, 2, 1};
  s.rules.step_type = StepType::db;
  s.rules.n_trials = 30;
  s.rules.n_reversals = 8;
  s.rules.min_value = 0.001;
  s.rules.max_value = 10;
  return s;
}

/// A simulated observer: fovea's perception model, each response drawn from `rng`.
struct Observer {
  PerceptionModel model{PerceptionModelSettings{}};
  Rng rng{99, 0};
  bool respond(const PlannedTrial& t) {
    return rng.uniform() < model.probability(t.condition.eccentricity_deg, t.condition.gap_deg);
  }
};

}  // namespace

TEST_CASE("interleaved staircases: every staircase finishes, interleaved in shuffled passes",
          "[psychophysics][trial_design]") {
  const InterleavedStaircaseSettings s = three_eccentricities();
  InterleavedStaircases stairs(s, 5);
  Observer observer;
  std::vector<PlannedTrial> trials;
  std::vector<int> per_staircase(3, 0);
  while (!stairs.finished()) {
    const PlannedTrial t = stairs.next();
    REQUIRE(t.trial == static_cast<int>(trials.size()));
    const Staircase& stair = stairs.staircase(t.condition.staircase);
    REQUIRE_FALSE(stair.finished());
    CHECK(t.condition.index == t.condition.staircase);
    CHECK(t.condition.gap_deg == stair.intensity());
    CHECK(t.condition.eccentricity_deg == s.eccentricities_deg[t.condition.staircase]);
    CHECK_FALSE(t.condition.catch_trial);
    // The first trial of each staircase is at its own start value.
    if (per_staircase[t.condition.staircase]++ == 0) CHECK(t.condition.gap_deg == s.start_values_deg[t.condition.staircase]);
    trials.push_back(t);
    stairs.add_response(observer.respond(t));
    REQUIRE(trials.size() < 10000);
  }
  CHECK(stairs.trials() == static_cast<int>(trials.size()));
  for (int i = 0; i < 3; ++i) {
    const Staircase& stair = stairs.staircase(i);
    CHECK(stair.finished());
    CHECK(stair.trials() >= 30);
    CHECK(static_cast<int>(stair.reversal_intensities().size()) >= 8);
    CHECK(stair.trials() == per_staircase[i]);
  }
  // Passes: each holds every staircase still running when it began, once, in positions
  // 0, 1, ...; so a staircase never runs 3 times in a row while another still runs.
  std::map<int, std::vector<int>> passes;
  for (const PlannedTrial& t : trials) {
    CHECK(t.trial_in_block == static_cast<int>(passes[t.block].size()));
    passes[t.block].push_back(t.condition.staircase);
  }
  bool shuffled = false;
  for (const auto& [pass, members] : passes) {
    std::vector<int> sorted = members;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    shuffled |= !std::is_sorted(members.begin(), members.end());
    if (pass == 0) CHECK(sorted == std::vector<int>{0, 1, 2});
  }
  CHECK(shuffled);
  CHECK_THROWS_AS(stairs.next(), std::logic_error);
}

TEST_CASE("interleaved staircases: replaying the responses so far rebuilds the session exactly",
          "[psychophysics][trial_design]") {
  const InterleavedStaircaseSettings s = three_eccentricities();
  // The whole session, uninterrupted.
  InterleavedStaircases whole(s, 17);
  Observer observer;
  std::vector<PlannedTrial> trials;
  std::vector<bool> responses;
  while (!whole.finished()) {
    trials.push_back(whole.next());
    responses.push_back(observer.respond(trials.back()));
    whole.add_response(responses.back());
  }
  const int n = static_cast<int>(trials.size());
  for (const int killed_after : {0, 1, 2, 17, n / 2, n - 1}) {
    INFO("killed after " << killed_after << " of " << n << " trials");
    // The resumed session: a new object fed the recorded responses, then run on.
    InterleavedStaircases resumed(s, 17);
    for (int i = 0; i < killed_after; ++i) {
      REQUIRE(test::same_trial(resumed.next(), trials[i]));
      resumed.add_response(responses[i]);
    }
    for (int i = killed_after; i < n; ++i) {
      // next() twice: the same trial, nothing drawn.
      REQUIRE(test::same_trial(resumed.next(), trials[i]));
      REQUIRE(test::same_trial(resumed.next(), trials[i]));
      resumed.add_response(responses[i]);
    }
    CHECK(resumed.finished());
    for (int k = 0; k < 3; ++k) {
      const auto a = whole.staircase(k).intensities(), b = resumed.staircase(k).intensities();
      CHECK(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    }
  }
  // Pinned, as the constant stimuli's plan: seed 5, responses alternating no, yes.
  InterleavedStaircases pinned(s, 5);
  std::vector<int> order;
  for (int i = 0; i < 9; ++i) {
    order.push_back(pinned.next().condition.staircase);
    pinned.add_response(i % 2 == 1);
  }
  CHECK(order == std::vector<int>{0, 1, 2, 2, 1, 0, 1, 2, 0});

  // Another seed, another interleaving.
  InterleavedStaircases other(s, 18);
  bool differs = false;
  for (int i = 0; i < 6; ++i) {
    const PlannedTrial t = other.next();
    differs |= t.condition.staircase != trials[i].condition.staircase;
    other.add_response(responses[i]);
  }
  CHECK(differs);
}

TEST_CASE("interleaved staircases: misuse and bad settings throw", "[psychophysics][trial_design]") {
  using Catch::Matchers::StartsWith;
  InterleavedStaircases stairs(three_eccentricities(), 1);
  CHECK_THROWS_AS(stairs.add_response(true), std::logic_error);

  const auto make_message = [](const InterleavedStaircaseSettings& s) {
    return message_of([&] { InterleavedStaircases made(s, 1); });
  };
  InterleavedStaircaseSettings s = three_eccentricities();
  s.eccentricities_deg.clear();
  CHECK_THAT(make_message(s), StartsWith("eccentricities_deg: an empty list"));
  s = three_eccentricities();
  s.eccentricities_deg = {0, -5, 10};
  CHECK_THAT(make_message(s), StartsWith("eccentricities_deg: must each be >= 0"));
  s = three_eccentricities();
  s.start_values_deg.clear();
  CHECK_THAT(make_message(s), StartsWith("start_values_deg: an empty list"));
  s = three_eccentricities();
  s.start_values_deg = {1, 2};
  CHECK_THAT(make_message(s), StartsWith("start_values_deg: one value for all staircases, or one per eccentricity (3)"));
  s = three_eccentricities();
  s.start_values_deg = {1, 0, 2};
  CHECK_THAT(make_message(s), StartsWith("start_values_deg[1]: must be > 0 for log and db steps"));
  s = three_eccentricities();
  s.start_values_deg = {1, 20, 2};
  CHECK_THAT(make_message(s), StartsWith("start_values_deg[1]: must be in the staircase's range"));
  s = three_eccentricities();
  s.start_values_deg = {20};
  CHECK_THAT(make_message(s), StartsWith("start_values_deg[0]: must be in the staircase's range"));
  s = three_eccentricities();
  s.rules.n_down = 0;
  CHECK_THAT(make_message(s), StartsWith("rules.n_down: must be >= 1"));
  s = three_eccentricities();
  s.rules.step_sizes.clear();
  CHECK_THAT(make_message(s), StartsWith("rules.step_sizes: an empty list"));
  s = three_eccentricities();
  s.rules.min_value = s.rules.max_value = 2;
  s.start_values_deg = {2};
  CHECK_THAT(make_message(s), StartsWith("rules.min_value: must be below the maximum (2), not 2"));
  s = three_eccentricities();
  s.rules.step_type = StepType::linear;
  s.rules.min_value = -1;
  CHECK_THAT(make_message(s), StartsWith("rules.min_value: must be >= 0 with linear steps"));
  // One start value stands for every staircase.
  s = three_eccentricities();
  s.start_values_deg = {0.7};
  const InterleavedStaircases one_start(s, 1);
  for (int i = 0; i < one_start.staircase_count(); ++i) CHECK(one_start.staircase(i).intensity() == 0.7);
  // The same eccentricity twice is allowed: two staircases, e.g. from above and from below.
  s = three_eccentricities();
  s.eccentricities_deg = {5, 5, 10};
  CHECK(make_message(s) == "no exception");
}
