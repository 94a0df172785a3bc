#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "core/rng.hpp"
#include "world/fracture.hpp"
#include "world/mass_properties.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

using Cell = std::array<int, 3>;

/// A rock whose voxels carry different colour indices (and a palette of its own), so a
/// voxel that lands in the wrong place or loses its colour shows.
VoxelModel coloured_rock(IVec3 dims, double voxel_size_m, std::uint64_t seed) {
  VoxelModel rock = make_rock(dims, voxel_size_m, seed);
  rock.for_each_occupied([&](int x, int y, int z) {
    rock.set_colour_index(x, y, z, static_cast<std::uint8_t>(1 + (7 * x + 13 * y + 29 * z) % 255));
  });
  std::vector<std::uint32_t> palette(256);
  for (std::uint32_t i = 0; i < 256; ++i) palette[i] = 0xff000000u | (i * 0x010203u);
  rock.set_palette(palette);
  return rock;
}

/// One random cut of one random rock: sizes 8 to 24 voxels a side, a plane through the
/// middle 60 % of the grid with a random normal of random length, a random minimum.
struct RandomCut {
  VoxelModel parent;
  Vec3 point_m;
  Vec3 normal;
  std::int64_t min_fragment_voxels;
  FractureResult result;
};

RandomCut random_cut(std::uint64_t seed) {
  Rng rng(seed, 77);
  const IVec3 dims(8 + static_cast<int>(rng.below(17)), 8 + static_cast<int>(rng.below(17)),
                   8 + static_cast<int>(rng.below(17)));
  RandomCut cut;
  cut.parent = coloured_rock(dims, 0.05, seed);
  const Vec3 extent = cut.parent.extent_m();
  cut.point_m = Vec3(rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)) * extent;
  cut.normal = rng.unit_vector() * rng.uniform(0.1, 10.0);
  cut.min_fragment_voxels = 1 + static_cast<std::int64_t>(rng.below(40));
  cut.result = fracture_voxels(cut.parent, cut.point_m, cut.normal, cut.min_fragment_voxels);
  return cut;
}

constexpr int kRandomCuts = 60;

/// The side the brief defines, computed independently of fracture.cpp.
int side_of(const VoxelModel& parent, int x, int y, int z, const Vec3& point_m, const Vec3& normal) {
  return glm::dot(parent.voxel_centre_m(x, y, z) - point_m, normal) < 0 ? 0 : 1;
}

std::size_t cell_index(const VoxelModel& m, int x, int y, int z) {
  return static_cast<std::size_t>(x + m.dims().x * (y + m.dims().y * z));
}

/// Parent cell -> index of the fragment holding it, -1 when none does.
std::vector<int> fragment_labels(const VoxelModel& parent, const FractureResult& result) {
  std::vector<int> label(cell_index(parent, 0, 0, parent.dims().z), -1);
  for (std::size_t f = 0; f < result.fragments.size(); ++f) {
    const Fragment& fragment = result.fragments[f];
    fragment.model.for_each_occupied([&](int x, int y, int z) {
      const IVec3 p = IVec3(x, y, z) + fragment.offset_voxels;
      label[cell_index(parent, p.x, p.y, p.z)] = static_cast<int>(f);
    });
  }
  return label;
}

/// The slow, obvious reference: components of a cut by a depth-first fill over a std::set,
/// seeded in storage order.
struct ReferenceComponent {
  std::vector<Cell> cells;
  int side;
};
std::vector<ReferenceComponent> reference_components(const VoxelModel& parent, const Vec3& point_m, const Vec3& normal) {
  std::set<Cell> seen;
  std::vector<ReferenceComponent> components;
  parent.for_each_occupied([&](int x, int y, int z) {
    if (seen.count({x, y, z})) return;
    const int side = side_of(parent, x, y, z, point_m, normal);
    ReferenceComponent c{{}, side};
    std::vector<Cell> stack{{x, y, z}};
    seen.insert({x, y, z});
    while (!stack.empty()) {
      const Cell v = stack.back();
      stack.pop_back();
      c.cells.push_back(v);
      for (const Cell& d : {Cell{1, 0, 0}, Cell{-1, 0, 0}, Cell{0, 1, 0}, Cell{0, -1, 0}, Cell{0, 0, 1}, Cell{0, 0, -1}}) {
        const Cell w{v[0] + d[0], v[1] + d[1], v[2] + d[2]};
        if (!parent.occupied(w[0], w[1], w[2]) || seen.count(w)) continue;
        if (side_of(parent, w[0], w[1], w[2], point_m, normal) != side) continue;
        seen.insert(w);
        stack.push_back(w);
      }
    }
    components.push_back(std::move(c));
  });
  return components;
}

