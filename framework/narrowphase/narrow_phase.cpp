#include "narrowphase/narrow_phase.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/containers.hpp"
#include "core/thread_pool.hpp"

namespace fovea {
namespace {

Mat3 rotation_of(const EntityState& s) { return glm::mat3_cast(s.orientation); }

/// The start of 004 section 3.3.2: the root of tree a is the target, the root of tree b the
/// test list.
constexpr SphereHit kRootsHit{0, 0, 1, 0};

/// The centre of collision of two intersecting spheres (004 section 3.4.2, figure 4): the
/// midpoint of the part of the line through their centres that lies inside both.
Vec3 centre_of_collision(const Vec3& ca, double ra, const Vec3& cb, double rb) {
  const Vec3 ab = cb - ca;
  const double d = glm::length(ab);
  if (d == 0) return ca;
  // Along the line from ca (0) towards cb (d): a covers [-ra, ra], b covers [d - rb, d + rb].
  const double lo = std::max(-ra, d - rb);
  const double hi = std::min(ra, d + rb);
  return ca + ab * ((lo + hi) / (2 * d));
}

// Prune to the overlap region (Smith and Kitamura, 003 sections 1.3.2 and 3.3.3 to 3.3.4: only
// the parts of an object inside the overlap of two objects' bounding boxes can interfere, so
// only those are refined). Here, per collision, in a's centre-of-mass frame (where the descent
// tests): I = box(reach ball of a's root) intersected with box(reach ball of b's root), a root's
// reach ball being its centre with radius leaf_reach_m[root] (collision_model.hpp), which holds
// every leaf sphere of its tree. Both balls are in a's frame, so I is an axis-aligned box there.
// A scan skips every sphere whose reach ball misses I (scan_test_list, scan_hit): as a member it
// is not tested and makes no hit; as a target its whole test list is skipped.
//
// Why it is exact. Two intersecting leaf spheres, one of each tree, share a point p (touching
// counts, as in the descent's test). a's leaf lies in a's root reach ball and b's in b's, so p
// lies in both balls, so in both boxes: p is in I. Every node's reach ball holds every leaf
// sphere below it, so p lies in the reach ball of each ancestor of either leaf, and none of them
// misses I: no node of a hit on the way to an intersecting leaf pair is ever pruned, and what is
// pruned leads to no intersecting leaf pair. So each level of the pruned descent holds the
// unpruned level's hits less some that lead to no leaf pair, in the same order (a scan appends
// in member order either way), and run to the end the pruned descent finds the same status and
// the same first leaf pair; contact_pairs() finds the same leaf pairs in the same order. When I
// is empty nothing can touch: the root target misses it, and the first step resolves the
// collision not colliding (outcome 2) after no test, as the unpruned descent would after some.
// Only the tests done change, and so, under a budget, what is resolved when it runs out.
//
// Rounding. The descent's test rounds (b's centre rotated, |d|^2 against (r_a + r_b)^2), as do
// the reaches (sums of lengths), by a few units in the last place of the coordinates' size. I is
// widened on every side by 1e-9 of that size, far more than the rounding and far less than any
// sphere, so no pair the descent's rounding counts as touching is pruned.
void set_overlap_region(Collision& c, const CollisionModel& ma, const CollisionModel& mb) {
  assert(!ma.leaf_reach_m.empty() && !mb.leaf_reach_m.empty());
  const Vec3 centre_a = ma.spheres[0].centre_m;
  const Vec3 centre_b = c.b_to_a_rotation * mb.spheres[0].centre_m + c.b_to_a_offset_m;
  const double reach_a = ma.leaf_reach_m[0];
  const double reach_b = mb.leaf_reach_m[0];
  const double pad_m = 1e-9 * (glm::length(centre_a) + glm::length(centre_b) + reach_a + reach_b);
  c.overlap.lo_m = glm::max(centre_a - reach_a, centre_b - reach_b) - pad_m;
  c.overlap.hi_m = glm::min(centre_a + reach_a, centre_b + reach_b) + pad_m;
  if (glm::any(glm::greaterThan(c.overlap.lo_m, c.overlap.hi_m))) {
    c.overlap.lo_m = Vec3(std::numeric_limits<double>::infinity());  // empty: nothing meets it
    c.overlap.hi_m = -c.overlap.lo_m;
  }
  c.overlap.half_m = 0.5 * (c.overlap.hi_m - c.overlap.lo_m);
}

}  // namespace

void NarrowPhase::begin_frame(std::span<const EntityState> states, const DescentMemory* memory, ThreadPool* pool) {
  sphere_tests_ = 0;
  hits_.clear(32 * collisions_.size());  // 12 bytes a hit: a few levels' worth
  // Each descent's first level, the roots' hit, in list order: the pool's one serial part.
  const std::span<const std::uint32_t> order = collisions_.order();
  for (const std::uint32_t slot : order) hits_.start_level(collisions_.collision(slot), kRootsHit);
  // The rest is each collision's own, on the threads in chunks: no chunk reads what another
  // writes, so the same bytes at any thread count.
  const bool coherent = settings_.coherence && memory != nullptr;
  prune_ = settings_.prune_to_overlap;
  for_ranges(pool, order.size(), kCollisionsPerTask, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t slot = order[i];
      Collision& c = collisions_.collision(slot);
      c.status = CollisionStatus::needs_more_work;
      c.interrupted = false;
      c.levels_done = 0;
      c.sphere_tests = 0;
      c.tested_any = false;
      c.leaf_pair = SpherePair{};
      c.queue = 0;
      c.witness = WitnessState::none;
      c.witness_tests = 0;
      if (coherent) {
        // Coherence across frames: last frame's deepest pair, re-tested first (step_witness).
        const RememberedDescent* last = memory->recall(slot, c);
        if (last != nullptr && last->has_witness) {
          c.witness = WitnessState::pending;
          c.witness_target = last->witness;
          c.witness_at = SpherePair{0, 0};
          c.witness_split = 1;  // the roots' pair is tested as if b's tree had just split: a's splits next
        }
      }
      // b's centre-of-mass frame to a's: c_a = R_a^T (p_b + R_b c_b - p_a).
      const EntityState& sa = states[c.a];
      const EntityState& sb = states[c.b];
      const Mat3 ra_t = glm::transpose(rotation_of(sa));
      c.b_to_a_rotation = ra_t * rotation_of(sb);
      c.b_to_a_offset_m = ra_t * (sb.position_m - sa.position_m);
      // Prune to the overlap region (003), from the transform above.
      if (prune_) set_overlap_region(c, models_.model(c.model_a), models_.model(c.model_b));
    }
  });
  overlap_checks_ = 0;
}

