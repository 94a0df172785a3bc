#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "broadphase/proxy_roster.hpp"
#include "broadphase_oracle.hpp"
#include "core/rng.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

/// The id rule written the slow, obvious way, with no stack: an add gets, among the ids free
/// now, the one freed last; with none free, one past the largest handed out. An id removed
/// is freed by the update after its removal, in the order removed.
class IdOracle {
 public:
  ProxyId next() const {
    ProxyId best = static_cast<ProxyId>(state_.size());
    std::int64_t best_freed = -1;
    for (ProxyId id = 0; id < state_.size(); ++id)
      if (state_[id] == State::free && freed_at_[id] > best_freed) {
        best = id;
        best_freed = freed_at_[id];
      }
    return best;
  }
  void add(ProxyId id) {
    if (id == state_.size()) {
      state_.push_back(State::free);
      freed_at_.push_back(-1);
    }
    state_[id] = State::live;
    added_.push_back(id);
  }
  void remove(ProxyId id) {
    state_[id] = State::removed;
    removed_.push_back(id);
  }
  /// The ids added since the last update and not removed again, in the order added.
  std::vector<ProxyId> added_not_removed() const {
    std::vector<ProxyId> out;
    for (ProxyId id : added_)
      if (std::find(removed_.begin(), removed_.end(), id) == removed_.end()) out.push_back(id);
    return out;
  }
  void update() {
    for (ProxyId id : removed_) {
      state_[id] = State::free;
      freed_at_[id] = clock_++;
    }
    removed_.clear();
    added_.clear();
  }
  bool is_live(ProxyId id) const { return id < state_.size() && state_[id] == State::live; }
  std::uint32_t live_count() const {
    return static_cast<std::uint32_t>(std::count(state_.begin(), state_.end(), State::live));
  }
  const std::vector<ProxyId>& removed() const { return removed_; }
  std::vector<ProxyId> live() const {
    std::vector<ProxyId> out;
    for (ProxyId id = 0; id < state_.size(); ++id)
      if (state_[id] == State::live) out.push_back(id);
    return out;
  }
  std::size_t id_count() const { return state_.size(); }

 private:
  enum class State { free, live, removed };
  std::vector<State> state_;
  std::vector<std::int64_t> freed_at_;  // -1: never freed
  std::int64_t clock_ = 0;
  std::vector<ProxyId> added_;
  std::vector<ProxyId> removed_;
};

}  // namespace

TEST_CASE("ProxyRoster: ids, flags and lists follow the obvious rule over random adds, removes and updates",
          "[broadphase]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    Rng rng(seed);
    ProxyRoster roster("Test");
    IdOracle oracle;
    std::vector<bool> is_static;
    for (int op = 0; op < 400; ++op) {
      const double r = rng.uniform();
      const std::vector<ProxyId> live = oracle.live();
      if (r < 0.45) {
        const bool static_proxy = rng.uniform() < 0.3;
        REQUIRE(roster.next_id() == oracle.next());
        const ProxyId id = roster.add(static_proxy);
        REQUIRE(id == oracle.next());
        oracle.add(id);
        if (id >= is_static.size()) is_static.resize(id + 1);
        is_static[id] = static_proxy;
        REQUIRE(roster.flags()[id] ==
                (ProxyRoster::kLive | ProxyRoster::kAdded | (static_proxy ? ProxyRoster::kStatic : 0)));
      } else if (r < 0.8 && !live.empty()) {
        const ProxyId id = live[rng.below(live.size())];
        roster.remove(id);
        oracle.remove(id);
        REQUIRE_FALSE(roster.is_live(id));
      } else {
        roster.begin_update();
        const std::vector<ProxyId> added(roster.added().begin(), roster.added().end());
        REQUIRE(added == oracle.added_not_removed());
        REQUIRE(std::vector<ProxyId>(roster.removed().begin(), roster.removed().end()) == oracle.removed());
        for (ProxyId id = 0; id < roster.id_count(); ++id) {
          const std::vector<ProxyId>& removed = oracle.removed();
          const bool is_removed = std::find(removed.begin(), removed.end(), id) != removed.end();
          REQUIRE(roster.removed_mask()[id] == (is_removed ? 1 : 0));
        }
        roster.finish_update();
        oracle.update();
        REQUIRE(roster.added().empty());
        REQUIRE(roster.removed().empty());
        for (ProxyId id = 0; id < roster.id_count(); ++id) {
          REQUIRE(roster.removed_mask()[id] == 0);
          // Merged in: live, static as added, no longer added; freed: no flag at all.
          const auto merged = static_cast<std::uint8_t>(ProxyRoster::kLive | (is_static[id] ? ProxyRoster::kStatic : 0));
          const std::uint8_t expected = oracle.is_live(id) ? merged : std::uint8_t{0};
          REQUIRE(roster.flags()[id] == expected);
        }
      }
      REQUIRE(roster.live_count() == oracle.live_count());
      REQUIRE(roster.id_count() == oracle.id_count());
      for (ProxyId id = 0; id <= roster.id_count(); ++id) REQUIRE(roster.is_live(id) == oracle.is_live(id));
    }
  }
}