/// Occupied voxels of `model` reachable from its first one through faces: the slow check
/// that a fragment is one piece.
std::int64_t reachable_from_first(const VoxelModel& model) {
  std::set<Cell> seen;
  std::vector<Cell> stack;
  model.for_each_occupied([&](int x, int y, int z) {
    if (stack.empty() && seen.empty()) {
      stack.push_back({x, y, z});
      seen.insert({x, y, z});
    }
  });
  while (!stack.empty()) {
    const Cell v = stack.back();
    stack.pop_back();
    for (const Cell& d : {Cell{1, 0, 0}, Cell{-1, 0, 0}, Cell{0, 1, 0}, Cell{0, -1, 0}, Cell{0, 0, 1}, Cell{0, 0, -1}}) {
      const Cell w{v[0] + d[0], v[1] + d[1], v[2] + d[2]};
      if (model.occupied(w[0], w[1], w[2]) && seen.insert(w).second) stack.push_back(w);
    }
  }
  return static_cast<std::int64_t>(seen.size());
}

/// A dumbbell, unit voxels: blobs x in [0, 5) and [12, 17), full 5 x 5 in y, z, joined by a
/// one-voxel bar at y = z = 2 over x in [5, 12). 125 + 7 + 125 = 257 voxels.
VoxelModel make_dumbbell() {
  VoxelModel m({17, 5, 5}, 1.0);
  for (int z = 0; z < 5; ++z)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 17; ++x)
        if (x < 5 || x >= 12 || (y == 2 && z == 2)) m.set(x, y, z, true);
  return m;
}

/// R I R^T w: a model-axes inertia applied to a world angular velocity.
Vec3 world_inertia_times(const Mat3& inertia_model, const Quat& q, const Vec3& w) {
  return q * (inertia_model * (glm::conjugate(q) * w));
}

/// A broken rock set in the world: every piece's mass, world centre and inertia, built from
/// compute_mass_properties as the Animation will build its entities.
struct BrokenRock {
  MassProperties parent;
  Quat orientation;
  Vec3 position_m;                ///< world position of the parent's centre of mass
  std::vector<PieceMass> pieces;  ///< fragments first, then debris
  std::vector<Mat3> inertia_model_kgm2;  ///< fragments only (debris carries no model)
  Vec3 normal_world;
};

BrokenRock break_rock(const RandomCut& cut, double density_kgpm3, Rng& rng) {
  BrokenRock b;
  b.parent = compute_mass_properties(cut.parent, density_kgpm3);
  b.orientation = rng.rotation();
  b.position_m = Vec3(rng.uniform(-5, 5), rng.uniform(-5, 5), rng.uniform(-5, 5));
  const auto to_world = [&](const Vec3& p_model_m) {
    return b.position_m + b.orientation * (p_model_m - b.parent.centre_of_mass_m);
  };
  for (const Fragment& f : cut.result.fragments) {
    const MassProperties p = compute_mass_properties(f.model, density_kgpm3);
    b.pieces.push_back({p.mass_kg, to_world(p.centre_of_mass_m + fragment_origin_in_parent_m(f)), f.side});
    b.inertia_model_kgm2.push_back(p.inertia_kgm2);
  }
  const double s = cut.parent.voxel_size_m();
  for (const DebrisPiece& d : cut.result.debris)
    b.pieces.push_back({density_kgpm3 * s * s * s * static_cast<double>(d.voxel_count), to_world(d.centre_model_m), d.side});
  b.normal_world = b.orientation * cut.normal;
  return b;
}

}  // namespace