/// The centres of one test list on b's tree, in a's frame (scan_test_list): the last list
/// scanned, kept for the next hit. The hits one scan makes share a test list (the old
/// target's children) and sit together in the next level, so consecutive hits of a level
/// mostly test the same members: each is rotated once per run of such hits rather than once
/// per hit. The same expression as before, so the same doubles to the bit (fp-contract is
/// off, CMakeLists.txt). One per step (or contact_pairs call): one collision, one transform.
struct RotatedTestList {
  /// More than any test list: child counts are 8 bits (a root's list is 1, contact_pairs'
  /// remainders are shorter).
  static constexpr std::uint32_t kCapacity = 256;

  /// Rotates the members of `hit`'s test list into a's frame, unless they are held already.
  void fill(const CollisionModel& test_model, const SphereHit& hit, const Mat3& rotation, const Vec3& offset) {
    if (hit.test_begin == begin && hit.test_count == count) return;
    assert(hit.test_count <= kCapacity);
    for (std::uint32_t i = 0; i < hit.test_count; ++i) {
      const Vec3 c = rotation * test_model.spheres[hit.test_begin + i].centre_m + offset;
      xyz[i][0] = c.x;
      xyz[i][1] = c.y;
      xyz[i][2] = c.z;
    }
    begin = hit.test_begin;
    count = hit.test_count;
  }
  /// The centre of the list's `i`th member, a's frame.
  Vec3 centre(std::uint32_t i) const { return Vec3(xyz[i][0], xyz[i][1], xyz[i][2]); }

  std::uint32_t begin = 0xffffffffu;  ///< the list held: none yet
  std::uint32_t count = 0;
  double xyz[kCapacity][3];  ///< not Vec3: nothing to construct, 6 kB of stack left as it is
};

