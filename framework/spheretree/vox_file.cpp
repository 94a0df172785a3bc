#include "spheretree/vox_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/file_read.hpp"

namespace fovea {
namespace {

/// Little-endian reader over the file's bytes that never reads past the end.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  std::size_t offset() const { return offset_; }
  std::size_t remaining() const { return bytes_.size() - offset_; }
  void seek(std::size_t offset) { offset_ = offset; }

  std::int32_t int32(const char* what) {
    need(4, what);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{bytes_[offset_ + static_cast<std::size_t>(i)]} << (8 * i);
    offset_ += 4;
    return static_cast<std::int32_t>(v);
  }
  std::string id() {
    need(4, "a chunk id");
    std::string s(reinterpret_cast<const char*>(bytes_.data() + offset_), 4);
    offset_ += 4;
    return s;
  }
  std::uint8_t byte() { return bytes_[offset_++]; }  // callers check the room first
  void need(std::size_t count, const char* what) const {
    if (remaining() < count)
      throw VoxFormatError(offset_, std::string("file ends early: ") + what + " needs " + std::to_string(count) +
                                        " bytes, " + std::to_string(remaining()) + " remain");
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t offset_ = 0;
};

/// A chunk id as text in messages, non-printable bytes escaped.
std::string printable(const std::string& id) {
  std::string s;
  for (const char c : id) {
    if (c >= 32 && c < 127) {
      s += c;
    } else {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(c));
      s += buffer;
    }
  }
  return "'" + s + "'";
}

}  // namespace

std::vector<std::uint32_t> magicavoxel_default_palette() {
  std::vector<std::uint32_t> palette(256, 0);
  const auto rgba = [](std::uint32_t r, std::uint32_t g, std::uint32_t b) { return 0xff000000u | (b << 16) | (g << 8) | r; };
  std::size_t i = 1;
  // The colour cube, red slowest and blue fastest, each from 0xff down in steps of 0x33.
  for (int r = 5; r >= 0; --r)
    for (int g = 5; g >= 0; --g)
      for (int b = 5; b >= 0; --b)
        if (r + g + b > 0) palette[i++] = rgba(0x33u * r, 0x33u * g, 0x33u * b);
  // Ramps: 0xee, 0xdd, 0xbb, 0xaa, 0x88, 0x77, 0x55, 0x44, 0x22, 0x11 (the cube's steps left out).
  const std::uint32_t ramp[10] = {0xee, 0xdd, 0xbb, 0xaa, 0x88, 0x77, 0x55, 0x44, 0x22, 0x11};
  for (const std::uint32_t v : ramp) palette[i++] = rgba(v, 0, 0);
  for (const std::uint32_t v : ramp) palette[i++] = rgba(0, v, 0);
  for (const std::uint32_t v : ramp) palette[i++] = rgba(0, 0, v);
  for (const std::uint32_t v : ramp) palette[i++] = rgba(v, v, v);
  return palette;
}

