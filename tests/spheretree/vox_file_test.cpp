#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

#include "core/rng.hpp"
#include "spheretree/vox_file.hpp"

using namespace fovea;

namespace {

/// A reference .vox writer, written from the format description independently of the
/// reader: header, MAIN, then SIZE/XYZI pairs and an optional RGBA chunk.
struct VoxWriter {
  std::vector<std::uint8_t> bytes;

  void id(const char* four) { bytes.insert(bytes.end(), four, four + 4); }
  void int32(std::int32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * i)));
  }
  void chunk(const char* four, const std::vector<std::uint8_t>& content) {
    id(four);
    int32(static_cast<std::int32_t>(content.size()));
    int32(0);
    bytes.insert(bytes.end(), content.begin(), content.end());
  }
  static std::vector<std::uint8_t> ints(std::initializer_list<std::int32_t> values) {
    VoxWriter w;
    for (const auto v : values) w.int32(v);
    return w.bytes;
  }
  struct Voxel { int x, y, z, colour; };
  static std::vector<std::uint8_t> xyzi(const std::vector<Voxel>& voxels) {
    std::vector<std::uint8_t> content = ints({static_cast<std::int32_t>(voxels.size())});
    for (const auto& v : voxels)
      for (const int b : {v.x, v.y, v.z, v.colour}) content.push_back(static_cast<std::uint8_t>(b));
    return content;
  }
  /// The whole file around `children` (the bytes of MAIN's child chunks).
  static std::vector<std::uint8_t> file(const std::vector<std::uint8_t>& children) {
    VoxWriter w;
    w.id("VOX ");
    w.int32(150);
    w.id("MAIN");
    w.int32(0);
    w.int32(static_cast<std::int32_t>(children.size()));
    w.bytes.insert(w.bytes.end(), children.begin(), children.end());
    return w.bytes;
  }
};

std::vector<std::uint8_t> two_model_children() {
  VoxWriter w;
  w.chunk("PACK", VoxWriter::ints({2}));
  w.chunk("SIZE", VoxWriter::ints({3, 4, 5}));
  w.chunk("XYZI", VoxWriter::xyzi({{0, 0, 0, 1}, {2, 3, 4, 7}, {1, 0, 2, 255}}));
  w.chunk("SIZE", VoxWriter::ints({1, 1, 1}));
  w.chunk("XYZI", VoxWriter::xyzi({{0, 0, 0, 9}}));
  w.chunk("nTRN", {1, 2, 3, 4, 5});  // scene chunks are skipped
  return w.bytes;
}

