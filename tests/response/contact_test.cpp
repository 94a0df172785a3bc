#include <catch2/catch.hpp>

#include <vector>

#include "response/contact.hpp"

using namespace fovea;

TEST_CASE("contact_of: 004 figure 4, the point divides the centres' line in the ratio of the radii", "[response]") {
  const ContactCandidate c = contact_of({{0, 0, 0}, 1.0, {2.5, 0, 0}, 2.0, 42});
  CHECK(c.normal == Vec3(1, 0, 0));
  CHECK(c.point_m.x == Approx(2.5 / 3.0).epsilon(1e-15));  // |O_a C| : |C O_b| = 1 : 2
  CHECK(c.depth_m == Approx(0.5).epsilon(1e-15));
  CHECK(c.feature == 42);
  const ContactCandidate same = contact_of({{1, 1, 1}, 1.0, {1, 1, 1}, 1.0});
  CHECK(same.normal == Vec3(0, 1, 0));
  CHECK(same.depth_m == 2.0);
  // Spheres still apart (a collision accepted unresolved): a negative depth.
  CHECK(contact_of({{0, 0, 0}, 1.0, {3, 0, 0}, 1.0}).depth_m == Approx(-1.0));
}

namespace {

std::vector<ContactCandidate> candidates_of(const std::vector<SpherePairContact>& pairs) {
  std::vector<ContactCandidate> out;
  for (const SpherePairContact& p : pairs) out.push_back(contact_of(p));
  return out;
}

ContactManifold combine(const std::vector<SpherePairContact>& pairs, std::uint32_t a, std::uint32_t b) {
  const std::vector<ContactCandidate> candidates = candidates_of(pairs);
  return combine_contacts(candidates, a, b);
}

}  // namespace

TEST_CASE("combine_contacts: one depth-weighted normal, the deepest point and the farthest ones", "[response]") {
  // A box-like body resting on another: nine pairs in a 3 x 3 grid, normal +y, the middle
  // row deeper, one pair tilted.
  std::vector<SpherePairContact> pairs;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      const double x = i - 1.0, z = k - 1.0;
      const double depth = i == 1 ? 0.05 : 0.01;
      pairs.push_back({{x, -0.5 + depth / 2, z}, 0.5, {x, 0.5 - depth / 2, z}, 0.5});
    }
  pairs.push_back({{0, -0.5, 0}, 0.5, {0.1, 0.49, 0}, 0.5});
  const ContactManifold m = combine(pairs, 3, 7);
  CHECK(m.body_a == 3);
  CHECK(m.body_b == 7);
  CHECK(m.point_count == 4);
  CHECK(m.normal.y > 0.999);
  CHECK(glm::length(m.normal) == Approx(1).epsilon(1e-12));
  CHECK(m.points[0].depth_m == Approx(0.05).epsilon(1e-9));  // the deepest first
  // The rest spread over the grid: no two points closer than a grid step.
  for (int a = 0; a < m.point_count; ++a)
    for (int b = a + 1; b < m.point_count; ++b) CHECK(glm::length(m.points[a].point_m - m.points[b].point_m) >= 0.99);

  // Fewer pairs than four points: each once, none repeated.
  const ContactManifold two = combine(std::vector<SpherePairContact>(pairs.begin(), pairs.begin() + 2), 0, 1);
  CHECK(two.point_count == 2);
  const ContactManifold repeated = combine(std::vector<SpherePairContact>(3, pairs[4]), 0, 1);
  CHECK(repeated.point_count == 1);

  // Opposite normals that cancel exactly (depths 0.5, 0.5 along -x, 1 along +x): the
  // weighted mean is zero, and the deepest pair's normal stands, though it comes last.
  const std::vector<SpherePairContact> opposite = {
      {{0, 0, 0}, 1, {-1.5, 0, 0}, 1}, {{0, 0, 0}, 1, {-1.5, 0, 0}, 1}, {{0, 0, 0}, 1, {1, 0, 0}, 1}};
  CHECK(combine(opposite, 0, 1).normal == Vec3(1, 0, 0));
}