std::vector<VoxelModel> read_vox(std::span<const std::uint8_t> bytes) {
  Reader in(bytes);
  const std::string magic = in.id();
  if (magic != "VOX ") throw VoxFormatError(0, "not a MagicaVoxel file: expected 'VOX ', found " + printable(magic));
  in.int32("the version");

  // The MAIN chunk holds all others as its children.
  const std::size_t main_at = in.offset();
  if (in.id() != "MAIN") throw VoxFormatError(main_at, "expected the MAIN chunk");
  const std::int32_t main_content = in.int32("MAIN's content size");
  const std::int32_t main_children = in.int32("MAIN's children size");
  if (main_content < 0 || main_children < 0 ||
      static_cast<std::size_t>(main_content) + static_cast<std::size_t>(main_children) > in.remaining())
    throw VoxFormatError(main_at, "MAIN claims " + std::to_string(main_content) + " + " + std::to_string(main_children) +
                                      " bytes, " + std::to_string(in.remaining()) + " remain");
  in.seek(in.offset() + static_cast<std::size_t>(main_content));
  const std::size_t end = in.offset() + static_cast<std::size_t>(main_children);

  std::vector<VoxelModel> models;
  std::vector<std::uint32_t> palette = magicavoxel_default_palette();
  IVec3 pending_size(0);  // from a SIZE chunk, waiting for its XYZI
  std::size_t pending_at = 0;
  std::int64_t cells = 0;
  while (in.offset() < end) {
    const std::size_t chunk_at = in.offset();
    if (end - chunk_at < 12) throw VoxFormatError(chunk_at, "a chunk header needs 12 bytes, " + std::to_string(end - chunk_at) + " remain");
    const std::string id = in.id();
    const std::int32_t content = in.int32("the chunk's content size");
    const std::int32_t children = in.int32("the chunk's children size");
    const std::size_t room = end - in.offset();
    if (content < 0 || children < 0 || static_cast<std::size_t>(content) + static_cast<std::size_t>(children) > room)
      throw VoxFormatError(chunk_at, "chunk " + printable(id) + " claims " + std::to_string(content) + " + " +
                                         std::to_string(children) + " bytes, " + std::to_string(room) + " remain");
    const std::size_t content_at = in.offset();
    const std::size_t next = content_at + static_cast<std::size_t>(content) + static_cast<std::size_t>(children);

    if (id == "SIZE") {
      if (pending_size != IVec3(0)) throw VoxFormatError(pending_at, "SIZE without the XYZI chunk that must follow it");
      if (content < 12) throw VoxFormatError(chunk_at, "SIZE needs 12 bytes of content, has " + std::to_string(content));
      for (int a = 0; a < 3; ++a) pending_size[a] = in.int32("a size");
      if (glm::any(glm::lessThan(pending_size, IVec3(1))) || glm::any(glm::greaterThan(pending_size, IVec3(kVoxMaxSide))))
        throw VoxFormatError(content_at, "model size " + std::to_string(pending_size.x) + " x " + std::to_string(pending_size.y) +
                                             " x " + std::to_string(pending_size.z) + ": each side must be 1 to " +
                                             std::to_string(kVoxMaxSide));
      cells += std::int64_t{pending_size.x} * pending_size.y * pending_size.z;
      if (cells > kVoxMaxCells)
        throw VoxFormatError(content_at, "the models of this file need more than " + std::to_string(kVoxMaxCells) + " voxel cells");
      pending_at = chunk_at;
    } else if (id == "XYZI") {
      if (pending_size == IVec3(0)) throw VoxFormatError(chunk_at, "XYZI without a SIZE chunk before it");
      if (content < 4) throw VoxFormatError(chunk_at, "XYZI needs at least 4 bytes of content, has " + std::to_string(content));
      const std::int32_t count = in.int32("the voxel count");
      if (count < 0 || 4 + 4 * static_cast<std::int64_t>(count) > content)
        throw VoxFormatError(content_at, "XYZI says " + std::to_string(count) + " voxels (" +
                                             std::to_string(4 * static_cast<std::int64_t>(count)) + " bytes) but holds " +
                                             std::to_string(content - 4) + " bytes");
      // MagicaVoxel z up -> fovea y up: (x, y, z) -> (x, z, size_y - 1 - y).
      const IVec3 file_size = pending_size;
      VoxelModel model(IVec3(file_size.x, file_size.z, file_size.y), 1.0);
      for (std::int32_t v = 0; v < count; ++v) {
        const std::size_t at = in.offset();
        const int x = in.byte(), y = in.byte(), z = in.byte(), colour = in.byte();
        if (x >= file_size.x || y >= file_size.y || z >= file_size.z)
          throw VoxFormatError(at, "voxel " + std::to_string(v) + " at (" + std::to_string(x) + ", " + std::to_string(y) + ", " +
                                       std::to_string(z) + ") lies outside the " + std::to_string(file_size.x) + " x " +
                                       std::to_string(file_size.y) + " x " + std::to_string(file_size.z) + " model");
        if (colour == 0) throw VoxFormatError(at + 3, "voxel " + std::to_string(v) + " has colour index 0, which means empty");
        model.set_colour_index(x, z, file_size.y - 1 - y, static_cast<std::uint8_t>(colour));
      }
      models.push_back(std::move(model));
      pending_size = IVec3(0);
    } else if (id == "RGBA") {
      if (content < 1024) throw VoxFormatError(chunk_at, "RGBA needs 1024 bytes of content, has " + std::to_string(content));
      // Entry i of the chunk is the colour of index i + 1 (the last entry is unused).
      for (std::size_t i = 0; i < 255; ++i) {
        std::uint32_t c = 0;
        for (int b = 0; b < 4; ++b) c |= std::uint32_t{in.byte()} << (8 * b);
        palette[i + 1] = c;
      }
    }
    // Every other chunk (PACK, nTRN, nGRP, nSHP, MATL, LAYR, rOBJ, rCAM, NOTE, IMAP, ...) is
    // skipped whole, children included.
    in.seek(next);
  }
  if (pending_size != IVec3(0)) throw VoxFormatError(pending_at, "SIZE without the XYZI chunk that must follow it");
  if (models.empty()) throw VoxFormatError(end, "the file holds no model (no SIZE and XYZI chunks)");
  for (auto& m : models) m.set_palette(palette);
  return models;
}