namespace {

/// The distance from `c` to the interval [lo, hi] of half length `half`: (|c - lo| + |c - hi|)
/// / 2 - half, which is lo - c below, c - hi above and 0 inside (to rounding, far below the
/// region's widening). Written so that it compiles without a branch: GCC turns the clamp
/// max(lo - c, c - hi, 0), squared, into one taken at random, and glm::abs (x >= 0 ? x : -x)
/// into two; std::fabs is a mask. +inf for an empty interval (lo +inf, hi and half -inf).
inline double distance_outside(double c, double lo, double hi, double half) {
  return 0.5 * (std::fabs(c - lo) + std::fabs(c - hi)) - half;
}

/// Whether the ball of `radius` about `centre` (a's frame) meets `region`: the squared
/// distance from the centre to the box against the radius squared, touching included,
/// without a branch (scan_test_list). An empty region is met by nothing.
inline bool meets(const OverlapRegion& region, const Vec3& centre, double radius) {
  const double x = distance_outside(centre.x, region.lo_m.x, region.hi_m.x, region.half_m.x);
  const double y = distance_outside(centre.y, region.lo_m.y, region.hi_m.y, region.half_m.y);
  const double z = distance_outside(centre.z, region.lo_m.z, region.hi_m.z, region.half_m.z);
  return x * x + y * y + z * z <= radius * radius;
}

/// Whether the target of `hit` reaches the collision's overlap region (003): its centre in
/// a's frame and its leaf reach.
bool target_meets_region(const Collision& c, const CollisionModel& target_model, const SphereHit& hit) {
  const Vec3& local = target_model.spheres[hit.target].centre_m;
  const Vec3 centre = hit.target_tree == 0 ? local : c.b_to_a_rotation * local + c.b_to_a_offset_m;
  return meets(c.overlap, centre, target_model.leaf_reach_m[hit.target]);
}

/// Tests one target sphere against its test list and appends a SphereHit for each member it
/// intersects to `out`, stopping at a leaf-leaf intersection (004 section 3.4.1, outcome 1).
///
/// Every candidate is written and the end advances by the test's outcome (0 or 1), so the
/// loop has no data-dependent branch: with a third to a half of the tests hitting, a branch
/// would be mispredicted often, and `fovea bench narrowphase` measured that branch at more
/// than half the cost of a test. `out` must have room for the whole test list.
/// kTestOnB: the test list is on entity b's tree, whose centres are rotated into a's frame.
/// kLeafTarget: the target is a leaf, so it stays the target and the members' children
/// become its test lists (unequal heights); otherwise each hit member becomes a target
/// with the old target's children as its tests (the cross-over).
/// kPrune: a member whose reach ball misses `region` (prune to the overlap region, 003; see
/// set_overlap_region) is not tested: it is checked against the box, and its
/// sphere test, done anyway so that the loop stays free of branches, neither counts nor hits.
/// With kTestOnB the members' centres come from `rotated`, filled first unless it already
/// holds this very test list.
template <bool kTestOnB, bool kLeafTarget, bool kPrune>
ScanResult scan_test_list(const SphereHit& hit, const CollisionModel& target_model, const CollisionModel& test_model,
                            const Vec3& target_centre, double target_radius, const Mat3& rotation, const Vec3& offset,
                            const OverlapRegion& region, RotatedTestList& rotated, SphereHit* out) {
  const std::uint8_t test_tree = kTestOnB ? 1 : 0;
  if constexpr (kTestOnB) rotated.fill(test_model, hit, rotation, offset);
  SphereHit candidate;
  if constexpr (!kLeafTarget) {
    candidate.test_begin = target_model.first_child[hit.target];
    candidate.test_count = static_cast<std::uint16_t>(target_model.child_count[hit.target]);
    candidate.target_tree = test_tree;
  } else {
    candidate.target = hit.target;
    candidate.target_tree = hit.target_tree;
  }
  std::uint32_t appended = 0;
  std::uint32_t tests = 0;  // kPrune only: the members not pruned
  const std::uint32_t end = hit.test_begin + hit.test_count;
  for (std::uint32_t member = hit.test_begin; member < end; ++member) {
    const DescentSphere& sphere = test_model.spheres[member];
    const Vec3 centre = kTestOnB ? rotated.centre(member - hit.test_begin) : sphere.centre_m;
    const Vec3 d = target_centre - centre;
    const double reach = target_radius + sphere.radius_m;
    bool intersects = glm::dot(d, d) <= reach * reach;
    if constexpr (kPrune) {
      const bool in_region = meets(region, centre, test_model.leaf_reach_m[member]);
      intersects = intersects & in_region;  // not &&: no branch
      tests += in_region ? 1 : 0;
    }
    if constexpr (kLeafTarget) {
      const std::uint8_t children = test_model.child_count[member];
      if (intersects && children == 0) {
        const std::uint32_t scanned = member - hit.test_begin + 1;
        return {appended, kPrune ? tests : scanned, scanned, true};
      }
      candidate.test_begin = test_model.first_child[member];
      candidate.test_count = children;
    } else {
      candidate.target = member;
    }
    out[appended] = candidate;
    appended += intersects ? 1 : 0;
  }
  return {appended, kPrune ? tests : hit.test_count, hit.test_count, false};
}

/// Scans one hit of collision `c` whose trees are `tree`: the target's centre in a's frame,
/// then the scan_test_list for its side and kind. What the descent and the contact pairs'
/// completion both run. `out` must have room for the whole test list. kPrune: pruning to the
/// overlap region (003), a target whose reach ball misses it makes nothing, with no test.
template <bool kPrune>
ScanResult scan_hit_as(const Collision& c, const CollisionModel* const tree[2], const SphereHit& hit,
                       RotatedTestList& rotated, SphereHit* out) {
  const int target_tree = hit.target_tree;
  const CollisionModel& target_model = *tree[target_tree];
  const CollisionModel& test_model = *tree[1 - target_tree];
  const Mat3& rotation = c.b_to_a_rotation;
  const Vec3& offset = c.b_to_a_offset_m;
  // Sphere centres are transformed only when tested, and only b's: the test runs in a's
  // centre-of-mass frame, where a's centres are as stored.
  const Vec3& target_local = target_model.spheres[hit.target].centre_m;
  const Vec3 target_centre = target_tree == 0 ? target_local : rotation * target_local + offset;
  const double target_radius = target_model.spheres[hit.target].radius_m;
  if constexpr (kPrune) {
    if (!meets(c.overlap, target_centre, target_model.leaf_reach_m[hit.target])) return {};
  }
  const bool target_is_leaf = target_model.is_leaf(hit.target);
  const OverlapRegion& region = c.overlap;
  if (target_tree == 0)
    return target_is_leaf ? scan_test_list<true, true, kPrune>(hit, target_model, test_model, target_centre,
                                                               target_radius, rotation, offset, region, rotated, out)
                          : scan_test_list<true, false, kPrune>(hit, target_model, test_model, target_centre,
                                                                target_radius, rotation, offset, region, rotated, out);
  return target_is_leaf ? scan_test_list<false, true, kPrune>(hit, target_model, test_model, target_centre,
                                                              target_radius, rotation, offset, region, rotated, out)
                        : scan_test_list<false, false, kPrune>(hit, target_model, test_model, target_centre,
                                                               target_radius, rotation, offset, region, rotated, out);
}

/// scan_hit_as, pruning or not: one well-predicted branch a hit.
ScanResult scan_hit(const Collision& c, const CollisionModel* const tree[2], const SphereHit& hit, bool prune,
                    RotatedTestList& rotated, SphereHit* out) {
  return prune ? scan_hit_as<true>(c, tree, hit, rotated, out) : scan_hit_as<false>(c, tree, hit, rotated, out);
}

}  // namespace