TEST_CASE("fracture: every voxel of a rock lands in exactly one fragment or in debris, with its colour",
          "[world][fracture]") {
  int cuts_with_debris = 0, cuts_with_three_or_more_pieces = 0;
  for (std::uint64_t seed = 0; seed < kRandomCuts; ++seed) {
    const RandomCut cut = random_cut(seed);
    const VoxelModel& parent = cut.parent;
    const FractureResult& r = cut.result;
    INFO("seed " << seed);

    std::int64_t fragment_voxels = 0;
    std::vector<int> claims(cell_index(parent, 0, 0, parent.dims().z), 0);
    for (const Fragment& f : r.fragments) {
      CHECK(f.voxel_count >= cut.min_fragment_voxels);
      CHECK(f.voxel_count == f.model.occupied_count());
      CHECK(f.model.voxel_size_m() == parent.voxel_size_m());
      CHECK(f.model.palette() == parent.palette());
      // Cropped: the occupied voxels span the whole fragment grid.
      const VoxelModel::CellRange span = f.model.occupied_cells();
      CHECK(span.lo == IVec3(0));
      CHECK(span.hi == f.model.dims());
      fragment_voxels += f.voxel_count;
      f.model.for_each_occupied([&](int x, int y, int z) {
        const IVec3 p = IVec3(x, y, z) + f.offset_voxels;
        REQUIRE(parent.occupied(p.x, p.y, p.z));
        CHECK(f.model.colour_index(x, y, z) == parent.colour_index(p.x, p.y, p.z));
        ++claims[cell_index(parent, p.x, p.y, p.z)];
      });
    }
    std::int64_t unclaimed = 0;
    parent.for_each_occupied([&](int x, int y, int z) {
      const int c = claims[cell_index(parent, x, y, z)];
      CHECK(c <= 1);
      if (c == 0) ++unclaimed;
    });
    std::int64_t debris_sum = 0;
    for (const DebrisPiece& d : r.debris) {
      CHECK(d.voxel_count >= 1);
      CHECK(d.voxel_count < cut.min_fragment_voxels);
      debris_sum += d.voxel_count;
    }
    CHECK(debris_sum == r.debris_voxels);
    CHECK(unclaimed == r.debris_voxels);
    CHECK(fragment_voxels + r.debris_voxels == parent.occupied_count());

    if (r.debris_voxels > 0) ++cuts_with_debris;
    if (r.fragments.size() + r.debris.size() >= 3) ++cuts_with_three_or_more_pieces;
  }
  // The random cuts must exercise debris and cuts into more than two pieces, or the
  // checks above would test only the easy case.
  CHECK(cuts_with_debris > 0);
  CHECK(cuts_with_three_or_more_pieces > 0);
}

TEST_CASE("fracture: fragments never overlap and the plane separates the two sides", "[world][fracture]") {
  for (std::uint64_t seed = 0; seed < kRandomCuts; ++seed) {
    const RandomCut cut = random_cut(seed);
    INFO("seed " << seed);
    std::set<Cell> claimed;
    for (const Fragment& f : cut.result.fragments) {
      REQUIRE((f.side == 0 || f.side == 1));
      f.model.for_each_occupied([&](int x, int y, int z) {
        const IVec3 p = IVec3(x, y, z) + f.offset_voxels;
        CHECK(claimed.insert({p.x, p.y, p.z}).second);
        const double signed_distance = glm::dot(cut.parent.voxel_centre_m(p.x, p.y, p.z) - cut.point_m, cut.normal);
        if (f.side == 0) CHECK(signed_distance < 0);
        else CHECK(signed_distance >= 0);
      });
    }
    for (const DebrisPiece& d : cut.result.debris) {
      // A debris piece lies on one side, so its centre (a mean of centres) does too.
      const double signed_distance = glm::dot(d.centre_model_m - cut.point_m, cut.normal);
      if (d.side == 0) CHECK(signed_distance < 0);
      else CHECK(signed_distance >= -1e-12 * glm::length(cut.normal));
    }
  }
}