void write_vox(std::ostream& out, std::span<const VoxelModel> models) {
  std::vector<std::uint8_t> children;
  const auto int32 = [](std::vector<std::uint8_t>& bytes, std::int64_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
  };
  const auto chunk = [&](const char* id, const std::vector<std::uint8_t>& content) {
    children.insert(children.end(), id, id + 4);
    int32(children, static_cast<std::int64_t>(content.size()));
    int32(children, 0);
    children.insert(children.end(), content.begin(), content.end());
  };
  if (models.size() > 1) {
    std::vector<std::uint8_t> pack;
    int32(pack, static_cast<std::int64_t>(models.size()));
    chunk("PACK", pack);
  }
  for (const VoxelModel& m : models) {
    const IVec3 d = m.dims();
    if (glm::any(glm::greaterThan(d, IVec3(kVoxMaxSide))))
      throw std::invalid_argument("a .vox model has at most " + std::to_string(kVoxMaxSide) + " voxels per side");
    // fovea (x, y, z), y up -> file (x, d.z - 1 - z, y), z up: read_vox's mapping reversed.
    std::vector<std::uint8_t> size;
    for (const int v : {d.x, d.z, d.y}) int32(size, v);
    chunk("SIZE", size);
    std::vector<std::uint8_t> xyzi;
    int32(xyzi, m.occupied_count());
    m.for_each_occupied([&](int x, int y, int z) {
      for (const int v : {x, d.z - 1 - z, y}) xyzi.push_back(static_cast<std::uint8_t>(v));
      xyzi.push_back(m.colour_index(x, y, z));
    });
    chunk("XYZI", xyzi);
  }
  if (!models.empty() && models.front().palette().size() == 256) {
    std::vector<std::uint8_t> rgba;
    for (std::size_t i = 1; i <= 256; ++i) int32(rgba, i < 256 ? models.front().palette()[i] : 0);
    chunk("RGBA", rgba);
  }
  std::vector<std::uint8_t> file = {'V', 'O', 'X', ' '};
  int32(file, 150);
  file.insert(file.end(), {'M', 'A', 'I', 'N'});
  int32(file, 0);
  int32(file, static_cast<std::int64_t>(children.size()));
  file.insert(file.end(), children.begin(), children.end());
  out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
}

std::vector<VoxelModel> read_vox_file(const std::string& path) {
  const std::string text = read_regular_file(path, kMaxModelFileBytes, ".vox file");
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  try {
    return read_vox(bytes);
  } catch (const VoxFormatError& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace fovea