TEST_CASE("ProxyRoster: errors name the broad phase, the proxy and the axis", "[broadphase]") {
  ProxyRoster roster("SomePhase");
  const ProxyId a = roster.add(false);
  const auto message_of = [](const auto& call) {
    try {
      call();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  REQUIRE_THROWS_AS(roster.remove(a + 1), std::out_of_range);
  REQUIRE(message_of([&] { roster.check_live(7); }) == "SomePhase: proxy 7 does not exist");
  REQUIRE(message_of([&] { roster.check_box(a, {Vec3(0.0), Vec3(1.0, -1.0, 1.0)}); }) ==
          "SomePhase: proxy 0's box on axis y runs from 0 to -1 m; a box needs min <= max and no NaN");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  REQUIRE_THROWS_AS(roster.check_box(a, {Vec3(0.0), Vec3(1.0, 1.0, nan)}), std::invalid_argument);
  REQUIRE_NOTHROW(roster.check_box(a, {Vec3(1.0), Vec3(1.0)}));  // a point is a box

  // A removed proxy is not live at once, and its id is not handed out before the update.
  roster.remove(a);
  REQUIRE_THROWS_AS(roster.remove(a), std::out_of_range);
  REQUIRE(roster.next_id() == 1);
  roster.begin_update();
  roster.finish_update();
  REQUIRE(roster.next_id() == a);
}

// The broad phases keep their boxes beside the roster: a refused add (a bad box) must leave
// the ids as they were, so both broad phases hand out the ids the rule gives, whatever the
// mix of adds, refusals, removals and updates.
TEMPLATE_TEST_CASE("broad phase: ids are handed out and reused by the obvious rule, refused adds included",
                   "[broadphase]", SweepAndPrune, SmallRegions, AutoRegions) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    INFO("seed " << seed);
    Rng rng(seed);
    TestType phase;
    IdOracle oracle;
    const auto random_box = [&] {
      const Vec3 min(rng.uniform(0, 10), rng.uniform(0, 10), rng.uniform(0, 10));
      return Aabb{min, min + Vec3(rng.uniform(0.1, 1.0))};
    };
    for (int op = 0; op < 300; ++op) {
      const double r = rng.uniform();
      const std::vector<ProxyId> live = oracle.live();
      if (r < 0.1) {
        REQUIRE_THROWS_AS(phase.add({Vec3(1.0), Vec3(0.0)}), std::invalid_argument);
      } else if (r < 0.5) {
        const ProxyId id = phase.add(random_box(), rng.uniform() < 0.2);
        REQUIRE(id == oracle.next());
        oracle.add(id);
      } else if (r < 0.75 && !live.empty()) {
        const ProxyId id = live[rng.below(live.size())];
        phase.remove(id);
        oracle.remove(id);
      } else if (r < 0.9 && !live.empty()) {
        phase.set_box(live[rng.below(live.size())], random_box());
      } else {
        phase.update();
        oracle.update();
        REQUIRE(phase.proxy_count() == oracle.live_count());
      }
    }
  }
}
