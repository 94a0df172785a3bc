// SphereHitPool (narrowphase/sphere_hit_pool.hpp): each collision's levels as runs of one
// array, kept whole as the pool grows and as collisions take turns.

#include <catch2/catch.hpp>

#include <vector>

#include "narrowphase/sphere_hit_pool.hpp"

using namespace fovea;

namespace {

SphereHit hit(std::uint32_t target) { return {target, target + 100, 3, 0}; }

std::vector<std::uint32_t> targets(std::span<const SphereHit> hits) {
  std::vector<std::uint32_t> out;
  for (const SphereHit& h : hits) out.push_back(h.target);
  return out;
}

/// Appends `count` hits to `c`'s next level the way a step does: room, write, set_end.
void append(SphereHitPool& pool, Collision& c, std::uint32_t first_target, std::uint32_t count) {
  pool.open_next_run(c);
  SphereHit* out = pool.room(count);
  for (std::uint32_t i = 0; i < count; ++i) out[i] = hit(first_target + i);
  pool.set_end(pool.end() + count);
  c.next_end = pool.end();
}

}  // namespace

TEST_CASE("SphereHitPool: levels are runs, moved whole when another collision appended meanwhile", "[narrowphase]") {
  SphereHitPool pool;
  pool.clear(1);  // tiny, so that the pool grows (and moves) below
  Collision a, b;
  pool.start_level(a, hit(1));
  pool.start_level(b, hit(2));
  REQUIRE(targets(pool.hits(a)) == std::vector<std::uint32_t>{1});
  REQUIRE(targets(pool.hits(b)) == std::vector<std::uint32_t>{2});
  REQUIRE(pool.next_hits(a).empty());
  REQUIRE(a.cursor == a.hits_begin);

  append(pool, a, 10, 3);
  REQUIRE(targets(pool.next_hits(a)) == std::vector<std::uint32_t>{10, 11, 12});
  // b appends: a's next level no longer ends at the pool's end.
  append(pool, b, 20, 2);
  REQUIRE(a.next_end != pool.end());
  // a resumes: its run moves to the end, whole and in order, and grows there.
  append(pool, a, 13, 40);
  std::vector<std::uint32_t> expected{10, 11, 12};
  for (std::uint32_t t = 13; t < 53; ++t) expected.push_back(t);
  REQUIRE(targets(pool.next_hits(a)) == expected);
  REQUIRE(a.next_end == pool.end());
  REQUIRE(targets(pool.next_hits(b)) == std::vector<std::uint32_t>{20, 21});  // b's run is where it was
  REQUIRE(targets(pool.hits(a)) == std::vector<std::uint32_t>{1});
  REQUIRE(targets(pool.hits(b)) == std::vector<std::uint32_t>{2});

  // A new frame starts empty.
  pool.clear(8);
  REQUIRE(pool.end() == 0);
  pool.start_level(a, hit(7));
  REQUIRE(a.hits_begin == 0);
  REQUIRE(targets(pool.hits(a)) == std::vector<std::uint32_t>{7});
}