ScanResult NarrowPhase::scan(const Collision& c, const SphereHit& hit, RotatedTestList& rotated, SphereHit* out) {
  const CollisionModel* const tree[2] = {&models_.model(c.model_a), &models_.model(c.model_b)};
  const GrowableModel target = models_.growable(hit.target_tree == 0 ? c.model_a : c.model_b);
  const GrowableModel test = models_.growable(hit.target_tree == 0 ? c.model_b : c.model_a);
  if (target.grower == nullptr && test.grower == nullptr) return scan_hit(c, tree, hit, prune_, rotated, out);

  // On-demand trees (001). A target that is not a leaf hands its children to the new hits
  // as their test list: they must exist before the scan copies them. A target pruned to the
  // overlap region (003) makes no hit: nothing to grow. Pruned members make no hit either, so
  // their children are not grown below. A node not grown has a leaf reach that needs no
  // subtree (TreeGrower::write_node), so pruning on it is as exact as on a whole tree.
  if (prune_ && !target_meets_region(c, *target.model, hit)) return {};
  const bool target_is_leaf = target.model->is_leaf(hit.target);
  if (!target_is_leaf) target.use_children(hit.target);
  const ScanResult result = scan_hit(c, tree, hit, prune_, rotated, out);
  if (target_is_leaf) {
    // Each hit member hands its children to its new hit: grow those not built (their hit
    // still holds the member, first_child of a node not grown being itself), only for the
    // members that intersected.
    if (test.grower != nullptr) {
      const CollisionModel& test_model = *test.model;
      for (std::uint32_t i = 0; i < result.appended; ++i) {
        SphereHit& h = out[i];
        const std::uint32_t member = h.test_count == kChildrenNotBuilt ? h.test_begin : test_model.parent[h.test_begin];
        test.use_children(member);
        h.test_begin = test_model.first_child[member];
        h.test_count = test_model.child_count[member];
      }
    }
  }
  return result;
}