TEST_CASE("fracture: each fragment is one 6-connected component, apart from the others on its side",
          "[world][fracture]") {
  for (std::uint64_t seed = 0; seed < kRandomCuts; ++seed) {
    const RandomCut cut = random_cut(seed);
    const VoxelModel& parent = cut.parent;
    INFO("seed " << seed);
    for (const Fragment& f : cut.result.fragments) CHECK(reachable_from_first(f.model) == f.voxel_count);

    // Two face neighbours on the same side belong to one component: the same fragment, or
    // both debris (a fragment touching debris on its side would have swallowed it).
    const std::vector<int> label = fragment_labels(parent, cut.result);
    parent.for_each_occupied([&](int x, int y, int z) {
      const int a = label[cell_index(parent, x, y, z)];
      const int side = side_of(parent, x, y, z, cut.point_m, cut.normal);
      for (const Cell& d : {Cell{1, 0, 0}, Cell{0, 1, 0}, Cell{0, 0, 1}}) {
        const int u = x + d[0], v = y + d[1], w = z + d[2];
        if (!parent.occupied(u, v, w) || side_of(parent, u, v, w, cut.point_m, cut.normal) != side) continue;
        CHECK(label[cell_index(parent, u, v, w)] == a);
      }
    });

    // And the whole result against the slow reference, component by component, in order.
    std::vector<ReferenceComponent> big, small;
    for (ReferenceComponent& c : reference_components(parent, cut.point_m, cut.normal))
      (static_cast<std::int64_t>(c.cells.size()) >= cut.min_fragment_voxels ? big : small).push_back(std::move(c));
    REQUIRE(big.size() == cut.result.fragments.size());
    REQUIRE(small.size() == cut.result.debris.size());
    for (std::size_t i = 0; i < big.size(); ++i) {
      const Fragment& f = cut.result.fragments[i];
      CHECK(static_cast<std::int64_t>(big[i].cells.size()) == f.voxel_count);
      CHECK(big[i].side == f.side);
      // The reference seeds in storage order too, so its first cell is the lowest: that
      // cell must be a fragment voxel at the offset's place.
      const IVec3 first = IVec3(big[i].cells[0][0], big[i].cells[0][1], big[i].cells[0][2]) - f.offset_voxels;
      CHECK(f.model.occupied(first.x, first.y, first.z));
      for (const Cell& c : big[i].cells) CHECK(label[cell_index(parent, c[0], c[1], c[2])] == static_cast<int>(i));
    }
    for (std::size_t i = 0; i < small.size(); ++i) {
      const DebrisPiece& d = cut.result.debris[i];
      CHECK(static_cast<std::int64_t>(small[i].cells.size()) == d.voxel_count);
      CHECK(small[i].side == d.side);
      Vec3 sum(0.0);
      for (const Cell& c : small[i].cells) sum += parent.voxel_centre_m(c[0], c[1], c[2]);
      CHECK(glm::length(sum / static_cast<double>(small[i].cells.size()) - d.centre_model_m) < 1e-12);
    }
  }
}

TEST_CASE("fracture: a box cut through the middle gives two equal halves, whatever the normal's length and sense",
          "[world][fracture]") {
  const VoxelModel box = make_box({6, 4, 4}, 0.1);
  const FractureResult r = fracture_voxels(box, Vec3(0.3, 0.2, 0.2), Vec3(1, 0, 0), 1);
  REQUIRE(r.fragments.size() == 2);
  CHECK(r.debris.empty());
  CHECK(r.debris_voxels == 0);
  CHECK(r.fragments[0].voxel_count == 48);
  CHECK(r.fragments[1].voxel_count == 48);
  CHECK(r.fragments[0].offset_voxels == IVec3(0, 0, 0));
  CHECK(r.fragments[1].offset_voxels == IVec3(3, 0, 0));
  CHECK(r.fragments[0].model.dims() == IVec3(3, 4, 4));
  CHECK(r.fragments[1].model.dims() == IVec3(3, 4, 4));
  CHECK(r.fragments[0].side == 0);
  CHECK(r.fragments[1].side == 1);
  CHECK(glm::length(fragment_origin_in_parent_m(r.fragments[1]) - Vec3(0.3, 0, 0)) < 1e-15);

  // The opposite normal, scaled: the same halves in the same order (by lowest voxel index),
  // the sides swapped.
  const FractureResult flipped = fracture_voxels(box, Vec3(0.3, 0.2, 0.2), Vec3(-2.5, 0, 0), 1);
  REQUIRE(flipped.fragments.size() == 2);
  CHECK(flipped.fragments[0].offset_voxels == IVec3(0, 0, 0));
  CHECK(flipped.fragments[0].side == 1);
  CHECK(flipped.fragments[1].side == 0);

  // A voxel whose centre lies on the plane goes to side 1.
  const FractureResult on_plane = fracture_voxels(make_box({4, 1, 1}, 1.0), Vec3(2.5, 0, 0), Vec3(1, 0, 0), 1);
  REQUIRE(on_plane.fragments.size() == 2);
  CHECK(on_plane.fragments[0].voxel_count == 2);
  CHECK(on_plane.fragments[1].offset_voxels == IVec3(2, 0, 0));
  CHECK(on_plane.fragments[1].side == 1);
}

