#include "core/file_read.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace fovea {
namespace {

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30) && bytes % (std::uint64_t{1} << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (std::uint64_t{1} << 20) && bytes % (std::uint64_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

/// "a config", "an experiment".
std::string with_article(std::string_view what) {
  const bool vowel = !what.empty() && std::string_view("aeiou").find(what.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(what);
}

[[noreturn]] void refuse(const std::string& path, std::string_view what, const std::string& why) {
  throw FileReadError(path + ": cannot read" + (what.empty() ? "" : " the " + std::string(what)) + ": " + why);
}

}  // namespace

void check_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  // status() reports a missing file both as its type and as an error.
  if (status.type() == fs::file_type::not_found) refuse(path, what, "no such file");
  if (error) refuse(path, what, error.message());
  if (status.type() == fs::file_type::directory) refuse(path, what, "it is a folder, not a file");
  if (status.type() != fs::file_type::regular) refuse(path, what, "not a regular file (a device, a pipe or a socket)");
  const std::uintmax_t size = fs::file_size(path, error);
  if (error) refuse(path, what, error.message());
  if (size > max_bytes)
    refuse(path, what, "it is " + std::to_string(size) + " bytes, more than the " + size_text(max_bytes) + " " +
                           (what.empty() ? "fovea reads" : with_article(what) + " may be"));
}

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  check_regular_file(path, max_bytes, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, what, std::strerror(errno));
  // Read at most max_bytes + 1 whatever the size said, so a file that grows meanwhile is
  // still bounded.
  std::string bytes;
  std::array<char, 65536> chunk{};
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    bytes.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (bytes.size() > max_bytes)
      refuse(path, what, "it grew past the " + size_text(max_bytes) + " " +
                             (what.empty() ? "fovea reads" : with_article(what) + " may be"));
  }
  if (in.bad()) refuse(path, what, std::strerror(errno));
  return bytes;
}

}  // namespace fovea