namespace {

/// The collision's descent again from its roots' hit, after coherence found nothing.
void restart_at_roots(Collision& c, SphereHitPool& hits) {
  hits.start_level(c, kRootsHit);
  c.levels_done = 0;
  c.tested_any = false;
  c.witness = WitnessState::failed;
}

/// The chain down to last frame's deepest pair, then the first level below it (step()), on
/// the collision's trees `ma` and `mb`: what coherence spends a step on. Returns the sphere
/// tests done.
std::int64_t step_witness(Collision& c, const CollisionModel& ma, const CollisionModel& mb, SphereHitPool& hits,
                          Budget& budget) {
  // Coherence across frames (docs/narrowphase.md), Hubbard's argument that a pair's contact
  // moves little between frames, kept exact. The pairs tested here are those the descent
  // from the roots (004 section 3.3.2) tests on its way to last frame's deepest pair, in its
  // order: it splits the tree that did not split last, unless that one is at a leaf, so the
  // trees alternate as in scan_test_list. If every pair of the chain intersects, the descent
  // from the roots reaches that pair, and every hit below it is one the descent from the
  // roots makes too: a leaf pair found below it is one the descent from the roots would
  // reach, so its outcome is colliding as well. Nothing below it can prove the collision
  // apart, though (other branches may still meet), so where nothing below it intersects the
  // descent starts again at the roots (step()). The test is the descent's, to the bit.
  std::int64_t tests = 0;
  // The child of `node` on the way down to `target`; `node` itself when `target` is not below it.
  const auto toward = [](const CollisionModel& m, std::uint32_t node, std::uint32_t target) {
    std::uint32_t n = target;
    while (m.parent[n] != node && m.parent[n] != n) n = m.parent[n];
    return m.parent[n] == node && n != node ? n : node;
  };
  while (!budget.exhausted()) {
    const SpherePair p = c.witness_at;
    const DescentSphere& sa = ma.spheres[p.node_a];
    const DescentSphere& sb = mb.spheres[p.node_b];
    const Vec3 centre_b = c.b_to_a_rotation * sb.centre_m + c.b_to_a_offset_m;
    const Vec3 d = sa.centre_m - centre_b;
    const double reach = sa.radius_m + sb.radius_m;
    const bool intersects = glm::dot(d, d) <= reach * reach;
    ++c.sphere_tests;
    ++c.witness_tests;
    ++tests;
    budget.spend(1);
    if (!intersects) {
      c.witness = WitnessState::failed;  // the root hit waits in the current level
      return tests;
    }
    const bool leaf_a = ma.is_leaf(p.node_a);
    const bool leaf_b = mb.is_leaf(p.node_b);
    if (leaf_a && leaf_b) {
      c.tested_any = true;
      c.witness = WitnessState::below;
      c.status = CollisionStatus::colliding;  // outcome 1, as the descent from the roots finds it
      c.leaf_pair = p;
      return tests;
    }
    std::uint8_t split = 1 - c.witness_split;
    if (split == 0 ? leaf_a : leaf_b) split = c.witness_split;
    const bool at_target = p.node_a == c.witness_target.node_a && p.node_b == c.witness_target.node_b;
    const std::uint32_t from = split == 0 ? p.node_a : p.node_b;
    if (at_target) {
      // The chain holds: the descent goes on below the pair, as the descent from the roots
      // would after finding it intersecting. The target is the other tree's node, the test
      // list the splitting node's children.
      const CollisionModel& split_model = split == 0 ? ma : mb;
      const SphereHit below{split == 0 ? p.node_b : p.node_a, split_model.first_child[from],
                            static_cast<std::uint16_t>(split_model.child_count[from]), static_cast<std::uint8_t>(1 - split)};
      hits.start_level(c, below);
      c.witness = WitnessState::below;
      c.tested_any = true;  // the pair is on the frontier now (gap_estimate, contact_pairs)
      return tests;
    }
    const std::uint32_t next =
        split == 0 ? toward(ma, p.node_a, c.witness_target.node_a) : toward(mb, p.node_b, c.witness_target.node_b);
    if (next == from) {
      c.witness = WitnessState::failed;  // not on a chain of this descent (the trees changed): from the roots
      return tests;
    }
    (split == 0 ? c.witness_at.node_a : c.witness_at.node_b) = next;
    c.witness_split = split;
  }
  return tests;
}

}  // namespace

