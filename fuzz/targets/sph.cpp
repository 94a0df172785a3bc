// Fuzz target: sphere trees in the Sphere-Tree Construction Toolkit's .sph format
// (spheretree/sph_file.hpp), what a config's `sphere_tree.file` names. Beyond "no crash":
// a tree read_sph accepts is written back with write_sph and read again; writing that gives
// the same text (the written form is a fixed point: no sphere lost, moved or added), and
// every sphere it accepts reaches at most kSphMaxReach_m from the origin.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "fuzz_check.hpp"
#include "spheretree/sph_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fovea::Vec3 offset_m(0.0);
  fovea::SphereTree tree;
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    tree = fovea::read_sph(in, offset_m);
  } catch (const fovea::SphFormatError&) {
    return 0;  // refused with the line: what the reader is for
  }
  // Every sphere accepted stays within reach, so no box made from it overflows (issue 42).
  for (std::size_t i = 0; i < tree.size(); ++i)
    fovea::fuzz::check(std::hypot(tree.centre_m[i].x, tree.centre_m[i].y, tree.centre_m[i].z) + tree.radius_m[i] <=
                           fovea::kSphMaxReach_m,
                       "read_sph accepted a sphere reaching past kSphMaxReach_m");
  std::ostringstream first;
  try {
    fovea::write_sph(first, tree, offset_m);
  } catch (const std::invalid_argument&) {
    // A tree whose complete form exceeds kSphMaxSlots cannot be written; the reader bounds
    // the slots it reads by the same limit, so this cannot happen for a tree it accepted.
    fovea::fuzz::fail("write_sph refuses a tree read_sph accepted");
  }
  fovea::SphereTree again;
  try {
    std::istringstream in(first.str());
    again = fovea::read_sph(in, offset_m);
  } catch (const fovea::SphFormatError& e) {
    fovea::fuzz::fail(std::string("read_sph refuses what write_sph wrote: ") + e.what());
  }
  fovea::fuzz::check(again.size() == tree.size(), "a different number of spheres after write_sph and read_sph");
  std::ostringstream second;
  fovea::write_sph(second, again, offset_m);
  fovea::fuzz::check(second.str() == first.str(), "write_sph(read_sph(written)) differs from written");
  return 0;
}
