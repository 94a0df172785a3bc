#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "broadphase/region_cells.hpp"
#include "core/rng.hpp"

using namespace fovea;

namespace {

std::uint32_t key_of(double x) { return bound_key::from_float(static_cast<float>(x)); }

/// The cell of coordinate x on a grid's axis, written the obvious way: the cells are
/// [origin + i side, origin + (i + 1) side), the first and last reaching to infinity.
int oracle_cell(double x, double origin_m, double side_m, int cells) {
  const double t = std::floor((x - origin_m) / side_m);
  return static_cast<int>(std::clamp(t, 0.0, static_cast<double>(cells - 1)));
}

}  // namespace

TEST_CASE("RegionCells: a bound's cell, its border cells reaching to infinity", "[broadphase]") {
  const RegionCells cells(RegionGrid{0.5, Vec3(-2.0, 0.0, 1.0), {8, 3, 1}});
  REQUIRE(cells.region_count() == 24);
  REQUIRE(cells.cell_size_m() == Vec3(0.5));
  REQUIRE(cells.region_index(7, 2, 0) == 23);
  REQUIRE(cells.region_index(1, 1, 0) == 9);
  const double inf = std::numeric_limits<double>::infinity();
  REQUIRE(cells.cell_of(0, key_of(-inf)) == 0);
  REQUIRE(cells.cell_of(0, key_of(inf)) == 7);
  REQUIRE(cells.cell_of(2, key_of(123.0)) == 0);  // one cell on z: every bound is in it
  Rng rng(1);
  for (int i = 0; i < 2000; ++i) {
    // Coordinates on a grid of 1/8 m, so that cell borders (every 0.5 m) are hit exactly.
    const double x = std::round(rng.uniform(-4.0, 4.0) * 8) / 8;
    INFO("x " << x);
    REQUIRE(cells.cell_of(0, key_of(x)) == oracle_cell(x, -2.0, 0.5, 8));
    REQUIRE(cells.cell_of(1, key_of(x)) == oracle_cell(x, 0.0, 0.5, 3));
  }
}

TEST_CASE("RegionCells: the owner of two overlapping boxes is a cell both touch", "[broadphase]") {
  const RegionCells cells(RegionGrid{1.0, Vec3(0.0), {6, 6, 6}});
  Rng rng(2);
  for (int i = 0; i < 2000; ++i) {
    const Vec3 a_min(rng.uniform(-1, 6), rng.uniform(-1, 6), rng.uniform(-1, 6));
    const Vec3 b_min = a_min + Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
    const BoxKeys a = bound_key::box_keys({a_min, a_min + Vec3(rng.uniform(0.1, 2.5))});
    const BoxKeys b = bound_key::box_keys({b_min, b_min + Vec3(rng.uniform(0.1, 2.5))});
    if (!bound_key::overlap(a, b)) continue;
    std::uint16_t a_lo[3], a_hi[3], b_lo[3], b_hi[3];
    cells.cell_range(a, a_lo, a_hi);
    cells.cell_range(b, b_lo, b_hi);
    const std::uint32_t owner = cells.owner(a, b);
    bool in_both = false;
    for (std::uint32_t z = 0; z < 6; ++z)
      for (std::uint32_t y = 0; y < 6; ++y)
        for (std::uint32_t x = 0; x < 6; ++x) {
          if (cells.region_index(x, y, z) != owner) continue;
          const std::uint32_t c[3] = {x, y, z};
          in_both = true;
          for (int k = 0; k < 3; ++k)
            in_both = in_both && c[k] >= a_lo[k] && c[k] <= a_hi[k] && c[k] >= b_lo[k] && c[k] <= b_hi[k];
        }
    REQUIRE(in_both);
    REQUIRE(cells.owner(b, a) == owner);  // the same region, whichever box comes first
  }
}

TEST_CASE("RegionCells: a fitted grid covers the boxes' extent, one region for few boxes", "[broadphase]") {
  RegionGrid settings;
  settings.proxies_per_region = 100;
  settings.min_cell_over_box_side = 2;

  BoxSpread few;
  for (int i = 0; i < 120; ++i) few.add({Vec3(i * 0.1), Vec3(i * 0.1 + 0.5)});
  const RegionCells one = RegionCells::fitted(settings, few);
  REQUIRE(one.region_count() == 1);
  REQUIRE(one.grid().proxies_per_region == 100);

  // 2000 boxes of 0.5 m over a flat 40 x 1 x 40 m slab, and a ground box of infinite extent
  // that must not stretch the grid.
  BoxSpread slab;
  Rng rng(3);
  for (int i = 0; i < 2000; ++i) {
    const Vec3 min(rng.uniform(0, 39.5), rng.uniform(0, 0.5), rng.uniform(0, 39.5));
    slab.add({min, min + Vec3(0.5)});
  }
  const double inf = std::numeric_limits<double>::infinity();
  slab.add({Vec3(-inf, -inf, -inf), Vec3(inf, 0.0, inf)});
  REQUIRE(slab.finite == 2000);
  const RegionCells cut = RegionCells::fitted(settings, slab);
  REQUIRE(cut.grid().cells[1] == 1);  // the flat axis is not cut
  REQUIRE(cut.region_count() >= 10);
  REQUIRE(cut.region_count() <= 40);
  for (int k = 0; k < 3; k += 2) {
    // Whole cells stretched over the extent, from its lowest corner.
    REQUIRE(cut.grid().origin_m[k] == Approx(slab.lo_m[k]));
    REQUIRE(cut.cell_size_m()[k] * cut.grid().cells[k] == Approx(slab.hi_m[k] - slab.lo_m[k]));
    REQUIRE(cut.cell_size_m()[k] >= settings.min_cell_over_box_side * 0.5);
  }
}
