#include "spheretree/sph_file.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <vector>

#include "core/file_read.hpp"
#include "core/format.hpp"

namespace fovea {
namespace {

/// The first `count` numbers at the start of a line (strtod's syntax), fewer when a
/// non-number comes first. The rest of the line is not read: the format ignores it, and a
/// line of a gigabyte of numbers must not become gigabytes of doubles.
std::vector<double> leading_numbers(const std::string& line, std::size_t count) {
  std::vector<double> numbers;
  const char* p = line.c_str();
  while (numbers.size() < count) {
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p) break;
    numbers.push_back(v);
    p = end;
  }
  return numbers;
}

/// Slots of a complete tree of `levels` levels (the root's included) and branching `branch`:
/// 1 + B + ... + B^(levels - 1), or 0 when that exceeds kSphMaxSlots.
std::uint64_t complete_tree_slots(int levels, std::uint64_t branch) {
  std::uint64_t slots = 0, row = 1;
  for (int l = 0; l < levels; ++l) {
    slots += row;
    if (slots > kSphMaxSlots) return 0;
    row *= branch;
  }
  return slots;
}

/// A line as messages quote it: the one rule for quoting input (excerpt, core/format.hpp).
std::string quoted(const std::string& line) { return "\"" + excerpt(line) + "\""; }

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace

Vec3 model_bounds_centre_m(const VoxelModel& model) {
  const VoxelModel::CellRange cells = model.occupied_cells();
  return 0.5 * Vec3(cells.lo + cells.hi) * model.voxel_size_m();
}

SphereTree read_sph(std::istream& in, const Vec3& offset_m) {
  std::string line;
  std::size_t line_number = 0;
  const auto next_line = [&]() {
    while (std::getline(in, line)) {
      ++line_number;
      if (!blank(line)) return true;
    }
    return false;
  };
  if (!next_line()) throw SphFormatError(line_number + 1, "empty file: expected `levels branch`");
  const std::vector<double> header = leading_numbers(line, 2);
  if (header.size() < 2 || header[0] != std::floor(header[0]) || header[1] != std::floor(header[1]) || header[0] < 1 ||
      header[1] < 1 || header[0] > 64 || header[1] > 255)
    throw SphFormatError(line_number, "expected `levels branch` (levels 1 to 64, branch 1 to 255), found " + quoted(line));
  const auto levels = static_cast<int>(header[0]);
  const auto branch = static_cast<std::uint64_t>(header[1]);
  const std::uint64_t slots = complete_tree_slots(levels, branch);
  if (slots == 0)
    throw SphFormatError(line_number, std::to_string(levels) + " levels of branching " + std::to_string(branch) +
                                          " make more than " + std::to_string(kSphMaxSlots) + " slots");

  // Grown as lines are read, so memory follows the file's length, not its header: a header
  // of six bytes may declare ten million slots (found by fuzz/targets/sph.cpp, which ran at
  // 19 inputs a second allocating 400 MB for each).
  std::vector<Vec3> centre;
  std::vector<double> radius;
  std::vector<std::size_t> slot_line;
  for (std::uint64_t i = 0; i < slots; ++i) {
    if (!next_line())
      throw SphFormatError(line_number + 1, "the file ends after " + std::to_string(i) + " of " + std::to_string(slots) +
                                                " spheres");
    const std::vector<double> v = leading_numbers(line, 4);
    if (v.size() < 4) throw SphFormatError(line_number, "expected `x y z r`, found " + quoted(line));
    for (int k = 0; k < 4; ++k)
      if (!std::isfinite(v[static_cast<std::size_t>(k)])) throw SphFormatError(line_number, "a number is not finite");
    // An unused slot (radius <= 0) is dropped whatever its numbers; a used one must stay
    // within kSphMaxReach_m, so no box or distance made from it overflows.
    if (v[3] > 0) {
      const double reach_m = std::hypot(v[0], v[1], v[2]) + v[3];
      if (!(reach_m <= kSphMaxReach_m))
        throw SphFormatError(line_number, "a sphere may reach at most " + format_number(kSphMaxReach_m) +
                                              " m from the model's centre (|centre| + radius; the largest world), found " +
                                              quoted(line));
    }
    centre.push_back(Vec3(v[0], v[1], v[2]) + offset_m);
    radius.push_back(v[3]);
    slot_line.push_back(line_number);
  }
  if (!(radius[0] > 0)) throw SphFormatError(slot_line[0], "the root sphere is unused (radius <= 0)");

  // Breadth first over used slots: fovea's layout (levels contiguous, children contiguous).
  SphereTree tree;
  std::deque<std::pair<std::uint64_t, int>> queue = {{0, 0}};  // (slot, depth)
  tree.level_begin = {0};
  while (!queue.empty()) {
    const auto [slot, depth] = queue.front();
    queue.pop_front();
    if (static_cast<std::size_t>(depth) + 1 > tree.level_begin.size()) tree.level_begin.push_back(static_cast<std::uint32_t>(tree.size()));
    tree.centre_m.push_back(centre[slot]);
    tree.radius_m.push_back(radius[slot]);
    tree.level.push_back(static_cast<std::uint8_t>(depth));
    std::uint8_t children = 0;
    for (std::uint64_t k = 0; k < branch; ++k) {
      const std::uint64_t child = slot * branch + 1 + k;
      if (child >= slots || !(radius[child] > 0)) continue;
      queue.emplace_back(child, depth + 1);
      ++children;
    }
    tree.child_count.push_back(children);
    tree.first_child.push_back(0);
  }
  tree.level_begin.push_back(static_cast<std::uint32_t>(tree.size()));
  // First children follow from the breadth-first order: node n's children come right after
  // those of every node before it.
  std::uint32_t next_child = 1;
  for (std::uint32_t n = 0; n < tree.size(); ++n) {
    tree.first_child[n] = tree.child_count[n] > 0 ? next_child : 0;
    next_child += tree.child_count[n];
  }
  return tree;
}

SphereTree read_sph_file(const std::string& path, const Vec3& offset_m) {
  // One open, without blocking, checked on its descriptor (core/file_read.hpp); read as it is
  // parsed, so a file of up to 1 GiB is never held whole.
  RegularFileStream in(path, kMaxModelFileBytes, ".sph file");
  try {
    SphereTree tree = read_sph(in, offset_m);
    in.throw_if_failed();
    return tree;
  } catch (const SphFormatError& e) {
    in.throw_if_failed();  // a read that failed ends the text early: that is the cause
    throw std::runtime_error(path + ": " + e.what());
  }
}

void write_sph(std::ostream& out, const SphereTree& tree, const Vec3& offset_m) {
  std::uint64_t branch = 1;
  for (const std::uint8_t c : tree.child_count) branch = std::max<std::uint64_t>(branch, c);
  const int levels = tree.height() + 1;
  const std::uint64_t slots = complete_tree_slots(levels, branch);
  if (slots == 0)
    throw std::invalid_argument("this tree (" + std::to_string(levels) + " levels, branching " + std::to_string(branch) +
                                ") needs more than " + std::to_string(kSphMaxSlots) + " .sph slots");
  std::vector<std::int64_t> node_of_slot(slots, -1);
  std::vector<std::uint64_t> slot_of_node(tree.size());
  slot_of_node[0] = 0;
  node_of_slot[0] = 0;
  for (std::uint32_t n = 0; n < tree.size(); ++n)
    for (std::uint32_t k = 0; k < tree.child_count[n]; ++k) {
      const std::uint64_t slot = slot_of_node[n] * branch + 1 + k;
      slot_of_node[tree.first_child[n] + k] = slot;
      node_of_slot[slot] = tree.first_child[n] + k;
    }
  out << levels << ' ' << branch << '\n';
  for (std::uint64_t s = 0; s < slots; ++s) {
    if (node_of_slot[s] < 0) {
      out << "0 0 0 -1 1\n";
      continue;
    }
    const auto n = static_cast<std::size_t>(node_of_slot[s]);
    const Vec3 c = tree.centre_m[n] - offset_m;
    out << format_number(c.x) << ' ' << format_number(c.y) << ' ' << format_number(c.z) << ' '
        << format_number(tree.radius_m[n]) << " 1\n";
  }
}

}  // namespace fovea