CollisionStatus NarrowPhase::step(std::uint32_t slot, Budget& budget) {
  Collision& c = collisions_.collision(slot);
  if (c.status != CollisionStatus::needs_more_work) return c.status;
  if (c.witness == WitnessState::pending) {
    sphere_tests_ += step_witness(c, models_.model(c.model_a), models_.model(c.model_b), hits_, budget);
    return c.status;
  }

  if (c.cursor < c.hits_end && !budget.exhausted()) {
    // Everything a hit needs that does not change during a step is looked up once: the two
    // trees, whether either grows on demand, pruning. The budget is asked before each hit,
    // as ever; the counts are summed here and stored once.
    const CollisionModel* const tree[2] = {&models_.model(c.model_a), &models_.model(c.model_b)};
    const bool grows = models_.growable(c.model_a).grower != nullptr || models_.growable(c.model_b).grower != nullptr;
    const bool prune = prune_;
    // Room for every member of every hit left to hit, at the end of this collision's next
    // run: one check a step rather than one a hit (only this collision appends meanwhile).
    hits_.open_next_run(c);
    std::size_t room = 0;
    for (std::uint32_t i = c.cursor; i < c.hits_end; ++i) room += hits_[i].test_count;
    hits_.room(room);
    SphereHit* const pool = hits_.data();
    std::size_t run_end = hits_.end();
    RotatedTestList rotated;
    std::int64_t tests = 0;
    std::int64_t overlap_checks = 0;
    bool tested_any = c.tested_any;
    std::uint32_t cursor = c.cursor;
    for (;;) {
      const SphereHit hit = pool[cursor++];
      const ScanResult result =
          grows ? scan(c, hit, rotated, pool + run_end) : scan_hit(c, tree, hit, prune, rotated, pool + run_end);
      run_end += result.appended;
      tested_any = tested_any || result.appended > 0 || result.leaf_pair;
      tests += result.tests;
      overlap_checks += prune ? std::int64_t{result.scanned} + 1 : 0;
      budget.spend(result.tests);
      if (result.leaf_pair) {
        // Outcome 1: two leaves intersect; the collision is real. The scan stopped at them.
        const std::uint32_t member = hit.test_begin + result.scanned - 1;
        c.leaf_pair = hit.target_tree == 0 ? SpherePair{hit.target, member} : SpherePair{member, hit.target};
        c.status = CollisionStatus::colliding;
        break;
      }
      if (cursor == c.hits_end || budget.exhausted()) break;
    }
    hits_.set_end(static_cast<std::uint32_t>(run_end));
    c.cursor = cursor;
    c.next_end = static_cast<std::uint32_t>(run_end);
    c.tested_any = tested_any;
    c.sphere_tests += tests;
    sphere_tests_ += tests;
    overlap_checks_ += overlap_checks;
  }
  if (c.status != CollisionStatus::needs_more_work || c.cursor < c.hits_end) return c.status;

  // The level is done.
  if (c.next_begin == c.next_end) {
    if (c.witness == WitnessState::below) {
      // Nothing below last frame's pair intersects now: that proves nothing about the other
      // branches, so from the roots (coherence, step_witness).
      restart_at_roots(c, hits_);
      return c.status;
    }
    c.status = CollisionStatus::not_colliding;  // outcome 2
    return c.status;
  }
  c.hits_begin = c.cursor = c.next_begin;  // outcome 3: the next level
  c.hits_end = c.next_end;
  c.next_begin = c.next_end;
  ++c.levels_done;
  return c.status;
}

void NarrowPhase::interrupt(InterruptPolicy policy) {
  for (const std::uint32_t slot : collisions_.order()) {
    Collision& c = collisions_.collision(slot);
    if (c.status != CollisionStatus::needs_more_work) continue;
    c.interrupted = true;
    c.status = policy == InterruptPolicy::repulse ? CollisionStatus::colliding : CollisionStatus::not_colliding;
  }
}

