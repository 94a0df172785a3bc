// Fuzz target: MagicaVoxel .vox files (spheretree/vox_file.hpp), the models a config's
// `model.file` names. Beyond "no crash": every file read_vox accepts is written back with
// write_vox and read again, and must give the same models (sizes, every cell's colour index,
// the palette).

#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "spheretree/vox_file.hpp"

namespace {

void check_same(const fovea::VoxelModel& a, const fovea::VoxelModel& b, std::size_t m) {
  const std::string model = "model " + std::to_string(m) + ": ";
  fovea::fuzz::check(a.dims() == b.dims(), model + "sizes differ after write_vox and read_vox");
  fovea::fuzz::check(a.palette() == b.palette(), model + "palettes differ after write_vox and read_vox");
  for (int z = 0; z < a.dims().z; ++z)
    for (int y = 0; y < a.dims().y; ++y)
      for (int x = 0; x < a.dims().x; ++x)
        if (a.colour_index(x, y, z) != b.colour_index(x, y, z))
          fovea::fuzz::fail(model + "cell (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) +
                            ") differs after write_vox and read_vox");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<fovea::VoxelModel> models;
  try {
    models = fovea::read_vox(std::span<const std::uint8_t>(data, size));
  } catch (const fovea::VoxFormatError&) {
    return 0;  // refused with the byte offset: what the reader is for
  }
  std::ostringstream written;
  fovea::write_vox(written, models);
  const std::string bytes = written.str();
  std::vector<fovea::VoxelModel> again;
  try {
    again = fovea::read_vox(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  } catch (const fovea::VoxFormatError& e) {
    fovea::fuzz::fail(std::string("read_vox refuses what write_vox wrote: ") + e.what());
  }
  fovea::fuzz::check(again.size() == models.size(), "a different number of models after write_vox and read_vox");
  for (std::size_t m = 0; m < models.size(); ++m) check_same(models[m], again[m], m);
  return 0;
}