TEST_CASE("fracture: a dumbbell falls into the components its shape dictates", "[world][fracture]") {
  const VoxelModel bell = make_dumbbell();
  REQUIRE(bell.occupied_count() == 257);

  // Through the second blob, across x: the first blob, the bar and two slices of the second
  // stay one piece; the rest of the second blob is the other.
  const FractureResult across = fracture_voxels(bell, Vec3(14, 0, 0), Vec3(1, 0, 0), 1);
  REQUIRE(across.fragments.size() == 2);
  CHECK(across.fragments[0].voxel_count == 125 + 7 + 50);
  CHECK(across.fragments[0].model.dims() == IVec3(14, 5, 5));
  CHECK(across.fragments[0].side == 0);
  CHECK(across.fragments[1].voxel_count == 75);
  CHECK(across.fragments[1].offset_voxels == IVec3(14, 0, 0));
  CHECK(across.fragments[1].side == 1);

  // Along the bar's length, below it: the two blobs' lower slabs are apart on side 0 (the
  // bar that joined them is on side 1), everything above is one piece.
  const FractureResult along = fracture_voxels(bell, Vec3(0, 2, 0), Vec3(0, 1, 0), 1);
  REQUIRE(along.fragments.size() == 3);
  CHECK(along.fragments[0].voxel_count == 50);
  CHECK(along.fragments[0].offset_voxels == IVec3(0, 0, 0));
  CHECK(along.fragments[0].model.dims() == IVec3(5, 2, 5));
  CHECK(along.fragments[0].side == 0);
  CHECK(along.fragments[1].voxel_count == 50);
  CHECK(along.fragments[1].offset_voxels == IVec3(12, 0, 0));
  CHECK(along.fragments[1].side == 0);
  CHECK(along.fragments[2].voxel_count == 157);
  CHECK(along.fragments[2].offset_voxels == IVec3(0, 2, 0));
  CHECK(along.fragments[2].model.dims() == IVec3(17, 3, 5));
  CHECK(along.fragments[2].side == 1);

  // The same cut with a minimum of 51: the slabs become debris, with their centres.
  const FractureResult crumbled = fracture_voxels(bell, Vec3(0, 2, 0), Vec3(0, 1, 0), 51);
  REQUIRE(crumbled.fragments.size() == 1);
  CHECK(crumbled.fragments[0].voxel_count == 157);
  REQUIRE(crumbled.debris.size() == 2);
  CHECK(crumbled.debris_voxels == 100);
  CHECK(crumbled.debris[0].voxel_count == 50);
  CHECK(crumbled.debris[0].side == 0);
  CHECK(glm::length(crumbled.debris[0].centre_model_m - Vec3(2.5, 1.0, 2.5)) < 1e-12);
  CHECK(glm::length(crumbled.debris[1].centre_model_m - Vec3(14.5, 1.0, 2.5)) < 1e-12);
}

TEST_CASE("fracture: a minimum above every component turns everything to debris", "[world][fracture]") {
  const VoxelModel rock = make_rock({12, 10, 14}, 0.05, 3);
  const FractureResult r = fracture_voxels(rock, rock.extent_m() / 2.0, Vec3(1, 1, 0), rock.occupied_count() + 1);
  CHECK(r.fragments.empty());
  CHECK(r.debris.size() == 2);
  CHECK(r.debris_voxels == rock.occupied_count());
}

TEST_CASE("fracture: a 128^3 ball is filled without recursion", "[world][fracture]") {
  // One side holds a million voxels: a recursive fill would overflow the stack.
  const VoxelModel ball = make_ball({128, 128, 128}, 0.01);
  const FractureResult r = fracture_voxels(ball, ball.extent_m() / 2.0, Vec3(0, 0, 1), 1);
  REQUIRE(r.fragments.size() == 2);
  CHECK(r.fragments[0].voxel_count == r.fragments[1].voxel_count);
  CHECK(r.fragments[0].voxel_count + r.fragments[1].voxel_count == ball.occupied_count());
}