std::int64_t NarrowPhase::contact_pairs(std::uint32_t slot, std::size_t max_pairs, std::vector<SphereHit>& stack,
                                        std::vector<SpherePair>& out) {
  out.clear();
  std::int64_t tests = 0;
  // Restored at the end: what the frame's records read of the collision (its leaf pair, where
  // the metrics place it) stays what the scheduler's descent found.
  const bool redescend = contact_pairs_redescend(collisions_.collision(slot));
  Collision as_scheduled;
  if (redescend) {
    as_scheduled = collisions_.collision(slot);
    // Resolved colliding below last frame's pair (coherence), whose hits hold one branch
    // only. The descent from the roots again, outside the budget, to the same leaf pair and
    // frontier 004's descent stops at: the response then gets the same pairs in the same
    // order, so coherence changes no world at full resolution (docs/narrowphase.md).
    Collision& c = collisions_.collision(slot);
    const std::int64_t frame_tests = sphere_tests_;
    restart_at_roots(c, hits_);
    c.status = CollisionStatus::needs_more_work;
    Budget unlimited = Budget::unlimited();
    while (step(slot, unlimited) == CollisionStatus::needs_more_work) {
    }
    tests += sphere_tests_ - frame_tests;
    sphere_tests_ = frame_tests;  // the collision's own count comes back with as_scheduled
  }
  const Collision& c = collisions_.collision(slot);
  const CollisionModel* const tree[2] = {&models_.model(c.model_a), &models_.model(c.model_b)};
  // Every hit past the first level came from an intersecting pair: its target and its test
  // list's parent (a root's parent is itself, so the first hit gives the two roots).
  const auto pair_of = [&](const SphereHit& h) {
    const std::uint32_t other = tree[1 - h.target_tree]->parent[h.test_begin];
    return h.target_tree == 0 ? SpherePair{h.target, other} : SpherePair{other, h.target};
  };
  if (!c.tested_any || c.interrupted) {
    for (std::uint32_t i = c.cursor; i < c.hits_end; ++i) out.push_back(pair_of(hits_[i]));
    for (std::uint32_t i = c.next_begin; i < c.next_end; ++i) out.push_back(pair_of(hits_[i]));
    return 0;
  }
  assert(c.status == CollisionStatus::colliding);
  stack.clear();
  {
    out.push_back(c.leaf_pair);
    // Finish the descent below the frontier: the rest of the test list whose scan found the
    // leaf pair, the level's hits not yet processed, and the next level's made so far.
    const SphereHit& found = hits_[c.cursor - 1];
    const std::uint32_t member = found.target_tree == 0 ? c.leaf_pair.node_b : c.leaf_pair.node_a;
    const std::uint32_t found_end = found.test_begin + found.test_count;
    if (member + 1 < found_end)
      stack.push_back({found.target, member + 1, static_cast<std::uint16_t>(found_end - member - 1), found.target_tree});
    for (std::uint32_t i = c.next_end; i-- > c.next_begin;) stack.push_back(hits_[i]);
    for (std::uint32_t i = c.hits_end; i-- > c.cursor;) stack.push_back(hits_[i]);
  }

  // The descent's own scan, run to the end: hits go on the stack; a leaf-leaf pair is
  // recorded and the rest of its test list goes on the stack to be scanned next, so every
  // intersecting leaf pair is found, in the order a scan past the pair would find them.
  RotatedTestList rotated;
  while (!stack.empty() && out.size() < max_pairs) {
    const SphereHit hit = stack.back();
    stack.pop_back();
    const std::size_t base = stack.size();
    stack.resize(base + hit.test_count);
    const ScanResult result = scan(c, hit, rotated, stack.data() + base);
    stack.resize(base + result.appended);
    tests += result.tests;
    if (!result.leaf_pair) continue;
    const std::uint32_t leaf = hit.test_begin + result.scanned - 1;
    out.push_back(hit.target_tree == 0 ? SpherePair{hit.target, leaf} : SpherePair{leaf, hit.target});
    if (leaf + 1 < hit.test_begin + hit.test_count)
      stack.push_back({hit.target, leaf + 1, static_cast<std::uint16_t>(hit.test_begin + hit.test_count - leaf - 1),
                       hit.target_tree});
  }
  if (redescend) collisions_.collision(slot) = as_scheduled;
  return tests;
}

GapEstimate NarrowPhase::initial_gap_estimate(std::uint32_t slot, std::span<const EntityState> states) const {
  // Before any sphere test: the entities' centres (004 section 3.4.2), and their bounding
  // spheres for the centre of collision.
  const Collision& c = collisions_.collision(slot);
  const CollisionModel& ma = models_.model(c.model_a);
  const CollisionModel& mb = models_.model(c.model_b);
  GapEstimate g;
  g.sphere_a_m = states[c.a].position_m;
  g.sphere_b_m = states[c.b].position_m;
  g.slack_m = ma.centre_slack_m + mb.centre_slack_m;
  g.bound_m = glm::length(g.sphere_b_m - g.sphere_a_m) + g.slack_m;
  g.radius_a_m = ma.bounding_radius_m;
  g.radius_b_m = mb.bounding_radius_m;
  g.centre_m = centre_of_collision(g.sphere_a_m, g.radius_a_m, g.sphere_b_m, g.radius_b_m);
  return g;
}

