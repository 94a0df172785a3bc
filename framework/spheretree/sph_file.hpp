#pragma once

#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>

#include "spheretree/sphere_tree.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// A .sph file that does not follow the format; `line` is 1-based.
class SphFormatError : public std::runtime_error {
 public:
  /// what() becomes "line N: message".
  SphFormatError(std::size_t line, const std::string& message)
      : std::runtime_error("line " + std::to_string(line) + ": " + message), line_(line) {}
  /// The 1-based line of the file where the problem is.
  std::size_t line() const { return line_; }

 private:
  std::size_t line_;
};

/// Slots a .sph file may declare (levels and branching factor): 10 million, so that a bad
/// header cannot make fovea allocate without bound.
inline constexpr std::uint64_t kSphMaxSlots = 10'000'000;

/// How far a used sphere of a .sph file may reach from the file's origin (the model's
/// centre), |centre| + radius, in metres: 1e9 m, the largest side a world box may have
/// (world.box_size_m). A tree holds a model of at most 1e6 m (model.size_m), so no useful
/// sphere comes near it, and the boxes and distances computed from spheres within it (with
/// positions inside the world) stay below 1e10 m, whose squares and sums are far from a
/// double's overflow: a radius of 1e308 made the broad phase's boxes NaN at frame 2.
inline constexpr double kSphMaxReach_m = 1e9;

/// Reads a sphere tree in the Sphere-Tree Construction Toolkit's .sph format (docs/formats.md):
/// a line `levels branch`, then one line `x y z r ...` per slot of the complete tree of that
/// branching factor, breadth first (the children of slot n are n*B+1 to n*B+B), a radius <= 0
/// marking an unused slot; extra numbers on a line and anything after the last slot are
/// ignored. The four numbers must be finite, and a used sphere must reach at most
/// kSphMaxReach_m from the origin. The file's centres are relative to the centre of the mesh's bounding box;
/// `offset_m` (that centre in model space, see model_bounds_centre_m) is added to each.
/// Unused slots, and used slots under an unused parent, are dropped. Throws SphFormatError.
SphereTree read_sph(std::istream& in, const Vec3& offset_m);
/// From a file; errors are "path: line N: ...", or FileReadError (core/file_read.hpp) for
/// a path that is not a regular file of at most kMaxModelFileBytes.
SphereTree read_sph_file(const std::string& path, const Vec3& offset_m);

/// Writes `tree` as the Toolkit writes trees: branching factor = the largest child count,
/// levels = height + 1, every slot of the complete tree (unused ones as `0 0 0 -1 1`), each
/// used one as `x y z r 1` with centres relative to `offset_m`. Throws std::invalid_argument
/// when the complete tree would exceed kSphMaxSlots.
void write_sph(std::ostream& out, const SphereTree& tree, const Vec3& offset_m);

/// Centre of the bounding box of the model's occupied voxels, in model space: the centre of
/// the mesh voxel_surface_mesh makes, hence the origin of .sph files built from it.
Vec3 model_bounds_centre_m(const VoxelModel& model);

}  // namespace fovea