TEST_CASE("fracture: the pieces carry the parent's linear momentum exactly, separation included",
          "[world][fracture]") {
  Rng rng(11, 3);
  int cuts_with_debris = 0;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    const RandomCut cut = random_cut(seed);
    const BrokenRock b = break_rock(cut, 2700, rng);
    ParentMotion parent;
    parent.centre_of_mass_m = b.position_m;
    parent.linear_velocity_mps = rng.unit_vector() * rng.uniform(0.5, 10.0);
    parent.angular_velocity_radps = rng.unit_vector() * rng.uniform(0.5, 20.0);
    const double separation_mps = rng.uniform(0.1, 3.0);
    const std::vector<PieceMotion> motions = fracture_motion(parent, b.pieces, b.normal_world, separation_mps);
    REQUIRE(motions.size() == b.pieces.size());
    Vec3 momentum(0.0);
    double magnitude = 0;
    for (std::size_t i = 0; i < motions.size(); ++i) {
      momentum += b.pieces[i].mass_kg * motions[i].linear_velocity_mps;
      magnitude += b.pieces[i].mass_kg * glm::length(motions[i].linear_velocity_mps);
    }
    const Vec3 expected = b.parent.mass_kg * parent.linear_velocity_mps;
    INFO("seed " << seed);
    CHECK(glm::length(momentum - expected) <= 1e-12 * magnitude);
    if (!cut.result.debris.empty()) ++cuts_with_debris;
  }
  CHECK(cuts_with_debris > 0);
}

TEST_CASE("fracture: without separation the pieces carry the parent's angular momentum", "[world][fracture]") {
  // min_fragment_voxels 1: every piece is a fragment with a model, hence an inertia.
  Rng rng(12, 3);
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    RandomCut cut = random_cut(seed);
    cut.result = fracture_voxels(cut.parent, cut.point_m, cut.normal, 1);
    const BrokenRock b = break_rock(cut, 2700, rng);
    REQUIRE(b.inertia_model_kgm2.size() == b.pieces.size());
    ParentMotion parent;
    parent.centre_of_mass_m = b.position_m;
    parent.linear_velocity_mps = rng.unit_vector() * rng.uniform(0.5, 10.0);
    parent.angular_velocity_radps = rng.unit_vector() * rng.uniform(0.5, 20.0);
    const std::vector<PieceMotion> motions = fracture_motion(parent, b.pieces, b.normal_world, 0.0);
    const Vec3 origin_m(1, -2, 0.5);
    const Vec3 expected =
        world_inertia_times(b.parent.inertia_kgm2, b.orientation, parent.angular_velocity_radps) +
        b.parent.mass_kg * glm::cross(b.position_m - origin_m, parent.linear_velocity_mps);
    Vec3 total(0.0);
    for (std::size_t i = 0; i < motions.size(); ++i) {
      CHECK(motions[i].angular_velocity_radps == parent.angular_velocity_radps);
      total += world_inertia_times(b.inertia_model_kgm2[i], b.orientation, motions[i].angular_velocity_radps) +
               b.pieces[i].mass_kg * glm::cross(b.pieces[i].centre_of_mass_m - origin_m, motions[i].linear_velocity_mps);
    }
    INFO("seed " << seed << ", pieces " << motions.size());
    CHECK(glm::length(total - expected) <= 1e-11 * glm::length(expected));
  }
}