bool NarrowPhase::deepest_pair(std::uint32_t slot, SpherePair& out) const {
  const Collision& c = collisions_.collision(slot);
  if (!c.tested_any) return false;
  const CollisionModel& ma = models_.model(c.model_a);
  const CollisionModel& mb = models_.model(c.model_b);
  // Every hit past the first level came from an intersecting pair: its target and its test
  // list's parent. The pairs of the frontier (the current level's hits not yet processed and
  // the next level's made so far) are the deepest found; once a collision is resolved not
  // colliding its frontier is empty, and the last level's hits stand in. A collision
  // resolved colliding has its leaf pair, the deepest of all.
  out = c.leaf_pair;
  if (c.status == CollisionStatus::colliding && !c.interrupted) return true;
  double best_bound = std::numeric_limits<double>::infinity();
  const auto consider = [&](const SphereHit& h) {
    const CollisionModel& test_model = h.target_tree == 0 ? mb : ma;
    const std::uint32_t other = test_model.parent[h.test_begin];
    const SpherePair p = h.target_tree == 0 ? SpherePair{h.target, other} : SpherePair{other, h.target};
    const Vec3 d = ma.spheres[p.node_a].centre_m - (c.b_to_a_rotation * mb.spheres[p.node_b].centre_m + c.b_to_a_offset_m);
    const double bound = glm::length(d) + ma.gap_slack_m[p.node_a] + mb.gap_slack_m[p.node_b];
    if (bound < best_bound) {
      best_bound = bound;
      out = p;
    }
  };
  const bool frontier_empty = c.cursor == c.hits_end && c.next_begin == c.next_end;
  const std::uint32_t first = frontier_empty ? c.hits_begin : c.cursor;
  for (std::uint32_t i = first; i < c.hits_end; ++i) consider(hits_[i]);
  for (std::uint32_t i = c.next_begin; i < c.next_end; ++i) consider(hits_[i]);
  return true;
}

SpherePairGeometry NarrowPhase::pair_geometry(std::uint32_t slot, const SpherePair& pair) const {
  const Collision& c = collisions_.collision(slot);
  const CollisionModel& ma = models_.model(c.model_a);
  const CollisionModel& mb = models_.model(c.model_b);
  SpherePairGeometry p;
  p.centre_a_m = ma.spheres[pair.node_a].centre_m;
  p.centre_b_m = mb.spheres[pair.node_b].centre_m;
  p.radius_a_m = ma.spheres[pair.node_a].radius_m;
  p.radius_b_m = mb.spheres[pair.node_b].radius_m;
  p.gap_slack_a_m = ma.gap_slack_m[pair.node_a];
  p.gap_slack_b_m = mb.gap_slack_m[pair.node_b];
  return p;
}

GapEstimate NarrowPhase::pair_gap_estimate(std::uint32_t slot, std::span<const EntityState> states,
                                           const SpherePair& pair) const {
  return pair_gap_estimate(slot, states, pair_geometry(slot, pair));
}

GapEstimate NarrowPhase::pair_gap_estimate(std::uint32_t slot, std::span<const EntityState> states,
                                           const SpherePairGeometry& pair) const {
  const Collision& c = collisions_.collision(slot);
  const EntityState& sa = states[c.a];
  const EntityState& sb = states[c.b];
  const Mat3 ra = rotation_of(sa);
  const Mat3 rb = rotation_of(sb);
  GapEstimate g;
  g.sphere_a_m = sa.position_m + ra * pair.centre_a_m;
  g.sphere_b_m = sb.position_m + rb * pair.centre_b_m;
  g.slack_m = pair.gap_slack_a_m + pair.gap_slack_b_m;
  g.bound_m = glm::length(g.sphere_b_m - g.sphere_a_m) + g.slack_m;
  g.radius_a_m = pair.radius_a_m;
  g.radius_b_m = pair.radius_b_m;
  g.centre_m = centre_of_collision(g.sphere_a_m, g.radius_a_m, g.sphere_b_m, g.radius_b_m);
  return g;
}

GapEstimate NarrowPhase::gap_estimate(std::uint32_t slot, std::span<const EntityState> states) const {
  SpherePair best;
  if (!deepest_pair(slot, best)) return initial_gap_estimate(slot, states);
  return pair_gap_estimate(slot, states, best);
}

}  // namespace fovea
