#include "render/capture.hpp"

#include <epoxy/gl.h>
#include <stb_image_write.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

namespace fovea {

Image read_framebuffer(int x_px, int y_px, int width_px, int height_px) {
  Image image;
  image.width_px = width_px;
  image.height_px = height_px;
  const std::size_t row = static_cast<std::size_t>(width_px) * 3;
  std::vector<std::uint8_t> bottom_up(row * static_cast<std::size_t>(height_px));
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x_px, y_px, width_px, height_px, GL_RGB, GL_UNSIGNED_BYTE, bottom_up.data());
  image.rgb.resize(bottom_up.size());
  for (int y = 0; y < height_px; ++y)
    std::memcpy(image.rgb.data() + static_cast<std::size_t>(y) * row,
                bottom_up.data() + static_cast<std::size_t>(height_px - 1 - y) * row, row);
  return image;
}

void write_png(const std::filesystem::path& path, const Image& image) {
  // Written under a temporary name and renamed, so a killed run never leaves a truncated
  // picture that looks like a finished one.
  // stb's deflate at its default level 8 took about 50 ms for a 1280x720 frame here;
  // level 2 is several times faster for files a little larger, which suits frame sequences.
  stbi_write_png_compression_level = 2;
  std::filesystem::path partial = path;
  partial += ".partial";
  if (stbi_write_png(partial.c_str(), image.width_px, image.height_px, 3, image.rgb.data(), image.width_px * 3) == 0) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw std::runtime_error("cannot write " + path.string());
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw std::runtime_error("cannot write " + path.string() + ": " + error.message());
  }
}

std::filesystem::path capture_file_name(std::int64_t frame) {
  char name[32];
  std::snprintf(name, sizeof name, "frame_%06lld.png", static_cast<long long>(frame));
  return name;
}

}  // namespace fovea