TEST_CASE("fracture: the separation pushes the two sides apart along the normal", "[world][fracture]") {
  Rng rng(13, 3);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const RandomCut cut = random_cut(seed);
    const BrokenRock b = break_rock(cut, 2700, rng);
    const Vec3 n = glm::normalize(b.normal_world);
    ParentMotion parent;
    parent.centre_of_mass_m = b.position_m;
    parent.linear_velocity_mps = rng.unit_vector() * rng.uniform(0.5, 10.0);
    parent.angular_velocity_radps = rng.unit_vector() * rng.uniform(0.5, 20.0);
    const double separation_mps = 1.5;
    const std::vector<PieceMotion> motions = fracture_motion(parent, b.pieces, b.normal_world, separation_mps);
    ParentMotion sliding = parent;
    sliding.angular_velocity_radps = Vec3(0.0);
    const std::vector<PieceMotion> sliding_motions = fracture_motion(sliding, b.pieces, b.normal_world, separation_mps);
    INFO("seed " << seed);
    for (std::size_t i = 0; i < b.pieces.size(); ++i)
      for (std::size_t j = 0; j < b.pieces.size(); ++j) {
        if (b.pieces[i].side != 1 || b.pieces[j].side != 0) continue;
        // Without spin the pieces move apart at exactly 2 s; with it, once the rigid
        // rotation's share is taken out.
        CHECK(glm::dot(sliding_motions[i].linear_velocity_mps - sliding_motions[j].linear_velocity_mps, n) ==
              Approx(2 * separation_mps).epsilon(1e-12));
        const Vec3 rigid = glm::cross(parent.angular_velocity_radps,
                                      b.pieces[i].centre_of_mass_m - b.pieces[j].centre_of_mass_m);
        CHECK(glm::dot(motions[i].linear_velocity_mps - motions[j].linear_velocity_mps - rigid, n) ==
              Approx(2 * separation_mps).epsilon(1e-9));
      }
  }
  // Two pieces, one per side, at rest: each moves away from the plane, the light one faster
  // by the mass ratio (their momenta cancel).
  const std::vector<PieceMass> pieces{{1.0, Vec3(-1, 0, 0), 0}, {3.0, Vec3(1, 0, 0), 1}};
  const std::vector<PieceMotion> m = fracture_motion(ParentMotion{}, pieces, Vec3(2, 0, 0), 1.0);
  CHECK(m[0].linear_velocity_mps.x == Approx(-1.5));
  CHECK(m[1].linear_velocity_mps.x == Approx(0.5));
  CHECK(m[0].linear_velocity_mps.y == 0);
}

TEST_CASE("fracture: bad inputs are rejected", "[world][fracture]") {
  const VoxelModel box = make_box({4, 4, 4}, 0.1);
  const Vec3 centre(0.2, 0.2, 0.2);
  const double nan = std::nan(""), inf = HUGE_VAL;
  CHECK_THROWS_AS(fracture_voxels(box, centre, Vec3(0.0), 1), std::invalid_argument);
  CHECK_THROWS_AS(fracture_voxels(box, centre, Vec3(nan, 1, 0), 1), std::invalid_argument);
  CHECK_THROWS_AS(fracture_voxels(box, centre, Vec3(inf, 0, 0), 1), std::invalid_argument);
  CHECK_THROWS_AS(fracture_voxels(box, Vec3(0.2, inf, 0.2), Vec3(1, 0, 0), 1), std::invalid_argument);
  CHECK_THROWS_AS(fracture_voxels(box, Vec3(nan, 0.2, 0.2), Vec3(1, 0, 0), 1), std::invalid_argument);
  CHECK_THROWS_AS(fracture_voxels(box, centre, Vec3(1, 0, 0), 0), std::invalid_argument);
  CHECK_NOTHROW(fracture_voxels(box, centre, Vec3(1e-300, 0, 0), 1));

  const std::vector<PieceMass> good{{1.0, Vec3(0.0), 0}, {1.0, Vec3(1.0), 1}};
  const ParentMotion parent;
  CHECK_THROWS_AS(fracture_motion(parent, good, Vec3(0.0), 1.0), std::invalid_argument);
  CHECK_THROWS_AS(fracture_motion(parent, good, Vec3(nan, 0, 1), 1.0), std::invalid_argument);
  CHECK_THROWS_AS(fracture_motion(parent, good, Vec3(0, 0, 1), -1.0), std::invalid_argument);
  CHECK_THROWS_AS(fracture_motion(parent, good, Vec3(0, 0, 1), nan), std::invalid_argument);
  CHECK_THROWS_AS(fracture_motion(parent, good, Vec3(0, 0, 1), inf), std::invalid_argument);
  const std::vector<PieceMass> massless{{0.0, Vec3(0.0), 0}};
  CHECK_THROWS_AS(fracture_motion(parent, massless, Vec3(0, 0, 1), 1.0), std::invalid_argument);
  const std::vector<PieceMass> third_side{{1.0, Vec3(0.0), 2}};
  CHECK_THROWS_AS(fracture_motion(parent, third_side, Vec3(0, 0, 1), 1.0), std::invalid_argument);
  CHECK(fracture_motion(parent, {}, Vec3(0, 0, 1), 1.0).empty());
  const std::vector<PieceMotion> tiny = fracture_motion(parent, good, Vec3(0, 0, 1e-300), 1.0);
  CHECK(tiny[1].linear_velocity_mps.z == Approx(1.0));
}
