// CollisionModelTable (narrowphase/collision_model_table.hpp): whole trees and trees grown on
// demand side by side, and what their growth and eviction are counted as.

#include <catch2/catch.hpp>

#include "narrowphase/collision_model_table.hpp"
#include "support/bodies.hpp"

using namespace fovea;
using namespace fovea::test;

TEST_CASE("CollisionModelTable: slots of whole and on-demand trees, their growth counted once", "[narrowphase]") {
  const Body body = make_body(Shape::rock, 12, 5, 4, true);
  CollisionModelTable table({body.collision});
  REQUIRE(table.models().size() == 1);
  REQUIRE_FALSE(table.is_grown_on_demand(0));
  REQUIRE_FALSE(table.is_grown_on_demand(5));  // beyond the table: no tree at all
  REQUIRE(table.growable(0).grower == nullptr);
  REQUIRE(table.grown_nodes() == 0);

  // An on-demand tree in slot 3 grows the table; slots 1 and 2 stay empty.
  OnDemandTree lazy = make_on_demand_tree(body);
  table.set_model(3, std::move(lazy.model), std::move(lazy.grower));
  REQUIRE(table.models().size() == 4);
  REQUIRE(table.is_grown_on_demand(3));
  REQUIRE_FALSE(table.is_grown_on_demand(2));
  REQUIRE(table.grown_nodes() == 1);  // the root alone
  REQUIRE(table.model(3).spheres.size() == 1);

  // Growing the root's children through the table shows in its counts, once.
  const GrowableModel grown = table.growable(3);
  grown.use_children(0);
  const std::int64_t built = table.grown_nodes() - 1;
  REQUIRE(built > 0);
  REQUIRE(table.model(3).child_count[0] == built);
  TreeGrowthStats stats = table.take_growth_stats();
  REQUIRE(stats.nodes_built == built);
  REQUIRE(stats.nodes_evicted == 0);
  REQUIRE(table.take_growth_stats().nodes_built == 0);

  // Idle long enough, the branch is evicted; a frame within the idle time keeps it.
  REQUIRE(table.evict_idle(1) == 0);
  REQUIRE(table.evict_idle(1000) == built);
  REQUIRE(table.grown_nodes() == 1);
  REQUIRE(table.take_growth_stats().nodes_evicted == built);

  // Replacing a grown tree counts its grown nodes as evicted with it.
  grown.use_children(0);
  table.take_growth_stats();
  table.set_model(3, body.collision, nullptr);
  REQUIRE_FALSE(table.is_grown_on_demand(3));
  REQUIRE(table.grown_nodes() == 0);
  stats = table.take_growth_stats();
  REQUIRE(stats.nodes_evicted == built);
  REQUIRE(stats.nodes_built == 0);
}
