#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "world/voxel_model.hpp"

namespace fovea {

/// A .vox file that does not follow the format; `offset` is the byte where the problem is.
class VoxFormatError : public std::runtime_error {
 public:
  /// what() becomes "byte N: message".
  VoxFormatError(std::size_t offset, const std::string& message)
      : std::runtime_error("byte " + std::to_string(offset) + ": " + message), offset_(offset) {}
  /// The 0-based byte offset in the file where the problem is.
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

/// The largest side MagicaVoxel writes, and the voxel cells all models of one file may hold
/// together (the world's budget): a file cannot make fovea allocate more than this.
inline constexpr int kVoxMaxSide = 256;
/// Voxel cells (x * y * z summed over a file's models) a file may declare: 2^27, about 134 million.
inline constexpr std::int64_t kVoxMaxCells = std::int64_t{1} << 27;

/// Reads a MagicaVoxel .vox file's models (chunks SIZE, XYZI and RGBA; PACK, scene, material
/// and other chunks are skipped). Each model keeps its colour indices and the file's palette,
/// or MagicaVoxel's default palette when the file has no RGBA chunk. Voxel size is 1 (a file
/// has no unit). Axes: MagicaVoxel's z is up, fovea's y, so fovea (x, y, z) is the file's
/// (x, z, size_y - 1 - y), a rotation (not a mirror). Throws VoxFormatError naming the byte
/// offset of any problem: a bad magic, a truncated chunk, sizes that disagree, coordinates
/// outside the model, absurd sizes.
std::vector<VoxelModel> read_vox(std::span<const std::uint8_t> bytes);

/// Reads a file from disk; errors are "path: byte N: ..." (std::runtime_error), or
/// FileReadError (core/file_read.hpp) for a path that is not a regular file of at most
/// kMaxModelFileBytes.
std::vector<VoxelModel> read_vox_file(const std::string& path);

/// Writes models as a MagicaVoxel .vox file (version 150: PACK when there are several,
/// SIZE and XYZI per model, RGBA when the first model has a palette), so built-in shapes can
/// be edited in MagicaVoxel. The inverse of read_vox's axes. Throws std::invalid_argument for
/// a model larger than kVoxMaxSide along an axis.
void write_vox(std::ostream& out, std::span<const VoxelModel> models);

/// MagicaVoxel's palette for files without an RGBA chunk: entry i is the RGBA colour (red in
/// the low byte) of colour index i; entry 0 is unused. It is a 6 x 6 x 6 colour cube without
/// black (indices 1 to 215) followed by ten-step ramps of red, green, blue and grey.
std::vector<std::uint32_t> magicavoxel_default_palette();

}  // namespace fovea
