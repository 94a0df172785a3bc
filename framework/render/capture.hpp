#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace fovea {

/// An 8-bit RGB picture, top row first (as image files and viewers expect).
struct Image {
  int width_px = 0;   ///< pixels per row
  int height_px = 0;  ///< rows
  std::vector<std::uint8_t> rgb;  ///< width_px * height_px * 3 bytes
  /// The pixel at (x, y), y down from the top row.
  const std::uint8_t* at(int x_px, int y_px) const {
    return rgb.data() + (static_cast<std::size_t>(y_px) * static_cast<std::size_t>(width_px) + static_cast<std::size_t>(x_px)) * 3;
  }
};

/// Reads a rectangle of the current framebuffer, its corner (x_px, y_px) from the bottom-left
/// as OpenGL counts (OpenGL's rows run bottom-up; the Image's top-down).
Image read_framebuffer(int x_px, int y_px, int width_px, int height_px);

/// Writes `image` as a PNG (stb_image_write). Throws std::runtime_error naming the path when
/// it cannot be written; a partly written file is not left behind under that name.
void write_png(const std::filesystem::path& path, const Image& image);

/// The name of frame `frame`'s picture in a capture folder: frame_000042.png.
std::filesystem::path capture_file_name(std::int64_t frame);

}  // namespace fovea