std::string error_of(const std::vector<std::uint8_t>& bytes) {
  try {
    read_vox(bytes);
  } catch (const VoxFormatError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE(".vox: models, colours and axes read back from a reference writer", "[spheretree][vox]") {
  const auto models = read_vox(VoxWriter::file(two_model_children()));
  REQUIRE(models.size() == 2);
  const VoxelModel& m = models[0];
  // File size 3 x 4 x 5 (z up) becomes 3 x 5 x 4 (y up); (x, y, z) -> (x, z, 3 - y).
  CHECK(m.dims() == IVec3(3, 5, 4));
  CHECK(m.occupied_count() == 3);
  CHECK(m.colour_index(0, 0, 3) == 1);
  CHECK(m.colour_index(2, 4, 0) == 7);
  CHECK(m.colour_index(1, 2, 3) == 255);
  CHECK(m.voxel_size_m() == 1.0);
  CHECK(models[1].dims() == IVec3(1, 1, 1));
  CHECK(models[1].colour_index(0, 0, 0) == 9);
  // Without an RGBA chunk: MagicaVoxel's default palette (values from its specification).
  CHECK(m.palette() == magicavoxel_default_palette());
  const auto& p = m.palette();
  CHECK(p[0] == 0x00000000u);
  CHECK(p[1] == 0xffffffffu);
  CHECK(p[2] == 0xffccffffu);
  CHECK(p[36] == 0xff0000ffu);
  CHECK(p[215] == 0xff330000u);
  CHECK(p[216] == 0xff0000eeu);
  CHECK(p[226] == 0xff00ee00u);
  CHECK(p[236] == 0xffee0000u);
  CHECK(p[255] == 0xff111111u);
}

TEST_CASE(".vox: an RGBA chunk maps its entry i to colour index i + 1", "[spheretree][vox]") {
  std::vector<std::uint8_t> palette(1024);
  for (std::size_t i = 0; i < 256; ++i) {
    palette[4 * i] = static_cast<std::uint8_t>(i);  // red = entry number
    palette[4 * i + 3] = 255;
  }
  VoxWriter w;
  w.chunk("SIZE", VoxWriter::ints({1, 1, 1}));
  w.chunk("XYZI", VoxWriter::xyzi({{0, 0, 0, 5}}));
  w.chunk("RGBA", palette);
  const auto models = read_vox(VoxWriter::file(w.bytes));
  CHECK(models[0].palette()[5] == 0xff000004u);
  CHECK(models[0].palette()[255] == 0xff0000feu);
}

TEST_CASE(".vox: each malformed file gets its error and byte offset", "[spheretree][vox]") {
  const auto good = VoxWriter::file(two_model_children());
  // Offsets: header 8, MAIN header 12, so the first child chunk (PACK) starts at byte 20.
  auto bad_magic = good;
  std::memcpy(bad_magic.data(), "VOZ ", 4);
  CHECK(error_of(bad_magic) == "byte 0: not a MagicaVoxel file: expected 'VOX ', found 'VOZ '");
  CHECK(error_of({'V', 'O', 'X', ' ', 150, 0}) == "byte 4: file ends early: the version needs 4 bytes, 2 remain");

  auto truncated = good;
  truncated.resize(good.size() - 10);
  CHECK(error_of(truncated).rfind("byte 8: MAIN claims 0 + ", 0) == 0);

  VoxWriter w;
  w.chunk("SIZE", VoxWriter::ints({2, 2, 2}));
  w.chunk("XYZI", VoxWriter::xyzi({{0, 0, 0, 1}, {1, 1, 1, 1}}));
  auto disagree = VoxWriter::file(w.bytes);
  disagree[20 + 24 + 12] = 9;  // XYZI says 9 voxels, holds 2
  CHECK(error_of(disagree) == "byte 56: XYZI says 9 voxels (36 bytes) but holds 8 bytes");

  VoxWriter outside;
  outside.chunk("SIZE", VoxWriter::ints({2, 2, 2}));
  outside.chunk("XYZI", VoxWriter::xyzi({{0, 0, 0, 1}, {1, 2, 0, 1}}));
  CHECK(error_of(VoxWriter::file(outside.bytes)) == "byte 64: voxel 1 at (1, 2, 0) lies outside the 2 x 2 x 2 model");

  VoxWriter absurd;
  absurd.chunk("SIZE", VoxWriter::ints({16, 300, 16}));
  CHECK(error_of(VoxWriter::file(absurd.bytes)) == "byte 32: model size 16 x 300 x 16: each side must be 1 to 256");
  VoxWriter zero;
  zero.chunk("SIZE", VoxWriter::ints({0, 4, 4}));
  CHECK(error_of(VoxWriter::file(zero.bytes)) == "byte 32: model size 0 x 4 x 4: each side must be 1 to 256");

  VoxWriter lonely;
  lonely.chunk("SIZE", VoxWriter::ints({2, 2, 2}));
  lonely.chunk("SIZE", VoxWriter::ints({2, 2, 2}));
  CHECK(error_of(VoxWriter::file(lonely.bytes)) == "byte 20: SIZE without the XYZI chunk that must follow it");
  VoxWriter orphan;
  orphan.chunk("XYZI", VoxWriter::xyzi({{0, 0, 0, 1}}));
  CHECK(error_of(VoxWriter::file(orphan.bytes)) == "byte 20: XYZI without a SIZE chunk before it");

  VoxWriter empty_colour;
  empty_colour.chunk("SIZE", VoxWriter::ints({2, 2, 2}));
  empty_colour.chunk("XYZI", VoxWriter::xyzi({{0, 0, 0, 0}}));
  CHECK(error_of(VoxWriter::file(empty_colour.bytes)) == "byte 63: voxel 0 has colour index 0, which means empty");

  VoxWriter lying_chunk;
  lying_chunk.id("NOTE");
  lying_chunk.int32(1000);
  lying_chunk.int32(0);
  CHECK(error_of(VoxWriter::file(lying_chunk.bytes)) == "byte 20: chunk 'NOTE' claims 1000 + 0 bytes, 0 remain");

  // Many large models: refused before the allocation that would exhaust memory.
  VoxWriter huge;
  for (int i = 0; i < 9; ++i) {
    huge.chunk("SIZE", VoxWriter::ints({256, 256, 256}));
    huge.chunk("XYZI", VoxWriter::xyzi({}));
  }
  CHECK(error_of(VoxWriter::file(huge.bytes)) == "byte 352: the models of this file need more than 134217728 voxel cells");

  CHECK(error_of(VoxWriter::file({})) == "byte 20: the file holds no model (no SIZE and XYZI chunks)");
}

TEST_CASE(".vox: random corruption gives an error or a valid model, never a crash", "[spheretree][vox]") {
  const auto good = VoxWriter::file(two_model_children());
  Rng rng(99);
  int errors = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    auto bytes = good;
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int e = 0; e < edits; ++e) {
      const auto at = static_cast<std::size_t>(rng.below(bytes.size()));
      if (rng.uniform() < 0.2)
        bytes.resize(at);
      else
        bytes[at] = static_cast<std::uint8_t>(rng.below(256));
      if (bytes.empty()) break;
    }
    try {
      const auto models = read_vox(bytes);
      for (const auto& m : models) REQUIRE(glm::all(glm::greaterThan(m.dims(), IVec3(0))));
    } catch (const VoxFormatError&) {
      ++errors;
    }
  }
  CHECK(errors > 1000);
}

TEST_CASE(".vox: fovea's writer and reader are inverse, colours and palette included", "[spheretree][vox]") {
  VoxelModel a({3, 5, 2}, 1.0);
  a.set_colour_index(0, 0, 0, 3);
  a.set_colour_index(2, 4, 1, 200);
  a.set_colour_index(1, 2, 0, 1);
  std::vector<std::uint32_t> palette = magicavoxel_default_palette();
  palette[200] = 0xff123456u;
  a.set_palette(palette);
  VoxelModel b({1, 2, 1}, 1.0);
  b.set(0, 1, 0, true);
  const std::vector<VoxelModel> models = {a, b};
  std::ostringstream out;
  write_vox(out, models);
  const std::string text = out.str();
  const auto back = read_vox(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  REQUIRE(back.size() == 2);
  CHECK(back[0].dims() == a.dims());
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 3; ++x) CHECK(back[0].colour_index(x, y, z) == a.colour_index(x, y, z));
  CHECK(back[0].palette()[200] == 0xff123456u);
  CHECK(back[1].occupied(0, 1, 0));
  CHECK(back[1].occupied_count() == 1);
}
